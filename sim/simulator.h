// The library's front door. Build a simulator from a chip config, allocate and fill GM
// buffers, launch kernels, run, read results back.
//
//   npusim::Simulator sim(npusim::builtin_chip_config("small"));
//   auto x = sim.allocate<float>(4096, "x");
//   sim.write(x, input);
//   npusim::RunResult r = sim.run({.name = "scale", .blocks = 4}, scale_kernel, x);
//   std::vector<float> out = sim.read(x);
//
// SystemC stays behind this header: users do not need its include paths to use the library.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/chip_config.h"
#include "base/errors.h"
#include "base/kernel_type.h"
#include "base/tensor.h"
#include "base/transaction.h"
#include "core/block.h"
#include "sim/run_result.h"

namespace npusim {

class GlobalMemory;
class Runtime;
struct RuntimeOptions;
struct ChipResources;
class Scheduler;
struct KernelLaunch;

/// A host program for Simulator::run_host (sim/runtime.h defines Runtime).
using HostProgram = std::function<void(Runtime&)>;

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
};

struct LaunchSpec {
    std::string name = "kernel";
    std::uint32_t blocks = 1;  // N: for mixed kernels the number of groups
    KernelType type = KernelType::AIV_ONLY;
    /// Timing what-ifs: block (group) g starts start_offsets[g] cycles late (missing entries
    /// are 0), plus a deterministic pseudo-random 0..start_jitter_cycles drawn from
    /// jitter_seed. Shows races that only some timings expose.
    std::vector<Cycle> start_offsets;
    Cycle start_jitter_cycles = 0;
    /// Batch: every block starts at once or the kernel waits (SetScheduleMode(1)).
    ScheduleMode schedule_mode = ScheduleMode::Normal;
    std::uint64_t jitter_seed = 1;
};

class Simulator final {
public:
    explicit Simulator(ChipConfig chip, SimOptions options = {});
    ~Simulator();
    Simulator(const Simulator&) = delete;
    Simulator& operator=(const Simulator&) = delete;

    const ChipConfig& chip() const;
    GlobalMemory& global_memory();

    // ---- host side GM -------------------------------------------------------------------
    template <Element T>
    GlobalTensor<T> allocate(std::uint64_t count, std::string name = {}) {
        return {allocate_bytes(count * sizeof(T), std::move(name)), count};
    }
    template <Element T>
    void write(GlobalTensor<T> dst, std::span<const T> values) {
        check_host_access(dst.address, dst.bytes(), values.size() * sizeof(T), "write");
        write_bytes(dst.address, values.data(), values.size() * sizeof(T));
    }
    template <Element T>
    void write(GlobalTensor<T> dst, const std::vector<T>& values) {
        write(dst, std::span<const T>(values));
    }
    template <Element T>
    std::vector<T> read(GlobalTensor<T> src) const {
        std::vector<T> values(src.count);
        check_host_access(src.address, src.bytes(), src.bytes(), "read");
        read_bytes(src.address, values.data(), src.bytes());
        return values;
    }
    template <Element T>
    void free(GlobalTensor<T> buffer) {
        free_bytes(buffer.address);
    }

    // ---- observers (trace writer, checkers) ---------------------------------------------
    void attach(TransactionObserver& observer);
    void detach(TransactionObserver& observer);

    // ---- kernels ------------------------------------------------------------------------
    /// Queues a kernel; it starts when run() is called. Throws UsageError for a bad spec.
    void launch(const LaunchSpec& spec, KernelBody body);
    /// Runs every queued kernel until all finish or the chip can make no progress (outcome
    /// Deadlock with the stuck blocks). Throws KernelError when a kernel breaks a rule; the
    /// simulator stays usable afterwards.
    RunResult run();

    /// Asks the current run to stop at its next safe point (a core synchronizing with the
    /// chip's time, within about a quantum of simulated time): run() then unwinds every
    /// block and returns outcome Interrupted with the partial statistics, and the simulator
    /// stays usable. Made while no run is in progress, it stops the next run at once; run()
    /// clears it when it returns. Thread-safe and async-signal-safe.
    void request_stop() noexcept;

    /// Runs `program` on a simulated host thread next to the cores, with a Runtime for
    /// streams, events, memory and kernel launches (sim/runtime.h, docs/runtime.md). Returns
    /// when the program returned and all its work completed (Completed), when nothing can
    /// progress (Deadlock: RunResult::host_wait and ::stuck say who waits), or when stopped
    /// (Interrupted). Rethrows what the program threw, after its queued work completed;
    /// throws KernelError as run() does. Kernels queued by launch() must be run() first.
    RunResult run_host(HostProgram program);
    RunResult run_host(HostProgram program, const RuntimeOptions& options);

    /// launch + run for a kernel written as `void kernel(Block&, Args...)`.
    template <class Kernel, class... Args>
    RunResult run(const LaunchSpec& spec, Kernel kernel, Args... args) {
        launch(spec, [kernel, args...](Block& block) { kernel(block, args...); });
        return run();
    }

private:
    std::uint64_t allocate_bytes(std::uint64_t bytes, std::string name);
    void write_bytes(std::uint64_t address, const void* data, std::uint64_t bytes);
    void read_bytes(std::uint64_t address, void* data, std::uint64_t bytes) const;
    void free_bytes(std::uint64_t address);
    void check_host_access(std::uint64_t address, std::uint64_t buffer_bytes, std::uint64_t bytes,
                           const char* what) const;

    KernelLaunch make_launch(const LaunchSpec& spec, KernelBody body) const;
    void begin_run(RunResult& result);
    void finish_run(RunResult& result, const Runtime* runtime);

    struct Impl;
    friend struct SimulatorInternals;
    static void collect_usage(Impl& impl, RunResult& result);
    static DeadlockFinding time_limit_finding(Impl& impl, const RunResult& result);
    std::unique_ptr<Impl> m_impl;
};

/// Internal (sim/runtime.cpp): what the host runtime needs of a Simulator. Not an API.
struct SimulatorInternals {
    static ChipResources& resources(Simulator& simulator);
    static Scheduler& scheduler(Simulator& simulator);
    static KernelLaunch make_launch(const Simulator& simulator, const LaunchSpec& spec,
                                    KernelBody body);
    /// Run control at a host call: true when the run is being stopped or aborted.
    static bool poll(Simulator& simulator);
};

}  // namespace npusim
