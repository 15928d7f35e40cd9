// How a simulator runs: the scalar units' quantum and stack, the watchdogs, run control
// (progress, stop flag) and device scheduling. Given to Simulator's constructor (sim/simulator.h)
// and read by the engine (sim/engine/chip.h). Plain data; no SystemC.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "base/kernel_type.h"
#include "base/types.h"
#include "sim/engine/run_result.h"

namespace npusim {

struct SimOptions {
    /// How far (cycles) a scalar unit may run ahead of SystemC time before synchronizing.
    /// Larger is faster; smaller makes GM bandwidth sharing between cores fairer.
    Cycle quantum = 1024;
    /// Host stack of each core's scalar thread: the kernel's C++ code runs on it.
    std::size_t stack_bytes = 256 * 1024;
    /// Watchdog, no-progress limit: a block that spins (soft SyncAll polling) without any
    /// progress on the chip for this many cycles ends the run as a deadlock
    /// (RunResult::stopped_by = NoProgress, a "no-progress limit" finding).
    Cycle deadlock_idle_cycles = 1'000'000;
    /// Watchdog, simulated-time limit (0: none): a run that passes this many cycles stops at
    /// its next safe point with outcome Interrupted, RunResult::stopped_by = TimeLimit and a
    /// "simulated-time limit" finding.
    Cycle max_cycles = 0;
    /// Data-free timing mode when false: instructions are timed exactly as with data, but
    /// no bytes move and nothing is computed (GM pages are never touched, results read back
    /// as zeros). For timing studies of shapes whose data would cost minutes or gigabytes
    /// (an 8192^3 matmul): the fidelity benchmark runs this way (docs/fidelity.md). Only
    /// kernels whose control flow does not depend on data are timed right.
    bool model_data = true;

    // ---- run control (all optional; unset costs one countdown per core synchronization) --
    /// Called from inside run(), on the simulation's thread, at most about every
    /// progress_interval of host time (0: at every poll). Must not throw (an exception ends
    /// the run with a KernelError); may call Simulator::request_stop().
    std::function<void(const RunProgress&)> progress;
    std::chrono::milliseconds progress_interval{250};
    /// Polled at the same safe points: while it reads true, every run stops at once with
    /// outcome Interrupted. Setting it is async-signal-safe, so a signal handler can stop a
    /// run. The owner clears it; it must outlive the simulator.
    const std::atomic<bool>* stop_flag = nullptr;

    // ---- device scheduling ---------------------------------------------------------------
    /// Which ready kernel's blocks go first when cores free up; `placement_seed` drives
    /// PlacementPolicy::Random.
    PlacementPolicy placement = PlacementPolicy::LaunchOrder;
    std::uint64_t placement_seed = 1;
    /// Launch-queue ticks (SchedulerOptions::dispatch_period; 0: kernels are ready when
    /// launched): kernels launched within one period are placed together by the policy.
    Cycle dispatch_period = 0;
    Cycle dispatch_phase = 0;
    /// Every kernel's blocks start a further pseudo-random 0..start_jitter_cycles late
    /// (drawn from start_jitter_seed, the kernel's launch number and the block), on top of
    /// LaunchSpec's own offsets and jitter. Schedule exploration sets it.
    Cycle start_jitter_cycles = 0;
    std::uint64_t start_jitter_seed = 1;

    // ---- results ----------------------------------------------------------------------------
    /// RunResult::kernels keeps a full row for the first `launch_rows` launches of a run;
    /// later launches are summed per kernel name in RunResult::kernel_summaries, so a long
    /// program's result and report stay bounded. kAllLaunchRows keeps every row.
    std::uint64_t launch_rows = kDefaultLaunchRows;
};

}  // namespace npusim
