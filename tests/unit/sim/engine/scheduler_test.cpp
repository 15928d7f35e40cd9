// Scheduler without SystemC cores: placement order per policy, batch kernels (all at once,
// no overtaking on their core types, over-size refused) and state() for the deadlock checker.
#include "sim/engine/scheduler.h"

#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include "base/errors.h"
#include "sim/engine/sim_context.h"
#include "unit/unit_support.h"

using namespace npusim;

namespace {

struct Placed {
    CoreType type;
    std::uint32_t core;
    BlockAssignment work;
};

// A scheduler over `vectors` vector and `cubes` cube cores; records every placement.
struct Bench {
    SimContextScope scope;  // KernelRuntime and ChipResources hold SystemC events
    ChipResources chip{unit::small_chip(), 1024, 1'000'000};
    std::vector<Placed> placed;
    Scheduler sched;

    explicit Bench(SchedulerOptions options = {}, std::uint32_t vectors = 4,
                   std::uint32_t cubes = 2)
        : sched(
              chip, vectors, cubes,
              [this](CoreType t, std::uint32_t c, const BlockAssignment& w) {
                  placed.push_back({t, c, w});
              },
              options) {}

    std::uint32_t launch(const std::string& name, std::uint32_t blocks,
                         KernelType type = KernelType::AIV_ONLY, std::uint32_t stream = 0,
                         ScheduleMode mode = ScheduleMode::Normal, Cycle now = 0) {
        KernelLaunch k;
        k.name = name;
        k.blocks = blocks;
        k.type = type;
        k.stream = stream;
        k.schedule_mode = mode;
        return sched.launch(std::move(k), now);
    }
    /// The block on core (type, index) ends at `end`.
    void finish(CoreType type, std::uint32_t core, Cycle end) {
        for (auto it = placed.rbegin(); it != placed.rend(); ++it) {
            if (it->type == type && it->core == core) {
                const BlockAssignment work = it->work;
                sched.block_finished(type, core, work, end);
                return;
            }
        }
        FAIL("no block on that core");
    }
    /// (kernel id, block) of every placement so far, in order.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> order() const {
        std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
        for (const Placed& p : placed) out.emplace_back(p.work.kernel->id, p.work.block_idx);
        return out;
    }
};

using Order = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

}  // namespace

TEST_CASE("scheduler: LaunchOrder fills the cores with the first kernel, then later rounds",
          "[unit][scheduler]") {
    Bench b;
    const auto k0 = b.launch("a", 6, KernelType::AIV_ONLY, 1);
    const auto k1 = b.launch("b", 2, KernelType::AIV_ONLY, 0);
    b.sched.dispatch();
    CHECK(b.order() == Order{{k0, 0}, {k0, 1}, {k0, 2}, {k0, 3}});
    b.finish(CoreType::Vector, 2, 10);  // the next round: a's remaining blocks go first
    b.finish(CoreType::Vector, 0, 11);
    b.finish(CoreType::Vector, 1, 12);
    CHECK(b.order() == Order{{k0, 0}, {k0, 1}, {k0, 2}, {k0, 3}, {k0, 4}, {k0, 5}, {k1, 0}});
    CHECK(b.placed[4].core == 2);
    CHECK(b.placed[6].core == 1);
}

TEST_CASE("scheduler: RoundRobin serves one block per stream in turn, streams ascending",
          "[unit][scheduler]") {
    Bench b({PlacementPolicy::RoundRobin, 1});
    const auto s2 = b.launch("on_stream_2", 4, KernelType::AIV_ONLY, 2);  // ready first
    const auto s1 = b.launch("on_stream_1", 4, KernelType::AIV_ONLY, 1);
    b.sched.dispatch();
    CHECK(b.order() == Order{{s1, 0}, {s2, 0}, {s1, 1}, {s2, 1}});
    // The turn continues after the kernel served last (stream 2): stream 1, then stream 2.
    b.finish(CoreType::Vector, 3, 10);
    CHECK(b.order().back() == std::pair{s1, 2u});
    b.finish(CoreType::Vector, 0, 11);
    CHECK(b.order().back() == std::pair{s2, 2u});
    CHECK(b.placed.back().core == 0);
}

TEST_CASE("scheduler: Random interleaving is the same for a seed and differs across seeds",
          "[unit][scheduler]") {
    const auto run = [](std::uint64_t seed) {
        Bench b({PlacementPolicy::Random, seed});
        b.launch("a", 6, KernelType::AIV_ONLY, 0);
        b.launch("b", 6, KernelType::AIV_ONLY, 1);
        b.launch("c", 6, KernelType::AIV_ONLY, 2);
        b.sched.dispatch();
        for (Cycle t = 1; b.placed.size() < 18; ++t) b.finish(CoreType::Vector, t % 4, t);
        return b.order();
    };
    const Order first = run(42);
    CHECK(first.size() == 18);
    CHECK(run(42) == first);
    // Every kernel's blocks still go in index order.
    for (std::uint32_t k = 0; k < 3; ++k) {
        std::uint32_t next = 0;
        for (const auto& [kernel, block] : first) {
            if (kernel == k) CHECK(block == next++);
        }
    }
    std::set<Order> orders;
    for (std::uint64_t seed = 1; seed <= 8; ++seed) orders.insert(run(seed));
    CHECK(orders.size() > 1);
}

TEST_CASE(
    "scheduler: a batch kernel starts all blocks at once and later kernels of its core "
    "type wait behind it",
    "[unit][scheduler][batch]") {
    Bench b;
    const auto normal = b.launch("normal", 3);
    const auto batch = b.launch("batch", 2, KernelType::AIV_ONLY, 1, ScheduleMode::Batch);
    const auto later = b.launch("later", 1, KernelType::AIV_ONLY, 2);
    const auto cube = b.launch("cube", 1, KernelType::AIC_ONLY, 3);
    b.sched.dispatch();
    // normal on v0-v2; batch needs 2 vector cores, 1 is free: it waits; later may not take
    // v3 (it would overtake the batch kernel); the cube kernel uses another core type.
    CHECK(b.order() == Order{{normal, 0}, {normal, 1}, {normal, 2}, {cube, 0}});

    SchedulerState s = b.sched.state();
    REQUIRE(s.kernels.size() == 4);
    REQUIRE(s.kernels[1].waiting);
    CHECK(s.kernels[1].id == batch);
    CHECK(s.kernels[1].held.empty());
    CHECK(s.kernels[1].waiting->reason == WaitReason::BatchWaiting);
    CHECK(s.kernels[1].waiting->needed == 2);
    CHECK(s.kernels[1].waiting->free == 1);
    CHECK_THAT(s.kernels[1].waiting->describe, Catch::Contains("2 free vector cores at once"));
    REQUIRE(s.kernels[2].waiting);
    CHECK(s.kernels[2].waiting->reason == WaitReason::BehindBatch);
    CHECK(s.kernels[2].waiting->behind_kernel == batch);
    CHECK_FALSE(s.kernels[3].waiting);
    CHECK_FALSE(s.cores[3].holder);  // v3 stays free for the batch kernel

    b.finish(CoreType::Vector, 1, 50);  // now 2 are free: both batch blocks start at 50
    REQUIRE(b.placed.size() == 6);
    CHECK(b.placed[4].work.kernel->id == batch);
    CHECK(b.placed[5].work.kernel->id == batch);
    s = b.sched.state();
    REQUIRE(s.kernels[1].held.size() == 2);
    CHECK(s.kernels[1].held[0].core == 1);
    CHECK(s.kernels[1].held[1].core == 3);
    CHECK(s.kernels[1].held[0].since == 50);
    CHECK(s.kernels[1].held[1].since == 50);
    CHECK_FALSE(s.kernels[1].waiting);
    REQUIRE(s.kernels[2].waiting);  // later: now simply no free vector core
    CHECK(s.kernels[2].id == later);
    CHECK(s.kernels[2].waiting->reason == WaitReason::NoFreeCore);
    b.finish(CoreType::Vector, 0, 60);
    CHECK(b.order().back() == std::pair{later, 0u});
}

TEST_CASE("scheduler: a batch kernel is one unit in the RoundRobin and Random turns",
          "[unit][scheduler][batch]") {
    {
        Bench b({PlacementPolicy::RoundRobin, 1});
        const auto normal = b.launch("normal", 4, KernelType::AIV_ONLY, 0);
        const auto batch = b.launch("batch", 2, KernelType::AIV_ONLY, 1, ScheduleMode::Batch);
        b.sched.dispatch();
        CHECK(b.order() == Order{{normal, 0}, {batch, 0}, {batch, 1}, {normal, 1}});
    }
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        Bench b({PlacementPolicy::Random, seed});
        const auto normal = b.launch("normal", 6, KernelType::AIV_ONLY, 0);
        const auto batch = b.launch("batch", 3, KernelType::AIV_ONLY, 1, ScheduleMode::Batch);
        b.sched.dispatch();
        for (Cycle t = 1; b.placed.size() < 9; ++t) b.finish(CoreType::Vector, t % 4, t);
        // The batch kernel's three blocks are placed together, one after the other.
        const Order order = b.order();
        std::size_t first = 0;
        while (order[first].first != batch) ++first;
        INFO("seed " << seed);
        REQUIRE(first + 2 < order.size());
        CHECK(order[first + 1] == std::pair{batch, 1u});
        CHECK(order[first + 2] == std::pair{batch, 2u});
        CHECK(std::count(order.begin(), order.end(), std::pair{normal, 5u}) == 1);
    }
}

TEST_CASE("scheduler: a batch kernel larger than the chip is refused at launch",
          "[unit][scheduler][batch]") {
    Bench b;  // 4 vector cores, 2 cube cores: 2 clusters
    CHECK(b.sched.capacity(KernelType::AIV_ONLY) == 4);
    CHECK(b.sched.capacity(KernelType::AIC_ONLY) == 2);
    CHECK(b.sched.capacity(KernelType::MIX_AIC_1_2) == 2);
    CHECK_THROWS_MATCHES(b.launch("big", 5, KernelType::AIV_ONLY, 0, ScheduleMode::Batch),
                         UsageError,
                         Catch::Matchers::Message(
                             "launch of batch kernel 'big' with 5 blocks: the chip holds at most "
                             "4 vector cores at once, and a batch kernel starts all its blocks "
                             "together, so it could never start (use ScheduleMode::Normal or at "
                             "most 4 blocks)"));
    CHECK_THROWS_AS(b.launch("mix", 3, KernelType::MIX_AIC_1_2, 0, ScheduleMode::Batch),
                    UsageError);
    CHECK_NOTHROW(b.launch("fits", 2, KernelType::MIX_AIC_1_2, 0, ScheduleMode::Batch));
    CHECK_NOTHROW(b.launch("normal", 5, KernelType::AIV_ONLY));  // later rounds are fine
    CHECK(b.sched.state().kernels.size() == 2);
}

TEST_CASE("scheduler: state() names the cores a mixed kernel holds and who holds each core",
          "[unit][scheduler]") {
    Bench b;
    const auto mix = b.launch("mix", 3, KernelType::MIX_AIC_1_2, 5, ScheduleMode::Normal, 7);
    b.sched.dispatch();
    const SchedulerState s = b.sched.state();
    CHECK(s.placement == PlacementPolicy::LaunchOrder);
    REQUIRE(s.kernels.size() == 1);
    const KernelState& k = s.kernels[0];
    CHECK(k.id == mix);
    CHECK(k.name == "mix");
    CHECK(k.stream == 5);
    CHECK(k.schedule_mode == ScheduleMode::Normal);
    CHECK(k.type == KernelType::MIX_AIC_1_2);
    CHECK(k.blocks == 3);
    CHECK(k.blocks_finished == 0);
    // Group g on cluster g: AIC g, AIV 2g (block 2g) and 2g+1 (block 2g+1).
    REQUIRE(k.held.size() == 6);
    const auto as_tuple = [](const HeldCore& h) {
        return std::tuple{h.type, h.core, h.block, h.group, h.since};
    };
    CHECK(as_tuple(k.held[0]) == std::tuple{CoreType::Vector, 0u, 0u, 0u, Cycle{7}});
    CHECK(as_tuple(k.held[3]) == std::tuple{CoreType::Vector, 3u, 3u, 1u, Cycle{7}});
    CHECK(as_tuple(k.held[4]) == std::tuple{CoreType::Cube, 0u, 0u, 0u, Cycle{7}});
    CHECK(as_tuple(k.held[5]) == std::tuple{CoreType::Cube, 1u, 1u, 1u, Cycle{7}});
    REQUIRE(k.waiting);
    CHECK(k.waiting->first_block == 2);
    CHECK(k.waiting->count == 1);
    CHECK(k.waiting->reason == WaitReason::NoFreeCore);
    CHECK(k.waiting->cluster);
    CHECK(k.waiting->core_type == CoreType::Cube);
    CHECK(k.waiting->free == 0);
    REQUIRE(s.cores.size() == 6);
    CHECK(s.cores[2].type == CoreType::Vector);
    REQUIRE(s.cores[2].holder);
    CHECK(s.cores[2].holder->kernel_id == mix);
    CHECK(s.cores[2].holder->block == 2);
    CHECK(s.cores[2].holder->group == 1);
    CHECK(s.cores[5].type == CoreType::Cube);
    CHECK(s.cores[5].index == 1);

    // Freeing AIV 0 alone frees no cluster: group 2 still waits; the stuck report says so.
    b.finish(CoreType::Vector, 0, 20);
    CHECK(b.placed.size() == 6);
    const std::vector<StuckBlock> stuck = b.sched.unstarted_blocks();
    REQUIRE(stuck.size() == 1);
    CHECK(stuck[0].block == 2);
    CHECK(stuck[0].core == -1);
    CHECK_THAT(stuck[0].reason, Catch::StartsWith("never started: waits for a free cluster"));
    CHECK_FALSE(b.sched.state().cores[0].holder);
    // Its cluster frees up: group 2 starts there.
    b.finish(CoreType::Vector, 1, 21);
    b.finish(CoreType::Cube, 0, 22);
    REQUIRE(b.placed.size() == 9);
    CHECK(b.sched.state().kernels[0].held.size() == 6);
    CHECK_FALSE(b.sched.state().kernels[0].waiting);
}
