#include "memory/effect_queue.h"

#include <algorithm>

namespace npusim {

void EffectQueue::schedule(Cycle time, DeferredEffect* effect, std::uint32_t phase) {
    m_heap.push_back(Entry{time, m_next_sequence++, effect, phase});
    std::push_heap(m_heap.begin(), m_heap.end(), Later{});
}

void EffectQueue::apply_before(Cycle horizon) {
    while (!m_heap.empty() && m_heap.front().time < horizon) {
        std::pop_heap(m_heap.begin(), m_heap.end(), Later{});
        const Entry entry = m_heap.back();
        m_heap.pop_back();
        entry.effect->apply(entry.phase);
    }
}

void EffectQueue::apply_all() {
    while (!m_heap.empty()) {
        std::pop_heap(m_heap.begin(), m_heap.end(), Later{});
        const Entry entry = m_heap.back();
        m_heap.pop_back();
        entry.effect->apply(entry.phase);
    }
}

}  // namespace npusim
