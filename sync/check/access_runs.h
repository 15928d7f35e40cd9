// Access runs: what the shadow memory (sync/check/shadow_memory.h) stores per interval.
//
// A run is a sequence of accesses by one agent from one source location, laid end to end.
// Piece k covers [origin + k*size, origin + (k+1)*size) and is the instruction with epoch
// first.epoch + k*epoch_step and serial first.serial + k*serial_step. A tiled loop's loads
// of one operand (or stores of its result) become one run however many tiles it has. Exact
// for happens-before: each piece keeps its own epoch, and coverage is decided per piece.
// Times: piece 0 keeps its own, later pieces share the last one's.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/small_vector.h"
#include "sync/check/site.h"

namespace npusim::check {

inline constexpr std::uint32_t kNoRun = ~std::uint32_t{0};

// Atomic copy-out: an atomic write does not replace the unordered writes before it (none
// overwrites another's data, and a later access must be ordered after each). The latest
// write is the interval's `write`; the others still standing sit in its `reads` with this
// tag on their run ids (atomic ones, or the plain write an atomic one followed).
inline constexpr std::uint32_t kAtomicTag = 0x80000000U;
inline std::uint32_t run_of(std::uint32_t id) {
    return id & ~kAtomicTag;
}

// Laid out so that a coverage question (first.agent, first.epoch, pieces, epoch_step: the
// end of `first` and the fields after it) reads one cache line: a race check is mostly that.
struct alignas(32) Run {
    Site first;
    std::uint32_t pieces = 1;
    EpochCount epoch_step = 0;
    std::uint64_t origin = 0;
    std::uint64_t size = 0;
    std::uint64_t serial_step = 0;
    Cycle last_time = 0;

    Site piece(std::uint32_t k) const {
        Site s = first;
        s.epoch = first.epoch + k * epoch_step;
        s.serial = first.serial + k * serial_step;
        if (k > 0) s.time = last_time;
        return s;
    }
    std::uint32_t piece_of(std::uint64_t address) const {
        return static_cast<std::uint32_t>((address - origin) / size);
    }
};
static_assert(offsetof(Run, first) + offsetof(Site, agent) >= 32 &&
                  offsetof(Run, epoch_step) + sizeof(EpochCount) <= 64,
              "a run's coverage fields share the second half of its first 64 bytes");

// An interval's reference to a run, with what a coverage question needs inline, so that
// scanning many references touches no run: the run's agent and an upper bound of the epoch
// of its last piece inside the interval (exact unless the interval was split off the run's
// start). `id` may carry kAtomicTag.
struct RunRef {
    std::uint32_t id = kNoRun;
    AgentId agent = 0;
    EpochCount last = 0;
};

// The run references of an interval's reads: up to three inline, more on the heap.
using RunRefList = SmallVector<RunRef, 3>;

// The pieces of a run inside a range that a view does not cover: how many, and the first.
struct Uncovered {
    std::uint64_t count = 0;
    std::uint32_t first = 0;
};

// Every run, by id, reference counted by the intervals that hold it; freed ids are reused.
class RunPool {
public:
    /// A new one-piece run for `site` over [lo, lo + bytes), with no references yet.
    std::uint32_t make(const Site& site, std::uint64_t lo, std::uint64_t bytes);
    /// Whether exactly one reference holds run `id`.
    bool held_once(std::uint32_t id) const { return m_refs[id] == 1; }
    /// Makes run `id` (its references unchanged) what make() would return for the same
    /// arguments: lets the one interval holding a run replace it in place.
    void remake(std::uint32_t id, const Site& site, std::uint64_t lo, std::uint64_t bytes) {
        Run& r = m_runs[id];
        r.first = site;
        r.origin = lo;
        r.size = bytes;
        r.pieces = 1;
        r.epoch_step = 0;
        r.serial_step = 0;
        r.last_time = site.time;
    }
    const Run& operator[](std::uint32_t id) const { return m_runs[id]; }

    /// A reference to run `id` (its current last piece).
    RunRef ref(std::uint32_t id) const {
        const Run& r = m_runs[id];
        return {id, r.first.agent, r.first.epoch + (r.pieces - 1) * r.epoch_step};
    }
    /// Whether `view` surely covers every piece of the referenced run inside [lo, hi), its
    /// interval: from the reference alone (no run lookup), except where the accessing
    /// instruction is the run's agent (then the run decides). False is exact whenever the
    /// reference's `last` is; otherwise it may keep a covered read, never drop an open one.
    bool covers(const RunRef& ref, std::uint64_t lo, std::uint64_t hi, const View& view) const {
        if (view.known(ref.agent) >= ref.last) return true;
        if (ref.agent != view.self_agent) return false;
        return uncovered(run_of(ref.id), lo, hi, view).count == 0;
    }

    void retain(std::uint32_t id) {
        if (id != kNoRun) ++m_refs[id];
    }
    void release(std::uint32_t id) {
        if (id != kNoRun && --m_refs[id] == 0) m_free.push_back(id);
    }

    /// Extends run `left` by run `right` (one piece, just after it) if they are one pattern.
    bool extend(std::uint32_t left, std::uint32_t right) {
        return extend(left, m_runs[right].first, m_runs[right].origin, m_runs[right].size,
                      m_runs[right].pieces);
    }
    /// Extends run `left` by the access of `site` over [lo, lo + bytes) (just after it) if
    /// they are one pattern; otherwise changes nothing. Lets the shadow memory grow a
    /// streaming loop's run without making a run for each access.
    bool extend(std::uint32_t left, const Site& b, std::uint64_t lo, std::uint64_t bytes,
                std::uint32_t pieces = 1) {
        Run& a = m_runs[left];
        // Same agent is not enough: successive blocks on a core may share agents
        // (sync/check/agents.h), and a run names one block. The source line first: neighbouring
        // buffers written by one pipe from different lines are the common refusal.
        if (pieces != 1 || !same_location(a.first.where, b.where) || a.first.agent != b.agent ||
            a.first.block != b.block || a.first.core_type != b.core_type || a.size != bytes ||
            a.origin + a.pieces * a.size != lo || b.epoch <= a.first.epoch ||
            b.serial < a.first.serial || a.first.kernel_id != b.kernel_id ||
            a.first.launch != b.launch || a.first.atomic != b.atomic)
            return false;
        if (a.pieces == 1) {
            a.epoch_step = b.epoch - a.first.epoch;
            a.serial_step = b.serial - a.first.serial;
        } else if (b.epoch != a.first.epoch + a.pieces * a.epoch_step ||
                   b.serial != a.first.serial + a.pieces * a.serial_step) {
            return false;
        }
        ++a.pieces;
        a.last_time = b.time;
        return true;
    }

    /// Whether `view` covers every piece of run `id` (its last piece).
    bool all_covered(std::uint32_t id, const View& view) const {
        const Run& r = m_runs[id];
        return view.known(r.first.agent) >= r.first.epoch + (r.pieces - 1) * r.epoch_step;
    }

    /// The pieces of run `id` inside [lo, hi) that `view` does not cover.
    Uncovered uncovered(std::uint32_t id, std::uint64_t lo, std::uint64_t hi,
                        const View& view) const {
        const Run& r = m_runs[id];
        const EpochCount known = view.known(r.first.agent);
        // Fast answers without dividing: a run whose last piece is covered is covered
        // everywhere (epochs grow with k), and a one-piece run is one question.
        const EpochCount last = r.first.epoch + (r.pieces - 1) * r.epoch_step;
        if (known >= last) return {};
        if (r.pieces == 1) {
            if (r.first.agent == view.self_agent && view.self_epoch == r.first.epoch) return {};
            return {1, 0};
        }
        const std::uint32_t k0 = r.piece_of(lo);
        const std::uint32_t k1 = r.piece_of(hi - 1);
        // Pieces k with epoch(k) <= known are covered.
        std::uint64_t first_open = k0;
        if (known >= r.first.epoch) {
            if (r.epoch_step == 0) return {};
            first_open = std::max<std::uint64_t>(k0, (known - r.first.epoch) / r.epoch_step + 1);
        }
        if (first_open > k1) return {};
        Uncovered u{k1 - first_open + 1, static_cast<std::uint32_t>(first_open)};
        if (r.first.agent == view.self_agent) {  // the accessing instruction covers itself
            const EpochCount e = view.self_epoch;
            if (e >= r.first.epoch &&
                (r.epoch_step == 0 ? e == r.first.epoch
                                   : (e - r.first.epoch) % r.epoch_step == 0)) {
                const std::uint64_t ks = r.epoch_step == 0 ? 0 : (e - r.first.epoch) / r.epoch_step;
                if (ks >= first_open && ks <= k1) {
                    --u.count;
                    if (ks == first_open) ++u.first;
                }
            }
        }
        return u;
    }

private:
    std::vector<Run> m_runs;
    // Reference counts beside the runs, not in them: dropping a reference (many per access
    // when an interval's reads are filtered) then touches 4 bytes, not the run's lines.
    std::vector<std::uint32_t> m_refs;
    std::vector<std::uint32_t> m_free;
};

}  // namespace npusim::check
