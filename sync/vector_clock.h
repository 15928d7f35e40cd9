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
#include <memory>
#include <utility>
#include <vector>

namespace npusim {

using AgentId = std::uint32_t;
using EpochCount = std::uint32_t;

// A clock's entries outside its window, sorted by agent: a few inline (a block's clocks
// usually know the host and perhaps a stream), more on the heap. Copying a clock (every
// SetFlag) is then a fixed-size copy, with no allocation or call.
class ClockEntries final {
public:
    using Entry = std::pair<AgentId, EpochCount>;
    static constexpr std::size_t kInline = 1;

    ClockEntries() = default;
    ClockEntries(const ClockEntries& other) { *this = other; }
    ClockEntries& operator=(const ClockEntries& other) {
        if (this == &other) return *this;
        if (other.m_size > kInline) {
            reserve(other.m_size);
            std::copy(other.m_heap.get(), other.m_heap.get() + other.m_size, m_heap.get());
        } else {
            m_inline = other.m_inline;
        }
        m_size = other.m_size;
        return *this;
    }
    ClockEntries(ClockEntries&& other) noexcept { *this = std::move(other); }
    ClockEntries& operator=(ClockEntries&& other) noexcept {
        if (this == &other) return *this;
        m_size = std::exchange(other.m_size, 0);
        m_capacity = std::exchange(other.m_capacity, 0);
        m_inline = other.m_inline;
        m_heap = std::move(other.m_heap);
        return *this;
    }
    ~ClockEntries() = default;

    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    Entry* begin() { return m_size <= kInline ? m_inline.data() : m_heap.get(); }
    Entry* end() { return begin() + m_size; }
    const Entry* begin() const { return m_size <= kInline ? m_inline.data() : m_heap.get(); }
    const Entry* end() const { return begin() + m_size; }
    Entry& operator[](std::size_t i) { return begin()[i]; }
    const Entry& operator[](std::size_t i) const { return begin()[i]; }

    void clear() { m_size = 0; }
    /// Grows to `n` entries (n >= size()); the new ones are zero until set.
    void grow(std::size_t n) {
        if (n > kInline) {
            if (m_size <= kInline) {  // moves to the heap
                reserve(n);
                std::copy(m_inline.begin(), m_inline.begin() + m_size, m_heap.get());
            } else {
                reserve(n);
            }
        }
        Entry* d = n <= kInline ? m_inline.data() : m_heap.get();
        std::fill(d + m_size, d + n, Entry{});
        m_size = static_cast<std::uint32_t>(n);
    }
    /// Inserts `e` before position `at`.
    void insert(std::size_t at, Entry e) {
        grow(m_size + 1);
        Entry* d = begin();
        std::copy_backward(d + at, d + m_size - 1, d + m_size);
        d[at] = e;
    }

private:
    // Heap room for `n` entries, keeping the first m_size of them when they are there.
    void reserve(std::size_t n) {
        if (n <= m_capacity) return;
        const std::size_t capacity = std::max<std::size_t>({n, std::size_t{2} * m_capacity, 8});
        auto grown = std::make_unique<Entry[]>(capacity);
        if (m_size > kInline) std::copy(m_heap.get(), m_heap.get() + m_size, grown.get());
        m_heap = std::move(grown);
        m_capacity = static_cast<std::uint32_t>(capacity);
    }

    std::uint32_t m_size = 0;
    std::uint32_t m_capacity = 0;  // of m_heap
    std::array<Entry, kInline> m_inline{};
    std::unique_ptr<Entry[]> m_heap;  // all entries while m_size > kInline
};

class VectorClock final {
public:
    static constexpr AgentId kWindow = 8;

    EpochCount get(AgentId agent) const {
        const AgentId offset = agent - m_base;  // below the window: wraps to a large value
        if (offset < kWindow) return m_window[offset];
        const Entry* it = find(agent);
        return it != m_entries.end() && it->first == agent ? it->second : 0;
    }
    void set(AgentId agent, EpochCount value) {
        const AgentId offset = agent - m_base;
        if (offset < kWindow) {
            m_window[offset] = value;
        } else {
            Entry* it = find(agent);
            if (it != m_entries.end() && it->first == agent) {
                it->second = value;
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
        bool raised = false;
        if (other.m_base == m_base) {
            raised = join_window(other.m_window);
            if (!other.m_entries.empty()) raised = join_entries(other) || raised;
        } else {  // another window: entry by entry
            for (AgentId i = 0; i < kWindow; ++i) {
                if (other.m_window[i] != 0)
                    raised = raise_quietly(other.m_base + i, other.m_window[i]) || raised;
            }
            for (const Entry& e : other.m_entries)
                raised = raise_quietly(e.first, e.second) || raised;
        }
        if (raised) ++m_version;
    }
    /// Moves the window to [base, base + kWindow); every agent keeps its epoch. Clocks that
    /// join each other often should share it.
    void focus(AgentId base) {
        if (base == m_base) return;
        std::vector<Entry> all;
        all.reserve(m_entries.size() + kWindow);
        for (AgentId i = 0; i < kWindow; ++i)
            if (m_window[i] != 0) all.emplace_back(m_base + i, m_window[i]);
        for (const Entry& e : m_entries) all.push_back(e);
        m_window.fill(0);
        m_entries.clear();
        m_base = base;
        for (const Entry& e : all) raise_quietly(e.first, e.second);
    }
    AgentId window_base() const { return m_base; }
    /// Incremented on every change: lets a consumer skip a join it has already done.
    std::uint64_t version() const { return m_version; }

private:
    using Entry = ClockEntries::Entry;
    Entry* find(AgentId agent) {
        return std::lower_bound(m_entries.begin(), m_entries.end(), agent,
                                [](const Entry& e, AgentId id) { return e.first < id; });
    }
    const Entry* find(AgentId agent) const {
        return std::lower_bound(m_entries.begin(), m_entries.end(), agent,
                                [](const Entry& e, AgentId id) { return e.first < id; });
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
        if (it != m_entries.end() && it->first == agent) {
            if (it->second >= value) return false;
            it->second = value;
            return true;
        }
        if (value == 0) return false;
        m_entries.insert(static_cast<std::size_t>(it - m_entries.begin()), {agent, value});
        return true;
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
    bool join_entries(const VectorClock& other) {
        bool raised = false;
        std::size_t missing = 0;
        Entry* a = m_entries.begin();
        Entry* const a_end = m_entries.end();
        for (const Entry& e : other.m_entries) {
            while (a != a_end && a->first < e.first) ++a;
            if (a != a_end && a->first == e.first) {
                if (e.second > a->second) {
                    a->second = e.second;
                    raised = true;
                }
                ++a;
            } else if (e.second != 0) {  // a zero entry adds nothing
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
        m_entries.grow(out);
        while (out > mine) {  // until every missing entry is placed
            const Entry& e = other.m_entries[theirs - 1];
            if (mine > 0 && m_entries[mine - 1].first >= e.first) {
                if (m_entries[mine - 1].first == e.first) --theirs;
                m_entries[--out] = m_entries[--mine];
            } else {
                if (e.second != 0) m_entries[--out] = e;
                --theirs;
            }
        }
    }

    AgentId m_base = 0;
    std::array<EpochCount, kWindow> m_window{};
    ClockEntries m_entries;  // outside the window, sorted by agent
    std::uint64_t m_version = 1;
};

}  // namespace npusim
