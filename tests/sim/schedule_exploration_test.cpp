// Schedule exploration's worker processes (sim/study/schedule_exploration.h): schedules handed out
// one at a time whatever they cost, the merge by schedule index, a worker that dies, a stop
// request. The schedules here are stand-ins that return a made-up result after a chosen
// delay, so that the tests control which schedules are slow; deadlock_test.cpp explores real
// simulations.
#include "sim/study/schedule_exploration.h"

#include <atomic>
#include <chrono>
#include <csignal>
#include <optional>
#include <string>
#include <thread>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "base/errors.h"
#include "test_support.h"

using namespace npusim;

namespace {

/// The schedule seed (1 .. 64) that `options` were made for, 0 if none.
std::uint64_t seed_of(const SimOptions& options) {
    for (std::uint64_t seed = 1; seed <= 64; ++seed) {
        SimOptions probe;
        apply_schedule(seed, test::a2_chip(), probe);
        if (probe.placement_seed == options.placement_seed) return seed;
    }
    return 0;
}

/// A made-up outcome of the schedule with `options`, a function of its seed alone: every
/// third deadlocks with one of two deadlocks, every fourth is predicted, every seventh
/// throws. Schedules whose seed is a multiple of 5 take `slow` of host time.
ScheduleFunction stand_in(std::chrono::milliseconds slow) {
    return [slow](const SimOptions& options) {
        const std::uint64_t seed = seed_of(options);
        if (seed % 5 == 0) std::this_thread::sleep_for(slow);
        if (seed % 7 == 0) throw UsageError("stand-in failure of seed " + std::to_string(seed));
        ScheduleRun run;
        run.result.end_cycle = 1000 + seed;
        if (seed % 3 == 0) {
            run.result.outcome = RunOutcome::Deadlock;
            DeadlockFinding f;
            f.kind = seed % 2 == 0 ? DeadlockKind::WaitCycle : DeadlockKind::OrphanFlagWait;
            f.summary = "stand-in deadlock of seed " + std::to_string(seed);
            f.cycle = "cycle " + std::to_string(seed);
            f.fix = "fix";
            f.signature = seed % 2 == 0 ? "even" : "odd";
            f.participants.push_back({.kernel = "K",
                                      .stream = seed % 2 == 0 ? std::optional<std::uint32_t>{}
                                                              : std::optional<std::uint32_t>{1},
                                      .blocks = "0-3",
                                      .state = "waits",
                                      .cores = "aiv 0-3",
                                      .where = "k.cpp:1",
                                      .launch = "main.cpp:2"});
            run.result.deadlocks.push_back(f);
        }
        if (seed % 4 == 0) {
            DeadlockFinding w;
            w.kind = DeadlockKind::PossibleDeadlock;
            w.signature = "possible";
            run.warnings.push_back(w);
        }
        return run;
    };
}

}  // namespace

TEST_CASE("workers take schedules as they become free and the merge does not depend on -j",
          "[exploration]") {
    // Slow schedules at seeds 5, 10, ...: worker slices would be uneven; any order of
    // completion must give the same result.
    const ScheduleFunction run = stand_in(std::chrono::milliseconds(30));
    const ExplorationResult one =
        explore_schedules({.schedules = 40, .seed = 1}, test::a2_chip(), run);
    CHECK(one.schedules == 40);
    CHECK(one.failed == 5);       // seeds 7, 14, 21, 28, 35
    CHECK(one.deadlocked == 12);  // multiples of 3 up to 40 but 21
    CHECK(one.distinct.size() == 2);
    for (std::uint32_t jobs : {2u, 3u, 8u}) {
        INFO("jobs " << jobs);
        const ExplorationResult many =
            explore_schedules({.schedules = 40, .seed = 1, .jobs = jobs}, test::a2_chip(), run);
        CHECK(to_json(many) == to_json(one));
        CHECK(format_exploration(many) == format_exploration(one));
    }
}

TEST_CASE("a worker that dies fails the exploration and names the schedule it was running",
          "[exploration]") {
    const pid_t parent = getpid();
    const ScheduleFunction fast = stand_in(std::chrono::milliseconds(0));
    const ScheduleFunction dies = [&](const SimOptions& options) {
        if (seed_of(options) == 9 && getpid() != parent) std::raise(SIGKILL);
        return fast(options);
    };
    CHECK_THROWS_AS(
        explore_schedules({.schedules = 20, .seed = 1, .jobs = 2}, test::a2_chip(), dies),
        InternalError);
    CHECK_THROWS_WITH(
        explore_schedules({.schedules = 20, .seed = 1, .jobs = 2}, test::a2_chip(), dies),
        Catch::Contains("worker was killed by signal 9") &&
            Catch::Contains("while running schedule 8 (seed 9)"));
}

TEST_CASE("a stop request ends a parallel exploration after the schedules that are running",
          "[exploration]") {
    // The workers' stop_flag is their own copy of the parent's: the parent passes the request
    // on. The schedules that ran are the first ones, seeds without a gap.
    std::atomic<bool> stop{false};
    SimOptions base;
    base.stop_flag = &stop;
    std::thread requester([&stop] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        stop.store(true);
    });
    const auto started = std::chrono::steady_clock::now();
    ExplorationResult r;
    try {
        r = explore_schedules(
            {.schedules = 1000, .seed = 1, .jobs = 2}, test::a2_chip(),
            [](const SimOptions&) {
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
                return ScheduleRun{};
            },
            base);
    } catch (...) {
        requester.join();
        throw;
    }
    requester.join();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    CHECK(seconds < 10.0);  // all 1000 take 10 s on two workers
    CHECK(r.schedules > 0);
    CHECK(r.schedules < 1000);
    for (std::uint32_t i = 0; i < r.runs.size(); ++i) CHECK(r.runs[i].index == i);
}
