#include "sync/check/shadow_memory.h"

#include <algorithm>
#include <iterator>

namespace npusim::check {

ShadowMemory::ShadowMemory(FindingReporter& reporter, const CheckerOptions& options)
    : m_reporter(reporter), m_options(options) {}

void ShadowMemory::retain(const Interval& iv) {
    m_runs.retain(iv.write);
    for (std::size_t i = 0; i < iv.reads.size(); ++i) m_runs.retain(run_of(iv.reads[i].id));
}

void ShadowMemory::release(const Interval& iv) {
    m_runs.release(iv.write);
    for (std::size_t i = 0; i < iv.reads.size(); ++i) m_runs.release(run_of(iv.reads[i].id));
}

void ShadowMemory::clear(Shadow& shadow) {
    for (const auto& [lo, iv] : shadow.intervals()) release(iv);
    shadow.clear();
}

void ShadowMemory::reset_local(CoreType type, std::uint32_t core) {
    const auto& cores = m_core_locals[type == CoreType::Cube ? 1 : 0];
    if (core >= cores.size()) return;
    for (Shadow* sh : cores[core]) {
        if (sh != nullptr && !sh->intervals().empty() && !sh->age()) clear(*sh);
    }
}

bool ShadowMemory::access_stale(MemSpace space, Shadow& sh, const Site& site, std::uint64_t lo,
                                std::uint64_t hi, bool write, Shadow::Position& position) {
    const Iterator at = position.at;
    const Iterator left = position.left;
    const bool left_live = left != sh.end() && sh.live(left->second);
    if (!site.atomic && at != sh.end() && at->first == lo && at->second.hi == hi) {
        if (sh.live(at->second)) {
            if (!left_live) position.left = sh.end();
            return false;
        }
        // A cleared shadow has a gap at [lo, hi): the general path makes one interval there,
        // which a live left neighbour ending at lo may take in (continue_run or merge_left:
        // a write only when it holds a write and no reads; a read, let it decide).
        const Interval* l = left_live ? &left->second : nullptr;
        const bool joins =
            l != nullptr && l->hi == lo && (!write || (l->write != kNoRun && l->reads.empty()));
        if (!joins) {
            Interval& iv = at->second;
            const std::uint32_t old_write = iv.write;
            for (std::size_t i = 0; i < iv.reads.size(); ++i)
                m_runs.release(run_of(iv.reads[i].id));
            iv.reads.clear();
            iv.atomic_writes = false;
            std::uint32_t me = kNoRun;
            if (write && old_write != kNoRun && m_runs.held_once(old_write)) {
                me = old_write;  // remade in place, keeping its one reference
                m_runs.remake(me, site, lo, hi - lo);
            } else {
                m_runs.release(old_write);
                me = m_runs.make(site, lo, hi - lo);
                m_runs.retain(me);
            }
            sh.revive(iv);
            if (write) {
                iv.write = me;
                iv.first_landed = site.time;
                explain_uninitialized(sh, site, lo, hi);
            } else {
                iv.write = kNoRun;
                iv.first_landed = ~Cycle{0};
                iv.reads.push_back(m_runs.ref(me));
                note_uninitialized(sh, space, site, lo, hi);
            }
            return true;
        }
    }
    for (auto it = sh.begin(); it != sh.end();) {
        if (sh.live(it->second)) {
            ++it;
        } else {
            release(it->second);
            it = sh.erase(it);
        }
    }
    position = sh.find(lo);
    return false;
}

// Splits the interval holding `at` there, given the first interval starting at or after `at`
// (map.lower_bound(at)); returns the first interval starting at or after `at`.
ShadowMemory::Iterator ShadowMemory::split(Shadow& shadow, std::uint64_t at, Iterator it) {
    if (it != shadow.end() && it->first == at) return it;
    if (it == shadow.begin()) return it;
    const auto before = std::prev(it);
    if (at < before->second.hi) {
        Interval right = before->second;
        retain(right);
        before->second.hi = at;
        return shadow.emplace_hint(it, at, std::move(right));
    }
    return it;
}

// Reports the race of the current access with run `id` over [lo, hi), if any; returns the
// first uncovered piece's site through `seen`.
bool ShadowMemory::race_with_open(std::uint32_t id, bool run_write, const Site& site, bool write,
                                  const View& view, MemSpace space, std::uint64_t lo,
                                  std::uint64_t hi, Site* seen) {
    // The vendor sanitizer's atomic exemption: two atomic writes never race each other
    // (atomic writes are copies on MTE3 or FIX, never on PIPE_S).
    if (run_write && write && site.atomic && m_runs[id].first.atomic) return false;
    const Uncovered u = m_runs.uncovered(id, lo, hi, view);
    if (u.count == 0) return false;
    const Run& r = m_runs[id];
    const Site other = r.piece(u.first);
    const std::uint64_t piece_lo = std::max(lo, r.origin + u.first * r.size);
    const std::uint64_t piece_hi = std::min(hi, r.origin + (u.first + 1) * r.size);
    if (seen) *seen = other;
    if (m_options.racecheck)
        m_reporter.race(other, run_write, site, write, space, piece_lo, piece_hi, u.count);
    return true;
}

// merge_left() past its refusals that need no run: folds `it` into `left` when the run
// extends.
void ShadowMemory::merge_into_left(Shadow& shadow, Iterator it, Iterator left, std::uint32_t me,
                                   bool write) {
    Interval& l = left->second;
    Interval& r = it->second;
    if (write) {
        // The merged bytes keep the earlier landing time (initcheck of a read that overtakes
        // a later piece's store is approximate inside a run).
        if (!m_runs.extend(l.write, me)) return;
        l.first_landed = std::min(l.first_landed, r.first_landed);
    } else {
        const std::size_t n = r.reads.size();
        if (r.reads[n - 1].id != me || (l.reads[n - 1].id & kAtomicTag) != 0 ||
            l.reads[n - 1].agent != r.reads[n - 1].agent)  // answered without the runs
            return;
        for (std::size_t i = 0; i + 1 < n; ++i)
            if (l.reads[i].id != r.reads[i].id) return;
        if (!m_runs.extend(l.reads[n - 1].id, me)) return;
        l.reads[n - 1].last = m_runs.ref(me).last;
    }
    l.hi = r.hi;
    release(r);
    shadow.erase(it);
}

// A streaming loop's access: [lo, hi) continues the run of the interval that ends at lo,
// and the bytes hold nothing to report: untouched (a write), or only a write this access is
// ordered after that the left neighbour holds too. What the general path would do (a new
// interval, then merged into the neighbour) in place: the neighbour grows, the interval
// after it shrinks, and no run is made. Returns false, having changed nothing, otherwise.
bool ShadowMemory::continue_run(Shadow& sh, const Site& site, const View& view, std::uint64_t lo,
                                std::uint64_t hi, bool write, Shadow::Position position) {
    auto next = position.at;
    const auto left = position.left;
    if (left == sh.end()) return false;
    Interval& l = left->second;
    if (l.hi != lo || l.atomic_writes) return false;
    const bool gap = next == sh.end() || next->first >= hi;
    Interval* c = nullptr;  // the interval [lo, ...) the access starts, if not a gap
    if (!gap) {
        c = &next->second;
        if (next->first != lo || c->hi < hi || c->write == kNoRun || !c->reads.empty() ||
            c->atomic_writes)
            return false;
    }
    // The cheap refusals first; extending the run (a change) last.
    if (write) {
        if (l.write == kNoRun || !l.reads.empty()) return false;
    } else {
        // A read of never-written bytes is an initcheck candidate: the general path's.
        if (gap || l.write != c->write || l.first_landed != c->first_landed ||
            l.reads.size() != 1 || (l.reads[0].id & kAtomicTag) != 0)
            return false;
    }
    if (c && m_runs.uncovered(c->write, lo, hi, view).count != 0) return false;
    if (write) {
        if (!m_runs.extend(l.write, site, lo, hi - lo)) return false;
        l.first_landed = std::min(l.first_landed, site.time);
        if (c) l.first_landed = std::min(l.first_landed, c->first_landed);
    } else {
        if (!m_runs.extend(l.reads[0].id, site, lo, hi - lo)) return false;
        l.reads[0].last = site.epoch;
    }
    l.hi = hi;
    if (c && c->hi == hi) {
        release(*c);
        next = sh.erase(next);
    } else if (c) {  // the rest of it now starts at hi: the same node
        Shadow::move_start(next, hi);
    }
    sh.remember(hi, {next, left});  // where the loop's next access starts
    return true;
}

// The interval [ilo, iv.hi) under a write of `site` (run `me`): reports races with its
// write and reads, then `me` is its write. An atomic write keeps the writes it does not
// replace standing beside it (kept_atomic), and combines with never-written bytes (unset).
void ShadowMemory::write_over(Interval& iv, std::uint64_t ilo, const Site& site, const View& view,
                              MemSpace space, std::uint32_t me, bool& unset, bool& kept_atomic) {
    write_races(iv, ilo, site, view, space);
    if (site.atomic) {
        unset = iv.write == kNoRun;
        // The writes before it keep standing beside it: a later access must be ordered after
        // each. An atomic write that this one covers can go (whatever races with it races
        // with this one, and atomic against atomic is exempt for both); a plain write stays
        // even when covered, because a later atomic write is exempt against this one but
        // not against it.
        const auto stands = [&](std::uint32_t run) {
            return !m_runs[run].first.atomic || m_runs.uncovered(run, ilo, iv.hi, view).count != 0;
        };
        iv.reads.filter([&](const RunRef& ref) {
            if ((ref.id & kAtomicTag) != 0 && stands(run_of(ref.id))) return true;
            m_runs.release(run_of(ref.id));
            return false;
        });
        if (iv.write != kNoRun && stands(iv.write)) {
            RunRef tagged = m_runs.ref(iv.write);
            tagged.id |= kAtomicTag;
            iv.reads.push_back(tagged);  // keeps its reference
        } else {
            m_runs.release(iv.write);
        }
        iv.atomic_writes = !iv.reads.empty();
        kept_atomic = kept_atomic || iv.atomic_writes;
    } else {
        release(iv);
        iv.reads.clear();
        iv.atomic_writes = false;
    }
    iv.write = me;
    m_runs.retain(me);
    iv.first_landed = std::min(iv.first_landed, site.time);
}

// The interval [ilo, iv.hi) under a read of `site` (run `me`): reports races with its write
// (and standing atomic writes), then `me` joins its reads. Returns whether the read saw
// never-written bytes that no reported race explains.
bool ShadowMemory::read_over(Interval& iv, std::uint64_t ilo, const Site& site, const View& view,
                             MemSpace space, std::uint32_t me) {
    bool explained = false;  // a RAW reported here already says why the data is stale
    bool write_covered = true;
    if (iv.write != kNoRun) {
        Site w;
        if (race_with(iv.write, true, site, false, view, space, ilo, iv.hi, &w)) {
            write_covered = false;
            explained = m_options.racecheck &&
                        (same_block(w, site) ? w.serial < site.serial : w.time <= site.time);
        }
    }
    if (iv.atomic_writes) {
        for (std::size_t i = 0; i < iv.reads.size(); ++i) {
            const std::uint32_t id = iv.reads[i].id;
            if ((id & kAtomicTag) != 0)
                race_with(run_of(id), true, site, false, view, space, ilo, iv.hi);
        }
    }
    // Never written, or written only by an unordered write that landed after this read
    // began: the read saw uninitialized bytes.
    const bool unset = iv.write == kNoRun || (!write_covered && site.time < iv.first_landed);
    // Reads this one covers are dropped (it stands for them). Past a few reads that is done
    // only when the list doubles, so that many unordered readers (blocks) cost each read
    // O(1) amortized.
    const std::size_t n = iv.reads.size();
    if (n > 0 && (n <= 8 || (n & (n - 1)) == 0)) {
        iv.reads.filter([&](const RunRef& ref) {
            // A read does not stand for an atomic write (a later read races with it).
            if ((ref.id & kAtomicTag) != 0) return true;
            if (!m_runs.covers(ref, ilo, iv.hi, view)) return true;
            m_runs.release(ref.id);
            return false;
        });
    }
    iv.reads.push_back(m_runs.ref(me));
    m_runs.retain(me);
    return unset && !explained;
}

// Only kernels' reads (and atomic writes) are initcheck candidates, decided at their kernel's
// end; a host call's read of never-written GM (a device-to-host copy) is not reported.
void ShadowMemory::note_uninitialized(Shadow& sh, MemSpace space, const Site& site,
                                      std::uint64_t lo, std::uint64_t hi) {
    if (!m_options.initcheck || site.kernel_id == kNoKernel ||
        (space != MemSpace::GM && space != MemSpace::UB))
        return;
    sh.uninit[lo].emplace_back(m_uninit_sequence++, Uninit{space, site, lo, hi});
    sh.uninit_span = std::max(sh.uninit_span, hi - lo);
    ++m_uninit_count;
}

// Any other access: gaps become intervals, the intervals at its ends are split, and each
// interval inside is visited; a write leaves one interval for its range.
void ShadowMemory::access_general(MemSpace space, Shadow& sh, const Site& site, const View& view,
                                  std::uint64_t lo, std::uint64_t hi, bool write, Iterator at_lo) {
    auto it = split(sh, lo, at_lo);
    const std::uint32_t me = m_runs.make(site, lo, hi - lo);
    bool uninitialized = false;
    std::uint64_t uninit_lo = 0;
    Cycle merged_first_landed = site.time;
    std::uint64_t cursor = lo;
    Iterator first = sh.end();        // the interval starting at lo, once made or found
    bool kept_atomic_writes = false;  // some interval keeps earlier atomic writes standing
    while (cursor < hi) {
        if (it == sh.end() || it->first > cursor) {
            const std::uint64_t gap_hi =
                it == sh.end() ? hi : std::min<std::uint64_t>(hi, it->first);
            // An atomic write combines with GM's bytes: it reads them too.
            if ((!write || site.atomic) && !uninitialized) {
                uninitialized = true;
                uninit_lo = cursor;
            }
            Interval fresh;
            fresh.hi = gap_hi;
            if (write) {
                fresh.write = me;
                fresh.first_landed = site.time;
            } else {
                fresh.reads.push_back(m_runs.ref(me));
            }
            m_runs.retain(me);
            const Iterator made = sh.emplace_hint(it, cursor, std::move(fresh));
            if (first == sh.end()) first = made;
            it = std::next(made);
            cursor = gap_hi;
            continue;
        }
        if (first == sh.end()) first = it;
        if (it->second.hi > hi) {  // the last interval reaches past the access: split
            Interval right = it->second;
            retain(right);
            it->second.hi = hi;
            sh.emplace_hint(std::next(it), hi, std::move(right));
        }
        Interval& iv = it->second;
        bool unset = false;
        if (write) {
            write_over(iv, it->first, site, view, space, me, unset, kept_atomic_writes);
            merged_first_landed = std::min(merged_first_landed, iv.first_landed);
        } else {
            unset = read_over(iv, it->first, site, view, space, me);
        }
        if (unset && !uninitialized) {
            uninitialized = true;
            uninit_lo = it->first;
        }
        cursor = iv.hi;
        ++it;
    }
    // `it` is now the first interval at or after hi (the last one processed ends at hi).
    if (write && !kept_atomic_writes) {  // one interval for the written range: a small map
        const auto end = it;
        for (auto e = std::next(first); e != end; ++e) release(e->second);
        sh.erase(std::next(first), end);
        first->second.hi = hi;  // already holds this write and no reads
        first->second.first_landed = merged_first_landed;
    }
    if (first->second.hi == hi)
        merge_left(sh, first, first == sh.begin() ? sh.end() : std::prev(first), me, write);
    // An atomic write defines nothing: it combines with what was there.
    if (write && !site.atomic) explain_uninitialized(sh, site, lo, hi);
    if (uninitialized) note_uninitialized(sh, space, site, uninit_lo, hi);
}

// An unordered write published later may have come earlier in simulated time: what
// landed before the candidate's read explains it.
void ShadowMemory::explain_candidates(Shadow& sh, const Site& site, std::uint64_t lo,
                                      std::uint64_t hi) {
    const std::uint64_t from = lo > sh.uninit_span ? lo - sh.uninit_span : 0;
    for (auto bucket = sh.uninit.lower_bound(from);
         bucket != sh.uninit.end() && bucket->first < hi;) {
        m_uninit_count -= std::erase_if(bucket->second, [&](const auto& candidate) {
            const Uninit& u = candidate.second;
            return lo < u.hi && site.time <= u.site.time;
        });
        bucket = bucket->second.empty() ? sh.uninit.erase(bucket) : std::next(bucket);
    }
}

std::vector<std::pair<std::uint64_t, Uninit>> ShadowMemory::take_uninitialized(
    std::uint32_t kernel_id) {
    std::vector<std::pair<std::uint64_t, Uninit>> due;
    if (m_uninit_count == 0) return due;
    auto collect = [&](Shadow& sh) {
        for (auto bucket = sh.uninit.begin(); bucket != sh.uninit.end();) {
            m_uninit_count -= std::erase_if(bucket->second, [&](const auto& candidate) {
                if (candidate.second.site.kernel_id != kernel_id) return false;
                due.push_back(candidate);
                return true;
            });
            bucket = bucket->second.empty() ? sh.uninit.erase(bucket) : std::next(bucket);
        }
    };
    collect(m_gm);
    for (auto& [key, sh] : m_local) collect(sh);
    std::sort(due.begin(), due.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    return due;
}

}  // namespace npusim::check
