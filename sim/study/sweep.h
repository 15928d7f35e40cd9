// Runs a study (sim/study/sweep_plan.h) in worker processes: one forked process per task, at most
// `jobs` at a time, so a crash, a kill or a timeout costs only that task's row and every
// run starts from a fresh simulation kernel. Rows come back in task order whatever `jobs`.
//
//   SweepPlan plan = plan_sweep("study.json", {parse_sweep_axis("/host/0/blocks=8:48:8")});
//   SweepResult r = run_sweep(plan, {.jobs = 2}, scenario_task_runner());
//   write_sweep_output("out.csv", plan.source, axis_pointers(plan), r.rows);
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/study/sweep_output.h"
#include "sim/study/sweep_plan.h"

namespace npusim {

struct SweepProgress {
    std::size_t done = 0;   // tasks finished in this run (skipped ones not counted)
    std::size_t total = 0;  // tasks this run has to do
    std::size_t deadlocks = 0;
    std::size_t errors = 0;  // error, crashed and timeout rows
    double seconds = 0;
};

/// Runs one task in the current process (a forked worker) and returns its result columns
/// (kSweepResultColumns; host_seconds is filled in by run_sweep). Throwing npusim::Error
/// makes an "error" row with its message.
using SweepTaskRunner = std::function<nlohmann::json(const SweepPlan& plan, std::size_t point,
                                                     std::uint32_t schedule, std::uint64_t seed)>;

struct SweepOptions {
    unsigned jobs = 1;
    Shard shard;
    double timeout_seconds = 0;  // per task; 0: none
    /// Set (by a signal handler) to stop: running workers are killed, their rows dropped.
    const std::atomic<bool>* stop_flag = nullptr;
    std::function<void(const SweepProgress&)> progress;
    /// Called with every row so far at most every checkpoint_seconds and when done, so the
    /// output on disk stays valid and resumable if the sweep is killed.
    std::function<void(const std::vector<SweepRow>&)> checkpoint;
    double checkpoint_seconds = 2.0;
};

struct SweepResult {
    std::vector<SweepRow> rows;  // `previous` rows kept, plus the new ones, by task
    bool interrupted = false;
    std::size_t skipped = 0;  // tasks of the shard already in `previous`
};

/// Runs every task of `options.shard` that `previous` (rows of an earlier, interrupted run
/// of the same study: --resume) does not hold. Test hook: the environment variable
/// NPUSIM_SWEEP_TEST_CRASH_TASK=t makes the worker of task t abort.
SweepResult run_sweep(const SweepPlan& plan, const SweepOptions& options,
                      const SweepTaskRunner& runner, std::vector<SweepRow> previous = {});

}  // namespace npusim
