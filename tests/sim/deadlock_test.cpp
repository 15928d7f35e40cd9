// The deadlock checker end to end (docs/deadlocks.md): schedule exploration of the SyncAll
// trap (docs/multicore.md) through the host runtime, its findings and fixes, the
// prediction, and the orphan waits (flags, cross-core flags, host waits behind a deadlock).
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/host/runtime.h"
#include "sim/report/report.h"
#include "sim/report/trace_writer.h"
#include "sim/study/schedule_exploration.h"
#include "sync/deadlock/deadlock_predictor.h"
#include "test_support.h"

using namespace npusim;

namespace {

const int kHardSyncLine = __LINE__ + 2;
void hard_sync_kernel(Block& b) {
    b.sync_all();
}

// Soft SyncAll over all blocks of the launch; the workspace is zeroed by the host.
const int kSoftSyncLine = __LINE__ + 4;
KernelBody soft_sync_kernel(GlobalTensor<std::int32_t> workspace, std::uint32_t blocks) {
    return [workspace, blocks](Block& b) {
        auto ub = b.alloc<std::int32_t>(MemSpace::UB, blocks * 8);
        b.sync_all(workspace, ub, blocks);
    };
}

enum class Order { TwoStreams, OneStream, Event };

struct Pattern {
    std::uint32_t kernels = 2;
    std::uint32_t blocks = 30;
    ScheduleMode mode = ScheduleMode::Normal;
    Order order = Order::TwoStreams;
    bool soft = false;
};

std::string kernel_name(std::uint32_t k) {
    return std::string(1, static_cast<char>('A' + k));
}

/// One run of the pattern with `options` on the a2 chip (48 vector cores), with the predictor.
ScheduleRun run_pattern(const Pattern& p, const SimOptions& options) {
    const ChipConfig chip = test::a2_chip();
    Simulator sim(chip, options);
    DeadlockPredictor predictor({static_cast<std::uint32_t>(chip.vector_cores),
                                 static_cast<std::uint32_t>(chip.cube_cores)});
    sim.attach(predictor);
    ScheduleRun run;
    run.result = sim.run_host([&](Runtime& rt) {
        std::vector<Stream> streams;
        for (std::uint32_t k = 0; k < p.kernels; ++k) {
            streams.push_back(p.order == Order::OneStream ? rt.default_stream()
                                                          : rt.create_stream());
        }
        const Event done = rt.create_event();
        for (std::uint32_t k = 0; k < p.kernels; ++k) {
            const LaunchSpec spec{
                .name = kernel_name(k), .blocks = p.blocks, .schedule_mode = p.mode};
            if (p.order == Order::Event && k > 0) rt.stream_wait_event(streams[k], done);
            if (p.soft) {
                const DeviceBuffer ws = rt.malloc(std::uint64_t{p.blocks} * 32);
                rt.memset(ws, 0, std::uint64_t{p.blocks} * 32);
                rt.launch(streams[k], spec, soft_sync_kernel(ws.as<std::int32_t>(), p.blocks));
            } else {
                rt.launch(streams[k], spec, hard_sync_kernel);
            }
            if (p.order == Order::Event) rt.record_event(done, streams[k]);
        }
        rt.synchronize_device();
    });
    run.warnings = predictor.warnings();
    return run;
}

ExplorationResult explore(const Pattern& p, std::uint32_t schedules, std::uint32_t jobs = 1) {
    return explore_schedules({.schedules = schedules, .seed = 1, .jobs = jobs}, test::a2_chip(),
                             [&](const SimOptions& options) { return run_pattern(p, options); });
}

const DistinctDeadlock* find_kind(const ExplorationResult& r, DeadlockKind kind) {
    for (const DistinctDeadlock& d : r.distinct) {
        if (d.finding.kind == kind) return &d;
    }
    return nullptr;
}

std::string line_of(int line) {
    return "line " + std::to_string(line) + " (deadlock_test.cpp)";
}

}  // namespace

TEST_CASE("two streams of 30-block SyncAll kernels on 48 cores deadlock in some schedules",
          "[deadlock]") {
    const ExplorationResult r = explore({}, 50);
    INFO(format_exploration(r));
    CHECK(r.schedules == 50);
    CHECK(r.failed == 0);
    CHECK(r.deadlocked >= 1);
    CHECK(r.completed >= 1);  // the trap depends on the timing
    CHECK(r.deadlocked + r.completed == 50);
    CHECK(r.predicted == 50);  // predicted in every schedule, those that completed too
    const DistinctDeadlock* cycle = find_kind(r, DeadlockKind::BarrierCycleAcrossKernels);
    REQUIRE(cycle != nullptr);
    const DeadlockFinding& f = cycle->finding;
    CHECK_THAT(f.cycle,
               Catch::Contains("kernel A (stream 1)") && Catch::Contains("kernel B (stream 2)") &&
                   Catch::Contains("wait at SyncAll " + line_of(kHardSyncLine)) &&
                   Catch::Contains("wait for a vector core held by") && Catch::EndsWith("again"));
    CHECK_THAT(f.fix, Catch::Contains("batch schedule mode") &&
                          Catch::Contains("launch at most 48 blocks together"));
    std::set<std::string> kernels;
    for (const DeadlockParticipant& p : f.participants) {
        kernels.insert(p.kernel);
        REQUIRE(p.stream.has_value());
        CHECK(*p.stream == (p.kernel == "A" ? 1u : 2u));
        CHECK_THAT(p.launch, Catch::StartsWith("deadlock_test.cpp:"));
    }
    CHECK(kernels == std::set<std::string>{"A", "B"});
    // The host's synchronize_device waits behind it, named with its call site.
    const DistinctDeadlock* host = find_kind(r, DeadlockKind::HostWaitsOnStuckStream);
    REQUIRE(host != nullptr);
    CHECK_THAT(host->finding.summary, Catch::Contains("synchronize_device (deadlock_test.cpp:"));
    // The smallest seed replays the deadlock.
    SimOptions replay;
    apply_schedule(cycle->smallest_seed, test::a2_chip(), replay);
    const ScheduleRun again = run_pattern({}, replay);
    REQUIRE(again.result.outcome == RunOutcome::Deadlock);
    REQUIRE_FALSE(again.result.deadlocks.empty());
    CHECK(again.result.deadlocks.front().signature == f.signature);
    // The prediction names both launches and states the rule.
    REQUIRE(again.warnings.size() == 1);
    CHECK_THAT(again.warnings[0].summary,
               Catch::Contains("kernel A (30 blocks, stream 1, launched at deadlock_test.cpp:") &&
                   Catch::Contains("kernel B (30 blocks, stream 2"));
    CHECK_THAT(again.warnings[0].cycle, Catch::StartsWith("rule: two or more launches"));
}

TEST_CASE("batch mode, one stream, or an event between them: no deadlock and no prediction",
          "[deadlock]") {
    for (const Pattern p : {Pattern{.mode = ScheduleMode::Batch},
                            Pattern{.order = Order::OneStream}, Pattern{.order = Order::Event}}) {
        const ExplorationResult r = explore(p, 20);
        INFO(format_exploration(r));
        CHECK(r.completed == 20);
        CHECK(r.deadlocked == 0);
        CHECK(r.predicted == 0);
    }
}

TEST_CASE("the soft-SyncAll form of the two-stream trap is detected while it spins", "[deadlock]") {
    const ExplorationResult r = explore({.soft = true}, 30);
    INFO(format_exploration(r));
    CHECK(r.failed == 0);
    CHECK(r.predicted == 30);
    const DistinctDeadlock* cycle = find_kind(r, DeadlockKind::BarrierCycleAcrossKernels);
    REQUIRE(cycle != nullptr);
    CHECK_THAT(cycle->finding.cycle,
               Catch::Contains("kernel A (stream 1)") && Catch::Contains("kernel B (stream 2)") &&
                   Catch::Contains("wait at soft SyncAll " + line_of(kSoftSyncLine)));
    CHECK_THAT(cycle->finding.fix, Catch::Contains("batch schedule mode"));
}

TEST_CASE(
    "three streams of 20-block SyncAll kernels: the cycle names exactly the deadlocked "
    "kernels",
    "[deadlock]") {
    const ExplorationResult r = explore({.kernels = 3, .blocks = 20}, 30);
    INFO(format_exploration(r));
    CHECK(r.predicted == 30);
    REQUIRE(r.deadlocked >= 1);
    for (const ScheduleOutcome& o : r.runs) {
        if (o.outcome != RunOutcome::Deadlock) continue;
        // Replay the schedule and compare the cycle with the kernels that hold cores and
        // wait for more: exactly those are in the deadlock.
        SimOptions options;
        apply_schedule(o.seed, test::a2_chip(), options);
        const RunResult result = run_pattern({.kernels = 3, .blocks = 20}, options).result;
        std::set<std::string> holding, waiting;
        for (const StuckBlock& s : result.stuck) (s.core >= 0 ? holding : waiting).insert(s.kernel);
        std::set<std::string> expected;
        std::set_intersection(holding.begin(), holding.end(), waiting.begin(), waiting.end(),
                              std::inserter(expected, expected.end()));
        REQUIRE_FALSE(result.deadlocks.empty());
        const DeadlockFinding& f = result.deadlocks.front();
        INFO(format_deadlock(f, 1));
        CHECK(f.kind == DeadlockKind::BarrierCycleAcrossKernels);
        std::set<std::string> named;
        for (const DeadlockParticipant& p : f.participants) named.insert(p.kernel);
        CHECK(named == expected);
        for (const std::string& k : expected) {
            CHECK_THAT(f.cycle, Catch::Contains("kernel " + k + " (stream"));
        }
    }
}

TEST_CASE("50 SyncAll blocks on 48 cores, one stream: blocks exceed cores, with the fix",
          "[deadlock]") {
    Simulator sim(test::a2_chip());
    const RunResult r = sim.run({.name = "wide", .blocks = 50}, hard_sync_kernel);
    REQUIRE(r.outcome == RunOutcome::Deadlock);
    REQUIRE(r.deadlocks.size() == 1);
    const DeadlockFinding& f = r.deadlocks[0];
    CHECK(f.kind == DeadlockKind::BlocksExceedCores);
    CHECK(f.cycle == "kernel wide blocks 0-47 wait at SyncAll " + line_of(kHardSyncLine) +
                         " for blocks 48-49, which wait for a vector core held by kernel wide "
                         "blocks 0-47 again");
    CHECK_THAT(f.fix, Catch::StartsWith("launch at most 48 blocks (the chip's vector cores)"));
    CHECK_THAT(format_summary(r, test::a2_chip()),
               Catch::Contains("deadlock 1: blocks exceed cores: kernel wide has 50 blocks"));
    CHECK(to_json(r)["deadlocks"][0]["kind"] == "blocks exceed cores");
}

TEST_CASE("a WaitFlag whose SetFlag is never issued is an orphan flag wait with its line",
          "[deadlock]") {
    Simulator sim(test::small_chip());
    const int line = __LINE__ + 1;
    const auto kernel = [](Block& b) { b.wait_flag(Pipe::MTE2, Pipe::S, 1); };
    const RunResult r = sim.run({.name = "unpaired", .blocks = 2}, kernel);
    REQUIRE(r.outcome == RunOutcome::Deadlock);
    REQUIRE(r.deadlocks.size() == 1);
    const DeadlockFinding& f = r.deadlocks[0];
    CHECK(f.kind == DeadlockKind::OrphanFlagWait);
    CHECK_THAT(f.summary, Catch::StartsWith("kernel unpaired blocks 0-1 wait at WaitFlag<") &&
                              Catch::Contains("deadlock_test.cpp:" + std::to_string(line)));
    CHECK_THAT(f.fix, Catch::StartsWith("pair this flag: issue SetFlag<"));
}

TEST_CASE("a CrossCoreWaitFlag with no setter is an orphan cross-core wait with its line",
          "[deadlock]") {
    Simulator sim(test::small_chip());
    const int line = __LINE__ + 3;
    const auto kernel = [](Block& b) {
        if (b.block_idx() == 0) {
            b.cross_core_wait_flag(3);
        }
    };
    const RunResult r = sim.run({.name = "lonely", .blocks = 3}, kernel);
    REQUIRE(r.outcome == RunOutcome::Deadlock);
    REQUIRE(r.deadlocks.size() == 1);
    const DeadlockFinding& f = r.deadlocks[0];
    CHECK(f.kind == DeadlockKind::OrphanCrossCoreWait);
    CHECK_THAT(f.summary, Catch::Contains("kernel lonely block 0 wait at CrossCoreWaitFlag(3) "
                                          "(deadlock_test.cpp:" +
                                          std::to_string(line)));
    CHECK_THAT(f.fix, Catch::StartsWith("pair this flag: a CrossCoreSetFlag with flag id 3"));
}

TEST_CASE("a host stream synchronize behind a deadlocked kernel names the call site",
          "[deadlock]") {
    Simulator sim(test::a2_chip());
    int sync_line = 0;
    const RunResult r = sim.run_host([&](Runtime& rt) {
        const Stream s = rt.create_stream();
        rt.launch(s, {.name = "wide", .blocks = 50}, hard_sync_kernel);
        sync_line = __LINE__ + 1;
        rt.synchronize_stream(s);
    });
    REQUIRE(r.outcome == RunOutcome::Deadlock);
    REQUIRE(r.deadlocks.size() == 2);
    CHECK(r.deadlocks[0].kind == DeadlockKind::BlocksExceedCores);
    const DeadlockFinding& host = r.deadlocks[1];
    CHECK(host.kind == DeadlockKind::HostWaitsOnStuckStream);
    const std::string site = "deadlock_test.cpp:" + std::to_string(sync_line);
    CHECK_THAT(host.summary,
               Catch::StartsWith("the host thread waits at synchronize_stream (" + site + ")") &&
                   Catch::Contains("deadlock 1 (blocks exceed cores)"));
    CHECK_THAT(host.cycle, Catch::Contains("waits for stream 1, which waits for kernel wide"));
    REQUIRE_FALSE(host.participants.empty());
    CHECK(host.participants[0].where == site);
}

TEST_CASE("exploring with two worker processes gives the same result as one", "[deadlock]") {
    const ExplorationResult one = explore({}, 8, 1);
    const ExplorationResult two = explore({}, 8, 2);
    CHECK(to_json(one) == to_json(two));
    CHECK(format_exploration(one) == format_exploration(two));
}

TEST_CASE("watchdog: a kernel that never ends stops at the simulated-time limit, reported as such",
          "[deadlock][watchdog]") {
    SimOptions options;
    options.max_cycles = 200'000;
    Simulator sim(test::small_chip(), options);
    const RunResult r = sim.run({.name = "forever", .blocks = 1}, [](Block& b) {
        auto ub = b.alloc<float>(MemSpace::UB, 64);
        for (;;) (void)b.load(ub, 0);
    });
    CHECK(r.outcome == RunOutcome::Interrupted);
    CHECK(r.stopped_by == StopCause::TimeLimit);
    CHECK(r.cycles() >= 200'000);
    REQUIRE(r.deadlocks.size() == 1);
    CHECK(r.deadlocks[0].kind == DeadlockKind::SimulatedTimeLimit);
    CHECK_THAT(r.deadlocks[0].summary, Catch::Contains("simulated-time limit of 200000 cycles") &&
                                           Catch::Contains("forever (0 of 1 blocks finished)"));
    CHECK_THAT(format_summary(r, test::small_chip()),
               Catch::Contains("STOPPED by the simulated-time limit"));
    // The simulator stays usable and the next run is not limited by the last one's time.
    const RunResult next = sim.run({.name = "short", .blocks = 1}, [](Block&) {});
    CHECK(next.completed());
    CHECK(next.stopped_by == StopCause::None);
}

TEST_CASE("watchdog: a soft SyncAll spinning past the no-progress limit is reported as such",
          "[deadlock][watchdog]") {
    SimOptions options;
    options.deadlock_idle_cycles = 300;  // shorter than block 1's long copy
    Simulator sim(test::small_chip(), options);
    auto ws = sim.allocate<std::int32_t>(2 * 8, "ws");
    sim.write(ws, std::vector<std::int32_t>(16, 0));
    auto big = sim.allocate<float>(16 * 1024, "big");
    const RunResult r = sim.run({.name = "slow", .blocks = 2}, [ws, big](Block& b) {
        auto ub = b.alloc<std::int32_t>(MemSpace::UB, 16);
        if (b.block_idx() == 1) {
            auto data = b.alloc<float>(MemSpace::UB, 16 * 1024);
            b.copy(data, big, 16 * 1024);  // one long transfer: no new instruction meanwhile
        }
        b.sync_all(ws, ub, 2);
    });
    CHECK(r.outcome == RunOutcome::Deadlock);
    CHECK(r.stopped_by == StopCause::NoProgress);
    REQUIRE_FALSE(r.deadlocks.empty());
    CHECK(r.deadlocks[0].kind == DeadlockKind::NoProgressLimit);
    CHECK_THAT(r.deadlocks[0].summary, Catch::Contains("no progress on the chip for 300 cycles"));
}

TEST_CASE("the trace of a deadlocked run marks each blocked block up to the stop",
          "[deadlock][trace]") {
    test::TempDir dir;
    const auto path = dir.file("deadlock.json");
    RunResult r;
    {
        ChromeTraceWriter trace(path, test::small_chip().clock_mhz);
        Simulator sim(test::small_chip());  // 4 vector cores
        sim.attach(trace);
        auto ub_work = [](Block& b) {
            auto ub = b.alloc<float>(MemSpace::UB, 64);
            for (int i = 0; i < 20; ++i) (void)b.load(ub, 0);
            b.sync_all();
        };
        r = sim.run({.name = "wide", .blocks = 5}, ub_work);
        trace.finish();
    }
    REQUIRE(r.outcome == RunOutcome::Deadlock);
    const std::string text = test::read_text(path);
    const auto json = nlohmann::json::parse(text);
    std::set<std::uint64_t> blocked_pids;
    for (const auto& e : json.at("traceEvents")) {
        if (e.value("name", "") != "BLOCKED") continue;
        CHECK(e.at("cat") == "deadlock");
        CHECK(e.at("args").at("blocked") == true);
        CHECK(e.at("args").at("kernel") == "wide");
        CHECK_THAT(e.at("args").at("reason").get<std::string>(),
                   Catch::StartsWith("hard SyncAll: 4 of 5 blocks arrived"));
        blocked_pids.insert(e.at("pid").get<std::uint64_t>());
    }
    CHECK(blocked_pids == std::set<std::uint64_t>{1, 2, 3, 4});  // every held core
}
