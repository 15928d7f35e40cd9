#include "sim/simulator.h"

#include <algorithm>

#include <systemc>

#include "core/ai_core.h"
#include "core/chip_resources.h"
#include "sim/scheduler.h"
#include "sim/sim_context.h"

namespace npusim {

struct Simulator::Impl {
    Impl(ChipConfig chip, const SimOptions& options)
        : config(std::move(chip)), resources(config, options.quantum), scheduler(resources.observers) {
        for (CoreType type : {CoreType::Vector, CoreType::Cube}) {
            const std::uint64_t count = config.cores_of(type);
            for (std::uint32_t i = 0; i < count; ++i) {
                const std::string name = std::string(to_string(type)) + std::to_string(i);
                cores.push_back(std::make_unique<AiCore>(name.c_str(), resources, scheduler, type,
                                                         i, options.stack_bytes));
            }
        }
    }

    ~Impl() {
        // Let every scalar thread return before its module and the context go away, so no
        // coroutine stack is dropped with live objects on it.
        if (started) {
            resources.shutdown = true;
            for (auto& core : cores) core->wake();
            sc_core::sc_start();
        }
        cores.clear();
    }

    Cycle now() const { return sc_core::sc_time_stamp().value(); }

    void simulate() {
        started = true;
        sc_core::sc_start();
        resources.effects.apply_all();
        resources.bandwidth.forget_before(now());
    }

    // Declaration order matters: the context exists before any SystemC object and is
    // deleted after all of them.
    SimContextScope context;
    ChipConfig config;
    ChipResources resources;
    Scheduler scheduler;
    std::vector<std::unique_ptr<AiCore>> cores;
    bool started = false;
    bool pending_launch = false;
};

Simulator::Simulator(ChipConfig chip, SimOptions options) {
    if (options.quantum == 0) throw UsageError("SimOptions::quantum must be > 0");
    if (options.stack_bytes < 16 * 1024) throw UsageError("SimOptions::stack_bytes must be >= 16 KiB");
    m_impl = std::make_unique<Impl>(std::move(chip), options);
}

Simulator::~Simulator() = default;

const ChipConfig& Simulator::chip() const { return m_impl->config; }
GlobalMemory& Simulator::global_memory() { return m_impl->resources.gm; }

std::uint64_t Simulator::allocate_bytes(std::uint64_t bytes, std::string name) {
    return m_impl->resources.gm.allocate(bytes, std::move(name));
}

void Simulator::write_bytes(std::uint64_t address, const void* data, std::uint64_t bytes) {
    m_impl->resources.gm.write(address, data, bytes);
}

void Simulator::read_bytes(std::uint64_t address, void* data, std::uint64_t bytes) const {
    m_impl->resources.gm.read(address, data, bytes);
}

void Simulator::free_bytes(std::uint64_t address) { m_impl->resources.gm.free(address); }

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

void Simulator::attach(TransactionObserver& observer) {
    auto& list = m_impl->resources.observers;
    if (std::find(list.begin(), list.end(), &observer) == list.end()) list.push_back(&observer);
}

void Simulator::detach(TransactionObserver& observer) {
    auto& list = m_impl->resources.observers;
    list.erase(std::remove(list.begin(), list.end(), &observer), list.end());
}

void Simulator::launch(const LaunchSpec& spec, KernelBody body) {
    if (spec.blocks == 0) throw UsageError("launch of kernel '" + spec.name + "' with 0 blocks");
    if (!body) throw UsageError("launch of kernel '" + spec.name + "' without a body");
    if (m_impl->config.cores_of(spec.core_type) == 0) {
        throw UsageError("launch of kernel '" + spec.name + "' on " +
                         std::string(to_string(spec.core_type)) + " cores, but chip '" +
                         m_impl->config.name + "' has none");
    }
    KernelLaunch kernel;
    kernel.name = spec.name;
    kernel.blocks = spec.blocks;
    kernel.core_type = spec.core_type;
    kernel.body = std::move(body);
    m_impl->scheduler.launch(std::move(kernel), m_impl->now());
    m_impl->pending_launch = true;
}

RunResult Simulator::run() {
    Impl& impl = *m_impl;
    if (!impl.pending_launch) throw UsageError("run() without a launched kernel");
    impl.pending_launch = false;
    RunResult result;
    result.clock_mhz = impl.config.clock_mhz;
    result.start_cycle = impl.now();
    const std::uint64_t gm_bytes_before = impl.resources.bandwidth.total_bytes();
    for (auto& core : impl.cores) {
        core->reset_statistics();
        core->wake();
    }

    impl.simulate();

    const bool deadlocked = !impl.resources.first_error && !impl.scheduler.all_finished();
    if (deadlocked) {
        for (auto& core : impl.cores) {
            if (const auto& stuck = core->stuck()) {
                result.stuck.push_back({stuck->kernel, stuck->block, core->type(),
                                        static_cast<std::int64_t>(core->index()), stuck->where,
                                        stuck->reason});
            }
        }
        for (StuckBlock& b : impl.scheduler.unstarted_blocks()) result.stuck.push_back(std::move(b));
        result.outcome = RunOutcome::Deadlock;
    }
    result.end_cycle = impl.now();
    if (deadlocked || impl.resources.first_error) {
        // Unwind every blocked block (their stacks hold the kernel's objects), then reset.
        impl.resources.abort = true;
        impl.resources.abort_event.notify(sc_core::SC_ZERO_TIME);
        impl.simulate();
        for (auto& core : impl.cores) core->reset_after_abort();
        impl.resources.abort = false;
    }
    result.kernels = impl.scheduler.take_results();
    if (impl.resources.first_error) {
        std::string message = std::move(*impl.resources.first_error);
        impl.resources.first_error.reset();
        throw KernelError(message);
    }
    if (!deadlocked) {
        for (const KernelResult& k : result.kernels) result.end_cycle = std::max(result.end_cycle, k.end);
    }
    result.gm_bytes = impl.resources.bandwidth.total_bytes() - gm_bytes_before;
    const double span = static_cast<double>(std::max<Cycle>(1, result.cycles()));
    for (auto& core : impl.cores) {
        if (core->blocks_run() == 0 && !core->stuck()) continue;
        CoreUsage usage{core->type(), core->index(), core->blocks_run(), {}};
        for (Pipe pipe : AiCore::pipes_of(core->type())) {
            const PipeStatistics s = core->pipe_statistics(pipe);
            usage.pipes.push_back({pipe, s.busy_cycles, static_cast<double>(s.busy_cycles) / span,
                                   s.instructions});
            result.instructions += s.instructions;
        }
        result.cores.push_back(std::move(usage));
    }
    return result;
}

}  // namespace npusim
