// Vector clocks over the checker's agents (one per pipe of a block, shared by the successive
// blocks of a core that are ordered anyway, plus the scalar unit's store buffer, the host and
// each stream).
//
// A block's clocks mostly know the block's own agents, whose ids are consecutive, and flags
// copy and join those clocks on every SetFlag and WaitFlag. So a clock keeps a dense window
// of kWindow agents [base, base + kWindow) (focus() places it: the checker puts a block's
// agents there) and a sorted list of the other non-zero entries. Two clocks with the same
// window join elementwise over it, and a lookup inside it is an index.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "base/small_vector.h"

namespace npusim {

using AgentId = std::uint32_t;
using EpochCount = std::uint32_t;

// An entry of a clock outside its window.
struct ClockEntry {
    AgentId agent = 0;
    EpochCount epoch = 0;
};

class VectorClock final {
public:
    static constexpr AgentId kWindow = 8;

    EpochCount get(AgentId agent) const {
        const AgentId offset = agent - m_base;  // below the window: wraps to a large value
        if (offset < kWindow) return m_window[offset];
        const Entry* it = find(agent);
        return it != m_entries.end() && it->agent == agent ? it->epoch : 0;
    }
    void set(AgentId agent, EpochCount value) {
        const AgentId offset = agent - m_base;
        if (offset < kWindow) {
            m_window[offset] = value;
        } else {
            Entry* it = find(agent);
            if (it != m_entries.end() && it->agent == agent) {
                it->epoch = value;
            } else {
                m_entries.insert(static_cast<std::size_t>(it - m_entries.begin()), {agent, value});
            }
        }
        ++m_version;
    }
    void raise(AgentId agent, EpochCount value) {
        if (raise_quietly(agent, value)) ++m_version;
    }
    /// this = max(this, other), elementwise. Over a shared window: one elementwise pass.
    /// The other entries in one pass when `other` knows no agent this clock lacks;
    /// otherwise the missing ones are merged in from the back, in place. Allocates only to
    /// grow.
    void join(const VectorClock& other) {
        if (&other == this) return;
        if (other.m_base != m_base) {
            join_other_window(other);
            return;
        }
        bool raised = join_window(other.m_window);
        if (!other.m_entries.empty()) {
            // Nearly always one entry each, for the same agent (the host).
            if (other.m_entries.size() == 1 && m_entries.size() == 1 &&
                other.m_entries[0].agent == m_entries[0].agent) {
                if (other.m_entries[0].epoch > m_entries[0].epoch) {
                    m_entries[0].epoch = other.m_entries[0].epoch;
                    raised = true;
                }
            } else {
                raised = join_entries(other) || raised;
            }
        }
        if (raised) ++m_version;
    }
    /// Moves the window to [base, base + kWindow); every agent keeps its epoch. Clocks that
    /// join each other often should share it.
    void focus(AgentId base) {
        if (base == m_base) return;
        std::vector<Entry>& all = scratch();
        all_entries(all);
        m_window.fill(0);
        m_base = base;
        // `all` is sorted: the entries outside the new window keep their order.
        std::size_t kept = 0;
        for (const Entry& e : all) {
            const AgentId offset = e.agent - m_base;
            if (offset < kWindow) {
                m_window[offset] = e.epoch;
            } else {
                all[kept++] = e;
            }
        }
        m_entries.assign(all.data(), kept);
    }
    AgentId window_base() const { return m_base; }
    /// Incremented on every change: lets a consumer skip a join it has already done.
    std::uint64_t version() const { return m_version; }

private:
    using Entry = ClockEntry;
    Entry* find(AgentId agent) {
        return std::lower_bound(m_entries.begin(), m_entries.end(), agent,
                                [](const Entry& e, AgentId id) { return e.agent < id; });
    }
    const Entry* find(AgentId agent) const {
        return std::lower_bound(m_entries.begin(), m_entries.end(), agent,
                                [](const Entry& e, AgentId id) { return e.agent < id; });
    }

    // raise() without counting the change; returns whether it changed anything.
    bool raise_quietly(AgentId agent, EpochCount value) {
        const AgentId offset = agent - m_base;
        if (offset < kWindow) {
            if (m_window[offset] >= value) return false;
            m_window[offset] = value;
            return true;
        }
        Entry* it = find(agent);
        if (it != m_entries.end() && it->agent == agent) {
            if (it->epoch >= value) return false;
            it->epoch = value;
            return true;
        }
        if (value == 0) return false;
        m_entries.insert(static_cast<std::size_t>(it - m_entries.begin()), {agent, value});
        return true;
    }

    // A buffer for rebuilding entries without allocating (one thread checks at a time;
    // thread_local keeps concurrent checkers of different simulations apart).
    static std::vector<Entry>& scratch() {
        thread_local std::vector<Entry> buffer;
        return buffer;
    }
    static std::vector<Entry>& other_scratch() {
        thread_local std::vector<Entry> buffer;
        return buffer;
    }

    // Every non-zero entry, window included, sorted by agent, into `out`.
    void all_entries(std::vector<Entry>& out) const {
        out.clear();
        const Entry* e = m_entries.begin();
        const Entry* const end = m_entries.end();
        for (; e != end && e->agent < m_base; ++e) out.push_back(*e);
        for (AgentId i = 0; i < kWindow; ++i)
            if (m_window[i] != 0) out.push_back({m_base + i, m_window[i]});
        for (; e != end; ++e) out.push_back(*e);
    }

    // join() of a clock with another window: its entries inside this window elementwise, the
    // others merged with this clock's sorted entries in one pass.
    [[gnu::noinline]] void join_other_window(const VectorClock& other) {
        bool raised = false;
        std::vector<Entry>& theirs = other_scratch();
        other.all_entries(theirs);
        std::size_t outside = 0;
        for (const Entry& e : theirs) {
            const AgentId offset = e.agent - m_base;
            if (offset < kWindow) {
                if (e.epoch > m_window[offset]) {
                    m_window[offset] = e.epoch;
                    raised = true;
                }
            } else {
                theirs[outside++] = e;
            }
        }
        if (outside != 0) {
            std::vector<Entry>& merged = scratch();
            merged.clear();
            const Entry* a = m_entries.begin();
            const Entry* const a_end = m_entries.end();
            const Entry* b = theirs.data();
            const Entry* const b_end = b + outside;
            while (a != a_end || b != b_end) {
                if (b == b_end || (a != a_end && a->agent < b->agent)) {
                    merged.push_back(*a++);
                } else if (a == a_end || b->agent < a->agent) {
                    merged.push_back(*b++);
                    raised = true;
                } else {
                    if (b->epoch > a->epoch) raised = true;
                    merged.push_back({a->agent, std::max(a->epoch, b->epoch)});
                    ++a;
                    ++b;
                }
            }
            if (merged.size() != m_entries.size() || raised)
                m_entries.assign(merged.data(), merged.size());
        }
        if (raised) ++m_version;
    }

    // this window = max(this window, `other`), two lanes of four at a time (plain x86-64
    // has no unsigned 32-bit max; the vector compare is emulated, still branch-free).
    // Returns whether any epoch was raised.
    bool join_window(const std::array<EpochCount, kWindow>& other) {
        using Lanes = EpochCount __attribute__((vector_size(16)));
        static_assert(kWindow == 8 && sizeof(Lanes) * 2 == sizeof(m_window));
        Lanes mine[2];
        Lanes theirs[2];
        std::memcpy(mine, m_window.data(), sizeof(mine));
        std::memcpy(theirs, other.data(), sizeof(theirs));
        const Lanes up0 = theirs[0] > mine[0];
        const Lanes up1 = theirs[1] > mine[1];
        mine[0] = up0 ? theirs[0] : mine[0];
        mine[1] = up1 ? theirs[1] : mine[1];
        std::memcpy(m_window.data(), mine, sizeof(mine));
        const Lanes any = up0 | up1;
        return (any[0] | any[1] | any[2] | any[3]) != 0;
    }

    // The entries outside the window of a clock with the same window (so none of them falls
    // inside this one's). Returns whether any was raised or added.
    [[gnu::noinline]] bool join_entries(const VectorClock& other) {
        // Clocks of one block, or of one stream's kernels, mostly know the same agents: then
        // one elementwise pass.
        if (other.m_entries.size() == m_entries.size()) {
            Entry* a = m_entries.begin();
            const Entry* b = other.m_entries.begin();
            const std::size_t n = m_entries.size();
            AgentId differ = 0;
            for (std::size_t i = 0; i < n; ++i) differ |= a[i].agent ^ b[i].agent;
            if (differ == 0) {
                EpochCount up = 0;
                for (std::size_t i = 0; i < n; ++i) {
                    const EpochCount mine = a[i].epoch;
                    const EpochCount theirs = b[i].epoch;
                    up |= theirs > mine ? 1U : 0U;
                    a[i].epoch = theirs > mine ? theirs : mine;
                }
                return up != 0;
            }
        }
        bool raised = false;
        std::size_t missing = 0;
        Entry* a = m_entries.begin();
        Entry* const a_end = m_entries.end();
        for (const Entry& e : other.m_entries) {
            while (a != a_end && a->agent < e.agent) ++a;
            if (a != a_end && a->agent == e.agent) {
                if (e.epoch > a->epoch) {
                    a->epoch = e.epoch;
                    raised = true;
                }
                ++a;
            } else if (e.epoch != 0) {  // a zero entry adds nothing
                ++missing;
            }
        }
        if (missing != 0) merge_missing(other, missing);
        return raised || missing != 0;
    }

    // Inserts `other`'s `missing` non-zero entries this clock lacks, keeping the order; the
    // shared entries are already the maximum (join_entries raised them).
    void merge_missing(const VectorClock& other, std::size_t missing) {
        std::size_t mine = m_entries.size();
        std::size_t theirs = other.m_entries.size();
        std::size_t out = mine + missing;
        m_entries.resize(out);
        while (out > mine) {  // until every missing entry is placed
            const Entry& e = other.m_entries[theirs - 1];
            if (mine > 0 && m_entries[mine - 1].agent >= e.agent) {
                if (m_entries[mine - 1].agent == e.agent) --theirs;
                m_entries[--out] = m_entries[--mine];
            } else {
                if (e.epoch != 0) m_entries[--out] = e;
                --theirs;
            }
        }
    }

    AgentId m_base = 0;
    std::array<EpochCount, kWindow> m_window{};
    // Outside the window, sorted by agent. A block's clocks usually know one agent outside
    // their window (the host): one entry inline keeps a clock small (flags copy clocks).
    SmallVector<ClockEntry, 1> m_entries;
    std::uint64_t m_version = 1;
};

}  // namespace npusim
