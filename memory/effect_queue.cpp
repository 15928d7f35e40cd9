#include "memory/effect_queue.h"

#include <algorithm>
#include <bit>

namespace npusim {

EffectQueue::EffectQueue() : m_slots(kSlots) {}

void EffectQueue::schedule(Cycle time, DeferredEffect* effect, std::uint32_t phase) {
    ++m_pending;
    const std::uint64_t sequence = m_next_sequence++;
    if (time < m_base) {
        // Behind an applied horizon (cores never do this; kept exact for safety): applied
        // before everything in the ring, as a single (time, sequence) heap would.
        m_late.push_back(Entry{time, sequence, effect, phase});
        std::push_heap(m_late.begin(), m_late.end(), Later{});
    } else if (time - m_base >= kSlots) {
        m_far.push_back(Entry{time, sequence, effect, phase});
        std::push_heap(m_far.begin(), m_far.end(), Later{});
    } else {
        push_ring(time, effect, phase);
    }
}

void EffectQueue::push_ring(Cycle time, DeferredEffect* effect, std::uint32_t phase) {
    std::uint32_t index = m_free;
    if (index != kNone) {
        m_free = m_nodes[index].next;
        m_nodes[index] = Node{effect, phase, kNone};
    } else {
        index = static_cast<std::uint32_t>(m_nodes.size());
        m_nodes.push_back(Node{effect, phase, kNone});
    }
    // Appending keeps each cycle's list in sequence order: far effects enter a cycle's list
    // (in heap order) before any effect can be scheduled into it directly.
    const std::size_t s = time & (kSlots - 1);
    Slot& slot = m_slots[s];
    if (slot.tail == kNone) {
        slot.head = index;
        m_occupied[s / 64] |= std::uint64_t{1} << (s % 64);
    } else {
        m_nodes[slot.tail].next = index;
    }
    slot.tail = index;
    ++m_in_ring;
}

void EffectQueue::advance_to(Cycle base) {
    m_base = base;
    while (!m_far.empty() && m_far.front().time - m_base < kSlots) {
        std::pop_heap(m_far.begin(), m_far.end(), Later{});
        const Entry entry = m_far.back();
        m_far.pop_back();
        push_ring(entry.time, entry.effect, entry.phase);
    }
}

bool EffectQueue::find_occupied(Cycle from, Cycle to, Cycle& found) const {
    Cycle t = from;
    while (t < to) {
        const std::size_t s = t & (kSlots - 1);
        const std::uint64_t bits = m_occupied[s / 64] >> (s % 64);
        if (bits != 0) {
            found = t + static_cast<Cycle>(std::countr_zero(bits));
            return found < to;
        }
        t += 64 - s % 64;
    }
    return false;
}

void EffectQueue::apply_slot(Cycle time) {
    const std::size_t s = time & (kSlots - 1);
    Slot& slot = m_slots[s];
    while (slot.head != kNone) {
        const std::uint32_t index = slot.head;
        const Node node = m_nodes[index];
        slot.head = node.next;
        if (slot.head == kNone) slot.tail = kNone;
        m_nodes[index].next = m_free;
        m_free = index;
        --m_in_ring;
        --m_pending;
        node.effect->apply(node.phase);  // may schedule: the node is copied and freed first
    }
    m_occupied[s / 64] &= ~(std::uint64_t{1} << (s % 64));
}

void EffectQueue::apply_late(Cycle horizon) {
    while (!m_late.empty() && m_late.front().time < horizon) {
        std::pop_heap(m_late.begin(), m_late.end(), Later{});
        const Entry entry = m_late.back();
        m_late.pop_back();
        --m_pending;
        entry.effect->apply(entry.phase);
    }
}

void EffectQueue::apply_before(Cycle horizon) {
    apply_late(horizon);
    while (m_base < horizon) {
        if (m_in_ring == 0) {  // jump straight to the horizon or the next far effect
            advance_to(m_far.empty() ? horizon : std::min(horizon, m_far.front().time));
            continue;
        }
        const Cycle limit = std::min<Cycle>(horizon, m_base + kSlots);
        Cycle t = 0;
        if (!find_occupied(m_base, limit, t)) {
            advance_to(limit);
            continue;
        }
        advance_to(t);
        apply_slot(t);
        advance_to(t + 1);
        if (!m_late.empty()) apply_late(horizon);
    }
}

void EffectQueue::apply_all() {
    while (m_pending > 0) {
        if (!m_late.empty()) {
            apply_late(m_late.front().time + 1);
            continue;
        }
        Cycle t = 0;
        if (m_in_ring > 0 && find_occupied(m_base, m_base + kSlots, t)) {
            apply_before(t + 1);
        } else if (!m_far.empty()) {
            apply_before(m_far.front().time + 1);
        } else {
            break;  // unreachable: every pending effect is late, in the ring or far
        }
    }
}

}  // namespace npusim
