#include "sim/host/runtime_engine.h"

#include <cstring>
#include <exception>

namespace npusim {

Runtime::Impl::Impl(Chip& chip_engine, const RuntimeOptions& runtime_options)
    : engine(chip_engine),
      chip(chip_engine.resources()),
      scheduler(chip_engine.scheduler()),
      config(chip.config),
      options(runtime_options),
      host_to_device(config.host_link_bytes_per_cycle, config.gm_window_cycles),
      device_to_host(config.host_link_bytes_per_cycle, config.gm_window_cycles) {
    auto default_stream = std::make_shared<StreamState>();
    streams.emplace(0, std::move(default_stream));
    scheduler.on_kernel_finished([this](const KernelResult& r) { kernel_finished(r); });
}

Runtime::Impl::~Impl() {
    call_site_override().clear();
    scheduler.on_kernel_finished({});
    // Device-visible host memory lives in GM: it goes with the runtime.
    for (const auto& [id, h] : host) {
        if (h.gm_address != 0) chip.gm.free(h.gm_address);
    }
}

[[noreturn]] void Runtime::Impl::fail(Status status, const std::string& message,
                                      const std::source_location& where) {
    throw RuntimeError(status, message, where);
}

void Runtime::Impl::warn(std::string message, const std::source_location& where) {
    warnings.push_back({std::move(message), site_of(where)});
}

void Runtime::Impl::check_abort() const {
    // A host program's destructors still call the runtime while a HostAborted unwinds it
    // (aclrtFree in an RAII wrapper): those calls return instead of throwing a second
    // exception, which would terminate the process.
    if (chip.abort && std::uncaught_exceptions() == 0) throw HostAborted{};
}

void Runtime::Impl::advance(Cycle cycles, bool query) {
    if (!query) idle_polls = 0;
    if (engine.poll_at_host_call() && std::uncaught_exceptions() == 0) throw HostAborted{};
    if (cycles > 0) sc_core::wait(sc_core::sc_time::from_value(cycles), chip.abort_event);
    check_abort();
}

void Runtime::Impl::block(const std::function<bool()>& done, std::string what, HostWait waiting) {
    idle_polls = 0;
    host_wait = std::move(what);
    host_waiting = std::move(waiting);
    while (!done()) {
        check_abort();
        if (chip.abort) break;  // unwinding already (check_abort)
        sc_core::wait(changed | chip.abort_event);
    }
    check_abort();
    host_wait.clear();
    host_waiting = {};
}

void Runtime::Impl::note_poll(HostWait waiting, const std::source_location& where) {
    if (sc_core::sc_pending_activity()) {
        idle_polls = 0;
        return;
    }
    if (idle_polls++ == 0) idle_polls_since = now();
    if (now() - idle_polls_since < chip.idle_limit) return;
    const std::string call = waiting.call;
    waiting.polling = true;
    waiting.where = site_of(where);
    block([] { return false; },
          call_text(call.c_str(), where) + ": the host polls (" + std::to_string(idle_polls) +
              " queries over " + std::to_string(now() - idle_polls_since) +
              " cycles) while no device work can progress",
          std::move(waiting));
}

void Runtime::Impl::synchronized(const StreamState& stream) {
    if (stream.last_op == 0) return;
    publish([&](TransactionObserver& o) { o.on_host_synchronized(stream.last_op); });
}

void Runtime::Impl::synchronized_op(std::uint64_t op) {
    if (op == 0) return;
    publish([&](TransactionObserver& o) { o.on_host_synchronized(op); });
}

std::uint64_t Runtime::Impl::instant_op(StreamState& stream, HostOpInfo info) {
    info.op = next_op++;
    info.stream = stream.id;
    info.stream_name = stream.name;
    stream.last_op = info.op;
    publish([&](TransactionObserver& o) {
        o.on_host_op_queued(info);
        o.on_host_op_started(info.op, now());
        o.on_host_op_completed(info.op, now());
    });
    return info.op;
}

StreamState& Runtime::Impl::stream_of(Stream stream, const std::source_location& where) {
    const auto it = streams.find(stream.id);
    if (it == streams.end()) {
        fail(Status::InvalidHandle, "stream " + std::to_string(stream.id) + " does not exist",
             where);
    }
    if (it->second->destroyed) {
        fail(Status::InvalidHandle,
             "stream " + std::to_string(stream.id) + " was destroyed (" + it->second->destroyed_at +
                 ")",
             where);
    }
    return *it->second;
}

EventState& Runtime::Impl::event_of(Event event, const std::source_location& where) {
    const auto it = events.find(event.id);
    if (it == events.end()) {
        fail(Status::InvalidHandle, "event " + std::to_string(event.id) + " does not exist", where);
    }
    if (it->second.destroyed) {
        fail(Status::InvalidHandle, event_label(event.id, it->second.name) + " was destroyed",
             where);
    }
    return it->second;
}

DeviceAllocation& Runtime::Impl::device_of(DeviceBuffer buffer, std::uint64_t bytes,
                                           const std::source_location& where) {
    const auto it = device.find(buffer.address);
    if (it == device.end() || it->second.freed) {
        fail(Status::InvalidValue,
             "GM address " + std::to_string(buffer.address) +
                 " is not a live allocation of this runtime",
             where);
    }
    if (bytes > it->second.bytes) {
        fail(Status::InvalidValue,
             std::to_string(bytes) + " bytes overrun the device allocation of " +
                 std::to_string(it->second.bytes) + " bytes",
             where);
    }
    return it->second;
}

HostAllocation& Runtime::Impl::host_of(HostBuffer buffer, std::uint64_t bytes,
                                       const std::source_location& where) {
    const auto it = host.find(buffer.id);
    if (it == host.end() || it->second.freed) {
        fail(Status::InvalidHandle,
             "host buffer " + std::to_string(buffer.id) + " does not exist or was freed", where);
    }
    if (bytes > it->second.bytes.size()) {
        fail(Status::InvalidValue,
             std::to_string(bytes) + " bytes overrun the host allocation of " +
                 std::to_string(it->second.bytes.size()) + " bytes",
             where);
    }
    return it->second;
}

void Runtime::Impl::warn_if_stream_destroyed(const EventState& event, const char* call,
                                             const std::source_location& where) {
    if (event.recorded_on && event.recorded_on->destroyed) {
        warn(std::string(call) + " on an event last recorded on " +
                 stream_label(event.recorded_on->id, event.recorded_on->name) +
                 ", which was destroyed (" + event.recorded_on->destroyed_at +
                 "): undefined in the vendor documents, fails sporadically on hardware",
             where);
    }
}

void Runtime::Impl::gm_read(std::uint64_t address, void* data, std::uint64_t bytes) {
    settle_gm();
    chip.gm.read(address, data, bytes);
}

void Runtime::Impl::gm_write(std::uint64_t address, const void* data, std::uint64_t bytes) {
    settle_gm();
    chip.gm.write(address, data, bytes);
}

void Runtime::Impl::host_read(std::uint32_t id, void* data, std::uint64_t bytes) {
    const HostAllocation& h = host.at(id);
    if (h.gm_address != 0) {
        gm_read(h.gm_address, data, bytes);
    } else {
        std::memcpy(data, h.bytes.data(), bytes);
    }
}

void Runtime::Impl::host_write(std::uint32_t id, const void* data, std::uint64_t bytes) {
    const HostAllocation& h = host.at(id);
    if (h.gm_address != 0) {
        gm_write(h.gm_address, data, bytes);
    } else {
        std::memcpy(h.bytes.data(), data, bytes);
    }
}

std::vector<GmRange> Runtime::Impl::host_ranges(const HostAllocation& h, std::uint64_t bytes) {
    if (h.gm_address == 0) return {};
    return {{h.gm_address, bytes}};
}

}  // namespace npusim
