// Intra-core synchronization: flags order pipes, same-pipe overlap needs PipeBarrier,
// PipeBarrier(ALL) stalls the scalar unit, missing sync reads stale data, and a WaitFlag that
// is never satisfied ends the run as a deadlock that names where the block is stuck.
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/simulator.h"
#include "test_support.h"

using namespace npusim;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

constexpr std::uint64_t kN = 512;  // fp32 elements: 2 KiB, 64 cycles of MTE2

}  // namespace

TEST_CASE("a V op behind WaitFlag<MTE2_V> starts when the copy has completed", "[sync][engine]") {
    test::Recorder rec;
    Simulator sim(test::small_chip());
    sim.attach(rec);
    const test::AddBuffers buf = test::make_add_buffers(sim, 1, kN);
    const RunResult r = sim.run({.name = "flagged"}, test::synced_add_kernel, buf);
    REQUIRE(r.completed());
    CHECK(test::add_mismatches(sim, buf) == 0);

    const std::vector<Transaction> copies = rec.of(Op::Copy);
    const std::vector<Transaction> adds = rec.of(Op::Add);
    const std::vector<Transaction> sets = rec.of(Op::SetFlag);
    const std::vector<Transaction> waits = rec.of(Op::WaitFlag);
    REQUIRE(copies.size() == 3);
    REQUIRE(adds.size() == 1);
    REQUIRE(sets.size() == 2);
    REQUIRE(waits.size() == 2);
    const Cycle loads_done = std::max(copies[0].end, copies[1].end);
    // SetFlag<MTE2_V> fires when MTE2 drained; the wait and the add follow at that cycle.
    CHECK(sets[0].pipe == Pipe::MTE2);
    CHECK(sets[0].start == loads_done);
    CHECK(waits[0].pipe == Pipe::V);
    CHECK(waits[0].start == loads_done);
    CHECK(waits[0].partner_serial == sets[0].serial);
    CHECK(adds[0].issue < loads_done);  // issued early: the V pipe, not the scalar, waited
    CHECK(adds[0].start == loads_done);
    // Same on the way out: the store starts when the add's result is visible.
    CHECK(sets[1].start == adds[0].end);
    CHECK(copies[2].pipe == Pipe::MTE3);
    CHECK(copies[2].start == adds[0].end);
    CHECK(waits[1].partner_serial == sets[1].serial);
}

TEST_CASE("dependent ops on one pipe need PipeBarrier: without it they read stale data",
          "[sync][engine]") {
    test::Recorder rec;
    Simulator sim(test::small_chip());
    sim.attach(rec);
    auto x = sim.allocate<float>(kN, "x");
    auto y = sim.allocate<float>(kN, "y");
    auto z = sim.allocate<float>(kN, "z");
    const std::vector<float> xs = test::pattern_f32(kN, 1);
    const std::vector<float> ys = test::pattern_f32(kN, 2);
    sim.write(x, xs);
    sim.write(y, ys);
    constexpr float kOld = 1000.0F;  // what t holds before the first add lands
    const bool with_barrier = GENERATE(false, true);
    const RunResult r = sim.run({.name = "same_pipe"}, [=](Block& b) {
        auto xb = b.alloc<float>(MemSpace::UB, kN);
        auto yb = b.alloc<float>(MemSpace::UB, kN);
        auto t = b.alloc<float>(MemSpace::UB, kN);
        auto u = b.alloc<float>(MemSpace::UB, kN);
        b.fill(t, kOld, kN);
        b.copy(xb, x, kN);
        b.copy(yb, y, kN);
        b.set_flag(Pipe::MTE2, Pipe::V, 0);
        b.wait_flag(Pipe::MTE2, Pipe::V, 0);  // the fill has long completed by now
        b.add(t, xb, yb, kN);                 // t = x + y
        if (with_barrier) b.pipe_barrier(Pipe::V);
        b.add(u, t, yb, kN);  // u = t + y: reads t
        b.set_flag(Pipe::V, Pipe::MTE3, 0);
        b.wait_flag(Pipe::V, Pipe::MTE3, 0);
        b.copy(z, u, kN);
    });
    REQUIRE(r.completed());
    const std::vector<float> zs = sim.read(z);
    const std::vector<Transaction> adds = rec.of(Op::Add);
    REQUIRE(adds.size() == 2);
    std::uint64_t fresh = 0, stale = 0;
    for (std::size_t i = 0; i < kN; ++i) {
        if (zs[i] == xs[i] + ys[i] + ys[i]) ++fresh;
        if (zs[i] == kOld + ys[i]) ++stale;
    }
    if (with_barrier) {
        CHECK(adds[1].start == adds[0].end);
        CHECK(fresh == kN);
    } else {
        CHECK(adds[1].start == adds[0].pipe_free);
        CHECK(adds[1].start < adds[0].end);
        CHECK(stale == kN);
    }
}

TEST_CASE("PipeBarrier(ALL) stalls the scalar unit until every pipe drained", "[sync][engine]") {
    test::Recorder rec;
    Simulator sim(test::small_chip());
    sim.attach(rec);
    auto x = sim.allocate<float>(2048, "x");
    Cycle before = 0, after = 0;
    const RunResult r = sim.run({.name = "barrier_all"}, [&](Block& b) {
        auto ub = b.alloc<float>(MemSpace::UB, 2048);
        auto v = b.alloc<float>(MemSpace::UB, 64);
        b.copy(ub, x, 2048);  // ends at 1 + 256 + 100
        b.fill(v, 1.0F, 64);
        before = b.now();
        b.pipe_barrier(Pipe::ALL);
        after = b.now();
    });
    REQUIRE(r.completed());
    const std::vector<Transaction> copies = rec.of(Op::Copy);
    REQUIRE(copies.size() == 1);
    CHECK(before == 2);
    CHECK(after == copies[0].end);
    CHECK(after == 357);
    const std::vector<Transaction> barriers = rec.of(Op::PipeBarrier);
    REQUIRE(barriers.size() == 1);
    CHECK(barriers[0].pipe == Pipe::ALL);
    CHECK(barriers[0].start == copies[0].end);
    CHECK(r.end_cycle == copies[0].end);
}

TEST_CASE("missing sync between MTE2 and V reads stale UB data", "[sync][engine]") {
    Simulator sim(test::small_chip());
    auto x = sim.allocate<float>(kN, "x");
    auto y = sim.allocate<float>(kN, "y");
    auto z = sim.allocate<float>(kN, "z");
    const std::vector<float> xs = test::pattern_f32(kN, 1);
    const std::vector<float> ys = test::pattern_f32(kN, 2);
    sim.write(x, xs);
    sim.write(y, ys);
    const bool synced = GENERATE(false, true);
    const RunResult r = sim.run({.name = "unsynced"}, [=](Block& b) {
        auto xb = b.alloc<float>(MemSpace::UB, kN);
        auto yb = b.alloc<float>(MemSpace::UB, kN);
        auto zb = b.alloc<float>(MemSpace::UB, kN);
        b.fill(xb, -1.0F, kN);  // known "old" contents
        b.fill(yb, -2.0F, kN);
        b.set_flag(Pipe::V, Pipe::MTE2, 0);  // the copies must not land before the fills
        b.wait_flag(Pipe::V, Pipe::MTE2, 0);
        b.copy(xb, x, kN);
        b.copy(yb, y, kN);
        if (synced) {
            b.set_flag(Pipe::MTE2, Pipe::V, 0);
            b.wait_flag(Pipe::MTE2, Pipe::V, 0);
        }
        b.add(zb, xb, yb, kN);
        b.set_flag(Pipe::V, Pipe::MTE3, 0);
        b.wait_flag(Pipe::V, Pipe::MTE3, 0);
        b.copy(z, zb, kN);
    });
    REQUIRE(r.completed());
    const std::vector<float> zs = sim.read(z);
    std::uint64_t right = 0, old = 0;
    for (std::size_t i = 0; i < kN; ++i) {
        if (zs[i] == xs[i] + ys[i]) ++right;
        if (zs[i] == -3.0F) ++old;
    }
    if (synced) {
        CHECK(right == kN);
    } else {
        CHECK(old == kN);
    }
}

TEST_CASE("a WaitFlag without its SetFlag ends the run as a deadlock naming where",
          "[sync][engine][deadlock]") {
    Simulator sim(test::small_chip());
    auto x = sim.allocate<float>(kN, "x");

    SECTION("a pipe waits (found when the block ends)") {
        int line = 0;
        const RunResult r = sim.run({.name = "never_set", .blocks = 2}, [&, x](Block& b) {
            auto ub = b.alloc<float>(MemSpace::UB, kN);
            b.copy(ub, x, kN);
            line = __LINE__ + 1;
            b.wait_flag(Pipe::MTE2, Pipe::V, 3);
            b.add(ub, ub, ub, kN);
        });
        CHECK(r.outcome == RunOutcome::Deadlock);
        CHECK_FALSE(r.completed());
        REQUIRE(r.stuck.size() == 2);
        for (std::uint32_t i = 0; i < 2; ++i) {
            const StuckBlock& s = r.stuck[i];
            INFO(s.where << ": " << s.reason);
            CHECK(s.kernel == "never_set");
            CHECK(s.core_type == CoreType::Vector);
            CHECK(s.core >= 0);
            CHECK_THAT(s.where, StartsWith(test::location_prefix(__FILE__, line)));
            CHECK_THAT(s.reason, Contains("WaitFlag<MTE2_V>(3)"));
            CHECK_THAT(s.reason, Contains("serial 2"));
            CHECK_THAT(s.reason, Contains("never issued"));
        }
        CHECK(((r.stuck[0].block == 0 && r.stuck[1].block == 1) ||
               (r.stuck[0].block == 1 && r.stuck[1].block == 0)));
        REQUIRE(r.kernels.size() == 1);
        CHECK(r.kernels[0].blocks_finished == 0);
        CHECK_FALSE(r.kernels[0].completed());
    }
    SECTION("the scalar unit waits (found at once)") {
        int line = 0;
        const RunResult r = sim.run({.name = "scalar_waits"}, [&](Block& b) {
            line = __LINE__ + 1;
            b.wait_flag(Pipe::MTE3, Pipe::S, 0);
        });
        CHECK(r.outcome == RunOutcome::Deadlock);
        REQUIRE(r.stuck.size() == 1);
        CHECK(r.stuck[0].block == 0);
        CHECK_THAT(r.stuck[0].where, StartsWith(test::location_prefix(__FILE__, line)));
        CHECK_THAT(r.stuck[0].reason, Contains("WaitFlag<MTE3_S>(0)"));
    }
    SECTION("the pipe queue fills up behind the wait") {
        int wait_line = 0, issue_line = 0;
        const RunResult r = sim.run({.name = "queue_full"}, [&](Block& b) {
            auto ub = b.alloc<float>(MemSpace::UB, 64);
            wait_line = __LINE__ + 1;
            b.wait_flag(Pipe::MTE2, Pipe::V, 1);
            for (int i = 0; i < 40; ++i) {
                issue_line = __LINE__ + 1;
                b.add(ub, ub, ub, 64);
            }
        });
        CHECK(r.outcome == RunOutcome::Deadlock);
        REQUIRE(r.stuck.size() == 1);
        INFO(r.stuck[0].reason);
        CHECK_THAT(r.stuck[0].where, StartsWith(test::location_prefix(__FILE__, issue_line)));
        CHECK_THAT(r.stuck[0].reason, Contains("queue of PIPE_V is full"));
        CHECK_THAT(r.stuck[0].reason, Contains(test::location_prefix(__FILE__, wait_line)));
    }
    SECTION("PipeBarrier(ALL) behind a stalled pipe") {
        int line = 0;
        const RunResult r = sim.run({.name = "barrier_stuck"}, [&](Block& b) {
            b.wait_flag(Pipe::V, Pipe::MTE3, 2);
            line = __LINE__ + 1;
            b.pipe_barrier(Pipe::ALL);
        });
        CHECK(r.outcome == RunOutcome::Deadlock);
        REQUIRE(r.stuck.size() == 1);
        CHECK_THAT(r.stuck[0].where, StartsWith(test::location_prefix(__FILE__, line)));
        CHECK_THAT(r.stuck[0].reason, Contains("WaitFlag<V_MTE3>(2)"));
    }
    SECTION("blocks that never got a core are reported too") {
        const RunResult r = sim.run({.name = "many_stuck", .blocks = 6},
                                    [](Block& b) { b.wait_flag(Pipe::MTE3, Pipe::S, 0); });
        CHECK(r.outcome == RunOutcome::Deadlock);
        REQUIRE(r.stuck.size() == 6);
        std::uint32_t unplaced = 0;
        for (const StuckBlock& s : r.stuck) {
            if (s.core < 0) {
                ++unplaced;
                CHECK(s.block >= 4);
                CHECK_THAT(s.reason, Contains("free vector core"));
            }
        }
        CHECK(unplaced == 2);
    }
    // Whatever got stuck, the same simulator runs a correct kernel afterwards, and stale
    // flags or stalled instructions of the stuck run do not leak into it.
    CHECK(test::run_correct_add(sim, 4) == 0);
    CHECK(test::run_correct_add(sim, 4) == 0);
}

TEST_CASE("flags are counted: two SetFlags satisfy two WaitFlags in order", "[sync]") {
    test::Recorder rec;
    Simulator sim(test::small_chip());
    sim.attach(rec);
    auto x = sim.allocate<float>(2 * kN, "x");
    const RunResult r = sim.run({.name = "counted"}, [=](Block& b) {
        auto ub = b.alloc<float>(MemSpace::UB, 2 * kN);
        b.copy(ub, x, kN);
        b.set_flag(Pipe::MTE2, Pipe::V, 5);
        b.copy(ub.sub(kN, kN), x.sub(kN, kN), kN);
        b.set_flag(Pipe::MTE2, Pipe::V, 5);
        b.wait_flag(Pipe::MTE2, Pipe::V, 5);
        b.relu(ub, ub, kN);
        b.wait_flag(Pipe::MTE2, Pipe::V, 5);
        b.relu(ub.sub(kN, kN), ub.sub(kN, kN), kN);
    });
    REQUIRE(r.completed());
    const std::vector<Transaction> copies = rec.of(Op::Copy);
    const std::vector<Transaction> relus = rec.of(Op::Relu);
    const std::vector<Transaction> sets = rec.of(Op::SetFlag);
    const std::vector<Transaction> waits = rec.of(Op::WaitFlag);
    REQUIRE(copies.size() == 2);
    REQUIRE(relus.size() == 2);
    REQUIRE(waits.size() == 2);
    CHECK(waits[0].partner_serial == sets[0].serial);
    CHECK(waits[1].partner_serial == sets[1].serial);
    CHECK(relus[0].start == copies[0].end);
    CHECK(relus[1].start == copies[1].end);
}
