#include "sim/engine/chip.h"

#include <algorithm>
#include <exception>
#include <string>

#include <systemc>

#include "base/errors.h"
#include "sync/deadlock/deadlock_analysis.h"

namespace npusim {

Chip::Chip(ChipConfig config, const SimOptions& options)
    : m_config(std::move(config)),
      m_resources(m_config, options.quantum, options.deadlock_idle_cycles),
      m_cores(make_cores(options)),
      m_scheduler(m_resources, cores_of(CoreType::Vector), cores_of(CoreType::Cube),
                  {options.placement, options.placement_seed, options.dispatch_period,
                   options.dispatch_phase, options.launch_rows}),
      m_start_jitter_cycles(options.start_jitter_cycles),
      m_start_jitter_seed(options.start_jitter_seed),
      m_max_cycles(options.max_cycles),
      m_progress(options.progress),
      m_progress_interval(options.progress_interval),
      m_stop_flag(options.stop_flag) {
    m_resources.on_poll = [this] { poll(); };
    m_resources.model_data = options.model_data;
}

std::vector<std::unique_ptr<AiCore>> Chip::make_cores(const SimOptions& options) {
    std::vector<std::unique_ptr<AiCore>> made;
    for (CoreType type : {CoreType::Vector, CoreType::Cube}) {
        const std::uint64_t count = m_config.cores_of(type);
        for (std::uint32_t i = 0; i < count; ++i) {
            const std::string name = std::string(to_string(type)) + std::to_string(i);
            made.push_back(std::make_unique<AiCore>(name.c_str(), m_resources, *this, type, i,
                                                    options.stack_bytes));
        }
    }
    return made;
}

std::vector<AiCore*> Chip::cores_of(CoreType type) const {
    std::vector<AiCore*> list;
    for (const auto& core : m_cores) {
        if (core->type() == type) list.push_back(core.get());
    }
    return list;
}

Chip::~Chip() {
    // Let every scalar thread return before its module and the context go away, so no
    // coroutine stack is dropped with live objects on it.
    if (m_started) {
        m_resources.shutdown = true;
        for (auto& core : m_cores) core->wake();
        sc_core::sc_start();
        after_simulation_on_main_stack();
    }
    m_cores.clear();
}

void Chip::block_finished(AiCore& core, const BlockAssignment& work, Cycle end) {
    m_scheduler.block_finished(core, work, end);
}

Cycle Chip::now() const {
    return sc_core::sc_time_stamp().value();
}

void Chip::simulate() {
    m_started = true;
    sc_core::sc_start();
    after_simulation_on_main_stack();
    m_resources.effects.apply_all();
    m_resources.bandwidth.forget_before(now());
}

// ---- run control: called by a core at a safe point (ChipResources::poll) ------------------

void Chip::poll() {
    if (m_progress) {
        const Clock::time_point host_now = Clock::now();
        if (host_now >= m_next_progress) {
            m_next_progress = host_now + m_progress_interval;
            report_progress(host_now);
        }
    }
    if (m_stop_requested.load(std::memory_order_relaxed) ||
        (m_stop_flag != nullptr && m_stop_flag->load(std::memory_order_relaxed))) {
        m_resources.interrupt();
    } else if (m_max_cycles > 0 && now() - m_run_start_cycle > m_max_cycles) {
        m_time_limit_hit = true;
        m_resources.interrupt();
    }
}

bool Chip::poll_at_host_call() {
    if (!m_resources.abort) poll();
    return m_resources.abort;
}

void Chip::report_progress(Clock::time_point host_now) {
    RunProgress p;
    p.cycles = now() - m_run_start_cycle;
    for (const auto& core : m_cores) {
        for (Pipe pipe : pipes_of(core->type()))
            p.instructions += core->pipe_statistics(pipe).instructions;
    }
    p.host_seconds = std::chrono::duration<double>(host_now - m_run_started).count();
    try {
        m_progress(p);
    } catch (const std::exception& error) {
        m_resources.fail(std::string("progress callback threw: ") + error.what());
    } catch (...) {
        m_resources.fail("progress callback threw a non-standard exception");
    }
}

// ---- launches --------------------------------------------------------------------------

namespace {
// splitmix64: a tiny, well-mixed, portable generator (std distributions differ between
// standard libraries, and the jitter must be identical everywhere).
std::uint64_t mix(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}
}  // namespace

void Chip::launch(const LaunchSpec& spec, KernelBody body) {
    m_scheduler.launch(make_launch(spec, std::move(body)), now());
    m_pending_launch = true;
}

KernelLaunch Chip::make_launch(const LaunchSpec& spec, KernelBody body) {
    const ChipConfig& chip = m_config;
    if (spec.blocks == 0) throw UsageError("launch of kernel '" + spec.name + "' with 0 blocks");
    if (!body) throw UsageError("launch of kernel '" + spec.name + "' without a body");
    const std::uint32_t vectors = vector_cores_per_block(spec.type);
    const std::uint32_t cubes = cube_cores_per_block(spec.type);
    // A block needs `vectors` vector and `cubes` cube cores (a cluster for mixed kernels).
    if (chip.vector_cores < vectors || chip.cube_cores < cubes) {
        throw UsageError("launch of " + std::string(to_string(spec.type)) + " kernel '" +
                         spec.name + "': a block needs " + std::to_string(vectors) +
                         " vector and " + std::to_string(cubes) + " cube cores, chip '" +
                         chip.name + "' has " + std::to_string(chip.vector_cores) + " and " +
                         std::to_string(chip.cube_cores));
    }
    if (spec.start_offsets.size() > spec.blocks) {
        throw UsageError("launch of kernel '" + spec.name +
                         "': " + std::to_string(spec.start_offsets.size()) + " start offsets for " +
                         std::to_string(spec.blocks) + " blocks");
    }
    KernelLaunch kernel;
    kernel.name = spec.name;
    kernel.blocks = spec.blocks;
    kernel.schedule_mode = spec.schedule_mode;
    kernel.type = spec.type;
    kernel.body = std::move(body);
    // Refused here, where the user launches, not when a stream worker hands it to the
    // scheduler (an error inside a simulation process would end the process).
    m_scheduler.check_launch(kernel);
    const Cycle sim_jitter = m_start_jitter_cycles;
    const std::uint64_t launch_number = m_launches_made++;
    if (!spec.start_offsets.empty() || spec.start_jitter_cycles > 0 || sim_jitter > 0) {
        kernel.start_offsets.resize(spec.blocks, 0);
        for (std::uint32_t g = 0; g < spec.blocks; ++g) {
            Cycle offset = g < spec.start_offsets.size() ? spec.start_offsets[g] : 0;
            if (spec.start_jitter_cycles > 0) {
                offset +=
                    mix(spec.jitter_seed * 0x100000001b3ULL + g) % (spec.start_jitter_cycles + 1);
            }
            if (sim_jitter > 0) {
                offset += mix(mix(m_start_jitter_seed + launch_number) + g) % (sim_jitter + 1);
            }
            kernel.start_offsets[g] = offset;
        }
    }
    return kernel;
}

// ---- a run -----------------------------------------------------------------------------

RunResult Chip::run_launched() {
    if (!m_pending_launch) throw UsageError("run() without a launched kernel");
    m_pending_launch = false;
    RunResult result;
    begin_run(result);
    m_scheduler.dispatch();
    simulate();
    finish_run(result, nullptr);
    return result;
}

void Chip::begin_run(RunResult& result) {
    result.clock_mhz = m_config.clock_mhz;
    result.start_cycle = now();
    m_gm_bytes_at_start = m_resources.bandwidth.total_bytes();
    for (auto& core : m_cores) core->reset_statistics();
    m_run_start_cycle = result.start_cycle;
    if (m_progress) {
        m_run_started = Clock::now();
        m_next_progress = m_run_started + m_progress_interval;
    }
}

void Chip::collect_usage(RunResult& result) const {
    result.gm_bytes = m_resources.bandwidth.total_bytes() - m_gm_bytes_at_start;
    const double span = static_cast<double>(std::max<Cycle>(1, result.cycles()));
    for (const auto& core : m_cores) {
        CoreUsage usage{core->type(), core->index(), core->blocks_run(), {}};
        usage.gm_read_bytes = core->l2_statistics().read_bytes;
        usage.l2_hit_bytes = core->l2_statistics().hit_bytes;
        std::uint64_t instructions = 0;
        for (Pipe pipe : pipes_of(core->type())) {
            const PipeStatistics s = core->pipe_statistics(pipe);
            // Work a stopped run had issued past its last cycle is not part of the run: a
            // pipe is busy at most the whole run (utilization at most 100%).
            const Cycle busy = std::min<Cycle>(s.busy_cycles, std::max<Cycle>(1, result.cycles()));
            usage.pipes.push_back({pipe, busy, static_cast<double>(busy) / span, s.instructions});
            instructions += s.instructions;
        }
        // An interrupted run stopped blocks part-way: their cores count too.
        const bool ran =
            core->blocks_run() > 0 || core->stuck() || (result.interrupted() && instructions > 0);
        if (!ran) continue;
        result.instructions += instructions;
        result.gm_read_bytes += usage.gm_read_bytes;
        result.l2_hit_bytes += usage.l2_hit_bytes;
        result.cores.push_back(std::move(usage));
    }
}

DeadlockFinding Chip::time_limit_finding(const RunResult& result) const {
    DeadlockFinding f;
    f.kind = DeadlockKind::SimulatedTimeLimit;
    std::string unfinished;
    for (const KernelResult& k : m_scheduler.peek_results()) {
        if (k.completed()) continue;
        unfinished += (unfinished.empty() ? "" : ", ") + k.name + " (" +
                      std::to_string(k.blocks_finished) + " of " + std::to_string(k.blocks) +
                      " blocks finished)";
        DeadlockParticipant p;
        p.kernel = k.name;
        p.kernel_id = k.id;
        p.state = "unfinished";
        f.participants.push_back(std::move(p));
    }
    f.summary = "the run passed the simulated-time limit of " + std::to_string(m_max_cycles) +
                " cycles (SimOptions::max_cycles, --max-cycles) and was stopped at cycle " +
                std::to_string(now() - result.start_cycle) +
                (unfinished.empty() ? std::string() : "; unfinished: " + unfinished);
    f.fix =
        "raise the limit if the work is that long; otherwise look for a kernel or host "
        "program that loops without end (a poll that never succeeds)";
    f.signature = std::string(to_string(f.kind));
    return f;
}

// A deadlocked run: the stuck blocks (observers hear of each), the blocks that never got a
// core, and the wait-for analysis over the scheduler's, the cores' and the host's state.
void Chip::record_deadlock(RunResult& result, const HostSide* host) {
    if (host != nullptr) result.host_wait = host->host_wait();
    for (auto& core : m_cores) {
        if (const auto& stuck = core->stuck()) {
            result.stuck.push_back({stuck->kernel, stuck->block, core->type(),
                                    static_cast<std::int64_t>(core->index()), stuck->where,
                                    stuck->reason ? stuck->reason() : std::string(),
                                    stuck->wait ? stuck->wait() : StuckWait{}});
            const StuckNote note{stuck->kernel_id,
                                 stuck->kernel,
                                 stuck->block,
                                 core->type(),
                                 stuck->where,
                                 result.stuck.back().reason,
                                 core->index(),
                                 result.stuck.back().wait,
                                 now()};
            for (TransactionObserver* o : m_resources.observers) o->on_block_stuck(note);
        }
    }
    for (StuckBlock& b : m_scheduler.unstarted_blocks()) result.stuck.push_back(std::move(b));
    result.outcome = RunOutcome::Deadlock;
    DeadlockInputs inputs;
    inputs.scheduler = m_scheduler.state();
    inputs.stuck = result.stuck;
    inputs.capacity = {static_cast<std::uint32_t>(m_config.vector_cores),
                       static_cast<std::uint32_t>(m_config.cube_cores)};
    if (host != nullptr) inputs.runtime = host->wait_state();
    result.deadlocks = analyze_deadlock(inputs);
    if (m_resources.idle_limit_hit) {
        result.stopped_by = StopCause::NoProgress;
        DeadlockFinding f;
        f.kind = DeadlockKind::NoProgressLimit;
        f.summary = "a spinning block saw no progress on the chip for " +
                    std::to_string(m_resources.idle_limit) +
                    " cycles (SimOptions::deadlock_idle_cycles, --no-progress-cycles): "
                    "the run was stopped as a deadlock";
        f.fix =
            "see the other findings for who waits for whom; raise the limit if a "
            "block legitimately spins that long";
        f.signature = std::string(to_string(f.kind));
        result.deadlocks.insert(result.deadlocks.begin(), std::move(f));
    }
}

// Unwinds every blocked block (their stacks hold the kernel's objects), then resets.
void Chip::unwind_stopped_run() {
    m_resources.abort = true;
    m_resources.abort_event.notify(sc_core::SC_ZERO_TIME);
    simulate();
    for (auto& core : m_cores) core->reset_after_abort();
    m_scheduler.reset_after_abort();
    m_resources.abort = false;
    m_resources.deadlock = false;
    m_resources.blocked_cores = 0;
    m_resources.quiet_spinners = 0;
    m_resources.interrupted = false;
    m_resources.idle_limit_hit = false;
    m_time_limit_hit = false;
}

void Chip::finish_run(RunResult& result, const HostSide* host) {
    const bool host_pending = host != nullptr && host->pending();
    const bool unfinished = !m_scheduler.all_finished() || host_pending;
    const bool stopped = m_resources.interrupted;
    const bool interrupted = stopped && !m_resources.first_error && unfinished;
    const bool deadlocked = !m_resources.first_error && !stopped && unfinished;
    if (interrupted) {
        result.outcome = RunOutcome::Interrupted;
        result.stopped_by = m_time_limit_hit ? StopCause::TimeLimit : StopCause::Request;
        if (m_time_limit_hit) result.deadlocks.push_back(time_limit_finding(result));
    }
    if (deadlocked) record_deadlock(result, host);
    result.end_cycle = now();
    if (!deadlocked) {
        result.end_cycle = std::max(result.end_cycle, m_scheduler.latest_kernel_end());
    }
    collect_usage(result);
    if (deadlocked || stopped || m_resources.first_error || host_pending) unwind_stopped_run();
    m_stop_requested.store(false, std::memory_order_relaxed);
    result.kernels = m_scheduler.take_results(&result.kernel_summaries, &result.first_summarized_id,
                                              &result.launches);
    for (KernelResult& k : result.kernels) {  // the L2 read counts of each kernel's copies
        for (const auto& core : m_cores) {
            const std::vector<L2Counts>& by_kernel = core->l2_statistics().by_kernel;
            if (k.id >= by_kernel.size()) continue;
            k.gm_read_bytes += by_kernel[k.id].read_bytes;
            k.l2_hit_bytes += by_kernel[k.id].hit_bytes;
        }
    }
    if (m_resources.first_error) {
        std::string message = std::move(*m_resources.first_error);
        const bool internal = m_resources.first_error_internal;
        m_resources.first_error.reset();
        m_resources.first_error_internal = false;
        if (internal) throw InternalError(message);
        throw KernelError(message);
    }
}

}  // namespace npusim
