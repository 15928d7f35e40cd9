// Shadow memory: per memory space, which accesses touched which bytes, as intervals (not
// bytes), each holding its last write and the reads since (as access runs, see
// sync/check/access_runs.h). Every access is checked against what the interval holds
// (racecheck: reported through FindingReporter) and recorded; memory grows with live
// intervals. Reads of never-written GM/UB bytes are kept as initcheck candidates, decided
// at kernel end (take_uninitialized).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "sync/check/access_runs.h"
#include "sync/check/finding_reporter.h"
#include "sync/check/site.h"
#include "sync/checker.h"

namespace npusim::check {

struct Interval {
    std::uint64_t hi = 0;
    std::uint32_t write = kNoRun;    // the last write, if any
    bool atomic_writes = false;      // reads holds tagged writes (after an atomic write)
    Cycle first_landed = ~Cycle{0};  // when the earliest write to these bytes landed
    RunRefList reads;                // reads since the last write (and tagged writes)
};

/// An initcheck candidate: a read of bytes no write (yet) explains.
struct Uninit {
    MemSpace space = MemSpace::GM;
    Site site;
    std::uint64_t lo = 0, hi = 0;
};

/// One memory space of one core (or GM).
struct Shadow {
    using Map = std::map<std::uint64_t, Interval>;
    Map map;  // keyed by interval start

    /// map.lower_bound(lo), from a small cache of intervals found by their start when it
    /// can be: a kernel's loop comes back to the same few local buffers, and a tree walk is
    /// cache misses. Intervals are removed only through erase/extract/clear below.
    Map::iterator lower_bound(std::uint64_t lo) {
        Found& slot = m_found[(lo >> 5) % kFoundSlots];
        if (slot.generation == m_generation && slot.lo == lo) return slot.it;
        const auto it = map.lower_bound(lo);
        if (it != map.end() && it->first == lo) slot = {lo, m_generation, it};
        return it;
    }
    /// Removing intervals goes through these: each invalidates the lookup cache.
    Map::iterator erase(Map::iterator it) {
        ++m_generation;
        return map.erase(it);
    }
    Map::iterator erase(Map::iterator first, Map::iterator last) {
        if (first != last) ++m_generation;
        return map.erase(first, last);
    }
    Map::node_type extract(Map::iterator it) {
        ++m_generation;
        return map.extract(it);
    }
    void clear() {
        ++m_generation;
        map.clear();
    }

    // Reads of never-written bytes, decided at kernel end: by start, each start's candidates
    // with their sequence numbers in the order recorded. Many blocks reading the same
    // never-written slice cost one node, not one each.
    std::map<std::uint64_t, std::vector<std::pair<std::uint64_t, Uninit>>> uninit;
    std::uint64_t uninit_span = 0;  // the longest candidate, to bound the overlap search

private:
    static constexpr std::size_t kFoundSlots = 16;
    struct Found {
        std::uint64_t lo = 0;
        std::uint64_t generation = 0;  // valid while equal to m_generation
        Map::iterator it;
    };
    std::array<Found, kFoundSlots> m_found{};
    std::uint64_t m_generation = 1;
};

class ShadowMemory final {
public:
    ShadowMemory(FindingReporter& reporter, const CheckerOptions& options);

    Shadow& gm() { return m_gm; }
    /// A local space of one core. The reference stays valid (blocks cache it).
    Shadow& local(MemSpace space, CoreType type, std::uint32_t core) {
        return m_local[{space, type, core}];
    }
    /// A new block on a core starts with fresh local memories (what the previous block left
    /// there is not this block's data). Cleared, not erased: blocks cache the addresses.
    void reset_local(CoreType type, std::uint32_t core);

    /// Checks the access [lo, hi) of `site` against what `shadow` holds (a race with every
    /// access `view` does not cover), then records it.
    void access(MemSpace space, Shadow& shadow, const Site& site, const View& view,
                std::uint64_t lo, std::uint64_t hi, bool write);

    /// Removes and returns kernel `kernel_id`'s initcheck candidates with their sequence
    /// numbers, in the order recorded.
    std::vector<std::pair<std::uint64_t, Uninit>> take_uninitialized(std::uint32_t kernel_id);

private:
    using Iterator = Shadow::Map::iterator;
    void retain(const Interval& iv);
    void release(const Interval& iv);
    void clear(Shadow& shadow);
    Iterator split(Shadow& shadow, std::uint64_t at, Iterator at_or_after);
    bool race_with(std::uint32_t id, bool run_write, const Site& site, bool write, const View& view,
                   MemSpace space, std::uint64_t lo, std::uint64_t hi, Site* seen = nullptr);
    void merge_left(Shadow& shadow, Iterator it, std::uint32_t me, bool write);
    bool continue_run(Shadow& sh, const Site& site, const View& view, std::uint64_t lo,
                      std::uint64_t hi, bool write, Iterator next);
    void explain_uninitialized(Shadow& sh, const Site& site, std::uint64_t lo, std::uint64_t hi);

    FindingReporter& m_reporter;
    const CheckerOptions& m_options;
    RunPool m_runs;
    Shadow m_gm;
    std::map<std::tuple<MemSpace, CoreType, std::uint32_t>, Shadow> m_local;
    std::uint64_t m_uninit_sequence = 0;
    std::size_t m_uninit_count = 0;
};

}  // namespace npusim::check
