// Device scheduling through the Simulator: placement policies for kernels launched together,
// batch schedule mode, and the SyncAll trap (docs/multicore.md).
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "base/errors.h"
#include "base/transaction.h"
#include "sim/simulator.h"

using namespace npusim;

namespace {

// The first instruction of every block: on which core, at which cycle.
struct FirstInstruction final : TransactionObserver {
    struct Start {
        std::uint32_t core = 0;
        Cycle issue = 0;
    };
    std::map<std::pair<std::uint32_t, std::uint32_t>, Start> first;  // (kernel id, block)
    void on_transaction(const Transaction& tx) override {
        first.try_emplace({tx.kernel_id, tx.block}, Start{tx.core, tx.issue});
    }
    /// The earliest first issue (blocks placed when the run starts issue then).
    Cycle earliest() const {
        Cycle at = ~Cycle{0};
        for (const auto& [who, start] : first) at = std::min(at, start.issue);
        return at;
    }
    /// (kernel id, block) of the blocks placed when the run started, by core.
    std::map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>> first_round() const {
        std::map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>> by_core;
        for (const auto& [who, start] : first) {
            if (start.issue == earliest()) by_core[start.core] = who;
        }
        return by_core;
    }
    /// Every block's (core, issue), in (kernel, block) order.
    std::vector<std::pair<std::uint32_t, Cycle>> all() const {
        std::vector<std::pair<std::uint32_t, Cycle>> out;
        for (const auto& [who, start] : first) out.emplace_back(start.core, start.issue);
        return out;
    }
};

// A vector kernel whose blocks each run `reps * (1 + block % 3)` fills: blocks end at
// different times, so later rounds interleave.
KernelBody busy(std::uint32_t reps) {
    return [reps](Block& b) {
        const LocalTensor<float> t{MemSpace::UB, 0, 2048};
        for (std::uint32_t i = 0; i < reps * (1 + b.block_idx() % 3); ++i) b.fill(t, 1.0F, 2048);
    };
}

using Round = std::map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>>;

struct TwoKernels {
    FirstInstruction first;
    RunResult result;
    TwoKernels(PlacementPolicy policy, std::uint64_t seed = 1) {
        SimOptions options;
        options.placement = policy;
        options.placement_seed = seed;
        Simulator sim(builtin_chip_config("small"), options);  // 4 vector cores
        sim.attach(first);
        sim.launch({.name = "a", .blocks = 6}, busy(4));
        sim.launch({.name = "b", .blocks = 6}, busy(4));
        result = sim.run();
    }
};

}  // namespace

TEST_CASE("two kernels launched together: the placement policy decides the first round",
          "[scheduler]") {
    {
        TwoKernels run(PlacementPolicy::LaunchOrder);  // kernel a's ids: 0, b's: 1
        REQUIRE(run.result.completed());
        CHECK(run.first.first_round() == Round{{0, {0, 0}}, {1, {0, 1}}, {2, {0, 2}}, {3, {0, 3}}});
        CHECK(run.first.first.size() == 12);
        // b starts only when a's blocks are all placed.
        Cycle a_last = 0, b_first = ~Cycle{0};
        for (const auto& [who, start] : run.first.first) {
            if (who.first == 0) a_last = std::max(a_last, start.issue);
            if (who.first == 1) b_first = std::min(b_first, start.issue);
        }
        CHECK(a_last <= b_first);
    }
    {
        // Both kernels are on stream 0 (Simulator::launch): each ready kernel has its turn.
        TwoKernels run(PlacementPolicy::RoundRobin);
        REQUIRE(run.result.completed());
        CHECK(run.first.first_round() == Round{{0, {0, 0}}, {1, {1, 0}}, {2, {0, 1}}, {3, {1, 1}}});
        CHECK(run.first.first.size() == 12);
    }
}

TEST_CASE("Random placement: the same seed gives the same order, another seed may differ",
          "[scheduler]") {
    TwoKernels once(PlacementPolicy::Random, 11);
    TwoKernels again(PlacementPolicy::Random, 11);
    REQUIRE(once.result.completed());
    CHECK(once.first.all() == again.first.all());
    CHECK(once.result.cycles() == again.result.cycles());
    std::set<std::vector<std::pair<std::uint32_t, Cycle>>> orders{once.first.all()};
    for (std::uint64_t seed : {1u, 2u, 3u, 4u, 5u}) {
        TwoKernels other(PlacementPolicy::Random, seed);
        REQUIRE(other.result.completed());
        CHECK(other.first.first.size() == 12);
        orders.insert(other.first.all());
    }
    CHECK(orders.size() > 1);
}

TEST_CASE("a batch kernel starts all its blocks at the same cycle", "[scheduler][batch]") {
    for (ScheduleMode mode : {ScheduleMode::Normal, ScheduleMode::Batch}) {
        FirstInstruction first;
        Simulator sim(builtin_chip_config("small"));  // 4 vector cores
        sim.attach(first);
        sim.launch({.name = "before", .blocks = 3}, busy(8));  // v0-v2, ending at different times
        sim.launch({.name = "batch", .blocks = 3, .schedule_mode = mode}, busy(1));
        const RunResult result = sim.run();
        REQUIRE(result.completed());
        std::set<Cycle> starts;
        for (std::uint32_t block = 0; block < 3; ++block) {
            starts.insert(first.first.at({1, block}).issue);
        }
        INFO((mode == ScheduleMode::Batch ? "batch" : "normal"));
        if (mode == ScheduleMode::Batch) {
            REQUIRE(starts.size() == 1);
            // It waited for two of "before"'s blocks to end (v3 was free from the start).
            CHECK(*starts.begin() > first.earliest());
        } else {
            CHECK(starts.size() > 1);
            CHECK(*starts.begin() == first.earliest());  // block 0 took v3 at once
        }
    }
}

TEST_CASE("a batch launch with more blocks than the chip's cores is a UsageError",
          "[scheduler][batch]") {
    Simulator sim(builtin_chip_config("small"));
    CHECK_THROWS_WITH(
        sim.launch({.name = "huge", .blocks = 5, .schedule_mode = ScheduleMode::Batch}, busy(1)),
        Catch::Contains("batch kernel 'huge' with 5 blocks") &&
            Catch::Contains("at most 4 vector cores at once"));
    // Nothing was queued; the simulator is usable.
    CHECK_THROWS_AS(sim.run(), UsageError);
    sim.launch({.name = "fits", .blocks = 4, .schedule_mode = ScheduleMode::Batch}, busy(1));
    CHECK(sim.run().completed());
}

TEST_CASE(
    "two SyncAll kernels together exceeding the cores deadlock in Normal mode and "
    "complete in Batch mode",
    "[scheduler][batch][deadlock]") {
    // The SyncAll trap (docs/multicore.md): kernels that use SyncAll must run in batch mode.
    // Interleaved placement gives each kernel 2 of the 4 vector cores; both barriers wait for a
    // third block that never gets a core.
    const auto barrier_kernel = [](Block& b) {
        const LocalTensor<float> t{MemSpace::UB, 0, 256};
        b.fill(t, 1.0F, 256);
        b.sync_all();
        b.fill(t, 2.0F, 256);
    };
    for (PlacementPolicy policy :
         {PlacementPolicy::RoundRobin, PlacementPolicy::LaunchOrder, PlacementPolicy::Random}) {
        for (ScheduleMode mode : {ScheduleMode::Normal, ScheduleMode::Batch}) {
            SimOptions options;
            options.placement = policy;
            Simulator sim(builtin_chip_config("small"), options);
            sim.launch({.name = "k1", .blocks = 3, .schedule_mode = mode}, barrier_kernel);
            sim.launch({.name = "k2", .blocks = 3, .schedule_mode = mode}, barrier_kernel);
            const RunResult result = sim.run();
            INFO("policy " << static_cast<int>(policy) << " mode " << static_cast<int>(mode));
            if (mode == ScheduleMode::Batch) {
                CHECK(result.completed());
                continue;
            }
            if (policy != PlacementPolicy::RoundRobin) continue;  // the trap needs interleaving
            REQUIRE(result.outcome == RunOutcome::Deadlock);
            std::size_t unstarted = 0;
            for (const StuckBlock& s : result.stuck) {
                if (s.core >= 0) continue;
                ++unstarted;
                CHECK(s.block == 2);
                CHECK_THAT(s.reason, Catch::Contains("never started"));
            }
            CHECK(unstarted == 2);
            CHECK(result.stuck.size() == 6);
        }
    }
}

TEST_CASE("the stuck report says why batch kernels and the kernels behind them never started",
          "[scheduler][batch][deadlock]") {
    const auto barrier_kernel = [](Block& b) { b.sync_all(); };
    Simulator sim(builtin_chip_config("small"));  // 4 vector cores, 2 cube cores
    // 5 blocks with a barrier on 4 cores: stuck on its own, holding every vector core.
    sim.launch({.name = "too_wide", .blocks = 5}, barrier_kernel);
    sim.launch({.name = "batch", .blocks = 2, .schedule_mode = ScheduleMode::Batch}, busy(1));
    sim.launch({.name = "behind", .blocks = 1}, busy(1));
    sim.launch({.name = "cube", .blocks = 1, .type = KernelType::AIC_ONLY}, [](Block&) {});
    const RunResult result = sim.run();
    REQUIRE(result.outcome == RunOutcome::Deadlock);
    std::map<std::string, std::vector<std::string>> unstarted;
    for (const StuckBlock& s : result.stuck) {
        if (s.core < 0) unstarted[s.kernel].push_back(s.reason);
    }
    REQUIRE(unstarted["too_wide"].size() == 1);
    REQUIRE(unstarted["batch"].size() == 2);
    CHECK(unstarted["batch"][0] ==
          "never started: batch kernel waits for 2 free vector cores at once; 0 of 4 are free "
          "and the others are held by blocks that cannot finish");
    REQUIRE(unstarted["behind"].size() == 1);
    CHECK_THAT(unstarted["behind"][0],
               Catch::StartsWith("never started: waits behind batch kernel 'batch' (id 1)"));
    CHECK(unstarted.count("cube") == 0);  // another core type: it ran
    REQUIRE(result.kernels.size() == 4);
    CHECK(result.kernels[3].completed());
}

TEST_CASE("a used simulator places the same launches as a new one", "[scheduler]") {
    for (PlacementPolicy policy : {PlacementPolicy::RoundRobin, PlacementPolicy::Random}) {
        SimOptions options;
        options.placement = policy;
        options.placement_seed = 5;
        Simulator sim(builtin_chip_config("small"), options);
        // When each block started (relative to the run), in (kernel, block) order. Which of
        // two cores that free up on the same cycle a block gets depends on the order the cores
        // report in, so the cores are not compared.
        std::vector<std::vector<Cycle>> runs;
        for (int run = 0; run < 2; ++run) {
            FirstInstruction first;
            sim.attach(first);
            sim.launch({.name = "a", .blocks = 3}, busy(2));
            sim.launch({.name = "b", .blocks = 5}, busy(2));
            REQUIRE(sim.run().completed());
            sim.detach(first);
            std::vector<Cycle> starts;
            for (const auto& [who, start] : first.first) {
                starts.push_back(start.issue - first.earliest());
            }
            runs.push_back(starts);
        }
        INFO("policy " << static_cast<int>(policy));
        CHECK(runs[0] == runs[1]);
    }
}
