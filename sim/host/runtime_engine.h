// The host runtime's machinery behind sim/host/runtime.h: the host program's thread, one worker
// thread per stream with queued work, transfers, stream capture. Runtime::Impl owns the state
// (sim/host/runtime_state.h); its members are defined by area in sim/host/runtime_engine.cpp (host
// thread, observers, handles, GM data), sim/host/runtime_streams.cpp (queues and stream workers),
// sim/host/runtime_transfers.cpp (copies, memsets, the host link) and sim/host/runtime_capture.cpp
// (stream capture). Included only by the runtime's sources (it needs SystemC, so it is not a
// public header); split out so that the API and the machinery read separately.
#pragma once

#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <algorithm>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <source_location>
#include <string>
#include <vector>

#include <systemc>

#include "core/chip_resources.h"
#include "core/kernel_launch.h"
#include "sim/engine/chip.h"
#include "sim/engine/scheduler.h"
#include "sim/host/runtime.h"
#include "sim/host/runtime_state.h"

namespace npusim {

struct Runtime::Impl {
    Impl(Chip& chip_engine, const RuntimeOptions& runtime_options);
    ~Impl();

    Chip& engine;  // the chip the runtime works on (launches, run control)
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
                                  const std::source_location& where);

    void warn(std::string message, const std::source_location& where);

    // Defined in sim/host/runtime_engine.cpp: construction, host thread time, observers, handles
    // and GM data.

    // ---- host thread time ---------------------------------------------------------------
    void check_abort() const;
    /// The host spends `cycles` on a call. Also the host's run-control point. Any call but a
    /// query ends a polling streak (it may change what the device can do).
    void advance(Cycle cycles, bool query = false);
    /// A query's cost: call_cycles, at least one cycle, so that a polling loop lets
    /// simulated time (and with it the device) move even when call_cycles is 0.
    void advance_query() { advance(std::max<Cycle>(1, config.runtime_call_cycles), true); }
    /// Blocks the host thread until `done()`; `what` describes the wait for a deadlock.
    void block(const std::function<bool()>& done, std::string what, HostWait waiting);

    /// A query (query_stream, query_event) that found the work not complete. When nothing
    /// but the host thread can ever run again (SystemC has no other pending activity: every
    /// busy core is blocked, no transfer moves, no stream can start an op) and the host has
    /// done nothing but such queries for SimOptions::deadlock_idle_cycles, the host polls a
    /// stuck device forever: it stops here, so that the run ends as a Deadlock naming the
    /// poll, as a blocking synchronize would.
    void note_poll(HostWait waiting, const std::source_location& where);

    // ---- observers --------------------------------------------------------------------------
    template <class Fn>
    void publish(Fn&& fn) {
        for (TransactionObserver* o : chip.observers) fn(*o);
    }
    /// The host learned that the stream's work so far completed.
    void synchronized(const StreamState& stream);
    void synchronized_op(std::uint64_t op);
    /// An op that completes the moment it is queued (on an idle stream): all three hooks.
    std::uint64_t instant_op(StreamState& stream, HostOpInfo info);

    // ---- handles --------------------------------------------------------------------------
    StreamState& stream_of(Stream stream, const std::source_location& where);
    EventState& event_of(Event event, const std::source_location& where);
    DeviceAllocation& device_of(DeviceBuffer buffer, std::uint64_t bytes,
                                const std::source_location& where);
    HostAllocation& host_of(HostBuffer buffer, std::uint64_t bytes,
                            const std::source_location& where);
    void warn_if_stream_destroyed(const EventState& event, const char* call,
                                  const std::source_location& where);

    // ---- GM data --------------------------------------------------------------------------
    /// Before the runtime reads or writes GM at the current time: the kernels' data effects
    /// before now are final (every core is at or past SystemC time), so apply them.
    void settle_gm() { chip.effects.apply_before(now()); }
    void gm_read(std::uint64_t address, void* data, std::uint64_t bytes);
    void gm_write(std::uint64_t address, const void* data, std::uint64_t bytes);
    /// Host memory by buffer id at the time the data moves (device-visible memory through
    /// GM, so the kernels' writes before now are in).
    void host_read(std::uint32_t id, void* data, std::uint64_t bytes);
    void host_write(std::uint32_t id, const void* data, std::uint64_t bytes);
    /// The GM bytes of host memory, listed in HostOpInfo (none unless device-visible).
    static std::vector<GmRange> host_ranges(const HostAllocation& h, std::uint64_t bytes);

    // ---- moving bytes (sim/host/runtime_transfers.cpp)
    // -------------------------------------------
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
    void move_bytes(TransferPath path, std::uint64_t bytes);
    void wait_cycles(Cycle cycles);

    // ---- stream capture (sim/host/runtime_capture.cpp) ------------------------------------------
    std::string capture_text(const CaptureState& capture) const;
    /// The first reason wins: end_capture reports it.
    static void invalidate(CaptureState& capture, const std::string& why,
                           const std::source_location& where);
    /// Every active capture whose mode forbids `call` (ThreadLocal and Global: the host
    /// program is one thread) or all of them (`every_mode`), and the first such stream.
    std::vector<CaptureState*> captures_refusing(bool every_mode);
    /// A call the active captures do not permit: invalidates them and fails NotPermitted.
    void refuse_in_capture(bool every_mode, const char* call, const std::string& rule,
                           const std::source_location& where);
    /// A capturing stream refuses queries and synchronization (every mode).
    void refuse_capturing_stream(StreamState& stream, const char* call,
                                 const std::source_location& where);
    void refuse_captured_event(EventState& event, Event handle, const char* call,
                               const std::source_location& where);
    /// Work queued on `stream`: refused on the default stream while any capture is active
    /// (ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT; CUDA's legacy stream would join the capture),
    /// and on a stream whose capture was invalidated.
    void check_queue_allowed(StreamState& stream, const char* call,
                             const std::source_location& where);
    /// Records `op` into the stream's capture instead of running it; returns its index.
    std::size_t capture_op(StreamState& stream, HostOp op);

    /// stream_wait_event on a stream that is not capturing, for an event last recorded in
    /// an active capture: the stream joins that capture as a new lane (cross-stream capture).
    void join_capture(StreamState& stream, const EventState& event,
                      const std::source_location& where);
    /// Lanes that did not rejoin the origin: a lane rejoins when its last op is a record
    /// that a rejoined lane (or the origin) waits for (ACL: every sub-stream must rejoin the
    /// origin, directly or through others, and issue no task after).
    static std::vector<std::uint32_t> unjoined_lanes(const CaptureState& capture);
    /// The capture ends: every captured stream stops capturing.
    void end_capture_of(CaptureState& capture);

    /// stream_wait_event on a capturing stream: the event must have been recorded in this
    /// same capture (ACL_ERROR_RT_CAPTURE_DEPENDENCY otherwise: a graph cannot wait for work
    /// outside it). Recorded as a wait on the captured record.
    void capture_wait(StreamState& stream, const EventState& event, Event handle,
                      const std::source_location& where);

    /// Freeing memory a live graph uses: its later launches fail (ACL: resources of captured
    /// tasks must stay valid until the model is destroyed).
    void warn_if_graph_uses(std::uint64_t address, std::uint32_t host_id, const char* call,
                            const std::source_location& where);

    // ---- stream operations and workers (sim/host/runtime_streams.cpp) --------------------------
    /// Queues `op` on the stream, or records it into the stream's capture (then the state
    /// returned is null).
    std::shared_ptr<HostOpState> submit(StreamState& stream, HostOp op,
                                        const std::source_location& where);

    // ---- legacy default stream (RuntimeOptions::legacy_default_stream) ---------------------
    /// The streams whose pending work an op queued on `stream` must first wait for: every
    /// other stream for the default stream, the default stream for the others.
    std::vector<StreamState*> legacy_dependencies(const StreamState& stream) const;
    /// Queues on `stream` one implicit wait (an EventWait op, call "legacy_default_stream",
    /// event 0) for the last op of each stream it depends on.
    void queue_legacy_waits(StreamState& stream, const std::source_location& where);
    /// A synchronous copy or memset with the legacy default stream: issued into it, so it
    /// first waits (on the host) for the work every stream has pending.
    void legacy_synchronous_wait(const char* call, const std::source_location& where);

    std::shared_ptr<HostOpState> enqueue(StreamState& stream, HostOp op);

    void work(const std::shared_ptr<StreamState>& stream);
    /// The host program returned: every idle stream worker ends (busy ones end when their
    /// queue is empty).
    void release_idle_workers();

    void run(HostOp& op);

    void complete(const HostOp& op);

    void release_host(std::uint32_t id);

    void kernel_finished(const KernelResult& result);

    void wait_stream(StreamState& stream, const char* call, const std::source_location& where);

    // ---- copies and memsets (sim/host/runtime_transfers.cpp)
    // --------------------------------------
    /// What observers learn of a copy or memset; `call` gains "_async" on a stream.
    static HostOpInfo data_op(HostOpKind kind, const StreamState* stream, const char* call,
                              std::vector<GmRange> reads, std::vector<GmRange> writes);

    /// Runs a transfer: on the host thread (stream null) or queued on a stream (or into its
    /// capture). `info` names the call and the GM bytes it reads and writes. `pageable`: the
    /// host side is pageable memory (the host waits for an async copy; unsafe in a capture).
    void transfer(StreamState* stream, TransferPath path, std::uint64_t path_bytes,
                  std::function<void()> effect, std::vector<std::uint64_t> device_buffers,
                  std::vector<std::uint32_t> host_buffers, bool pageable, HostOpInfo info,
                  const std::source_location& where);

    void copy_h2d(DeviceBuffer dst, HostBuffer src, std::uint64_t bytes, StreamState* stream,
                  const std::source_location& where);
    void copy_d2h(HostBuffer dst, DeviceBuffer src, std::uint64_t bytes, StreamState* stream,
                  const std::source_location& where);
    void copy_d2d(DeviceBuffer dst, DeviceBuffer src, std::uint64_t bytes, StreamState* stream,
                  const std::source_location& where);
    void fill_device(DeviceBuffer dst, std::uint8_t value, std::uint64_t bytes, StreamState* stream,
                     const std::source_location& where);
    void fill_host(HostBuffer dst, std::uint8_t value, std::uint64_t bytes, StreamState* stream,
                   const char* call, const std::source_location& where);
};

}  // namespace npusim
