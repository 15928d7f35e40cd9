// The host runtime's machinery behind sim/runtime.h: the host program's thread, one worker
// thread per stream with queued work, operations with their completion state, events,
// and host and device allocations. Included only by sim/runtime.cpp (it needs SystemC, so it
// is not a public header); split out so that the API and the machinery read separately.
#pragma once

#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <systemc>

#include "core/chip_resources.h"
#include "core/kernel_launch.h"
#include "sim/runtime.h"
#include "sim/scheduler.h"

namespace npusim {

namespace runtime_detail {

std::string site_of(const std::source_location& where) {
    std::string file = where.file_name();
    const std::size_t slash = file.find_last_of('/');
    if (slash != std::string::npos) file = file.substr(slash + 1);
    return file + ":" + std::to_string(where.line());
}

std::string call_text(const char* call, const std::source_location& where) {
    return std::string(call) + " at " + site_of(where);
}

/// Unwinds the host thread and the stream workers when the run is aborted or stopped.
struct HostAborted {};

struct HostOpState {
    bool done = false;
    Cycle end = 0;
    bool kernel_done = false;
    Cycle kernel_end = 0;
    std::uint32_t kernel_id = 0;  // the scheduler's id once submitted
};

struct HostOp {
    enum class Kind : std::uint8_t { Kernel, Transfer, Record, Wait };
    Kind kind = Kind::Record;
    HostOpInfo info;  // what observers learn (its id is assigned when queued)
    std::unique_ptr<KernelLaunch> kernel;
    Cycle duration = 0;
    std::function<void()> effect;  // the data movement, applied when the op completes
    std::shared_ptr<HostOpState> wait_for;
    std::uint32_t wait_stream = 0;  // Wait: the stream the awaited record was queued on
    std::shared_ptr<HostOpState> state = std::make_shared<HostOpState>();
    std::vector<std::uint64_t> device_buffers;
    std::vector<std::uint32_t> host_buffers;
};

struct StreamState {
    std::uint32_t id = 0;
    bool destroyed = false;
    std::string destroyed_at;
    std::deque<HostOp> queue;  // the head runs; an op leaves the queue when it completed
    bool worker = false;
    std::uint64_t last_op = 0;  // the last op queued (0: none yet)
};

struct EventState {
    EventFlags flags = EventFlags::Default;
    bool destroyed = false;
    std::shared_ptr<HostOpState> marker;  // the captured work (null: never recorded)
    std::uint64_t record_op = 0;          // the EventRecord op of the capture
    std::shared_ptr<StreamState> recorded_on;
};

struct HostAllocation {
    HostMemoryKind kind = HostMemoryKind::Pageable;
    std::vector<std::byte> bytes;
    bool freed = false;
    std::uint32_t pending = 0;
};

struct DeviceAllocation {
    std::uint64_t bytes = 0;
    bool freed = false;
    std::uint32_t pending = 0;
};

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
    return b == 0 ? 0 : (a + b - 1) / b;
}

}  // namespace runtime_detail

using namespace runtime_detail;

struct Runtime::Impl {
    Impl(Simulator& simulator, const RuntimeOptions& runtime_options)
        : sim(simulator),
          chip(SimulatorInternals::resources(simulator)),
          scheduler(SimulatorInternals::scheduler(simulator)),
          config(chip.config),
          options(runtime_options) {
        auto default_stream = std::make_shared<StreamState>();
        streams.emplace(0, std::move(default_stream));
        scheduler.on_kernel_finished([this](const KernelResult& r) { kernel_finished(r); });
    }
    ~Impl() { scheduler.on_kernel_finished({}); }

    Simulator& sim;
    ChipResources& chip;
    Scheduler& scheduler;
    const ChipConfig& config;
    RuntimeOptions options;
    Runtime* self = nullptr;

    std::map<std::uint32_t, std::shared_ptr<StreamState>> streams;
    std::uint32_t next_stream = 1;
    std::map<std::uint32_t, EventState> events;
    std::uint32_t next_event = 1;
    std::map<std::uint32_t, HostAllocation> host;
    std::uint32_t next_host = 1;
    std::map<std::uint64_t, DeviceAllocation> device;
    std::map<std::uint32_t, std::shared_ptr<HostOpState>> running_kernels;  // scheduler id -> op
    std::uint64_t active_ops = 0;
    std::uint64_t next_op = 1;

    sc_core::sc_event changed;  // an operation completed (delta notification)
    std::vector<HostWarning> warnings;
    bool host_returned = false;
    std::exception_ptr host_error;
    std::string host_wait;
    HostWait host_waiting;  // structured form of host_wait

    Cycle now() const { return sc_core::sc_time_stamp().value(); }

    [[noreturn]] static void fail(Status status, const std::string& message,
                                  const std::source_location& where) {
        throw RuntimeError(status, message, where);
    }

    void warn(std::string message, const std::source_location& where) {
        warnings.push_back({std::move(message), site_of(where)});
    }

    // ---- host thread time ---------------------------------------------------------------
    void check_abort() const {
        if (chip.abort) throw HostAborted{};
    }
    /// The host thread spends `cycles` (a call's cost). Also the host's run-control point.
    void advance(Cycle cycles) {
        if (SimulatorInternals::poll(sim)) throw HostAborted{};
        if (cycles > 0) sc_core::wait(sc_core::sc_time::from_value(cycles), chip.abort_event);
        check_abort();
    }
    /// Blocks the host thread until `done()`; `what` describes the wait for a deadlock.
    void block(const std::function<bool()>& done, std::string what, HostWait waiting) {
        host_wait = std::move(what);
        host_waiting = std::move(waiting);
        while (!done()) {
            check_abort();
            sc_core::wait(changed | chip.abort_event);
        }
        check_abort();
        host_wait.clear();
        host_waiting = {};
    }

    // ---- observers --------------------------------------------------------------------------
    template <class Fn>
    void publish(Fn&& fn) {
        for (TransactionObserver* o : chip.observers) fn(*o);
    }
    /// The host learned that the stream's work so far completed.
    void synchronized(const StreamState& stream) {
        if (stream.last_op == 0) return;
        publish([&](TransactionObserver& o) { o.on_host_synchronized(stream.last_op); });
    }
    void synchronized_op(std::uint64_t op) {
        if (op == 0) return;
        publish([&](TransactionObserver& o) { o.on_host_synchronized(op); });
    }
    /// An op that completes the moment it is queued (on an idle stream): all three hooks.
    std::uint64_t instant_op(StreamState& stream, HostOpInfo info) {
        info.op = next_op++;
        info.stream = stream.id;
        stream.last_op = info.op;
        publish([&](TransactionObserver& o) {
            o.on_host_op_queued(info);
            o.on_host_op_started(info.op, now());
            o.on_host_op_completed(info.op, now());
        });
        return info.op;
    }

    // ---- handles --------------------------------------------------------------------------
    StreamState& stream_of(Stream stream, const std::source_location& where) {
        const auto it = streams.find(stream.id);
        if (it == streams.end()) {
            fail(Status::InvalidHandle, "stream " + std::to_string(stream.id) + " does not exist",
                 where);
        }
        if (it->second->destroyed) {
            fail(Status::InvalidHandle,
                 "stream " + std::to_string(stream.id) + " was destroyed (" +
                     it->second->destroyed_at + ")",
                 where);
        }
        return *it->second;
    }
    EventState& event_of(Event event, const std::source_location& where) {
        const auto it = events.find(event.id);
        if (it == events.end()) {
            fail(Status::InvalidHandle, "event " + std::to_string(event.id) + " does not exist",
                 where);
        }
        if (it->second.destroyed) {
            fail(Status::InvalidHandle, "event " + std::to_string(event.id) + " was destroyed",
                 where);
        }
        return it->second;
    }
    DeviceAllocation& device_of(DeviceBuffer buffer, std::uint64_t bytes,
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
    HostAllocation& host_of(HostBuffer buffer, std::uint64_t bytes,
                            const std::source_location& where) {
        const auto it = host.find(buffer.id);
        if (it == host.end() || it->second.freed) {
            fail(Status::InvalidHandle,
                 "host buffer " + std::to_string(buffer.id) + " does not exist or was freed",
                 where);
        }
        if (bytes > it->second.bytes.size()) {
            fail(Status::InvalidValue,
                 std::to_string(bytes) + " bytes overrun the host allocation of " +
                     std::to_string(it->second.bytes.size()) + " bytes",
                 where);
        }
        return it->second;
    }
    void warn_if_stream_destroyed(const EventState& event, const char* call,
                                  const std::source_location& where) {
        if (event.recorded_on && event.recorded_on->destroyed) {
            warn(std::string(call) + " on an event last recorded on stream " +
                     std::to_string(event.recorded_on->id) + ", which was destroyed (" +
                     event.recorded_on->destroyed_at +
                     "): undefined in the vendor documents, fails sporadically on hardware",
                 where);
        }
    }

    // ---- GM data --------------------------------------------------------------------------
    /// Before the runtime reads or writes GM at the current time: the kernels' data effects
    /// before now are final (every core is at or past SystemC time), so apply them.
    void settle_gm() { chip.effects.apply_before(now()); }
    void gm_read(std::uint64_t address, void* data, std::uint64_t bytes) {
        settle_gm();
        chip.gm.read(address, data, bytes);
    }
    void gm_write(std::uint64_t address, const void* data, std::uint64_t bytes) {
        settle_gm();
        chip.gm.write(address, data, bytes);
    }

    // ---- costs ----------------------------------------------------------------------------
    // At least one cycle: a copy that follows a kernel then moves data after the kernel's
    // last data effect (at its end cycle), which settle_gm() applies.
    Cycle link_cycles(std::uint64_t bytes) const {
        return std::max<Cycle>(
            1, config.host_link_latency + ceil_div(bytes, config.host_link_bytes_per_cycle));
    }
    Cycle device_copy_cycles(std::uint64_t bytes) const {
        return std::max<Cycle>(1, ceil_div(2 * bytes, config.gm_bytes_per_cycle));  // read+write
    }
    Cycle device_fill_cycles(std::uint64_t bytes) const {
        return std::max<Cycle>(1, ceil_div(bytes, config.gm_bytes_per_cycle));
    }

    // ---- stream operations ----------------------------------------------------------------
    std::shared_ptr<HostOpState> enqueue(StreamState& stream, HostOp op) {
        std::shared_ptr<HostOpState> state = op.state;
        op.info.op = next_op++;
        op.info.stream = stream.id;
        stream.last_op = op.info.op;
        publish([&](TransactionObserver& o) { o.on_host_op_queued(op.info); });
        for (std::uint64_t address : op.device_buffers) ++device[address].pending;
        for (std::uint32_t id : op.host_buffers) ++host[id].pending;
        ++active_ops;
        stream.queue.push_back(std::move(op));
        if (!stream.worker) {
            stream.worker = true;
            std::shared_ptr<StreamState> shared = streams.at(stream.id);
            sc_core::sc_spawn_options spawn;
            spawn.set_stack_size(128 * 1024);
            sc_core::sc_spawn([this, shared] { work(shared); }, nullptr, &spawn);
        }
        return state;
    }

    void work(const std::shared_ptr<StreamState>& stream) {
        try {
            while (!stream->queue.empty()) {
                HostOp& op = stream->queue.front();
                run(*stream, op);
                complete(op);
                stream->queue.pop_front();
            }
        } catch (const HostAborted&) {
            // the run ends; the queue is dropped with the runtime
        }
        stream->worker = false;
    }

    void run(const StreamState& stream, HostOp& op) {
        check_abort();
        publish([&](TransactionObserver& o) { o.on_host_op_started(op.info.op, now()); });
        switch (op.kind) {
            case HostOp::Kind::Kernel: {
                KernelLaunch kernel = std::move(*op.kernel);
                kernel.stream = stream.id;
                kernel.host_op = op.info.op;
                kernel.launch_site = op.info.where;
                const std::uint32_t id = scheduler.launch(std::move(kernel), now());
                running_kernels[id] = op.state;
                op.state->kernel_id = id;
                scheduler.dispatch();
                while (!op.state->kernel_done) {
                    check_abort();
                    sc_core::wait(changed | chip.abort_event);
                }
                // A block reports its end in its core's local time, which may run ahead.
                if (op.state->kernel_end > now()) {
                    sc_core::wait(sc_core::sc_time::from_value(op.state->kernel_end - now()),
                                  chip.abort_event);
                }
                break;
            }
            case HostOp::Kind::Transfer:
                if (op.duration > 0) {
                    sc_core::wait(sc_core::sc_time::from_value(op.duration), chip.abort_event);
                }
                check_abort();
                if (op.effect) op.effect();
                break;
            case HostOp::Kind::Record:
                break;
            case HostOp::Kind::Wait:
                while (!op.wait_for->done) {
                    check_abort();
                    sc_core::wait(changed | chip.abort_event);
                }
                break;
        }
        check_abort();
    }

    void complete(const HostOp& op) {
        op.state->done = true;
        op.state->end = now();
        --active_ops;
        publish([&](TransactionObserver& o) { o.on_host_op_completed(op.info.op, now()); });
        for (std::uint64_t address : op.device_buffers) {
            DeviceAllocation& d = device[address];
            if (--d.pending == 0 && d.freed) {
                chip.gm.free(address);
                device.erase(address);
            }
        }
        for (std::uint32_t id : op.host_buffers) {
            HostAllocation& h = host[id];
            if (--h.pending == 0 && h.freed) host.erase(id);
        }
        changed.notify(sc_core::SC_ZERO_TIME);
    }

    void kernel_finished(const KernelResult& result) {
        const auto it = running_kernels.find(result.id);
        if (it == running_kernels.end()) return;
        it->second->kernel_done = true;
        it->second->kernel_end = result.end;
        running_kernels.erase(it);
        changed.notify(sc_core::SC_ZERO_TIME);
    }

    bool stream_idle(const StreamState& stream) const { return stream.queue.empty(); }

    void wait_stream(StreamState& stream, const char* call, const std::source_location& where) {
        std::shared_ptr<StreamState> shared = streams.at(stream.id);
        block([shared] { return shared->queue.empty(); },
              call_text(call, where) + ": waits for the work queued on stream " +
                  std::to_string(stream.id),
              {HostWait::Kind::Stream, stream.id, stream.last_op, 0, call, site_of(where)});
        synchronized(stream);
    }

    /// What observers learn of a copy or memset; `call` gains "_async" on a stream.
    static HostOpInfo data_op(HostOpKind kind, const StreamState* stream, const char* call,
                              std::vector<GmRange> reads, std::vector<GmRange> writes) {
        HostOpInfo info;
        info.kind = kind;
        info.call = std::string(call) + (stream != nullptr ? "_async" : "");
        info.reads = std::move(reads);
        info.writes = std::move(writes);
        return info;
    }

    /// Runs a transfer: on the host thread (stream null) or queued on a stream. `info` names
    /// the call and the GM bytes it reads and writes.
    void transfer(StreamState* stream, Cycle duration, std::function<void()> effect,
                  std::vector<std::uint64_t> device_buffers,
                  std::vector<std::uint32_t> host_buffers, bool host_waits, HostOpInfo info,
                  const std::source_location& where) {
        advance(config.runtime_call_cycles);
        info.where = site_of(where);
        if (stream == nullptr) {
            advance(duration);
            effect();
            for (const GmRange& r : info.reads) {
                publish([&](TransactionObserver& o) {
                    o.on_host_access({r, false, info.call, info.where});
                });
            }
            for (const GmRange& r : info.writes) {
                publish([&](TransactionObserver& o) {
                    o.on_host_access({r, true, info.call, info.where});
                });
            }
            return;
        }
        HostOp op;
        op.kind = HostOp::Kind::Transfer;
        op.info = std::move(info);
        op.duration = duration;
        op.effect = std::move(effect);
        op.device_buffers = std::move(device_buffers);
        op.host_buffers = std::move(host_buffers);
        std::shared_ptr<HostOpState> state = enqueue(*stream, std::move(op));
        if (host_waits) {
            const std::uint64_t id = stream->last_op;
            block([state] { return state->done; },
                  call_text("memcpy_async", where) +
                      ": waits for a copy staged through pageable host memory",
                  {HostWait::Kind::Copy, stream->id, id, 0, "memcpy_async", site_of(where)});
            synchronized_op(id);
        }
    }

    void copy_h2d(DeviceBuffer dst, HostBuffer src, std::uint64_t bytes, StreamState* stream,
                  const std::source_location& where) {
        device_of(dst, bytes, where);
        HostAllocation& h = host_of(src, bytes, where);
        const bool pageable = h.kind == HostMemoryKind::Pageable;
        transfer(
            stream, link_cycles(bytes),
            [this, dst, id = src.id, bytes] {
                gm_write(dst.address, host[id].bytes.data(), bytes);
            },
            {dst.address}, {src.id}, pageable,
            data_op(HostOpKind::Copy, stream, "memcpy", {}, {{dst.address, bytes}}), where);
    }
    void copy_d2h(HostBuffer dst, DeviceBuffer src, std::uint64_t bytes, StreamState* stream,
                  const std::source_location& where) {
        device_of(src, bytes, where);
        HostAllocation& h = host_of(dst, bytes, where);
        const bool pageable = h.kind == HostMemoryKind::Pageable;
        transfer(
            stream, link_cycles(bytes),
            [this, src, id = dst.id, bytes] { gm_read(src.address, host[id].bytes.data(), bytes); },
            {src.address}, {dst.id}, pageable,
            data_op(HostOpKind::Copy, stream, "memcpy", {{src.address, bytes}}, {}), where);
    }
    void copy_d2d(DeviceBuffer dst, DeviceBuffer src, std::uint64_t bytes, StreamState* stream,
                  const std::source_location& where) {
        device_of(dst, bytes, where);
        device_of(src, bytes, where);
        transfer(
            stream, device_copy_cycles(bytes),
            [this, dst, src, bytes] {
                std::vector<std::byte> data(bytes);
                gm_read(src.address, data.data(), bytes);
                gm_write(dst.address, data.data(), bytes);
            },
            {dst.address, src.address}, {}, false,
            data_op(HostOpKind::Copy, stream, "memcpy", {{src.address, bytes}},
                    {{dst.address, bytes}}),
            where);
    }
    void fill_device(DeviceBuffer dst, std::uint8_t value, std::uint64_t bytes, StreamState* stream,
                     const std::source_location& where) {
        device_of(dst, bytes, where);
        transfer(
            stream, device_fill_cycles(bytes),
            [this, dst, value, bytes] {
                const std::vector<std::byte> data(bytes, static_cast<std::byte>(value));
                gm_write(dst.address, data.data(), bytes);
            },
            {dst.address}, {}, false,
            data_op(HostOpKind::Memset, stream, "memset", {}, {{dst.address, bytes}}), where);
    }
    void fill_host(HostBuffer dst, std::uint8_t value, std::uint64_t bytes, StreamState* stream,
                   const char* call, const std::source_location& where) {
        HostAllocation& h = host_of(dst, bytes, where);
        if (h.kind == HostMemoryKind::Pageable) {
            fail(Status::InvalidValue,
                 std::string(call) +
                     " on pageable host memory: the device cannot write it (use device memory, "
                     "or a kernel that writes the value)",
                 where);
        }
        if (!options.unified_memory) {
            fail(Status::InvalidValue,
                 std::string(call) + " on " + to_string(h.kind) +
                     " host memory needs RuntimeOptions::unified_memory",
                 where);
        }
        transfer(
            stream, link_cycles(bytes),
            [this, id = dst.id, value, bytes] {
                std::fill_n(host[id].bytes.begin(), bytes, static_cast<std::byte>(value));
            },
            {}, {dst.id}, false, data_op(HostOpKind::Memset, stream, "memset", {}, {}), where);
    }
};

}  // namespace npusim
