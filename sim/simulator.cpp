#include "sim/simulator.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>

#include <systemc>

#include "core/ai_core.h"
#include "core/chip_resources.h"
#include "sim/deadlock_analysis.h"
#include "sim/runtime.h"
#include "sim/scheduler.h"
#include "sim/sim_context.h"

namespace npusim {

// Cores are built before the scheduler (it needs them), so the Impl forwards their
// block_finished calls to it.
struct Simulator::Impl final : WorkSource {
    Impl(ChipConfig chip, const SimOptions& options)
        : config(std::move(chip)),
          resources(config, options.quantum, options.deadlock_idle_cycles),
          cores(make_cores(options)),
          scheduler(resources, cores_of(CoreType::Vector), cores_of(CoreType::Cube),
                    {options.placement, options.placement_seed, options.dispatch_period,
                     options.dispatch_phase}),
          start_jitter_cycles(options.start_jitter_cycles),
          start_jitter_seed(options.start_jitter_seed),
          max_cycles(options.max_cycles),
          progress(options.progress),
          progress_interval(options.progress_interval),
          stop_flag(options.stop_flag) {
        resources.on_poll = [this] { poll(); };
    }

    std::vector<std::unique_ptr<AiCore>> make_cores(const SimOptions& options) {
        std::vector<std::unique_ptr<AiCore>> made;
        for (CoreType type : {CoreType::Vector, CoreType::Cube}) {
            const std::uint64_t count = config.cores_of(type);
            for (std::uint32_t i = 0; i < count; ++i) {
                const std::string name = std::string(to_string(type)) + std::to_string(i);
                made.push_back(std::make_unique<AiCore>(name.c_str(), resources, *this, type, i,
                                                        options.stack_bytes));
            }
        }
        return made;
    }

    std::vector<AiCore*> cores_of(CoreType type) const {
        std::vector<AiCore*> list;
        for (const auto& core : cores) {
            if (core->type() == type) list.push_back(core.get());
        }
        return list;
    }

    ~Impl() override {
        // Let every scalar thread return before its module and the context go away, so no
        // coroutine stack is dropped with live objects on it.
        if (started) {
            resources.shutdown = true;
            for (auto& core : cores) core->wake();
            sc_core::sc_start();
            after_simulation_on_main_stack();
        }
        cores.clear();
    }

    void block_finished(AiCore& core, const BlockAssignment& work, Cycle end) override {
        scheduler.block_finished(core, work, end);
    }

    Cycle now() const { return sc_core::sc_time_stamp().value(); }

    void simulate() {
        started = true;
        sc_core::sc_start();
        after_simulation_on_main_stack();
        resources.effects.apply_all();
        resources.bandwidth.forget_before(now());
    }

    // ---- run control: called by a core at a safe point (ChipResources::poll) ----------
    using Clock = std::chrono::steady_clock;

    void poll() {
        if (progress) {
            const Clock::time_point host_now = Clock::now();
            if (host_now >= next_progress) {
                next_progress = host_now + progress_interval;
                report_progress(host_now);
            }
        }
        if (stop_requested.load(std::memory_order_relaxed) ||
            (stop_flag != nullptr && stop_flag->load(std::memory_order_relaxed))) {
            resources.interrupt();
        } else if (max_cycles > 0 && now() - run_start_cycle > max_cycles) {
            time_limit_hit = true;
            resources.interrupt();
        }
    }

    void report_progress(Clock::time_point host_now) {
        RunProgress p;
        p.cycles = now() - run_start_cycle;
        for (const auto& core : cores) {
            for (Pipe pipe : pipes_of(core->type()))
                p.instructions += core->pipe_statistics(pipe).instructions;
        }
        p.host_seconds = std::chrono::duration<double>(host_now - run_started).count();
        try {
            progress(p);
        } catch (const std::exception& error) {
            resources.fail(std::string("progress callback threw: ") + error.what());
        } catch (...) {
            resources.fail("progress callback threw a non-standard exception");
        }
    }

    void start_run_clock(Cycle start_cycle) {
        run_start_cycle = start_cycle;
        if (progress) {
            run_started = Clock::now();
            next_progress = run_started + progress_interval;
        }
    }

    // Declaration order matters: the context exists before any SystemC object and is
    // deleted after all of them.
    SimContextScope context;
    ChipConfig config;
    ChipResources resources;
    std::vector<std::unique_ptr<AiCore>> cores;
    Scheduler scheduler;
    Cycle start_jitter_cycles;
    std::uint64_t start_jitter_seed;
    Cycle max_cycles;
    bool time_limit_hit = false;
    mutable std::uint64_t launches_made = 0;  // numbers launches for the start jitter
    bool started = false;
    bool pending_launch = false;
    std::uint64_t gm_bytes_at_start = 0;

    std::function<void(const RunProgress&)> progress;
    std::chrono::milliseconds progress_interval;
    const std::atomic<bool>* stop_flag;
    std::atomic<bool> stop_requested{false};
    static_assert(std::atomic<bool>::is_always_lock_free, "request_stop must be signal-safe");
    Cycle run_start_cycle = 0;
    Clock::time_point run_started;
    Clock::time_point next_progress;
};

Simulator::Simulator(ChipConfig chip, SimOptions options) {
    if (options.quantum == 0) throw UsageError("SimOptions::quantum must be > 0");
    if (options.stack_bytes < 16 * 1024)
        throw UsageError("SimOptions::stack_bytes must be >= 16 KiB");
    if (options.progress_interval.count() < 0)
        throw UsageError("SimOptions::progress_interval must be >= 0");
    m_impl = std::make_unique<Impl>(std::move(chip), options);
}

Simulator::~Simulator() = default;

const ChipConfig& Simulator::chip() const {
    return m_impl->config;
}
GlobalMemory& Simulator::global_memory() {
    return m_impl->resources.gm;
}

std::uint64_t Simulator::allocate_bytes(std::uint64_t bytes, std::string name) {
    return m_impl->resources.gm.allocate(bytes, std::move(name));
}

void Simulator::write_bytes(std::uint64_t address, const void* data, std::uint64_t bytes) {
    m_impl->resources.gm.write(address, data, bytes);
    for (TransactionObserver* o : m_impl->resources.observers) o->on_host_write(address, bytes);
}

void Simulator::read_bytes(std::uint64_t address, void* data, std::uint64_t bytes) const {
    m_impl->resources.gm.read(address, data, bytes);
}

void Simulator::free_bytes(std::uint64_t address) {
    m_impl->resources.gm.free(address);
}

void Simulator::check_host_access(std::uint64_t address, std::uint64_t buffer_bytes,
                                  std::uint64_t bytes, const char* what) const {
    const GmBuffer* buffer = m_impl->resources.gm.find_buffer(address);
    if (buffer == nullptr || buffer->freed) {
        throw UsageError(std::string("host ") + what + " at GM address " + std::to_string(address) +
                         ", which is not inside a live buffer");
    }
    if (bytes > buffer_bytes || address + bytes > buffer->address + buffer->bytes) {
        throw UsageError(std::string("host ") + what + " of " + std::to_string(bytes) +
                         " bytes overruns buffer '" + buffer->name + "' (" +
                         std::to_string(buffer->bytes) + " bytes)");
    }
}

void Simulator::request_stop() noexcept {
    m_impl->stop_requested.store(true, std::memory_order_relaxed);
}

void Simulator::attach(TransactionObserver& observer) {
    auto& list = m_impl->resources.observers;
    if (std::find(list.begin(), list.end(), &observer) == list.end()) list.push_back(&observer);
}

void Simulator::detach(TransactionObserver& observer) {
    auto& list = m_impl->resources.observers;
    list.erase(std::remove(list.begin(), list.end(), &observer), list.end());
}

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

void Simulator::launch(const LaunchSpec& spec, KernelBody body) {
    m_impl->scheduler.launch(make_launch(spec, std::move(body)), m_impl->now());
    m_impl->pending_launch = true;
}

KernelLaunch Simulator::make_launch(const LaunchSpec& spec, KernelBody body) const {
    const ChipConfig& chip = m_impl->config;
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
    const Cycle sim_jitter = m_impl->start_jitter_cycles;
    const std::uint64_t launch_number = m_impl->launches_made++;
    if (!spec.start_offsets.empty() || spec.start_jitter_cycles > 0 || sim_jitter > 0) {
        kernel.start_offsets.resize(spec.blocks, 0);
        for (std::uint32_t g = 0; g < spec.blocks; ++g) {
            Cycle offset = g < spec.start_offsets.size() ? spec.start_offsets[g] : 0;
            if (spec.start_jitter_cycles > 0) {
                offset +=
                    mix(spec.jitter_seed * 0x100000001b3ULL + g) % (spec.start_jitter_cycles + 1);
            }
            if (sim_jitter > 0) {
                offset +=
                    mix(mix(m_impl->start_jitter_seed + launch_number) + g) % (sim_jitter + 1);
            }
            kernel.start_offsets[g] = offset;
        }
    }
    return kernel;
}

namespace {
void collect_usage_of(const std::vector<std::unique_ptr<AiCore>>& cores, RunResult& result) {
    const double span = static_cast<double>(std::max<Cycle>(1, result.cycles()));
    for (const auto& core : cores) {
        CoreUsage usage{core->type(), core->index(), core->blocks_run(), {}};
        std::uint64_t instructions = 0;
        for (Pipe pipe : pipes_of(core->type())) {
            const PipeStatistics s = core->pipe_statistics(pipe);
            usage.pipes.push_back(
                {pipe, s.busy_cycles, static_cast<double>(s.busy_cycles) / span, s.instructions});
            instructions += s.instructions;
        }
        // An interrupted run stopped blocks part-way: their cores count too.
        const bool ran =
            core->blocks_run() > 0 || core->stuck() || (result.interrupted() && instructions > 0);
        if (!ran) continue;
        result.instructions += instructions;
        result.cores.push_back(std::move(usage));
    }
}
}  // namespace

void Simulator::collect_usage(Impl& impl, RunResult& result) {
    result.gm_bytes = impl.resources.bandwidth.total_bytes() - impl.gm_bytes_at_start;
    collect_usage_of(impl.cores, result);
}

RunResult Simulator::run() {
    Impl& impl = *m_impl;
    if (!impl.pending_launch) throw UsageError("run() without a launched kernel");
    impl.pending_launch = false;
    RunResult result;
    begin_run(result);
    impl.scheduler.dispatch();
    impl.simulate();
    finish_run(result, nullptr);
    return result;
}

RunResult Simulator::run_host(HostProgram program) {
    return run_host(std::move(program), RuntimeOptions{});
}

RunResult Simulator::run_host(HostProgram program, const RuntimeOptions& options) {
    Impl& impl = *m_impl;
    if (!program) throw UsageError("run_host without a host program");
    if (impl.pending_launch) {
        throw UsageError("run_host with kernels queued by launch(): run() them first");
    }
    if (options.host_stack_bytes < 16 * 1024) {
        throw UsageError("RuntimeOptions::host_stack_bytes must be >= 16 KiB");
    }
    RunResult result;
    begin_run(result);
    std::unique_ptr<Runtime> runtime = Runtime::create(*this, options);
    runtime->start(std::move(program));
    impl.simulate();
    finish_run(result, runtime.get());
    std::exception_ptr program_error = runtime->host_error();
    result.warnings = runtime->warnings();
    runtime.reset();
    if (program_error && result.completed()) std::rethrow_exception(program_error);
    return result;
}

void Simulator::begin_run(RunResult& result) {
    Impl& impl = *m_impl;
    result.clock_mhz = impl.config.clock_mhz;
    result.start_cycle = impl.now();
    impl.gm_bytes_at_start = impl.resources.bandwidth.total_bytes();
    for (auto& core : impl.cores) core->reset_statistics();
    impl.start_run_clock(result.start_cycle);
}

namespace {
DeadlockFinding time_limit_finding_of(Cycle limit, Cycle at,
                                      const std::vector<KernelResult>& kernels) {
    DeadlockFinding f;
    f.kind = DeadlockKind::SimulatedTimeLimit;
    std::string unfinished;
    for (const KernelResult& k : kernels) {
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
    f.summary = "the run passed the simulated-time limit of " + std::to_string(limit) +
                " cycles (SimOptions::max_cycles, --max-cycles) and was stopped at cycle " +
                std::to_string(at) +
                (unfinished.empty() ? std::string() : "; unfinished: " + unfinished);
    f.fix =
        "raise the limit if the work is that long; otherwise look for a kernel or host "
        "program that loops without end (a poll that never succeeds)";
    f.signature = std::string(to_string(f.kind));
    return f;
}
}  // namespace

DeadlockFinding Simulator::time_limit_finding(Impl& impl, const RunResult& result) {
    return time_limit_finding_of(impl.max_cycles, impl.now() - result.start_cycle,
                                 impl.scheduler.peek_results());
}

// After the simulation stopped: the outcome, statistics and cleanup (an aborted, stopped or
// stuck run unwinds every block and host thread). Throws the kernel error of a failed run.
void Simulator::finish_run(RunResult& result, const Runtime* runtime) {
    Impl& impl = *m_impl;
    const bool host_pending = runtime != nullptr && (!runtime->host_returned() || !runtime->idle());
    const bool unfinished = !impl.scheduler.all_finished() || host_pending;
    const bool stopped = impl.resources.interrupted;
    const bool interrupted = stopped && !impl.resources.first_error && unfinished;
    const bool deadlocked = !impl.resources.first_error && !stopped && unfinished;
    if (interrupted) {
        result.outcome = RunOutcome::Interrupted;
        result.stopped_by = impl.time_limit_hit ? StopCause::TimeLimit : StopCause::Request;
        if (impl.time_limit_hit) result.deadlocks.push_back(time_limit_finding(impl, result));
    }
    if (deadlocked && runtime != nullptr) result.host_wait = runtime->host_wait();
    if (deadlocked) {
        for (auto& core : impl.cores) {
            if (const auto& stuck = core->stuck()) {
                result.stuck.push_back({stuck->kernel, stuck->block, core->type(),
                                        static_cast<std::int64_t>(core->index()), stuck->where,
                                        stuck->reason ? stuck->reason() : std::string(),
                                        stuck->wait ? stuck->wait() : StuckWait{}});
                const StuckNote note{stuck->kernel_id, stuck->kernel,
                                     stuck->block,     core->type(),
                                     stuck->where,     result.stuck.back().reason,
                                     core->index(),    result.stuck.back().wait,
                                     impl.now()};
                for (TransactionObserver* o : impl.resources.observers) o->on_block_stuck(note);
            }
        }
        for (StuckBlock& b : impl.scheduler.unstarted_blocks())
            result.stuck.push_back(std::move(b));
        result.outcome = RunOutcome::Deadlock;
        DeadlockInputs inputs;
        inputs.scheduler = impl.scheduler.state();
        inputs.stuck = result.stuck;
        inputs.capacity = {static_cast<std::uint32_t>(impl.config.vector_cores),
                           static_cast<std::uint32_t>(impl.config.cube_cores)};
        if (runtime != nullptr) add_runtime_state(inputs, runtime->wait_state());
        result.deadlocks = analyze_deadlock(inputs);
        if (impl.resources.idle_limit_hit) {
            result.stopped_by = StopCause::NoProgress;
            DeadlockFinding f;
            f.kind = DeadlockKind::NoProgressLimit;
            f.summary = "a spinning block saw no progress on the chip for " +
                        std::to_string(impl.resources.idle_limit) +
                        " cycles (SimOptions::deadlock_idle_cycles, --no-progress-cycles): "
                        "the run was stopped as a deadlock";
            f.fix =
                "see the other findings for who waits for whom; raise the limit if a "
                "block legitimately spins that long";
            f.signature = std::string(to_string(f.kind));
            result.deadlocks.insert(result.deadlocks.begin(), std::move(f));
        }
    }
    result.end_cycle = impl.now();
    if (!deadlocked) {
        for (const KernelResult& k : impl.scheduler.peek_results()) {
            result.end_cycle = std::max(result.end_cycle, k.end);
        }
    }
    collect_usage(impl, result);
    if (deadlocked || stopped || impl.resources.first_error || host_pending) {
        // Unwind every blocked block (their stacks hold the kernel's objects), then reset.
        impl.resources.abort = true;
        impl.resources.abort_event.notify(sc_core::SC_ZERO_TIME);
        impl.simulate();
        for (auto& core : impl.cores) core->reset_after_abort();
        impl.scheduler.reset_after_abort();
        impl.resources.abort = false;
        impl.resources.deadlock = false;
        impl.resources.blocked_cores = 0;
        impl.resources.quiet_spinners = 0;
        impl.resources.interrupted = false;
        impl.resources.idle_limit_hit = false;
        impl.time_limit_hit = false;
    }
    impl.stop_requested.store(false, std::memory_order_relaxed);
    result.kernels = impl.scheduler.take_results();
    if (impl.resources.first_error) {
        std::string message = std::move(*impl.resources.first_error);
        const bool internal = impl.resources.first_error_internal;
        impl.resources.first_error.reset();
        impl.resources.first_error_internal = false;
        if (internal) throw InternalError(message);
        throw KernelError(message);
    }
}

ChipResources& SimulatorInternals::resources(Simulator& simulator) {
    return simulator.m_impl->resources;
}
Scheduler& SimulatorInternals::scheduler(Simulator& simulator) {
    return simulator.m_impl->scheduler;
}
KernelLaunch SimulatorInternals::make_launch(const Simulator& simulator, const LaunchSpec& spec,
                                             KernelBody body) {
    return simulator.make_launch(spec, std::move(body));
}
bool SimulatorInternals::poll(Simulator& simulator) {
    Simulator::Impl& impl = *simulator.m_impl;
    if (!impl.resources.abort) impl.poll();
    return impl.resources.abort;
}

}  // namespace npusim
