#include "sim/simulator.h"

#include <algorithm>
#include <exception>

#include "sim/engine/chip.h"
#include "sim/host/host_session.h"

namespace npusim {

Simulator::Simulator(ChipConfig chip, SimOptions options) {
    if (options.quantum == 0) throw UsageError("SimOptions::quantum must be > 0");
    if (options.stack_bytes < 16 * 1024)
        throw UsageError("SimOptions::stack_bytes must be >= 16 KiB");
    if (options.progress_interval.count() < 0)
        throw UsageError("SimOptions::progress_interval must be >= 0");
    m_chip = std::make_unique<Chip>(std::move(chip), options);
}

Simulator::~Simulator() = default;

const ChipConfig& Simulator::chip() const {
    return m_chip->config();
}
GlobalMemory& Simulator::global_memory() {
    return m_chip->resources().gm;
}

std::uint64_t Simulator::allocate_bytes(std::uint64_t bytes, std::string name) {
    return m_chip->resources().gm.allocate(bytes, std::move(name));
}

void Simulator::write_bytes(std::uint64_t address, const void* data, std::uint64_t bytes) {
    ChipResources& resources = m_chip->resources();
    resources.gm.write(address, data, bytes);
    m_host_written.add(address, address + bytes);
    for (TransactionObserver* o : resources.observers) o->on_host_write(address, bytes);
}

void Simulator::read_bytes(std::uint64_t address, void* data, std::uint64_t bytes) const {
    m_chip->resources().gm.read(address, data, bytes);
}

void Simulator::free_bytes(std::uint64_t address) {
    GlobalMemory& gm = m_chip->resources().gm;
    const GmBuffer* buffer = gm.find_buffer(address);
    gm.free(address);
    if (buffer != nullptr) m_host_written.remove(buffer->address, buffer->address + buffer->bytes);
}

void Simulator::check_host_access(std::uint64_t address, std::uint64_t buffer_bytes,
                                  std::uint64_t bytes, const char* what) const {
    const GmBuffer* buffer = m_chip->resources().gm.find_buffer(address);
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
    m_chip->request_stop();
}

void Simulator::attach(TransactionObserver& observer) {
    ChipResources& resources = m_chip->resources();
    auto& list = resources.observers;
    if (std::find(list.begin(), list.end(), &observer) != list.end()) return;
    list.push_back(&observer);
    // Bytes defined before the observer came count as written (a checker attached after the
    // inputs were written must not call them uninitialized): exactly what the host wrote, and
    // after earlier runs every backed page of a live buffer (page-granular, a superset).
    const auto tell = [&observer](std::uint64_t lo, std::uint64_t hi) {
        observer.on_host_write(lo, hi - lo);
    };
    m_host_written.for_each(0, resources.gm.capacity(), tell);
    if (!m_has_run) return;
    for (const auto& [address, buffer] : resources.gm.buffers()) {
        if (!buffer.freed)
            resources.gm.for_each_resident_range(address, address + buffer.bytes, tell);
    }
}

void Simulator::detach(TransactionObserver& observer) {
    auto& list = m_chip->resources().observers;
    list.erase(std::remove(list.begin(), list.end(), &observer), list.end());
}

void Simulator::launch(const LaunchSpec& spec, KernelBody body) {
    m_chip->launch(spec, std::move(body));
}

RunResult Simulator::run() {
    m_has_run = true;
    const GlobalMemory::Running running(global_memory());  // kernels' __gm__ pointers
    return m_chip->run_launched();
}

RunResult Simulator::run_host(HostProgram program) {
    return run_host(std::move(program), RuntimeOptions{});
}

RunResult Simulator::run_host(HostProgram program, const RuntimeOptions& options) {
    Chip& chip = *m_chip;
    if (!program) throw UsageError("run_host without a host program");
    if (chip.has_pending_launch()) {
        throw UsageError("run_host with kernels queued by launch(): run() them first");
    }
    if (options.host_stack_bytes < 16 * 1024) {
        throw UsageError("RuntimeOptions::host_stack_bytes must be >= 16 KiB");
    }
    m_has_run = true;
    RunResult result;
    chip.begin_run(result);
    const GlobalMemory::Running running(global_memory());  // kernels' __gm__ pointers
    auto session = std::make_unique<HostSession>(chip, options);
    session->start(std::move(program));
    chip.simulate();
    chip.finish_run(result, session.get());
    std::exception_ptr program_error = session->host_error();
    result.warnings = session->warnings();
    session.reset();
    if (program_error && result.completed()) std::rethrow_exception(program_error);
    return result;
}

}  // namespace npusim
