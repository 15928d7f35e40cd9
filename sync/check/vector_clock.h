// Vector clocks over the checker's agents (one per pipe of a block, shared by the successive
// blocks of a core that are ordered anyway, plus the scalar unit's store buffer, the host and
// each stream).
//
// A block's clocks mostly know the block's own agents, whose ids are consecutive, and flags
// copy and join those clocks on every SetFlag and WaitFlag. So a clock keeps a dense window
// of kWindow agents [base, base + kWindow) (focus() places it: the checker puts a block's
// agents there) and a sorted list of the other non-zero entries. Two clocks with the same
// window join elementwise over it, and a lookup inside it is an index.
//
// The list outside the window is shared between copies until one of them changes it (copy
// on write): a block's agents, the clocks its flags carry and what it drains all start as
// copies of its start clock and mostly change only inside their window, so copying a clock
// costs a reference and joining two clocks that share their list costs the window.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace npusim {

using AgentId = std::uint32_t;
using EpochCount = std::uint32_t;

// An entry of a clock outside its window.
struct ClockEntry {
    AgentId agent = 0;
    EpochCount epoch = 0;
};

/// A sorted list of clock entries shared by the clocks that copied it until one changes it.
/// The reference count is not atomic: a clock lives in one checker, and a checker is used
/// by one thread at a time.
class SharedClockEntries final {
public:
    SharedClockEntries() = default;
    SharedClockEntries(const SharedClockEntries& other) : m_rep(other.m_rep) {
        if (m_rep != nullptr) ++m_rep->refs;
    }
    SharedClockEntries& operator=(const SharedClockEntries& other) {
        Rep* const old = m_rep;
        m_rep = other.m_rep;
        if (m_rep != nullptr) ++m_rep->refs;
        drop(old);
        return *this;
    }
    SharedClockEntries(SharedClockEntries&& other) noexcept
        : m_rep(std::exchange(other.m_rep, nullptr)) {}
    SharedClockEntries& operator=(SharedClockEntries&& other) noexcept {
        if (this != &other) drop(std::exchange(m_rep, std::exchange(other.m_rep, nullptr)));
        return *this;
    }
    ~SharedClockEntries() { drop(m_rep); }

    std::size_t size() const { return m_rep != nullptr ? m_rep->entries.size() : 0; }
    bool empty() const { return size() == 0; }
    const ClockEntry* begin() const { return m_rep != nullptr ? m_rep->entries.data() : nullptr; }
    const ClockEntry* end() const { return begin() + size(); }
    const ClockEntry& operator[](std::size_t i) const { return m_rep->entries[i]; }
    /// Whether both hold the very same list (then their entries are equal).
    bool same_as(const SharedClockEntries& other) const { return m_rep == other.m_rep; }

    /// The list, made this clock's own first (copied if shared).
    std::vector<ClockEntry>& own() {
        if (m_rep == nullptr) {
            m_rep = make();
        } else if (m_rep->refs > 1) {
            Rep* mine = make();
            mine->entries = m_rep->entries;
            --m_rep->refs;
            m_rep = mine;
        }
        return m_rep->entries;
    }
    /// Replaces the list by `entries` (storage reused when not shared).
    void assign(const ClockEntry* entries, std::size_t n) {
        if (n == 0) {
            drop(std::exchange(m_rep, nullptr));
            return;
        }
        std::vector<ClockEntry>& list = (m_rep != nullptr && m_rep->refs > 1) ? fresh() : own();
        list.assign(entries, entries + n);
    }

private:
    struct Rep {
        std::uint32_t refs = 1;
        std::vector<ClockEntry> entries;
    };
    std::vector<ClockEntry>& fresh() {
        --m_rep->refs;
        m_rep = make();
        return m_rep->entries;
    }
    // Released lists are kept (with their storage) for the next ones: a block's start clock
    // is rebuilt for every block, and would otherwise cost an allocation each time. Null
    // once the thread's pool is gone (clocks of static objects die after it).
    static std::vector<Rep*>* spares() {
        thread_local bool gone = false;  // trivially destructible: readable to the end
        if (gone) return nullptr;
        thread_local struct Pool {
            std::vector<Rep*> lists;
            bool* gone_flag;
            ~Pool() {
                for (Rep* r : lists) delete r;
                *gone_flag = true;
            }
        } pool{{}, &gone};
        return &pool.lists;
    }
    static Rep* make() {
        std::vector<Rep*>* free = spares();
        if (free == nullptr || free->empty()) return new Rep;
        Rep* r = free->back();
        free->pop_back();
        r->refs = 1;
        r->entries.clear();
        return r;
    }
    static void drop(Rep* rep) {
        if (rep != nullptr && --rep->refs == 0) recycle(rep);
    }
    [[gnu::noinline]] static void recycle(Rep* rep) {
        std::vector<Rep*>* free = spares();
        if (free != nullptr && free->size() < kSpareLimit) {
            free->push_back(rep);
        } else {
            delete rep;
        }
    }
    static constexpr std::size_t kSpareLimit = 1024;
    Rep* m_rep = nullptr;
};

class VectorClock final {
public:
    static constexpr AgentId kWindow = 8;
    /// A window no agent reaches: a clock focused there keeps every entry in its list, so
    /// copies of it (a kernel's start, given to each of its blocks) move their windows onto
    /// a block's agents without copying the list.
    static constexpr AgentId kFar = ~AgentId{0} - kWindow;

    EpochCount get(AgentId agent) const {
        const AgentId offset = agent - m_base;  // below the window: wraps to a large value
        if (offset < kWindow) return m_window[offset];
        const ClockEntry* it = find(agent);
        return it != m_entries.end() && it->agent == agent ? it->epoch : 0;
    }
    void set(AgentId agent, EpochCount value) {
        const AgentId offset = agent - m_base;
        if (offset < kWindow) {
            m_window[offset] = value;
        } else {
            const std::size_t at = position(agent);
            std::vector<ClockEntry>& list = m_entries.own();
            if (at < list.size() && list[at].agent == agent) {
                list[at].epoch = value;
            } else {
                list.insert(list.begin() + static_cast<std::ptrdiff_t>(at), {agent, value});
            }
        }
        ++m_version;
    }
    void raise(AgentId agent, EpochCount value) {
        if (raise_quietly(agent, value)) ++m_version;
    }
    /// this = max(this, other), elementwise. Over a shared window: one elementwise pass, and
    /// the entries outside it only when the two lists differ. Allocates only to grow or to
    /// stop sharing a list it changes.
    void join(const VectorClock& other) {
        // Inline for the common case, a flag's clock or the scalar unit's joined into a pipe of
        // the same block: the same window, the list shared (or none), one elementwise pass.
        if (other.m_base == m_base &&
            (other.m_entries.empty() || m_entries.same_as(other.m_entries))) {
            if (&other != this && join_window(other.m_window)) ++m_version;
            return;
        }
        join_rest(other);
    }

private:
    // join() past its inline case.
    [[gnu::noinline]] void join_rest(const VectorClock& other) {
        if (&other == this) return;
        if (other.m_base != m_base) {
            join_other_window(other);
            return;
        }
        bool raised = join_window(other.m_window);
        if (!other.m_entries.empty() && !m_entries.same_as(other.m_entries)) {
            if (m_entries.empty()) {
                m_entries = other.m_entries;  // shared from now on
                raised = std::any_of(m_entries.begin(), m_entries.end(),
                                     [](const ClockEntry& e) { return e.epoch != 0; }) ||
                         raised;
            } else {
                raised = join_entries(other) || raised;
            }
        }
        if (raised) ++m_version;
    }

public:
    /// Moves the window to [base, base + kWindow); every agent keeps its epoch. Clocks that
    /// join each other often should share it. The window is authoritative: the list may
    /// still hold entries of agents inside it (stale copies, never read while they are
    /// there), so moving the window onto listed agents copies their epochs in and leaves
    /// the list (and whoever shares it) alone. The list changes only for agents leaving the
    /// window with an epoch it does not already say.
    void focus(AgentId base) {
        if (base == m_base) return;
        const AgentId old_base = m_base;
        const std::array<EpochCount, kWindow> old = m_window;
        std::array<ClockEntry, kWindow> leaving{};
        std::size_t n_leaving = 0;
        const ClockEntry* const last = m_entries.end();
        // An empty window (a kernel's start clock at kFar, moved onto a block's agents) has
        // nothing that could leave: no search for it.
        const bool empty = std::all_of(old.begin(), old.end(), [](EpochCount v) { return v == 0; });
        const ClockEntry* e = empty ? last : lower(old_base);
        for (AgentId i = 0; i < kWindow && !empty; ++i) {
            const AgentId id = old_base + i;
            if (id - base < kWindow) continue;  // stays inside
            while (e != last && e->agent < id) ++e;
            const EpochCount listed = e != last && e->agent == id ? e->epoch : 0;
            if (listed != old[i]) leaving[n_leaving++] = {id, old[i]};
        }
        m_base = base;
        // The listed agents of the new window (consecutive in the list), then the old
        // window's agents that stay inside it (their listed copies may be stale).
        m_window.fill(0);
        for (e = lower(base); e != last && e->agent - base < kWindow; ++e)
            if (e->agent - old_base >= kWindow) m_window[e->agent - base] = e->epoch;
        for (AgentId i = 0; i < kWindow && !empty; ++i) {
            const AgentId id = old_base + i;
            if (id - base < kWindow) m_window[id - base] = old[i];
        }
        if (n_leaving != 0) write_entries(leaving.data(), leaving.data() + n_leaving);
    }
    /// Whether the clock knows at least `issued[i]` of agent `first + i` for each i < kWindow
    /// (a block's agents, whose ids are consecutive): one search of the list, not one per
    /// agent.
    bool covers_run(AgentId first, const std::array<EpochCount, kWindow>& issued) const {
        if (first == m_base) {
            for (AgentId i = 0; i < kWindow; ++i)
                if (m_window[i] < issued[i]) return false;
            return true;
        }
        const bool overlaps_window = first - m_base < kWindow || m_base - first < kWindow;
        const ClockEntry* e = overlaps_window ? nullptr : lower(first);
        const ClockEntry* const end = m_entries.end();
        for (AgentId i = 0; i < kWindow; ++i) {
            if (issued[i] == 0) continue;
            const AgentId id = first + i;
            EpochCount known = 0;
            if (overlaps_window) {
                known = get(id);
            } else {
                while (e != end && e->agent < id) ++e;
                known = e != end && e->agent == id ? e->epoch : 0;
            }
            if (known < issued[i]) return false;
        }
        return true;
    }
    /// raise() for each of the entries [b, b_end), sorted by agent without repeats: one merge
    /// with the list, not a search and an insert each (a kernel's end raises every agent of
    /// its blocks).
    void raise_sorted(const ClockEntry* b, const ClockEntry* const b_end) {
        // A stream's clock keeps its window where no agent is: then all are listed, as given.
        if (std::none_of(b, b_end,
                         [&](const ClockEntry& e) { return e.agent - m_base < kWindow; })) {
            if (b != b_end && raise_listed(b, b_end)) ++m_version;
            return;
        }
        bool raised = false;
        std::vector<ClockEntry>& outside = other_scratch();
        outside.clear();
        for (; b != b_end; ++b) {
            if (b->agent - m_base < kWindow) {
                raised = raise_quietly(b->agent, b->epoch) || raised;
            } else {
                outside.push_back(*b);
            }
        }
        if (!outside.empty())
            raised = raise_listed(outside.data(), outside.data() + outside.size()) || raised;
        if (raised) ++m_version;
    }
    AgentId window_base() const { return m_base; }
    /// Incremented on every change: lets a consumer skip a join it has already done.
    std::uint64_t version() const { return m_version; }

private:
    const ClockEntry* lower(AgentId agent) const {
        return std::lower_bound(m_entries.begin(), m_entries.end(), agent,
                                [](const ClockEntry& e, AgentId id) { return e.agent < id; });
    }
    const ClockEntry* find(AgentId agent) const { return lower(agent); }
    std::size_t position(AgentId agent) const {
        return static_cast<std::size_t>(lower(agent) - m_entries.begin());
    }

    // raise() without counting the change; returns whether it changed anything. Changes the
    // list outside the window (and so stops sharing it) only when it raises.
    bool raise_quietly(AgentId agent, EpochCount value) {
        const AgentId offset = agent - m_base;
        if (offset < kWindow) {
            if (m_window[offset] >= value) return false;
            m_window[offset] = value;
            return true;
        }
        const ClockEntry* it = find(agent);
        const bool present = it != m_entries.end() && it->agent == agent;
        if (present ? it->epoch >= value : value == 0) return false;
        const std::size_t at = static_cast<std::size_t>(it - m_entries.begin());
        std::vector<ClockEntry>& list = m_entries.own();
        if (present) {
            list[at].epoch = value;
        } else {
            list.insert(list.begin() + static_cast<std::ptrdiff_t>(at), {agent, value});
        }
        return true;
    }

    // merge_entries() for entries [b, b_end) that the list mostly holds already (a kernel's
    // agents, reused from earlier kernels): raised in place in one walk when it holds every
    // one, merged otherwise.
    bool raise_listed(const ClockEntry* b, const ClockEntry* const b_end) {
        bool changes = false;
        const ClockEntry* const a_begin = m_entries.begin();
        const ClockEntry* a = a_begin;
        const ClockEntry* const a_end = m_entries.end();
        for (const ClockEntry* e = b; e != b_end; ++e) {
            a = seek(a, a_end, e->agent);
            if (a == a_end || a->agent != e->agent) return merge_entries(b, b_end);
            changes = changes || e->epoch > a->epoch;
        }
        if (!changes) return false;
        // Where each entry is, found again in the list made this clock's own (a copy if it
        // was shared: the same entries at the same positions).
        std::vector<ClockEntry>& list = m_entries.own();
        const ClockEntry* at = list.data();
        const ClockEntry* const end = list.data() + list.size();
        for (const ClockEntry* e = b; e != b_end; ++e) {
            at = seek(at, end, e->agent);
            ClockEntry& entry = list[static_cast<std::size_t>(at - list.data())];
            entry.epoch = std::max(entry.epoch, e->epoch);
        }
        return true;
    }

    // The first entry of [a, end) at or after `agent`, for entries sought in increasing
    // order: the next one when it is (a block's agents are consecutive), else a binary
    // search (a kernel's blocks are a few runs in a long list: not a walk of all of it).
    static const ClockEntry* seek(const ClockEntry* a, const ClockEntry* const end, AgentId agent) {
        if (a == end || a->agent >= agent) return a;
        if (a + 1 == end || a[1].agent >= agent) return a + 1;
        return std::lower_bound(a + 2, end, agent,
                                [](const ClockEntry& x, AgentId id) { return x.agent < id; });
    }

    // A buffer for rebuilding entries without allocating (one thread checks at a time;
    // thread_local keeps concurrent checkers of different simulations apart).
    static std::vector<ClockEntry>& scratch() {
        thread_local std::vector<ClockEntry> buffer;
        return buffer;
    }
    static std::vector<ClockEntry>& other_scratch() {
        thread_local std::vector<ClockEntry> buffer;
        return buffer;
    }

    // Every entry, window included (its non-zero ones) and the list's stale copies of the
    // window's agents left out, sorted by agent, into `out`.
    void all_entries(std::vector<ClockEntry>& out) const {
        out.clear();
        const ClockEntry* e = m_entries.begin();
        const ClockEntry* const end = m_entries.end();
        for (; e != end && e->agent < m_base; ++e) out.push_back(*e);
        for (AgentId i = 0; i < kWindow; ++i)
            if (m_window[i] != 0) out.push_back({m_base + i, m_window[i]});
        for (; e != end; ++e)
            if (e->agent - m_base >= kWindow) out.push_back(*e);  // not a stale copy
    }

    // Writes the sorted entries [b, b_end) over the list (their epochs replace the listed
    // ones, even lower ones), in one merge.
    [[gnu::noinline]] void write_entries(const ClockEntry* b, const ClockEntry* const b_end) {
        std::vector<ClockEntry>& merged = scratch();
        merged.clear();
        const ClockEntry* a = m_entries.begin();
        const ClockEntry* const a_end = m_entries.end();
        while (a != a_end || b != b_end) {
            if (b == b_end || (a != a_end && a->agent < b->agent)) {
                merged.push_back(*a++);
            } else {
                if (a != a_end && a->agent == b->agent) ++a;
                if (b->epoch != 0) merged.push_back(*b);
                ++b;
            }
        }
        m_entries.assign(merged.data(), merged.size());
    }

    // Merges the sorted entries [b, b_end) (none inside the window) into this clock's list,
    // elementwise maximum; returns whether any was raised or added. Changes the list only then.
    bool merge_entries(const ClockEntry* b, const ClockEntry* const b_end) {
        // A read-only pass first: most joins bring nothing new.
        bool changes = false;
        {
            const ClockEntry* a = m_entries.begin();
            const ClockEntry* const a_end = m_entries.end();
            for (const ClockEntry* e = b; e != b_end && !changes; ++e) {
                while (a != a_end && a->agent < e->agent) ++a;
                changes =
                    (a != a_end && a->agent == e->agent) ? e->epoch > a->epoch : e->epoch != 0;
            }
        }
        if (!changes) return false;
        std::vector<ClockEntry>& merged = scratch();
        merged.clear();
        const ClockEntry* a = m_entries.begin();
        const ClockEntry* const a_end = m_entries.end();
        while (a != a_end || b != b_end) {
            if (b == b_end || (a != a_end && a->agent < b->agent)) {
                merged.push_back(*a++);
            } else if (a == a_end || b->agent < a->agent) {
                if (b->epoch != 0) merged.push_back(*b);
                ++b;
            } else {
                merged.push_back({a->agent, std::max(a->epoch, b->epoch)});
                ++a;
                ++b;
            }
        }
        m_entries.assign(merged.data(), merged.size());
        return true;
    }

    // join() of a clock with another window: its entries inside this window elementwise, the
    // others merged with this clock's sorted entries in one pass.
    [[gnu::noinline]] void join_other_window(const VectorClock& other) {
        bool raised = false;
        std::vector<ClockEntry>& theirs = other_scratch();
        other.all_entries(theirs);
        std::size_t outside = 0;
        for (const ClockEntry& e : theirs) {
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
        if (outside != 0) raised = merge_entries(theirs.data(), theirs.data() + outside) || raised;
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
    // inside this one's), when the two lists differ. Returns whether any was raised or added.
    [[gnu::noinline]] bool join_entries(const VectorClock& other) {
        // Clocks of one stream's kernels mostly know the same agents: then one elementwise
        // pass, changing the list only if the other is ahead somewhere.
        const std::size_t n = m_entries.size();
        if (other.m_entries.size() == n) {
            const ClockEntry* a = m_entries.begin();
            const ClockEntry* b = other.m_entries.begin();
            AgentId differ = 0;
            EpochCount up = 0;
            for (std::size_t i = 0; i < n; ++i) {
                differ |= a[i].agent ^ b[i].agent;
                up |= b[i].epoch > a[i].epoch ? 1U : 0U;
            }
            if (differ == 0) {
                if (up == 0) return false;
                std::vector<ClockEntry>& list = m_entries.own();
                for (std::size_t i = 0; i < n; ++i)
                    list[i].epoch = std::max(list[i].epoch, b[i].epoch);
                return true;
            }
        }
        return merge_entries(other.m_entries.begin(), other.m_entries.end());
    }

    AgentId m_base = 0;
    std::array<EpochCount, kWindow> m_window{};
    SharedClockEntries m_entries;  // outside the window, sorted by agent
    std::uint64_t m_version = 1;
};

}  // namespace npusim
