// Schedule exploration: runs one program (a scenario, a host program) under N seeded
// schedules and reports how many deadlocked, which distinct deadlocks occurred, and the
// smallest seed that reproduces each, so that a single run with that seed replays it.
//
// A schedule is a function of its seed alone (schedule_for_seed): Random placement with a
// seed drawn from it, launch-queue ticks (SimOptions::dispatch_period and phase, up to four
// launch costs, so kernels of several streams launched within one tick are placed together)
// and a block start jitter. Exploring N schedules from seed S runs seeds S .. S + N - 1.
// With jobs > 1, schedules run in forked worker processes that take the next schedule when
// they are free (lowest index first) and send each outcome through a pipe; the merge is by
// schedule index, so the result is the same for every jobs value.
//
//   ExplorationResult r = explore_schedules({.schedules = 50, .seed = 1, .jobs = 2}, chip,
//       [&](const SimOptions& options) { return run_my_program(options); });
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/chip_config.h"
#include "sim/engine/run_result.h"
#include "sim/simulator.h"
#include "sync/deadlock/deadlock_finding.h"

namespace npusim {

struct ExplorationOptions {
    std::uint32_t schedules = 1;
    std::uint64_t seed = 1;  // the first schedule's seed
    std::uint32_t jobs = 1;  // worker processes (1: in this process)
};

/// The schedule of one seed: sets placement, placement_seed, dispatch_period/phase and the
/// start jitter of `options` (other fields are kept). `chip` gives the launch cost the ticks
/// scale with.
void apply_schedule(std::uint64_t seed, const ChipConfig& chip, SimOptions& options);

/// What one schedule's run produced: its result and the predictor's warnings.
struct ScheduleRun {
    RunResult result;
    std::vector<DeadlockFinding> warnings;  // possible-deadlock predictions
};
/// Runs the program once with `options` (a new Simulator each time). May throw: the
/// schedule is then recorded with the error's message.
using ScheduleFunction = std::function<ScheduleRun(const SimOptions& options)>;

struct ScheduleOutcome {
    std::uint32_t index = 0;
    std::uint64_t seed = 0;
    RunOutcome outcome = RunOutcome::Completed;
    std::string error;  // the run threw (a kernel error, ...): not a deadlock
    std::vector<DeadlockFinding> deadlocks;
    std::vector<std::string> predicted;  // signatures of the possible-deadlock warnings
    Cycle cycles = 0;
};

struct DistinctDeadlock {
    DeadlockFinding finding;  // as the schedule with the smallest seed reported it
    std::uint32_t schedules = 0;
    std::uint64_t smallest_seed = 0;
};

struct ExplorationResult {
    std::uint32_t schedules = 0;
    std::uint64_t first_seed = 0;
    std::uint32_t deadlocked = 0;
    std::uint32_t completed = 0;
    std::uint32_t interrupted = 0;
    std::uint32_t failed = 0;                // threw
    std::uint32_t predicted = 0;             // schedules with a possible-deadlock warning
    std::vector<DistinctDeadlock> distinct;  // by first occurrence (smallest seed)
    std::vector<ScheduleOutcome> runs;       // by schedule index
    double host_seconds = 0.0;
};

/// Runs the schedules. With jobs > 1 `run` executes in forked children (it must not rely on
/// state it changes in this process). A stop request (stop_flag) ends the exploration after
/// the schedules that are running; those that ran are the first ones, seeds without a gap.
/// A worker that dies (a crash in `run`) fails the exploration with an InternalError naming
/// the schedule it was running, after the other workers' running schedules.
ExplorationResult explore_schedules(const ExplorationOptions& options, const ChipConfig& chip,
                                    const ScheduleFunction& run, const SimOptions& base = {});

/// Multi-line summary: counts, each distinct deadlock with its count, smallest seed, the
/// replay hint, its cycle and fix.
std::string format_exploration(const ExplorationResult& result);
nlohmann::json to_json(const ExplorationResult& result);

}  // namespace npusim
