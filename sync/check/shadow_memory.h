// Shadow memory: per memory space, which accesses touched which bytes, as intervals (not
// bytes), each holding its last write and the reads since (as access runs, see
// sync/check/access_runs.h). Every access is checked against what the interval holds
// (racecheck: reported through FindingReporter) and recorded; memory grows with live
// intervals. Reads of never-written GM/UB bytes are kept as initcheck candidates, decided
// at kernel end (take_uninitialized).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "sync/check/access_runs.h"
#include "sync/check/checker.h"
#include "sync/check/finding_reporter.h"
#include "sync/check/site.h"

namespace npusim::check {

struct Interval {
    std::uint64_t hi = 0;
    std::uint32_t write = kNoRun;    // the last write, if any
    std::uint32_t life = 0;          // Shadow::m_life when made: older ones are stale
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

/// An interval's start. Mutable so that a streaming access can move the start of the
/// interval after it forward in place (Shadow::move_start): the order of the tree holds.
struct Start {
    mutable std::uint64_t at = 0;
    Start(std::uint64_t address) : at(address) {}  // NOLINT(google-explicit-constructor)
    operator std::uint64_t() const { return at; }  // NOLINT(google-explicit-constructor)
};

/// One memory space of one core (or GM): its intervals by start, and its initcheck
/// candidates. Intervals are added, removed and moved only through the members below, which
/// keep the lookup cache right.
class Shadow {
public:
    using Map = std::map<Start, Interval, std::less<>>;

    /// `cache_slots` (a power of two): how many positions find() remembers.
    explicit Shadow(std::size_t cache_slots = 16) : m_found(cache_slots) {}

    const Map& intervals() const { return m_map; }
    Map::iterator begin() { return m_map.begin(); }
    Map::iterator end() { return m_map.end(); }

    /// Where an access at `lo` lands: the first interval starting at or after `lo`, and the
    /// one before it (end() if none).
    struct Position {
        Map::iterator at;
        Map::iterator left;
    };
    /// The position of `lo`, from a small cache of earlier answers when it can be: a
    /// kernel's loop comes back to the same few local buffers, and a streaming loop asks
    /// where its previous access ended. A tree walk, or a step back, is cache misses. An
    /// answer stays right until an interval is added or removed (moving a start forward
    /// changes no answer).
    [[gnu::always_inline]] Position find(std::uint64_t lo) {
        Found& slot = m_found[slot_of(lo)];
        if (slot.generation == m_generation && slot.lo == lo) return slot.position;
        return search(lo, slot);
    }
    /// Records the position of `lo`.
    void remember(std::uint64_t lo, Position position) {
        m_found[slot_of(lo)] = {lo, m_generation, position};
    }

    Map::iterator emplace_hint(Map::iterator hint, std::uint64_t lo, Interval&& iv) {
        ++m_generation;
        iv.life = m_life;
        if (m_spare_nodes.empty()) return m_map.emplace_hint(hint, lo, std::move(iv));
        Map::node_type node = std::move(m_spare_nodes.back());
        m_spare_nodes.pop_back();
        node.key().at = lo;
        node.mapped() = std::move(iv);
        return m_map.insert(hint, std::move(node));
    }
    Map::iterator erase(Map::iterator it) {
        ++m_generation;
        if (!live(it->second)) --m_stale;
        const Map::iterator next = std::next(it);
        keep_node(m_map.extract(it));
        return next;
    }
    Map::iterator erase(Map::iterator first, Map::iterator last) {
        if (first != last) ++m_generation;
        while (first != last) first = erase(first);
        return last;
    }
    /// Forgets every interval (a core's local memory for its next block), keeping the nodes
    /// for the next ones: a core's blocks lay out the same buffers again.
    void clear() {
        ++m_generation;
        while (!m_map.empty()) keep_node(m_map.extract(m_map.begin()));
        m_stale = 0;
    }
    /// A local memory's next block: every interval becomes stale, what a cleared shadow
    /// holds for it (ShadowMemory::access_stale), until an access revives or removes it.
    /// False (nothing changed) when the count of lives would wrap: clear() it instead.
    bool age() {
        if (m_life == ~std::uint32_t{0}) {
            m_life = 1;
            return false;
        }
        ++m_life;
        m_stale = m_map.size();
        return true;
    }
    bool has_stale() const { return m_stale != 0; }
    bool live(const Interval& iv) const { return iv.life == m_life; }
    /// A stale interval counts as made now (ShadowMemory::revive).
    void revive(Interval& iv) {
        iv.life = m_life;
        --m_stale;
    }
    /// Moves the start of `it` forward to `at`, which must not pass its end, with nothing
    /// starting in between (its left neighbour took over the bytes before `at`).
    static void move_start(Map::iterator it, std::uint64_t at) { it->first.at = at; }

    // Reads of never-written bytes, decided at kernel end: by start, each start's candidates
    // with their sequence numbers in the order recorded. Many blocks reading the same
    // never-written slice cost one node, not one each.
    std::map<std::uint64_t, std::vector<std::pair<std::uint64_t, Uninit>>> uninit;
    std::uint64_t uninit_span = 0;  // the longest candidate, to bound the overlap search

private:
    struct Found {
        std::uint64_t lo = 0;
        std::uint64_t generation = 0;  // valid while equal to m_generation
        Position position;
    };
    // find() past its cache: the tree's answer, remembered in `slot`.
    [[gnu::noinline]] Position search(std::uint64_t lo, Found& slot) {
        const auto at = m_map.lower_bound(lo);
        const Position position{at, at == m_map.begin() ? m_map.end() : std::prev(at)};
        slot = {lo, m_generation, position};
        return position;
    }
    // Fibonacci hashing: the starts of interleaved streams (blocks' slices, tiles) differ in
    // a few middle bits, which a plain modulo would map to one slot.
    std::size_t slot_of(std::uint64_t lo) const {
        return static_cast<std::size_t>((lo * 0x9E3779B97F4A7C15ULL) >> 40) & (m_found.size() - 1);
    }

    void keep_node(Map::node_type&& node) {
        if (m_spare_nodes.size() < kSpareNodes) m_spare_nodes.push_back(std::move(node));
    }
    static constexpr std::size_t kSpareNodes = 64;

    Map m_map;
    std::vector<Map::node_type> m_spare_nodes;  // removed intervals' nodes, for reuse
    std::vector<Found> m_found;
    std::uint64_t m_generation = 1;
    std::uint32_t m_life = 1;  // advanced by age(): intervals made before are stale
    std::size_t m_stale = 0;   // how many intervals are stale
};

class ShadowMemory final {
public:
    ShadowMemory(FindingReporter& reporter, const CheckerOptions& options);

    Shadow& gm() { return m_gm; }
    /// The runs the intervals hold (tests look inside them).
    const RunPool& runs() const { return m_runs; }
    /// A local space of one core. The reference stays valid (blocks cache it).
    Shadow& local(MemSpace space, CoreType type, std::uint32_t core) {
        auto& cores = m_core_locals[type == CoreType::Cube ? 1 : 0];
        if (core >= cores.size()) cores.resize(core + 1);
        Shadow*& known = cores[core][static_cast<std::size_t>(space)];
        if (known == nullptr) known = &m_local[{space, type, core}];
        return *known;
    }
    /// A new block on a core starts with fresh local memories (what the previous block left
    /// there is not this block's data). Aged, not cleared (Shadow::age): a block that lays
    /// out the same buffers revives their intervals in place. Never erased: blocks cache
    /// the addresses.
    void reset_local(CoreType type, std::uint32_t core);

    /// Checks the access [lo, hi) of `site` against what `sh` holds (a race with every
    /// access `view` does not cover), then records it. Inline: every access of every
    /// instruction comes here, and most end in the streaming or the exact path.
    [[gnu::always_inline]] void access(MemSpace space, Shadow& sh, const Site& site,
                                       const View& view, std::uint64_t lo, std::uint64_t hi,
                                       bool write) {
        if (lo >= hi) return;
        Shadow::Position position = sh.find(lo);
        if (sh.has_stale()) {
            const auto at = position.at;  // a live interval accessed exactly: inline
            if (!site.atomic && at != sh.end() && at->first == lo && at->second.hi == hi &&
                sh.live(at->second)) {
                if (position.left != sh.end() && !sh.live(position.left->second))
                    position.left = sh.end();
            } else if (access_stale(space, sh, site, lo, hi, write, position)) {
                return;
            }
        }
        const auto at_lo = position.at;  // the first interval starting at or after lo
        // A plain access of exactly one interval (a loop's local buffer, again): no gaps, no
        // splits, one interval to visit. A streaming access needs the interval to hold no
        // reads.
        const bool exact = !site.atomic && at_lo != sh.end() && at_lo->first == lo &&
                           at_lo->second.hi == hi && !at_lo->second.atomic_writes;
        // An exact read streams on only where the interval before holds the same write (the
        // streaming path's first refusal of a read, answered here without the call).
        const bool may_stream =
            !exact || (at_lo->second.reads.empty() &&
                       (write || (position.left != sh.end() &&
                                  position.left->second.write == at_lo->second.write)));
        if (!site.atomic && may_stream && continue_run(sh, site, view, lo, hi, write, position)) {
            if (write) explain_uninitialized(sh, site, lo, hi);
            return;
        }
        if (exact) {
            access_exact(space, sh, position, site, view, write);
            return;
        }
        access_general(space, sh, site, view, lo, hi, write, at_lo);
    }

    /// Removes and returns kernel `kernel_id`'s initcheck candidates with their sequence
    /// numbers, in the order recorded.
    std::vector<std::pair<std::uint64_t, Uninit>> take_uninitialized(std::uint32_t kernel_id);

private:
    using Iterator = Shadow::Map::iterator;
    /// An access to a shadow holding stale intervals (a new block's local memory, aged by
    /// reset_local), made exactly as if they had been removed: an access of exactly one
    /// stale interval that no live neighbour joins revives it as the interval a cleared
    /// shadow would make there (returns true: done). An access of exactly one live interval
    /// goes on with `position`'s stale left neighbour taken as none (a cleared shadow has a
    /// gap there, so nothing adjacent on the left). Anything else removes the stale
    /// intervals first and finds `position` again.
    [[gnu::noinline]] bool access_stale(MemSpace space, Shadow& sh, const Site& site,
                                        std::uint64_t lo, std::uint64_t hi, bool write,
                                        Shadow::Position& position);
    void retain(const Interval& iv);
    void release(const Interval& iv);
    void clear(Shadow& shadow);
    Iterator split(Shadow& shadow, std::uint64_t at, Iterator at_or_after);
    /// Reports the race of the current access with run `id` over [lo, hi), if any; returns
    /// the first uncovered piece's site through `seen`. Inline for the common answer: the
    /// whole run is ordered before the access.
    bool race_with(std::uint32_t id, bool run_write, const Site& site, bool write, const View& view,
                   MemSpace space, std::uint64_t lo, std::uint64_t hi, Site* seen = nullptr) {
        if (m_runs.all_covered(id, view)) return false;
        return race_with_open(id, run_write, site, write, view, space, lo, hi, seen);
    }
    bool race_with_open(std::uint32_t id, bool run_write, const Site& site, bool write,
                        const View& view, MemSpace space, std::uint64_t lo, std::uint64_t hi,
                        Site* seen);
    // The access just made [lo, hi) one interval `it` holding run `me` (as its write or its last
    // read): fold it into its left neighbour when that one holds the same state with `me`'s
    // predecessor in the same loop.
    void merge_left(Shadow& shadow, Iterator it, Iterator left, std::uint32_t me, bool write) {
        if (left == shadow.end()) return;
        const Interval& l = left->second;
        const Interval& r = it->second;
        if (l.hi != it->first) return;
        if (write ? (l.write == kNoRun || !l.reads.empty() || !r.reads.empty())
                  : (l.first_landed != r.first_landed || l.write != r.write ||
                     l.reads.size() != r.reads.size()))
            return;
        merge_into_left(shadow, it, left, me, write);
    }
    void merge_into_left(Shadow& shadow, Iterator it, Iterator left, std::uint32_t me, bool write);
    // A plain access of exactly the interval `it`, which the streaming path did not take: what
    // the general path does for it, without looking for gaps and splits. Inline, like the
    // helpers below it: a loop's local buffers take this path on every access.
    void access_exact(MemSpace space, Shadow& sh, Shadow::Position position, const Site& site,
                      const View& view, bool write) {
        const Iterator it = position.at;
        const std::uint64_t lo = it->first;
        Interval& iv = it->second;
        const std::uint64_t hi = iv.hi;
        if (write) {
            std::uint32_t me = iv.write;
            if (me != kNoRun && m_runs.held_once(me)) {
                // What write_over does for a plain write, with the interval's own write run
                // remade as this write's in place of a new run and the old one's release: a
                // local buffer written again holds its run's lines in cache already.
                write_races(iv, lo, site, view, space);
                for (std::size_t i = 0; i < iv.reads.size(); ++i) m_runs.release(iv.reads[i].id);
                iv.reads.clear();
                m_runs.remake(me, site, lo, hi - lo);
                iv.first_landed = std::min(iv.first_landed, site.time);
            } else {
                me = m_runs.make(site, lo, hi - lo);
                bool unset = false;
                bool kept_atomic = false;
                write_over(iv, lo, site, view, space, me, unset, kept_atomic);
            }
            merge_left(sh, it, position.left, me, true);
            explain_uninitialized(sh, site, lo, hi);
            return;
        }
        if (repeats_read(iv, site, view, lo, hi)) return;
        const std::uint32_t me = m_runs.make(site, lo, hi - lo);
        const bool unset = read_over(iv, lo, site, view, space, me);
        merge_left(sh, it, position.left, me, false);
        if (unset) note_uninitialized(sh, space, site, lo, hi);
    }
    // Whether this read of exactly [lo, hi) repeats the same instruction's read of the same
    // bytes (add(c, a, a) reads a twice) and changes nothing: the interval's newest read is
    // it, its write is ordered before the instruction (no race, nothing uninitialized), and
    // the list is short enough that the read before filtered it with this very view. A
    // second read_over would report nothing, drop that read (the instruction covers itself)
    // and add one with the same site in its place, and the merge with the left neighbour
    // fails for both (a run never extends by an access with its own epoch).
    bool repeats_read(const Interval& iv, const Site& site, const View& view, std::uint64_t lo,
                      std::uint64_t hi) const {
        const std::size_t n = iv.reads.size();
        if (n == 0 || n > 8 || iv.write == kNoRun) return false;
        const RunRef& newest = iv.reads[n - 1];
        if ((newest.id & kAtomicTag) != 0 || newest.agent != site.agent ||
            newest.last != site.epoch)
            return false;
        const Run& r = m_runs[newest.id];
        return r.pieces == 1 && r.origin == lo && r.size == hi - lo &&
               r.first.serial == site.serial && r.first.kernel_id == site.kernel_id &&
               r.first.launch == site.launch && r.first.time == site.time &&
               m_runs.all_covered(iv.write, view);
    }
    [[gnu::noinline]] void access_general(MemSpace space, Shadow& sh, const Site& site,
                                          const View& view, std::uint64_t lo, std::uint64_t hi,
                                          bool write, Iterator at_lo);
    // Reports the races of a write of `site` with the write and reads the interval holds.
    void write_races(const Interval& iv, std::uint64_t ilo, const Site& site, const View& view,
                     MemSpace space) {
        if (iv.write != kNoRun) race_with(iv.write, true, site, true, view, space, ilo, iv.hi);
        for (std::size_t i = 0; i < iv.reads.size(); ++i) {
            const RunRef& ref = iv.reads[i];
            if (m_runs.covers(ref, ilo, iv.hi, view)) continue;
            race_with(run_of(ref.id), (ref.id & kAtomicTag) != 0, site, true, view, space, ilo,
                      iv.hi);
        }
    }
    void write_over(Interval& iv, std::uint64_t ilo, const Site& site, const View& view,
                    MemSpace space, std::uint32_t me, bool& unset, bool& kept_atomic);
    bool read_over(Interval& iv, std::uint64_t ilo, const Site& site, const View& view,
                   MemSpace space, std::uint32_t me);
    void note_uninitialized(Shadow& sh, MemSpace space, const Site& site, std::uint64_t lo,
                            std::uint64_t hi);
    bool continue_run(Shadow& sh, const Site& site, const View& view, std::uint64_t lo,
                      std::uint64_t hi, bool write, Shadow::Position position);
    /// A plain write explains earlier candidates over its bytes that it landed before.
    void explain_uninitialized(Shadow& sh, const Site& site, std::uint64_t lo, std::uint64_t hi) {
        if (!sh.uninit.empty()) explain_candidates(sh, site, lo, hi);
    }
    void explain_candidates(Shadow& sh, const Site& site, std::uint64_t lo, std::uint64_t hi);

    FindingReporter& m_reporter;
    const CheckerOptions& m_options;
    RunPool m_runs;
    Shadow m_gm{256};  // interleaved blocks stream through GM: more lookups to remember
    std::map<std::tuple<MemSpace, CoreType, std::uint32_t>, Shadow> m_local;
    // The same shadows per core type and core, by space (null: not used yet): a new block's
    // reset looks at its core's only.
    std::array<std::vector<std::array<Shadow*, kMemSpaces>>, 2> m_core_locals;
    std::uint64_t m_uninit_sequence = 0;
    std::size_t m_uninit_count = 0;
};

}  // namespace npusim::check
