// The host runtime's machinery behind sim/runtime.h: the host program's thread, one worker
// thread per stream with queued work, operations with their completion state, events,
// host and device allocations, stream capture and graphs. Included only by sim/runtime.cpp
// and sim/runtime_capture.cpp (it needs SystemC, so it is not a public header); split out so
// that the API and the machinery read separately.
#pragma once

#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <algorithm>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <span>
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

/// Set by Runtime::set_call_site: the call site every runtime call reports instead of its
/// source location (one simulation kernel per process, so one runtime runs at a time).
inline std::string& call_site_override() {
    static std::string site;
    return site;
}

inline std::string site_of(const std::source_location& where) {
    if (!call_site_override().empty()) return call_site_override();
    std::string file = where.file_name();
    const std::size_t slash = file.find_last_of('/');
    if (slash != std::string::npos) file = file.substr(slash + 1);
    return file + ":" + std::to_string(where.line());
}

inline std::string call_text(const char* call, const std::source_location& where) {
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

/// What a transfer's bytes travel through, which decides its duration and what it shares.
enum class TransferPath : std::uint8_t {
    HostToDevice,  // the host link (PCIe-class, full duplex): H2D copies share one direction
    DeviceToHost,  // ... D2H copies and host memsets (the device writes host memory) the other
    Gm,            // device to device, device memset: shared with the cores' GM traffic
};

struct HostOp {
    enum class Kind : std::uint8_t { Kernel, Transfer, Record, Wait };
    Kind kind = Kind::Record;
    HostOpInfo info;  // what observers learn (its id is assigned when queued)
    std::unique_ptr<KernelLaunch> kernel;
    TransferPath path = TransferPath::HostToDevice;
    std::uint64_t path_bytes = 0;  // bytes the path moves (a device copy: read + write)
    std::function<void()> effect;  // the data movement, applied when the op completes
    std::shared_ptr<HostOpState> wait_for;
    std::uint32_t wait_stream = 0;  // Wait: the stream the awaited record was queued on
    std::shared_ptr<HostOpState> state = std::make_shared<HostOpState>();
    std::vector<std::uint64_t> device_buffers;
    std::vector<std::uint32_t> host_buffers;
};

/// One captured operation of a graph: an op template, replayed as a new op at each launch.
struct CapturedOp {
    HostOp::Kind kind = HostOp::Kind::Record;
    HostOpInfo info;  // call and where are the capture's (the replay renames them)
    std::shared_ptr<const KernelLaunch> kernel;
    TransferPath path = TransferPath::HostToDevice;
    std::uint64_t path_bytes = 0;
    std::function<void()> effect;
    std::vector<std::uint64_t> device_buffers;
    std::vector<std::uint32_t> host_buffers;
    std::size_t waits_for = 0;  // Wait: index of the captured Record it waits for
    std::size_t lane = 0;       // the captured stream it was queued on (0: the origin)
};

/// A capture in progress (begin_capture .. end_capture). Streams that waited on an event
/// recorded in it joined it (cross-stream capture): each captured stream is a lane.
struct CaptureState {
    std::uint32_t stream = 0;          // the origin stream (begin_capture)
    std::vector<std::uint32_t> lanes;  // captured streams, the origin first
    CaptureMode mode = CaptureMode::Global;
    std::string begun_at;
    bool active = true;
    std::string invalidated;  // empty while valid; else what invalidated it, and where
    std::vector<CapturedOp> ops;
};

struct GraphState {
    std::string captured_at;  // "begin_capture at f:l .. end_capture at f:l"
    bool destroyed = false;
    std::vector<CapturedOp> ops;
    std::size_t lanes = 1;  // lane 0 replays on the launch stream, others on internal ones
};

struct StreamState {
    std::uint32_t id = 0;
    std::shared_ptr<CaptureState> capture;  // set while the stream captures
    bool destroyed = false;
    bool graph_internal = false;  // a lane of a graph launch (no handle; counts as destroyed)
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
    // Last recorded in a stream capture: that capture, and the captured Record's index. The
    // real snapshot above is left as it was; it counts again once the capture ended.
    std::shared_ptr<CaptureState> captured_in;
    std::size_t captured_index = 0;
    bool in_active_capture() const { return captured_in && captured_in->active; }
};

/// Host memory. With unified memory on, pinned and managed allocations live in a contiguous
/// GM buffer (device-visible, one storage for host and kernels); otherwise in `owned`.
struct HostAllocation {
    HostMemoryKind kind = HostMemoryKind::Pageable;
    std::vector<std::byte> owned;
    std::uint64_t gm_address = 0;  // 0: not device-visible
    std::span<std::byte> bytes;    // the storage, either one
    bool freed = false;
    std::uint32_t pending = 0;
};

struct DeviceAllocation {
    std::uint64_t bytes = 0;
    bool freed = false;
    std::uint32_t pending = 0;
};

inline std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
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
          options(runtime_options),
          host_to_device(config.host_link_bytes_per_cycle, config.gm_window_cycles),
          device_to_host(config.host_link_bytes_per_cycle, config.gm_window_cycles) {
        auto default_stream = std::make_shared<StreamState>();
        streams.emplace(0, std::move(default_stream));
        scheduler.on_kernel_finished([this](const KernelResult& r) { kernel_finished(r); });
    }
    ~Impl() {
        call_site_override().clear();
        scheduler.on_kernel_finished({});
        // Device-visible host memory lives in GM: it goes with the runtime.
        for (const auto& [id, h] : host) {
            if (h.gm_address != 0) chip.gm.free(h.gm_address);
        }
    }

    Simulator& sim;
    ChipResources& chip;
    Scheduler& scheduler;
    const ChipConfig& config;
    RuntimeOptions options;
    Runtime* self = nullptr;
    // The host link, one accounting per direction: transfers in one direction share it.
    GmBandwidth host_to_device;
    GmBandwidth device_to_host;

    std::map<std::uint32_t, std::shared_ptr<StreamState>> streams;
    std::uint32_t next_stream = 1;
    std::map<std::uint32_t, EventState> events;
    std::uint32_t next_event = 1;
    std::map<std::uint32_t, HostAllocation> host;
    std::uint32_t next_host = 1;
    std::map<std::uint64_t, DeviceAllocation> device;
    std::map<std::uint32_t, GraphState> graphs;
    std::uint32_t next_graph = 1;
    std::map<std::uint32_t, std::shared_ptr<HostOpState>> running_kernels;  // scheduler id -> op
    std::uint64_t active_ops = 0;
    std::uint64_t next_op = 1;

    sc_core::sc_event changed;  // an operation completed (delta notification)
    std::vector<HostWarning> warnings;
    bool host_returned = false;
    std::exception_ptr host_error;
    std::string host_wait;
    HostWait host_waiting;  // structured form of host_wait

    // Host polling with no device progress possible (see note_poll).
    std::uint64_t idle_polls = 0;
    Cycle idle_polls_since = 0;

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
    /// The host spends `cycles` on a call. Also the host's run-control point. Any call but a
    /// query ends a polling streak (it may change what the device can do).
    void advance(Cycle cycles, bool query = false) {
        if (!query) idle_polls = 0;
        if (SimulatorInternals::poll(sim)) throw HostAborted{};
        if (cycles > 0) sc_core::wait(sc_core::sc_time::from_value(cycles), chip.abort_event);
        check_abort();
    }
    /// A query's cost: call_cycles, at least one cycle, so that a polling loop lets
    /// simulated time (and with it the device) move even when call_cycles is 0.
    void advance_query() { advance(std::max<Cycle>(1, config.runtime_call_cycles), true); }
    /// Blocks the host thread until `done()`; `what` describes the wait for a deadlock.
    void block(const std::function<bool()>& done, std::string what, HostWait waiting) {
        idle_polls = 0;
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

    /// A query (query_stream, query_event) that found the work not complete. When nothing
    /// but the host thread can ever run again (SystemC has no other pending activity: every
    /// busy core is blocked, no transfer moves, no stream can start an op) and the host has
    /// done nothing but such queries for SimOptions::deadlock_idle_cycles, the host polls a
    /// stuck device forever: it stops here, so that the run ends as a Deadlock naming the
    /// poll, as a blocking synchronize would.
    void note_poll(HostWait waiting, const std::source_location& where) {
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
    /// Host memory by buffer id at the time the data moves (device-visible memory through
    /// GM, so the kernels' writes before now are in).
    void host_read(std::uint32_t id, void* data, std::uint64_t bytes) {
        const HostAllocation& h = host.at(id);
        if (h.gm_address != 0) {
            gm_read(h.gm_address, data, bytes);
        } else {
            std::memcpy(data, h.bytes.data(), bytes);
        }
    }
    void host_write(std::uint32_t id, const void* data, std::uint64_t bytes) {
        const HostAllocation& h = host.at(id);
        if (h.gm_address != 0) {
            gm_write(h.gm_address, data, bytes);
        } else {
            std::memcpy(h.bytes.data(), data, bytes);
        }
    }
    /// The GM bytes of host memory, listed in HostOpInfo (none unless device-visible).
    static std::vector<GmRange> host_ranges(const HostAllocation& h, std::uint64_t bytes) {
        if (h.gm_address == 0) return {};
        return {{h.gm_address, bytes}};
    }

    // ---- moving bytes -----------------------------------------------------------------------
    /// Moves `bytes` through `path` on the calling SystemC thread (the host thread for a
    /// synchronous call, a stream worker otherwise), at least one cycle; alone a transfer
    /// takes latency + ceil(bytes / rate).
    /// - GM: one reservation in the chip's GM accounting at the current time, as a core's
    ///   DMA instruction makes at issue: it gets what the cores' earlier reservations left
    ///   and delays their later ones (first come, first served per window).
    /// - Host link, per direction: only runtime transfers use it, all reserving at the
    ///   current time, so the bytes go in window-sized chunks and concurrent transfers in
    ///   the same direction share the rate as they go (two at once take about twice as long
    ///   each); the two directions do not slow each other (PCIe is full duplex).
    static constexpr std::uint64_t kLinkChunkCycles = 256;
    void move_bytes(TransferPath path, std::uint64_t bytes) {
        const Cycle start = now();
        if (path == TransferPath::Gm) {
            wait_cycles(chip.bandwidth.transfer(now(), bytes, config.gm_bytes_per_cycle) - now());
        } else {
            GmBandwidth& link =
                path == TransferPath::HostToDevice ? host_to_device : device_to_host;
            const std::uint64_t rate = config.host_link_bytes_per_cycle;
            wait_cycles(config.host_link_latency);
            // Chunks of at least kLinkChunkCycles: the sharing stays even for transfers of a
            // few chunks, and a large copy costs a SystemC wait per chunk, not per window.
            const std::uint64_t chunk =
                rate * std::max<std::uint64_t>(kLinkChunkCycles, config.gm_window_cycles);
            while (bytes > 0) {
                const std::uint64_t take = std::min(bytes, chunk);
                link.forget_before(now());
                wait_cycles(link.transfer(now(), take, rate) - now());
                bytes -= take;
            }
        }
        if (now() == start) wait_cycles(1);
    }
    void wait_cycles(Cycle cycles) {
        if (cycles > 0) sc_core::wait(sc_core::sc_time::from_value(cycles), chip.abort_event);
        check_abort();
    }

    // ---- stream capture -------------------------------------------------------------------
    std::string capture_text(const CaptureState& capture) const {
        return "the capture of stream " + std::to_string(capture.stream) + " (" + capture.begun_at +
               ")";
    }
    /// The first reason wins: end_capture reports it.
    static void invalidate(CaptureState& capture, const std::string& why,
                           const std::source_location& where) {
        if (capture.invalidated.empty()) {
            capture.invalidated = "invalidated by " + why + " at " + site_of(where);
        }
    }
    /// Every active capture whose mode forbids `call` (ThreadLocal and Global: the host
    /// program is one thread) or all of them (`every_mode`), and the first such stream.
    std::vector<CaptureState*> captures_refusing(bool every_mode) {
        std::vector<CaptureState*> refusing;
        for (const auto& [id, s] : streams) {
            if (s->capture && (every_mode || s->capture->mode != CaptureMode::Relaxed)) {
                refusing.push_back(s->capture.get());
            }
        }
        return refusing;
    }
    /// A call the active captures do not permit: invalidates them and fails NotPermitted.
    void refuse_in_capture(bool every_mode, const char* call, const std::string& rule,
                           const std::source_location& where) {
        const std::vector<CaptureState*> refusing = captures_refusing(every_mode);
        if (refusing.empty()) return;
        for (CaptureState* c : refusing) invalidate(*c, call, where);
        fail(Status::NotPermitted,
             std::string(call) + " is not permitted while " + capture_text(*refusing.front()) +
                 " is active (" + rule + "); the capture is invalidated",
             where);
    }
    /// A capturing stream refuses queries and synchronization (every mode).
    void refuse_capturing_stream(StreamState& stream, const char* call,
                                 const std::source_location& where) {
        if (!stream.capture) return;
        invalidate(*stream.capture, call, where);
        fail(Status::NotPermitted,
             "operation not permitted on a capturing stream: " + std::string(call) + " on stream " +
                 std::to_string(stream.id) + " during " + capture_text(*stream.capture) +
                 "; the capture is invalidated",
             where);
    }
    void refuse_captured_event(EventState& event, Event handle, const char* call,
                               const std::source_location& where) {
        if (!event.in_active_capture()) return;
        invalidate(*event.captured_in, call, where);
        fail(Status::NotPermitted,
             "operation not permitted on an event last recorded in a capturing stream: " +
                 std::string(call) + " on event " + std::to_string(handle.id) + " during " +
                 capture_text(*event.captured_in) + "; the capture is invalidated",
             where);
    }
    /// Work queued on `stream`: refused on the default stream while any capture is active
    /// (ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT; CUDA's legacy stream would join the capture),
    /// and on a stream whose capture was invalidated.
    void check_queue_allowed(StreamState& stream, const char* call,
                             const std::source_location& where) {
        if (stream.id == 0) {
            refuse_in_capture(true, call,
                              "the default stream may not be used during a capture, "
                              "ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT",
                              where);
        }
        if (stream.capture && !stream.capture->invalidated.empty()) {
            fail(Status::NotPermitted,
                 std::string(call) + " on stream " + std::to_string(stream.id) + ": " +
                     capture_text(*stream.capture) + " was " + stream.capture->invalidated +
                     "; end it first",
                 where);
        }
    }
    /// Records `op` into the stream's capture instead of running it; returns its index.
    std::size_t capture_op(StreamState& stream, HostOp op) {
        CapturedOp c;
        c.kind = op.kind;
        c.info = std::move(op.info);
        if (op.kernel) c.kernel = std::make_shared<const KernelLaunch>(std::move(*op.kernel));
        c.path = op.path;
        c.path_bytes = op.path_bytes;
        c.effect = std::move(op.effect);
        c.device_buffers = std::move(op.device_buffers);
        c.host_buffers = std::move(op.host_buffers);
        const std::vector<std::uint32_t>& lanes = stream.capture->lanes;
        c.lane = static_cast<std::size_t>(std::find(lanes.begin(), lanes.end(), stream.id) -
                                          lanes.begin());
        stream.capture->ops.push_back(std::move(c));
        return stream.capture->ops.size() - 1;
    }

    /// stream_wait_event on a stream that is not capturing, for an event last recorded in
    /// an active capture: the stream joins that capture as a new lane (cross-stream capture).
    void join_capture(StreamState& stream, const EventState& event,
                      const std::source_location& where) {
        if (!event.captured_in->invalidated.empty()) {
            fail(Status::NotPermitted,
                 "stream_wait_event would join " + capture_text(*event.captured_in) +
                     ", which was " + event.captured_in->invalidated,
                 where);
        }
        stream.capture = event.captured_in;
        stream.capture->lanes.push_back(stream.id);
    }
    /// Lanes that did not rejoin the origin: a lane rejoins when its last op is a record
    /// that a rejoined lane (or the origin) waits for (ACL: every sub-stream must rejoin the
    /// origin, directly or through others, and issue no task after).
    static std::vector<std::uint32_t> unjoined_lanes(const CaptureState& capture) {
        const std::size_t n = capture.lanes.size();
        std::vector<std::ptrdiff_t> last(n, -1);
        for (std::size_t i = 0; i < capture.ops.size(); ++i) {
            last[capture.ops[i].lane] = static_cast<std::ptrdiff_t>(i);
        }
        std::vector<bool> joined(n, false);
        joined[0] = true;
        for (bool changed = true; changed;) {
            changed = false;
            for (const CapturedOp& op : capture.ops) {
                if (op.kind != HostOp::Kind::Wait || !joined[op.lane]) continue;
                const std::size_t lane = capture.ops[op.waits_for].lane;
                if (!joined[lane] && last[lane] == static_cast<std::ptrdiff_t>(op.waits_for)) {
                    joined[lane] = true;
                    changed = true;
                }
            }
        }
        std::vector<std::uint32_t> unjoined;
        for (std::size_t lane = 1; lane < n; ++lane) {
            if (!joined[lane]) unjoined.push_back(capture.lanes[lane]);
        }
        return unjoined;
    }
    /// The capture ends: every captured stream stops capturing.
    void end_capture_of(CaptureState& capture) {
        capture.active = false;  // its events count by their real snapshots again
        for (std::uint32_t id : capture.lanes) streams.at(id)->capture.reset();
    }

    /// stream_wait_event on a capturing stream: the event must have been recorded in this
    /// same capture (ACL_ERROR_RT_CAPTURE_DEPENDENCY otherwise: a graph cannot wait for work
    /// outside it). Recorded as a wait on the captured record.
    void capture_wait(StreamState& stream, const EventState& event, Event handle,
                      const std::source_location& where) {
        CaptureState& capture = *stream.capture;
        if (event.captured_in.get() != &capture) {
            invalidate(capture, "stream_wait_event", where);
            fail(Status::NotPermitted,
                 "stream_wait_event during " + capture_text(capture) + " on event " +
                     std::to_string(handle.id) +
                     ", which has no record in this capture (a graph cannot wait for work "
                     "outside it, ACL_ERROR_RT_CAPTURE_DEPENDENCY); the capture is invalidated",
                 where);
        }
        advance(config.runtime_call_cycles);
        HostOp op;
        op.kind = HostOp::Kind::Wait;
        op.info.kind = HostOpKind::EventWait;
        op.info.call = "stream_wait_event";
        op.info.where = site_of(where);
        op.info.event = handle.id;
        const std::size_t index = capture_op(stream, std::move(op));
        capture.ops[index].waits_for = event.captured_index;
    }

    /// Freeing memory a live graph uses: its later launches fail (ACL: resources of captured
    /// tasks must stay valid until the model is destroyed).
    void warn_if_graph_uses(std::uint64_t address, std::uint32_t host_id, const char* call,
                            const std::source_location& where) {
        for (const auto& [id, graph] : graphs) {
            if (graph.destroyed) continue;
            for (const CapturedOp& op : graph.ops) {
                const bool uses =
                    (address != 0 &&
                     std::count(op.device_buffers.begin(), op.device_buffers.end(), address) > 0) ||
                    (host_id != 0 &&
                     std::count(op.host_buffers.begin(), op.host_buffers.end(), host_id) > 0);
                if (!uses) continue;
                warn(std::string(call) + " of memory that graph " + std::to_string(id) + " (" +
                         graph.captured_at +
                         ") uses: launching the graph afterwards fails (destroy it first)",
                     where);
                return;
            }
        }
    }

    // ---- stream operations ----------------------------------------------------------------
    /// Queues `op` on the stream, or records it into the stream's capture (then the state
    /// returned is null).
    std::shared_ptr<HostOpState> submit(StreamState& stream, HostOp op,
                                        const std::source_location& where) {
        check_queue_allowed(stream, op.info.call.c_str(), where);
        if (stream.capture) {
            capture_op(stream, std::move(op));
            return nullptr;
        }
        queue_legacy_waits(stream, where);
        return enqueue(stream, std::move(op));
    }

    // ---- legacy default stream (RuntimeOptions::legacy_default_stream) ---------------------
    /// The streams whose pending work an op queued on `stream` must first wait for: every
    /// other stream for the default stream, the default stream for the others.
    std::vector<StreamState*> legacy_dependencies(const StreamState& stream) const {
        std::vector<StreamState*> dependencies;
        if (!options.legacy_default_stream) return dependencies;
        for (const auto& [id, other] : streams) {
            if (id == stream.id || other->queue.empty()) continue;
            if (stream.id == 0 || id == 0) dependencies.push_back(other.get());
        }
        return dependencies;
    }
    /// Queues on `stream` one implicit wait (an EventWait op, call "legacy_default_stream",
    /// event 0) for the last op of each stream it depends on.
    void queue_legacy_waits(StreamState& stream, const std::source_location& where) {
        for (StreamState* other : legacy_dependencies(stream)) {
            const HostOp& last = other->queue.back();
            HostOp wait;
            wait.kind = HostOp::Kind::Wait;
            wait.info.kind = HostOpKind::EventWait;
            wait.info.call = "legacy_default_stream";
            wait.info.where = site_of(where);
            wait.info.waits_for = last.info.op;
            wait.wait_for = last.state;
            wait.wait_stream = other->id;
            enqueue(stream, std::move(wait));
        }
    }
    /// A synchronous copy or memset with the legacy default stream: issued into it, so it
    /// first waits (on the host) for the work every stream has pending.
    void legacy_synchronous_wait(const char* call, const std::source_location& where) {
        if (!options.legacy_default_stream) return;
        std::vector<std::shared_ptr<HostOpState>> pending;
        for (const auto& [id, s] : streams) {
            if (!s->queue.empty()) pending.push_back(s->queue.back().state);
        }
        if (pending.empty()) return;
        block(
            [pending] {
                return std::all_of(pending.begin(), pending.end(),
                                   [](const auto& state) { return state->done; });
            },
            call_text(call, where) +
                ": waits for the work of every stream (legacy default stream semantics)",
            {HostWait::Kind::Device, 0, 0, 0, call, site_of(where)});
    }

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
                if (op.state->kernel_end > now()) wait_cycles(op.state->kernel_end - now());
                break;
            }
            case HostOp::Kind::Transfer:
                move_bytes(op.path, op.path_bytes);
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
            if (--h.pending == 0 && h.freed) release_host(id);
        }
        changed.notify(sc_core::SC_ZERO_TIME);
    }

    void release_host(std::uint32_t id) {
        const auto it = host.find(id);
        if (it->second.gm_address != 0) chip.gm.free(it->second.gm_address);
        host.erase(it);
    }

    void kernel_finished(const KernelResult& result) {
        const auto it = running_kernels.find(result.id);
        if (it == running_kernels.end()) return;
        it->second->kernel_done = true;
        it->second->kernel_end = result.end;
        running_kernels.erase(it);
        changed.notify(sc_core::SC_ZERO_TIME);
    }

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

    /// Runs a transfer: on the host thread (stream null) or queued on a stream (or into its
    /// capture). `info` names the call and the GM bytes it reads and writes. `pageable`: the
    /// host side is pageable memory (the host waits for an async copy; unsafe in a capture).
    void transfer(StreamState* stream, TransferPath path, std::uint64_t path_bytes,
                  std::function<void()> effect, std::vector<std::uint64_t> device_buffers,
                  std::vector<std::uint32_t> host_buffers, bool pageable, HostOpInfo info,
                  const std::source_location& where) {
        if (stream == nullptr && options.legacy_default_stream) {
            refuse_in_capture(true, info.call.c_str(),
                              "with the legacy default stream it would implicitly synchronize "
                              "the capturing stream, cudaErrorStreamCaptureImplicit",
                              where);
        }
        if (stream == nullptr) {
            refuse_in_capture(false, info.call.c_str(),
                              "a synchronous copy or memset is unsafe in Global and ThreadLocal "
                              "capture modes",
                              where);
        } else if (pageable) {
            if (stream->capture) {
                invalidate(*stream->capture, info.call, where);
                fail(Status::NotPermitted,
                     info.call + " with pageable host memory into " +
                         capture_text(*stream->capture) +
                         ": captured copies need pinned host memory; the capture is invalidated",
                     where);
            }
            refuse_in_capture(false, info.call.c_str(),
                              "an async copy with pageable host memory is unsafe in Global "
                              "and ThreadLocal capture modes",
                              where);
        }
        advance(config.runtime_call_cycles);
        info.where = site_of(where);
        if (stream == nullptr) {
            legacy_synchronous_wait(info.call.c_str(), where);
            move_bytes(path, path_bytes);
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
        op.path = path;
        op.path_bytes = path_bytes;
        op.effect = std::move(effect);
        op.device_buffers = std::move(device_buffers);
        op.host_buffers = std::move(host_buffers);
        std::shared_ptr<HostOpState> state = submit(*stream, std::move(op), where);
        if (pageable && state) {
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
            stream, TransferPath::HostToDevice, bytes,
            [this, dst, id = src.id, bytes] {
                std::vector<std::byte> data(bytes);
                host_read(id, data.data(), bytes);
                gm_write(dst.address, data.data(), bytes);
            },
            {dst.address}, {src.id}, pageable,
            data_op(HostOpKind::Copy, stream, "memcpy", host_ranges(h, bytes),
                    {{dst.address, bytes}}),
            where);
    }
    void copy_d2h(HostBuffer dst, DeviceBuffer src, std::uint64_t bytes, StreamState* stream,
                  const std::source_location& where) {
        device_of(src, bytes, where);
        HostAllocation& h = host_of(dst, bytes, where);
        const bool pageable = h.kind == HostMemoryKind::Pageable;
        transfer(
            stream, TransferPath::DeviceToHost, bytes,
            [this, src, id = dst.id, bytes] {
                std::vector<std::byte> data(bytes);
                gm_read(src.address, data.data(), bytes);
                host_write(id, data.data(), bytes);
            },
            {src.address}, {dst.id}, pageable,
            data_op(HostOpKind::Copy, stream, "memcpy", {{src.address, bytes}},
                    host_ranges(h, bytes)),
            where);
    }
    void copy_d2d(DeviceBuffer dst, DeviceBuffer src, std::uint64_t bytes, StreamState* stream,
                  const std::source_location& where) {
        device_of(dst, bytes, where);
        device_of(src, bytes, where);
        transfer(
            stream, TransferPath::Gm, 2 * bytes,  // read and write
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
            stream, TransferPath::Gm, bytes,
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
            stream, TransferPath::DeviceToHost, bytes,
            [this, id = dst.id, value, bytes] {
                const std::vector<std::byte> data(bytes, static_cast<std::byte>(value));
                host_write(id, data.data(), bytes);
            },
            {}, {dst.id}, false,
            data_op(HostOpKind::Memset, stream, "memset", {}, host_ranges(h, bytes)), where);
    }
};

}  // namespace npusim
