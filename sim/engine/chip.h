// The simulated chip as the engine runs it: the SystemC context, the shared resources (GM,
// bandwidth, effects, observers), the AI cores and the device scheduler, with what a run
// needs around them — turning a LaunchSpec into a placed KernelLaunch, run control (progress,
// stop requests, the simulated-time watchdog), and the end of a run (outcome, deadlock
// analysis, usage statistics, unwinding a stopped run).
//
// The facade (sim/simulator.h) owns one Chip; the host runtime (sim/host/) works on it
// directly. Where the end of a run needs the host side, it asks through HostSide
// (sim/engine/host_side.h). Not a public header: it includes SystemC.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "base/chip_config.h"
#include "core/ai_core.h"
#include "core/chip_resources.h"
#include "core/kernel_launch.h"
#include "sim/engine/host_side.h"
#include "sim/engine/launch_spec.h"
#include "sim/engine/run_result.h"
#include "sim/engine/scheduler.h"
#include "sim/engine/sim_context.h"
#include "sim/engine/sim_options.h"

namespace npusim {

class Chip final : public WorkSource {
public:
    /// Contract: `options` passed Simulator's checks (quantum > 0, stack >= 16 KiB, ...).
    Chip(ChipConfig config, const SimOptions& options);
    ~Chip() override;
    Chip(const Chip&) = delete;
    Chip& operator=(const Chip&) = delete;

    const ChipConfig& config() const { return m_config; }
    ChipResources& resources() { return m_resources; }
    Scheduler& scheduler() { return m_scheduler; }
    Cycle now() const;

    /// Checks `spec` against the chip (UsageError naming the kernel) and makes the launch the
    /// scheduler places, with its start offsets (the spec's and SimOptions' start jitter).
    KernelLaunch make_launch(const LaunchSpec& spec, KernelBody body);

    // ---- a run --------------------------------------------------------------------------
    /// Queues a kernel for run_launched().
    void launch(const LaunchSpec& spec, KernelBody body);
    bool has_pending_launch() const { return m_pending_launch; }
    /// Runs every kernel queued by launch() (Simulator::run).
    RunResult run_launched();
    /// Around a run driven from outside (Simulator::run_host): begin_run, then simulate()
    /// until the chip stops, then finish_run with the host side that drove it.
    void begin_run(RunResult& result);
    void simulate();
    /// After the simulation stopped: the outcome, statistics and cleanup (a stopped or stuck
    /// run unwinds every block and host thread). Throws the kernel error of a failed run.
    void finish_run(RunResult& result, const HostSide* host);

    // ---- run control --------------------------------------------------------------------
    /// At a host call: applies progress, stop requests and the watchdog; true when the run is
    /// being stopped or aborted (the caller unwinds).
    bool poll_at_host_call();
    /// Thread-safe and async-signal-safe (Simulator::request_stop).
    void request_stop() noexcept { m_stop_requested.store(true, std::memory_order_relaxed); }

    /// The cores call this when a block ended; the scheduler frees its core.
    void block_finished(AiCore& core, const BlockAssignment& work, Cycle end) override;

private:
    using Clock = std::chrono::steady_clock;

    std::vector<std::unique_ptr<AiCore>> make_cores(const SimOptions& options);
    std::vector<AiCore*> cores_of(CoreType type) const;
    void poll();
    void report_progress(Clock::time_point host_now);
    void collect_usage(RunResult& result) const;
    DeadlockFinding time_limit_finding(const RunResult& result) const;
    void record_deadlock(RunResult& result, const HostSide* host);
    void unwind_stopped_run();

    // Declaration order matters: the context exists before any SystemC object and is
    // deleted after all of them; the cores are built before the scheduler (it needs them),
    // so the Chip forwards their block_finished calls to it.
    SimContextScope m_context;
    ChipConfig m_config;
    ChipResources m_resources;
    std::vector<std::unique_ptr<AiCore>> m_cores;
    Scheduler m_scheduler;
    Cycle m_start_jitter_cycles;
    std::uint64_t m_start_jitter_seed;
    Cycle m_max_cycles;
    bool m_time_limit_hit = false;
    std::uint64_t m_launches_made = 0;  // numbers launches for the start jitter
    bool m_started = false;
    bool m_pending_launch = false;
    std::uint64_t m_gm_bytes_at_start = 0;

    std::function<void(const RunProgress&)> m_progress;
    std::chrono::milliseconds m_progress_interval;
    const std::atomic<bool>* m_stop_flag;
    std::atomic<bool> m_stop_requested{false};
    static_assert(std::atomic<bool>::is_always_lock_free, "request_stop must be signal-safe");
    Cycle m_run_start_cycle = 0;
    Clock::time_point m_run_started;
    Clock::time_point m_next_progress;
};

}  // namespace npusim
