// The checker's agents across the blocks of a core (sync/check/agents.h): a block ordered
// after the previous one on its core (same kernel, or a Simulator::launch kernel) takes over
// its agents. That must order exactly what was ordered before: blocks of one kernel on one
// core stay ordered, blocks on other cores do not, findings name the block that made the
// access (not the one whose agents it took over), and kernels of different streams placed
// on one core stay unordered (only events order them).
#include <algorithm>
#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "base/chip_config.h"
#include "base/tensor.h"
#include "core/block.h"
#include "sim/host/runtime.h"
#include "sim/simulator.h"
#include "sync/check/check_report.h"
#include "sync/check/checker.h"
#include "sync/check/findings.h"
#include "test_support.h"

using namespace npusim;

namespace {

constexpr std::uint64_t N = 256;  // floats: 1 KiB
constexpr std::uint64_t kBytes = N * sizeof(float);

std::vector<const Finding*> races(const std::vector<Finding>& findings) {
    std::vector<const Finding*> out;
    for (const Finding& f : findings)
        if (is_race(f.kind)) out.push_back(&f);
    return out;
}

ChipConfig one_vector_core() {
    ChipConfig chip = test::small_chip();
    chip.vector_cores = 1;
    return chip;
}

/// About `delay` cycles of scalar work.
void busy(Block& b, std::uint64_t delay) {
    auto scratch = b.alloc<float>(MemSpace::UB, 8);
    for (std::uint64_t i = 0; i < delay / 5; ++i) b.store(scratch, 0, 0.0F);
}

void store_all(Block& b, GlobalTensor<float> x, float value) {
    auto ub = b.alloc<float>(MemSpace::UB, N);
    b.fill(ub, value, N);
    b.set_flag(Pipe::V, Pipe::MTE3, 0);
    b.wait_flag(Pipe::V, Pipe::MTE3, 0);
    b.copy(x, ub, N);
}

void load_all(Block& b, GlobalTensor<float> x) {
    auto ub = b.alloc<float>(MemSpace::UB, N);
    b.copy(ub, x, N);
}

const KernelResult& kernel_named(const RunResult& result, const std::string& name) {
    for (const KernelResult& k : result.kernels)
        if (k.name == name) return k;
    FAIL("no kernel named " << name);
    return result.kernels.front();
}

/// Kernel A on stream 1 stores x, kernel C on stream 2 loads it; the chip has one vector
/// core, so C runs on A's core after A. With `event`, stream 2 waits for A.
RunResult streams_on_one_core(Simulator& sim, bool event) {
    return sim.run_host([&](Runtime& rt) {
        const DeviceBuffer x = rt.malloc(kBytes, "x");
        const Stream s1 = rt.create_stream();
        const Stream s2 = rt.create_stream();
        const Event a_done = rt.create_event();
        rt.launch(s1, {.name = "A"}, [=](Block& b) { store_all(b, x.as<float>(), 1.0F); });
        rt.record_event(a_done, s1);
        if (event) rt.stream_wait_event(s2, a_done);
        rt.launch(s2, {.name = "C"}, [=](Block& b) { load_all(b, x.as<float>()); });
        rt.synchronize_device();
    });
}

}  // namespace

TEST_CASE("checker agents: kernels of two streams on one core still race", "[checker][agents]") {
    Simulator sim(one_vector_core());
    Checker checker(sim.global_memory());
    sim.attach(checker);
    const RunResult result = streams_on_one_core(sim, false);
    REQUIRE(result.completed());
    // One core: C started after A ended, yet nothing but placement orders them.
    CHECK(kernel_named(result, "C").start >= kernel_named(result, "A").end);
    INFO(format_findings(checker.findings()));
    const std::vector<const Finding*> found = races(checker.findings());
    REQUIRE(found.size() == 1);
    const Finding& f = *found.front();
    CHECK(f.kind == FindingKind::RaceRAW);
    CHECK(f.scope == RaceScope::InterStream);
    REQUIRE(f.sites.size() == 2);
    CHECK(f.sites[0].kernel == "A");
    CHECK(f.sites[1].kernel == "C");
}

TEST_CASE("checker agents: an event orders kernels of two streams on one core",
          "[checker][agents]") {
    Simulator sim(one_vector_core());
    Checker checker(sim.global_memory());
    sim.attach(checker);
    const RunResult result = streams_on_one_core(sim, true);
    REQUIRE(result.completed());
    INFO(format_findings(checker.findings()));
    CHECK(checker.findings().empty());
}

TEST_CASE("checker agents: the blocks of a kernel on one core are ordered, across cores not",
          "[checker][agents]") {
    // Every block stores over the same x: on one core the blocks run one after another and
    // are ordered; on two cores blocks run side by side and race.
    for (const std::uint64_t cores : {1, 2}) {
        ChipConfig chip = test::small_chip();
        chip.vector_cores = cores;
        Simulator sim(chip);
        Checker checker(sim.global_memory());
        sim.attach(checker);
        auto x = sim.allocate<float>(N, "x");
        sim.run({.name = "overwrite", .blocks = 6},
                [&](Block& b) { store_all(b, x, static_cast<float>(b.block_idx())); });
        INFO("cores: " << cores << "\n" << format_findings(checker.findings()));
        if (cores == 1) {
            CHECK(checker.findings().empty());
        } else {
            const std::vector<const Finding*> found = races(checker.findings());
            REQUIRE_FALSE(found.empty());
            CHECK(found.front()->kind == FindingKind::RaceWAW);
            CHECK(found.front()->scope == RaceScope::InterCore);
        }
    }
}

TEST_CASE("checker agents: a finding names the block that took over a core's agents",
          "[checker][agents]") {
    // Two cores, three blocks: block 1 is slow, so block 2 runs on block 0's core after it
    // and goes on with its agents. Block 2 stores over x, which block 0 stored first (ordered:
    // same core) and block 1 loads late (unordered: another core).
    ChipConfig chip = test::small_chip();
    chip.vector_cores = 2;
    Simulator sim(chip);
    test::Recorder recorder;
    sim.attach(recorder);
    Checker checker(sim.global_memory());
    sim.attach(checker);
    auto x = sim.allocate<float>(N, "x");
    unsigned load_line = 0, store_line = 0;
    sim.run({.name = "handover", .blocks = 3}, [&](Block& b) {
        if (b.block_idx() == 1) {
            busy(b, 20'000);
            auto ub = b.alloc<float>(MemSpace::UB, N);
            load_line = __LINE__ + 1;
            b.copy(ub, x, N);
            return;
        }
        auto ub = b.alloc<float>(MemSpace::UB, N);
        b.fill(ub, static_cast<float>(b.block_idx()), N);
        b.set_flag(Pipe::V, Pipe::MTE3, 0);
        b.wait_flag(Pipe::V, Pipe::MTE3, 0);
        store_line = __LINE__ + 1;
        b.copy(x, ub, N);
    });
    // The placement this test is about: blocks 0 and 2 on one core, block 1 on the other.
    std::set<std::uint32_t> cores_of[3];
    for (const Transaction& tx : recorder.transactions)
        if (tx.block < 3) cores_of[tx.block].insert(tx.core);
    REQUIRE(cores_of[0].size() == 1);
    REQUIRE(cores_of[0] == cores_of[2]);
    REQUIRE(cores_of[1] != cores_of[0]);

    INFO(format_findings(checker.findings()));
    const std::vector<const Finding*> found = races(checker.findings());
    REQUIRE_FALSE(found.empty());
    bool block_2_with_1 = false;
    for (const Finding* f : found) {
        REQUIRE(f->sites.size() == 2);
        const std::set<std::uint32_t> blocks{f->sites[0].block, f->sites[1].block};
        CHECK(blocks.size() == 2);    // no block races with itself
        CHECK(blocks.count(1) == 1);  // blocks 0 and 2 are ordered: only pairs with block 1
        CHECK(f->scope == RaceScope::InterCore);
        if (blocks.count(2) == 1) {
            block_2_with_1 = true;
            for (const AccessSite& s : f->sites)
                CHECK(s.where.line() == (s.block == 1 ? load_line : store_line));
        }
    }
    CHECK(block_2_with_1);
}

TEST_CASE("checker agents: an aborted kernel's pending flags are dropped, its core goes on",
          "[checker][agents]") {
    // One core: the dead kernel's block leaves a SetFlag pending and deadlocks; the next
    // kernel on that core takes over its agents, pairs the same flag many times (its queue
    // reused) and leaves one SetFlag of its own unpaired: only that one is reported.
    Simulator sim(one_vector_core());
    Checker checker(sim.global_memory());
    sim.attach(checker);
    auto x = sim.allocate<float>(N, "x");
    sim.write(x, std::vector<float>(N, 1.0F));
    const RunResult dead = sim.run({.name = "dies", .blocks = 1}, [&](Block& b) {
        auto ub = b.alloc<float>(MemSpace::UB, N);
        b.copy(ub, x, N);
        b.set_flag(Pipe::MTE2, Pipe::V, 2);   // pending when the run aborts
        b.wait_flag(Pipe::V, Pipe::MTE2, 5);  // never set: deadlock
    });
    REQUIRE(dead.outcome == RunOutcome::Deadlock);
    std::size_t stuck = 0;
    for (const Finding& f : checker.findings()) {
        CHECK(f.kind == FindingKind::UnsatisfiableWait);
        ++stuck;
    }
    unsigned unpaired_line = 0;
    const RunResult next = sim.run({.name = "after", .blocks = 3}, [&](Block& b) {
        auto in = b.alloc<float>(MemSpace::UB, N);
        auto out = b.alloc<float>(MemSpace::UB, N);
        for (int i = 0; i < 4; ++i) {
            b.copy(in, x, N);
            b.set_flag(Pipe::MTE2, Pipe::V, 2);
            b.wait_flag(Pipe::MTE2, Pipe::V, 2);
            b.adds(out, in, 1.0F, N);
            b.set_flag(Pipe::V, Pipe::MTE2, 2);
            b.wait_flag(Pipe::V, Pipe::MTE2, 2);  // the next load overwrites `in`
        }
        if (b.block_idx() == 2) {
            unpaired_line = __LINE__ + 1;
            b.set_flag(Pipe::V, Pipe::MTE3, 1);
        }
    });
    REQUIRE(next.completed());
    INFO(format_findings(checker.findings()));
    REQUIRE(checker.findings().size() == stuck + 1);
    const Finding& f = checker.findings().back();
    CHECK(f.kind == FindingKind::UnpairedSetFlag);
    REQUIRE(f.sites.size() == 1);
    CHECK(f.sites[0].kernel == "after");
    CHECK(f.sites[0].block == 2);
    CHECK(f.sites[0].where.line() == unpaired_line);
}

// A block whose previous block on its core is another stream's no longer tries that block's
// agents first: they join the free sets, and a stream whose oldest free set the block's
// start does not cover is passed over. Kernel A (stream 1) writes x; kernel B (stream 2)
// touches nothing of it; stream 3 waits for B alone and its kernel C reads x on the same
// core. C may take B's agents (covered by the event) but never A's: the race stays.
TEST_CASE("checker agents: a block takes only agents its start covers, whatever the stream",
          "[checker][agents]") {
    for (const bool wait_for_a : {false, true}) {
        Simulator sim(one_vector_core());
        Checker checker(sim.global_memory());
        sim.attach(checker);
        const RunResult result = sim.run_host([&](Runtime& rt) {
            const DeviceBuffer x = rt.malloc(kBytes, "x");
            const DeviceBuffer y = rt.malloc(kBytes, "y");
            const Stream s1 = rt.create_stream();
            const Stream s2 = rt.create_stream();
            const Stream s3 = rt.create_stream();
            const Event a_done = rt.create_event();
            const Event b_done = rt.create_event();
            rt.launch(s1, {.name = "A"}, [=](Block& b) { store_all(b, x.as<float>(), 1.0F); });
            rt.record_event(a_done, s1);
            rt.launch(s2, {.name = "B"}, [=](Block& b) { store_all(b, y.as<float>(), 2.0F); });
            rt.record_event(b_done, s2);
            rt.stream_wait_event(s3, b_done);
            if (wait_for_a) rt.stream_wait_event(s3, a_done);
            rt.launch(s3, {.name = "C"}, [=](Block& b) { load_all(b, x.as<float>()); });
            rt.synchronize_device();
        });
        REQUIRE(result.completed());
        INFO(format_findings(checker.findings()));
        const std::vector<const Finding*> found = races(checker.findings());
        if (wait_for_a) {
            CHECK(found.empty());
            continue;
        }
        REQUIRE(found.size() == 1);
        CHECK(found.front()->kind == FindingKind::RaceRAW);
        CHECK(found.front()->scope == RaceScope::InterStream);
        REQUIRE(found.front()->sites.size() == 2);
        CHECK(found.front()->sites[0].kernel == "A");
        CHECK(found.front()->sites[1].kernel == "C");
    }
}

// Streams chained by events on one core, many launches: agents are reused across streams
// (bounded), and an unordered access at the end still races with the one it must.
TEST_CASE("checker agents: streams chained by events reuse agents, a late race is still seen",
          "[checker][agents]") {
    Simulator sim(one_vector_core());
    Checker checker(sim.global_memory());
    sim.attach(checker);
    constexpr std::uint32_t kRounds = 100;
    const RunResult result = sim.run_host([&](Runtime& rt) {
        const DeviceBuffer x = rt.malloc(kBytes, "x");
        const DeviceBuffer y = rt.malloc(kBytes, "y");
        const std::array<Stream, 3> s{rt.create_stream(), rt.create_stream(), rt.create_stream()};
        const std::array<Event, 3> done{rt.create_event(), rt.create_event(), rt.create_event()};
        // The first write of x, on stream 0; stream 2 never learns it.
        rt.launch(s[0], {.name = "A"}, [=](Block& b) { store_all(b, x.as<float>(), 1.0F); });
        for (std::uint32_t k = 0; k < kRounds; ++k) {
            const std::uint32_t i = 1 + k % 2;  // streams 1 and 2, each waiting for the other
            if (k > 0) rt.stream_wait_event(s[i], done[3 - i]);
            rt.launch(s[i], {.name = "B"}, [=](Block& b) { store_all(b, y.as<float>(), 2.0F); });
            rt.record_event(done[i], s[i]);
        }
        rt.launch(s[2], {.name = "C"}, [=](Block& b) { load_all(b, x.as<float>()); });
        rt.synchronize_device();
    });
    REQUIRE(result.completed());
    INFO(format_findings(checker.findings()));
    const std::vector<const Finding*> found = races(checker.findings());
    REQUIRE(found.size() == 1);
    CHECK(found.front()->sites[0].kernel == "A");
    CHECK(found.front()->sites[1].kernel == "C");
    // The host, three streams, and a few agent sets: not one set per launch.
    CHECK(checker.footprint().agents <= 4 + 4 * 9);
}

// The runtime's pending ops reuse their entries (and their lists of GM ranges): an async
// memset long after many others still accesses exactly its own range, as its stream.
TEST_CASE("checker agents: a late async memset still races across streams", "[checker][agents]") {
    Simulator sim(one_vector_core());
    Checker checker(sim.global_memory());
    sim.attach(checker);
    const RunResult result = sim.run_host([&](Runtime& rt) {
        const DeviceBuffer x = rt.malloc(kBytes, "x");
        const DeviceBuffer y = rt.malloc(kBytes, "y");
        const Stream s1 = rt.create_stream();
        const Stream s2 = rt.create_stream();
        for (int k = 0; k < 100; ++k) rt.memset_async(y, 0, kBytes, s1);  // ordered: no race
        rt.memset_async(x, 0, kBytes, s1);
        rt.launch(s2, {.name = "C"}, [=](Block& b) { load_all(b, x.as<float>()); });
        rt.synchronize_device();
    });
    REQUIRE(result.completed());
    INFO(format_findings(checker.findings()));
    const std::vector<const Finding*> found = races(checker.findings());
    REQUIRE(found.size() == 1);
    CHECK(found.front()->scope == RaceScope::InterStream);
    CHECK(found.front()->sites[1].kernel == "C");
}
