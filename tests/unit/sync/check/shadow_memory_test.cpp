// The checker's shadow memory and its access runs, without a simulation: coverage of run
// pieces, which accesses extend a run, read lists answered from their references, and the
// interval map a streaming loop leaves (one interval per run, not one per access).
#include "sync/check/shadow_memory.h"

#include <source_location>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include "memory/global_memory.h"
#include "sync/check/access_runs.h"
#include "sync/check/finding_reporter.h"
#include "sync/check/host_calls.h"
#include "sync/check/vector_clock.h"

using namespace npusim;
using namespace npusim::check;

namespace {

constexpr std::uint64_t kTile = 32;
const std::source_location kLoopLine = std::source_location::current();

// One loop's instruction: the same source line for every iteration.
Site loop_site(AgentId agent, EpochCount epoch, std::uint32_t block = 0,
               std::source_location where = kLoopLine) {
    Site s;
    s.block = block;
    s.pipe = Pipe::MTE2;
    s.agent = agent;
    s.epoch = epoch;
    s.serial = epoch;
    s.time = epoch;
    s.where = where;
    return s;
}

// A shadow memory with its reporter, the way the checker wires them.
struct Fixture {
    GlobalMemory gm{std::uint64_t{1} << 30};
    std::vector<Finding> findings;
    CheckerOptions options;
    HostCalls calls;
    FindingReporter reporter{findings, gm, options, calls,
                             [](std::uint32_t) { return std::string("k"); }};
    ShadowMemory shadows{reporter, options};
};

}  // namespace

TEST_CASE("access runs: a one-piece run is covered once its epoch is known", "[unit]") {
    RunPool pool;
    const std::uint32_t id = pool.make(loop_site(1, 5), 0, kTile);
    VectorClock clock;
    CHECK(pool.uncovered(id, 0, kTile, View{clock}).count == 1);
    clock.set(1, 4);
    CHECK(pool.uncovered(id, 0, kTile, View{clock}).count == 1);
    clock.set(1, 5);
    CHECK(pool.uncovered(id, 0, kTile, View{clock}).count == 0);
    // The accessing instruction itself (an in-place op) covers its own access.
    VectorClock empty;
    CHECK(pool.uncovered(id, 0, kTile, View{empty, ~AgentId{0}, 0, 1, 5}).count == 0);
    CHECK(pool.uncovered(id, 0, kTile, View{empty, ~AgentId{0}, 0, 1, 6}).count == 1);
}

TEST_CASE("access runs: a loop's accesses laid end to end extend one run", "[unit]") {
    RunPool pool;
    const std::uint32_t id = pool.make(loop_site(1, 10), 0, kTile);
    for (EpochCount k = 1; k < 4; ++k) {  // epochs 13, 16, 19: a step of 3
        REQUIRE(pool.extend(id, loop_site(1, 10 + 3 * k), k * kTile, kTile));
    }
    CHECK(pool[id].pieces == 4);
    CHECK(pool.ref(id).last == 19);

    VectorClock clock;
    clock.set(1, 14);  // knows pieces 0 and 1
    const Uncovered u = pool.uncovered(id, 0, 4 * kTile, View{clock});
    CHECK(u.count == 2);
    CHECK(u.first == 2);
    CHECK(pool[id].piece(2).epoch == 16);
    // Only the pieces inside the range count.
    CHECK(pool.uncovered(id, 0, 2 * kTile, View{clock}).count == 0);
    CHECK(pool.uncovered(id, 3 * kTile, 4 * kTile, View{clock}).count == 1);
}

TEST_CASE("access runs: what may not extend a run", "[unit]") {
    RunPool pool;
    const std::uint32_t id = pool.make(loop_site(1, 10), 0, kTile);
    SECTION("a gap") {
        CHECK_FALSE(pool.extend(id, loop_site(1, 11), 2 * kTile, kTile));
    }
    SECTION("another size") {
        CHECK_FALSE(pool.extend(id, loop_site(1, 11), kTile, 16));
    }
    SECTION("another agent") {
        CHECK_FALSE(pool.extend(id, loop_site(2, 11), kTile, kTile));
    }
    SECTION("another block on the same agent (successive blocks on a core)") {
        CHECK_FALSE(pool.extend(id, loop_site(1, 11, 1), kTile, kTile));
    }
    SECTION("another source line") {
        const Site other = loop_site(1, 11, 0, std::source_location::current());
        CHECK_FALSE(pool.extend(id, other, kTile, kTile));
    }
    SECTION("an uneven step") {
        REQUIRE(pool.extend(id, loop_site(1, 12), kTile, kTile));
        CHECK_FALSE(pool.extend(id, loop_site(1, 15), 2 * kTile, kTile));
    }
    CHECK(pool[id].pieces <= 2);
}

TEST_CASE("access runs: a reference answers coverage without its run", "[unit]") {
    RunPool pool;
    const std::uint32_t id = pool.make(loop_site(1, 7), 0, kTile);
    const RunRef ref = pool.ref(id);
    CHECK(ref.agent == 1);
    CHECK(ref.last == 7);
    VectorClock clock;
    CHECK_FALSE(pool.covers(ref, 0, kTile, View{clock}));
    clock.set(1, 7);
    CHECK(pool.covers(ref, 0, kTile, View{clock}));
    // An over-estimated last piece may keep a covered read, never drop an open one.
    RunRef stale = ref;
    stale.last = 9;
    CHECK_FALSE(pool.covers(stale, 0, kTile, View{clock}));
}

TEST_CASE("shadow memory: a streaming loop leaves one interval per run", "[unit]") {
    Fixture f;
    Shadow& gm = f.shadows.gm();
    VectorClock writer;
    constexpr EpochCount kTiles = 64;
    for (EpochCount k = 0; k < kTiles; ++k) {
        const Site w = loop_site(1, k + 1);
        writer.set(1, k + 1);
        f.shadows.access(MemSpace::GM, gm, w, View{writer}, k * kTile, (k + 1) * kTile, true);
    }
    CHECK(gm.intervals().size() == 1);
    CHECK(gm.intervals().begin()->second.hi == kTiles * kTile);

    // Another agent reads the first half in its own loop, ordered after the writes.
    VectorClock reader = writer;
    for (EpochCount k = 0; k < kTiles / 2; ++k) {
        const Site r = loop_site(2, k + 1);
        reader.set(2, k + 1);
        f.shadows.access(MemSpace::GM, gm, r, View{reader}, k * kTile, (k + 1) * kTile, false);
    }
    CHECK(f.findings.empty());
    REQUIRE(gm.intervals().size() == 2);  // the read half and the rest
    CHECK(gm.intervals().begin()->second.hi == kTiles / 2 * kTile);
    CHECK(gm.intervals().begin()->second.reads.size() == 1);

    // A third agent that knows nothing writes everything: one WAR with each of the read
    // run's 32 pieces and one WAW with each of the write run's 64 (deduplicated by line).
    VectorClock stranger;
    stranger.set(3, 1);
    f.shadows.access(MemSpace::GM, gm, loop_site(3, 1), View{stranger}, 0, kTiles * kTile, true);
    REQUIRE(f.findings.size() == 2);
    std::uint64_t war = 0, waw = 0;
    for (const Finding& finding : f.findings) {
        if (finding.kind == FindingKind::RaceWAR) war += finding.count;
        if (finding.kind == FindingKind::RaceWAW) waw += finding.count;
    }
    CHECK(war == kTiles / 2);
    CHECK(waw == kTiles);
    CHECK(gm.intervals().size() == 1);
}

TEST_CASE("shadow memory: cached lookups survive merges that erase intervals", "[unit]") {
    Fixture f;
    Shadow& ub = f.shadows.local(MemSpace::UB, CoreType::Vector, 0);
    VectorClock clock;
    EpochCount epoch = 0;
    // Two tiles written out of order (each a fresh interval), then the gap between them
    // filled by the same loop: the intervals merge and nodes are erased. Every address is
    // looked up again afterwards (under ASan a stale cached node would be a use after free).
    const auto write = [&](std::uint64_t lo) {
        ++epoch;
        clock.set(1, epoch);
        f.shadows.access(MemSpace::UB, ub, loop_site(1, epoch), View{clock}, lo, lo + kTile, true);
    };
    for (int round = 0; round < 3; ++round) {
        write(2 * kTile);
        write(0);
        write(kTile);
        write(3 * kTile);
    }
    CHECK(f.findings.empty());
    for (std::uint64_t lo = 0; lo < 4 * kTile; lo += kTile) {
        const Shadow::Position p = ub.find(lo);
        CHECK(p.at == ub.intervals().lower_bound(lo));
        if (p.at != ub.begin()) CHECK(p.left == std::prev(p.at));
    }
}

TEST_CASE("shadow memory: a remembered position names the interval before it", "[unit]") {
    Fixture f;
    Shadow& gm = f.shadows.gm();
    VectorClock clock;
    // A host-written buffer read by a streaming loop: each read moves the start of the rest
    // of the buffer forward in place, and remembers where the next read lands.
    clock.set(1, 1);
    f.shadows.access(MemSpace::GM, gm, loop_site(1, 1), View{clock}, 0, 16 * kTile, true);
    for (EpochCount k = 0; k < 8; ++k) {
        clock.set(2, k + 1);
        f.shadows.access(MemSpace::GM, gm, loop_site(2, k + 1), View{clock}, k * kTile,
                         (k + 1) * kTile, false);
        const std::uint64_t next = (k + 1) * kTile;
        const Shadow::Position p = gm.find(next);
        REQUIRE(p.at != gm.end());
        CHECK(p.at->first == next);
        CHECK(p.at == gm.intervals().lower_bound(next));
        REQUIRE(p.left != gm.end());
        CHECK(std::next(p.left) == p.at);
        CHECK(p.left->second.hi == next);
    }
    CHECK(f.findings.empty());
    CHECK(gm.intervals().size() == 2);  // the read part and the rest
    // Every position, asked afresh, agrees with the map.
    for (std::uint64_t lo = 0; lo <= 16 * kTile; lo += kTile / 2) {
        const Shadow::Position p = gm.find(lo);
        CHECK(p.at == gm.intervals().lower_bound(lo));
        if (p.at != gm.begin()) CHECK(p.left == std::prev(p.at));
    }
}

TEST_CASE("shadow memory: a buffer written again keeps one run, remade for each write", "[unit]") {
    Fixture f;
    Shadow& gm = f.shadows.gm();
    VectorClock writer;  // agent 1 writes the buffer; agent 2 reads it
    VectorClock reader;
    writer.set(1, 1);
    f.shadows.access(MemSpace::GM, gm, loop_site(1, 1), View{writer}, 0, kTile, true);
    const std::uint32_t run = gm.intervals().begin()->second.write;
    reader.set(1, 1);
    reader.set(2, 1);
    f.shadows.access(MemSpace::GM, gm, loop_site(2, 1), View{reader}, 0, kTile, false);
    CHECK(f.findings.empty());
    // Written again without waiting for the read: a WAR, and the run now is this write.
    writer.set(1, 2);
    f.shadows.access(MemSpace::GM, gm, loop_site(1, 2), View{writer}, 0, kTile, true);
    REQUIRE(f.findings.size() == 1);
    CHECK(f.findings[0].kind == FindingKind::RaceWAR);
    REQUIRE(gm.intervals().size() == 1);
    const Interval& iv = gm.intervals().begin()->second;
    CHECK(iv.write == run);
    CHECK(iv.reads.empty());
    CHECK(f.shadows.runs()[run].first.epoch == 2);
    CHECK(f.shadows.runs()[run].pieces == 1);
    // A read ordered after the new write sees nothing wrong; one ordered only after the
    // first write races with the second.
    reader.set(1, 2);
    f.shadows.access(MemSpace::GM, gm, loop_site(2, 2), View{reader}, 0, kTile, false);
    CHECK(f.findings.size() == 1);
    VectorClock stale;
    stale.set(1, 1);
    stale.set(3, 1);
    f.shadows.access(MemSpace::GM, gm, loop_site(3, 5), View{stale}, 0, kTile, false);
    REQUIRE(f.findings.size() == 2);
    CHECK(f.findings[1].kind == FindingKind::RaceRAW);
}

// The fast path for an instruction reading the same bytes twice (add(c, a, a)): the second
// read changes nothing only when the first found the write ordered before it. Unordered,
// both reads are still checked: the RAW is reported for each of them, as before.
TEST_CASE("shadow memory: an instruction reading the same bytes twice is still checked twice",
          "[unit]") {
    Fixture f;
    Shadow& gm = f.shadows.gm();
    VectorClock writer;
    writer.set(1, 1);
    f.shadows.access(MemSpace::GM, gm, loop_site(1, 1), View{writer}, 0, kTile, true);
    // Agent 2 knows the write: both operand reads are clean, and one read stands for them.
    VectorClock ordered;
    ordered.set(1, 1);
    const Site twice = loop_site(2, 1);
    f.shadows.access(MemSpace::GM, gm, twice, View{ordered, ~AgentId{0}, 0, 2, 1}, 0, kTile, false);
    f.shadows.access(MemSpace::GM, gm, twice, View{ordered, ~AgentId{0}, 0, 2, 1}, 0, kTile, false);
    CHECK(f.findings.empty());
    REQUIRE(gm.intervals().size() == 1);
    CHECK(gm.intervals().begin()->second.reads.size() == 1);
    // Agent 3 does not know the write: each operand read races with it.
    VectorClock unordered;
    const Site racy = loop_site(3, 1);
    f.shadows.access(MemSpace::GM, gm, racy, View{unordered, ~AgentId{0}, 0, 3, 1}, 0, kTile,
                     false);
    f.shadows.access(MemSpace::GM, gm, racy, View{unordered, ~AgentId{0}, 0, 3, 1}, 0, kTile,
                     false);
    REQUIRE(f.findings.size() == 1);
    CHECK(f.findings[0].kind == FindingKind::RaceRAW);
    CHECK(f.findings[0].count == 2);
    // A later write by agent 1 that knows neither read races with both readers' reads.
    writer.set(1, 2);
    f.shadows.access(MemSpace::GM, gm, loop_site(1, 2), View{writer}, 0, kTile, true);
    CHECK(f.findings.size() == 2);
    CHECK(f.findings[1].kind == FindingKind::RaceWAR);
}

namespace {

// The live intervals of `sh`: start, end, written, number of reads.
std::vector<std::tuple<std::uint64_t, std::uint64_t, bool, std::size_t>> live_layout(
    const Shadow& sh) {
    std::vector<std::tuple<std::uint64_t, std::uint64_t, bool, std::size_t>> out;
    for (const auto& [lo, iv] : sh.intervals())
        if (sh.live(iv)) out.emplace_back(lo, iv.hi, iv.write != kNoRun, iv.reads.size());
    return out;
}

}  // namespace

// A new block on a core sees fresh local memories. Its shadows are aged, not cleared: what
// it does must leave the intervals, findings and initcheck candidates a cleared shadow would
// (stale intervals revived in place, or removed where a live neighbour could join them).
TEST_CASE("shadow memory: a new block's aged local memory acts as a cleared one", "[unit]") {
    const auto line = [](int n) {
        static const std::source_location lines[] = {
            std::source_location::current(), std::source_location::current(),
            std::source_location::current(), std::source_location::current(),
            std::source_location::current(), std::source_location::current()};
        return lines[n];
    };
    const auto at = [&](AgentId agent, EpochCount epoch, int where) {
        Site s = loop_site(agent, epoch, agent == 1 ? 0 : 1, line(where));
        s.pipe = Pipe::V;
        return s;
    };
    // The next block (agent 9) knows all the previous one (agent 1) did.
    const auto next_block = [&](Fixture& f, Shadow& ub) {
        VectorClock c;
        c.set(1, 10);
        const auto access = [&](EpochCount e, int where, std::uint64_t lo, std::uint64_t hi,
                                bool write) {
            c.set(9, e);
            f.shadows.access(MemSpace::UB, ub, at(9, e, where), View{c}, lo, hi, write);
        };
        access(1, 0, 64, 96, false);  // never written by it: an initcheck candidate
        access(2, 1, 0, 32, true);    // a stale interval, revived
        access(3, 1, 32, 64, true);   // continues the run of [0, 32): one interval
        access(4, 2, 0, 64, false);   // exactly that interval
        access(5, 3, 96, 160, true);  // over a gap
    };
    Fixture aged;
    Shadow& ub = aged.shadows.local(MemSpace::UB, CoreType::Vector, 0);
    VectorClock first;
    const auto previous = [&](EpochCount e, int where, std::uint64_t lo, std::uint64_t hi,
                              bool write) {
        first.set(1, e);
        aged.shadows.access(MemSpace::UB, ub, at(1, e, where), View{first}, lo, hi, write);
    };
    previous(1, 0, 0, 32, true);
    previous(2, 1, 32, 64, true);
    previous(3, 2, 64, 96, true);
    previous(4, 3, 96, 128, true);
    previous(5, 4, 0, 32, false);
    REQUIRE(live_layout(ub).size() == 4);
    aged.shadows.reset_local(CoreType::Vector, 0);
    CHECK(live_layout(ub).empty());
    next_block(aged, ub);

    Fixture cleared;
    Shadow& fresh = cleared.shadows.local(MemSpace::UB, CoreType::Vector, 0);
    next_block(cleared, fresh);

    CHECK(live_layout(ub) == live_layout(fresh));
    CHECK(live_layout(ub).size() == 3);  // [0, 64), [64, 96), [96, 160)
    CHECK(ub.intervals().size() == 3);   // nothing stale is left
    CHECK(aged.findings.size() == cleared.findings.size());
    CHECK(aged.shadows.take_uninitialized(0).size() == 1);
    CHECK(cleared.shadows.take_uninitialized(0).size() == 1);
}
