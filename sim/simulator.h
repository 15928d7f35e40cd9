// The library's front door. Build a simulator from a chip config, allocate and fill GM
// buffers, launch kernels, run, read results back.
//
//   npusim::Simulator sim(npusim::builtin_chip_config("small"));
//   auto x = sim.allocate<float>(4096, "x");
//   sim.write(x, input);
//   npusim::RunResult r = sim.run({.name = "scale", .blocks = 4}, scale_kernel, x);
//   std::vector<float> out = sim.read(x);
//
// The facade over the engine (sim/engine/chip.h) and the host runtime (sim/host/): it builds
// the chip, hands the runtime the chip for run_host, and does nothing else of its own.
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
#include "memory/byte_ranges.h"
#include "sim/engine/launch_spec.h"
#include "sim/engine/run_result.h"
#include "sim/engine/sim_options.h"
#include "sim/host/runtime.h"

namespace npusim {

class Chip;
class GlobalMemory;

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
    /// streams, events, memory and kernel launches (sim/host/runtime.h, docs/runtime.md). Returns
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

    std::unique_ptr<Chip> m_chip;  // the engine (sim/engine/chip.h): cores, scheduler, runs
    // What an observer attached later must learn (attach): the GM bytes the host wrote, and
    // whether anything ran before (then every backed GM page of a live buffer counts as
    // written: the observer did not see those runs' writes).
    ByteRanges m_host_written;
    bool m_has_run = false;
};

}  // namespace npusim
