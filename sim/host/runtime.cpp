// The host runtime. The host program runs on a SystemC thread spawned in the simulator's
// context; each stream with queued work has a worker thread that runs its operations in
// order and ends when the queue is empty. Kernels go to the device scheduler when they reach
// the head of their stream and complete in its kernel-finished callback.
#include "sim/host/runtime.h"

// The engine header defines SC_INCLUDE_DYNAMIC_PROCESSES before it includes SystemC, so it
// brings every include this file needs.
#include "sim/host/runtime_engine.h"

namespace npusim {

const char* to_string(Status status) {
    switch (status) {
        case Status::Success:
            return "Success";
        case Status::InvalidValue:
            return "InvalidValue";
        case Status::InvalidHandle:
            return "InvalidHandle";
        case Status::NotReady:
            return "NotReady";
        case Status::NotPermitted:
            return "NotPermitted";
        case Status::NotSupported:
            return "NotSupported";
        case Status::OutOfMemory:
            return "OutOfMemory";
    }
    return "?";
}

const char* to_string(HostMemoryKind kind) {
    switch (kind) {
        case HostMemoryKind::Pageable:
            return "pageable";
        case HostMemoryKind::Pinned:
            return "pinned";
        case HostMemoryKind::Managed:
            return "managed";
    }
    return "?";
}

// ---- RuntimeError -------------------------------------------------------------------------

RuntimeError::RuntimeError(Status status, const std::string& message, std::source_location where)
    : Error(site_of(where) + ": " + where.function_name() + ": " + to_string(status) + ": " +
            message),
      m_status(status),
      m_where(site_of(where)) {}

// ---- Runtime ------------------------------------------------------------------------------

Runtime::Runtime(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {
    m_impl->self = this;
}
Runtime::~Runtime() = default;

Cycle Runtime::now() const {
    return m_impl->now();
}
const RuntimeOptions& Runtime::options() const {
    return m_impl->options;
}
const std::vector<HostWarning>& Runtime::warnings() const {
    return m_impl->warnings;
}

void Runtime::set_call_site(std::string site) {
    call_site_override() = std::move(site);
}

RuntimeWaitState Runtime::wait_state() const {
    const Impl& impl = *m_impl;
    RuntimeWaitState state;
    state.host = impl.host_waiting;
    state.host_returned = impl.host_returned;
    for (const auto& [id, stream] : impl.streams) {
        if (stream->destroyed && stream->queue.empty()) continue;
        StreamWaitState s;
        s.stream = id;
        s.name = stream->name;
        s.destroyed = stream->destroyed;
        s.graph_internal = stream->graph_internal;
        s.queued = stream->queue.size();
        if (!stream->queue.empty()) {
            const HostOp& head = stream->queue.front();
            s.head_op = head.info.op;
            s.head_kind = head.info.kind;
            s.head_call = head.info.call;
            s.head_where = head.info.where;
            s.kernel_id = head.state->kernel_id;
            s.event = head.info.event;
            s.event_name = head.info.event_name;
            if (head.kind == HostOp::Kind::Wait) {
                s.waits_for_op = head.info.waits_for;
                s.waits_for_stream = head.wait_stream;
            }
        }
        state.streams.push_back(std::move(s));
    }
    return state;
}

// ---- memory -------------------------------------------------------------------------------

DeviceBuffer Runtime::malloc(std::uint64_t bytes, std::string name, Where where) {
    Impl& impl = *m_impl;
    if (bytes == 0) Impl::fail(Status::InvalidValue, "malloc of 0 bytes", where);
    impl.advance(impl.config.runtime_call_cycles);
    if (name.empty()) name = "runtime@" + site_of(where);
    std::uint64_t address = 0;
    try {
        address = impl.chip.gm.allocate(bytes, std::move(name));
    } catch (const UsageError& error) {
        Impl::fail(Status::OutOfMemory, error.what(), where);
    }
    impl.device[address] = DeviceAllocation{bytes, false, 0};
    return {address, bytes};
}

void Runtime::free(DeviceBuffer buffer, Where where) {
    Impl& impl = *m_impl;
    DeviceAllocation& d = impl.device_of(buffer, 0, where);
    impl.advance(impl.config.runtime_call_cycles);
    impl.warn_if_graph_uses(buffer.address, 0, "free", where);
    if (d.pending > 0) {
        impl.warn("free of device memory that " + std::to_string(d.pending) +
                      " pending operation(s) still use: released when they complete",
                  where);
        d.freed = true;
        return;
    }
    impl.chip.gm.free(buffer.address);
    impl.device.erase(buffer.address);
}

HostBuffer Runtime::malloc_host(std::uint64_t bytes, HostMemoryKind kind, Where where) {
    Impl& impl = *m_impl;
    if (bytes == 0) Impl::fail(Status::InvalidValue, "malloc_host of 0 bytes", where);
    impl.advance(impl.config.runtime_call_cycles);
    const std::uint32_t id = impl.next_host++;
    const bool device_visible = impl.options.unified_memory && kind != HostMemoryKind::Pageable;
    HostAllocation h;
    h.kind = kind;
    if (device_visible) {
        // Unified memory: the bytes live in GM, so kernels and the host share one storage.
        try {
            h.gm_address = impl.chip.gm.allocate_contiguous(
                bytes, std::string(to_string(kind)) + " host memory@" + site_of(where));
        } catch (const UsageError& error) {
            Impl::fail(Status::OutOfMemory, error.what(), where);
        }
        h.bytes = impl.chip.gm.contiguous_bytes(h.gm_address);
        // Host memory holds defined bytes (zeros, then what the program writes).
        impl.publish([&](TransactionObserver& o) { o.on_host_write(h.gm_address, bytes); });
    } else {
        h.owned.assign(bytes, std::byte{0});
        h.bytes = h.owned;
    }
    impl.host.emplace(id, std::move(h));
    return {id, kind, bytes};
}

void Runtime::free_host(HostBuffer buffer, Where where) {
    Impl& impl = *m_impl;
    HostAllocation& h = impl.host_of(buffer, 0, where);
    impl.advance(impl.config.runtime_call_cycles);
    impl.warn_if_graph_uses(0, buffer.id, "free_host", where);
    if (h.pending > 0) {
        impl.warn("free_host of host memory that " + std::to_string(h.pending) +
                      " pending operation(s) still use: released when they complete",
                  where);
        h.freed = true;
        return;
    }
    impl.release_host(buffer.id);
}

std::span<std::byte> Runtime::host_bytes(HostBuffer buffer, Where where) {
    HostAllocation& h = m_impl->host_of(buffer, 0, where);
    if (h.gm_address != 0) m_impl->settle_gm();  // the kernels' writes before now
    return h.bytes;
}

std::uint64_t Runtime::device_address(HostBuffer buffer, Where where) {
    Impl& impl = *m_impl;
    const HostAllocation& h = impl.host_of(buffer, 0, where);
    if (h.kind == HostMemoryKind::Pageable) {
        Impl::fail(Status::InvalidValue,
                   "pageable host memory is not device-visible (allocate it pinned or managed, "
                   "with RuntimeOptions::unified_memory)",
                   where);
    }
    if (h.gm_address == 0) {
        Impl::fail(Status::InvalidValue,
                   std::string(to_string(h.kind)) +
                       " host memory is device-visible only with RuntimeOptions::unified_memory",
                   where);
    }
    return h.gm_address;
}

void Runtime::memcpy(DeviceBuffer dst, HostBuffer src, std::uint64_t bytes, Where where) {
    m_impl->copy_h2d(dst, src, bytes, nullptr, where);
}
void Runtime::memcpy(HostBuffer dst, DeviceBuffer src, std::uint64_t bytes, Where where) {
    m_impl->copy_d2h(dst, src, bytes, nullptr, where);
}
void Runtime::memcpy(DeviceBuffer dst, DeviceBuffer src, std::uint64_t bytes, Where where) {
    m_impl->copy_d2d(dst, src, bytes, nullptr, where);
}
void Runtime::memcpy_async(DeviceBuffer dst, HostBuffer src, std::uint64_t bytes, Stream stream,
                           Where where) {
    m_impl->copy_h2d(dst, src, bytes, &m_impl->stream_of(stream, where), where);
}
void Runtime::memcpy_async(HostBuffer dst, DeviceBuffer src, std::uint64_t bytes, Stream stream,
                           Where where) {
    m_impl->copy_d2h(dst, src, bytes, &m_impl->stream_of(stream, where), where);
}
void Runtime::memcpy_async(DeviceBuffer dst, DeviceBuffer src, std::uint64_t bytes, Stream stream,
                           Where where) {
    m_impl->copy_d2d(dst, src, bytes, &m_impl->stream_of(stream, where), where);
}
void Runtime::memset(DeviceBuffer dst, std::uint8_t value, std::uint64_t bytes, Where where) {
    m_impl->fill_device(dst, value, bytes, nullptr, where);
}
void Runtime::memset(HostBuffer dst, std::uint8_t value, std::uint64_t bytes, Where where) {
    m_impl->fill_host(dst, value, bytes, nullptr, "memset", where);
}
void Runtime::memset_async(DeviceBuffer dst, std::uint8_t value, std::uint64_t bytes, Stream stream,
                           Where where) {
    m_impl->fill_device(dst, value, bytes, &m_impl->stream_of(stream, where), where);
}
void Runtime::memset_async(HostBuffer dst, std::uint8_t value, std::uint64_t bytes, Stream stream,
                           Where where) {
    m_impl->fill_host(dst, value, bytes, &m_impl->stream_of(stream, where), "memset_async", where);
}

// ---- streams ------------------------------------------------------------------------------

Stream Runtime::create_stream(Where where) {
    return create_stream(std::string(), where);
}

Stream Runtime::create_stream(std::string name, Where where) {
    Impl& impl = *m_impl;
    (void)where;
    impl.advance(impl.config.runtime_call_cycles);
    const std::uint32_t id = impl.next_stream++;
    auto stream = std::make_shared<StreamState>();
    stream->id = id;
    stream->name = std::move(name);
    impl.streams.emplace(id, std::move(stream));
    return {id};
}

void Runtime::destroy_stream(Stream stream, Where where) {
    Impl& impl = *m_impl;
    StreamState& s = impl.stream_of(stream, where);
    if (stream.id == 0) {
        Impl::fail(Status::InvalidValue, "the default stream cannot be destroyed", where);
    }
    if (s.capture) {
        Impl::fail(
            Status::NotPermitted,
            "destroy_stream during " + impl.capture_text(*s.capture) + ": end the capture first",
            where);
    }
    impl.advance(impl.config.runtime_call_cycles);
    if (impl.options.flavor == RuntimeFlavor::Acl && !s.queue.empty()) {
        impl.wait_stream(s, "destroy_stream", where);
    }
    s.destroyed = true;
    s.destroyed_at = "destroy_stream at " + site_of(where);
}

void Runtime::launch(Stream stream, const LaunchSpec& spec, KernelBody body, Where where) {
    Impl& impl = *m_impl;
    StreamState& s = impl.stream_of(stream, where);
    HostOp op;
    op.kind = HostOp::Kind::Kernel;
    try {
        op.kernel = std::make_unique<KernelLaunch>(impl.engine.make_launch(spec, std::move(body)));
    } catch (const UsageError& error) {
        Impl::fail(Status::InvalidValue, error.what(), where);
    }
    op.kernel->stream = stream.id;
    op.info.kind = HostOpKind::Kernel;
    op.info.call = "launch";
    op.info.where = site_of(where);
    op.info.launch = op.kernel->identity();
    impl.check_queue_allowed(s, "launch", where);
    impl.advance(impl.config.runtime_launch_cycles);
    impl.submit(s, std::move(op), where);
}

void Runtime::synchronize_stream(Stream stream, Where where) {
    Impl& impl = *m_impl;
    StreamState& s = impl.stream_of(stream, where);
    impl.refuse_capturing_stream(s, "synchronize_stream", where);
    impl.wait_stream(s, "synchronize_stream", where);
    impl.advance(impl.config.runtime_sync_cycles);
}

Status Runtime::query_stream(Stream stream, Where where) {
    Impl& impl = *m_impl;
    StreamState& s = impl.stream_of(stream, where);
    impl.refuse_capturing_stream(s, "query_stream", where);
    impl.advance_query();
    if (!s.queue.empty()) {
        impl.note_poll({HostWait::Kind::Stream, s.id, s.last_op, 0, "query_stream", site_of(where)},
                       where);
        return Status::NotReady;
    }
    impl.synchronized(s);
    return Status::Success;
}

void Runtime::synchronize_device(Where where) {
    Impl& impl = *m_impl;
    impl.refuse_in_capture(true, "synchronize_device",
                           "synchronizing the device is illegal during a capture in every mode",
                           where);
    impl.block([&impl] { return impl.active_ops == 0; },
               call_text("synchronize_device", where) + ": waits for the work of every stream",
               {HostWait::Kind::Device, 0, 0, 0, "synchronize_device", site_of(where)});
    for (const auto& [id, s] : impl.streams) impl.synchronized(*s);
    impl.advance(impl.config.runtime_sync_cycles);
}

// ---- events -------------------------------------------------------------------------------

Event Runtime::create_event(EventFlags flags, Where where) {
    return create_event(std::string(), flags, where);
}

Event Runtime::create_event(std::string name, EventFlags flags, Where where) {
    Impl& impl = *m_impl;
    if (has_flag(flags, EventFlags::Interprocess) && !has_flag(flags, EventFlags::DisableTiming)) {
        Impl::fail(Status::InvalidValue, "an interprocess event must also disable timing", where);
    }
    if (static_cast<std::uint32_t>(flags) > 3) {
        Impl::fail(Status::InvalidValue,
                   "unknown event flags " + std::to_string(static_cast<std::uint32_t>(flags)),
                   where);
    }
    impl.advance(impl.config.runtime_call_cycles);
    const std::uint32_t id = impl.next_event++;
    EventState& event = impl.events[id];
    event.flags = flags;
    event.name = std::move(name);
    return {id};
}

void Runtime::destroy_event(Event event, Where where) {
    Impl& impl = *m_impl;
    EventState& e = impl.event_of(event, where);
    impl.advance(impl.config.runtime_call_cycles);
    if (e.marker && !e.marker->done) {
        impl.warn("destroy_event while the work recorded before it is pending", where);
    }
    e.destroyed = true;
    e.marker.reset();
    e.recorded_on.reset();
}

void Runtime::record_event(Event event, Stream stream, Where where) {
    Impl& impl = *m_impl;
    EventState& e = impl.event_of(event, where);
    StreamState& s = impl.stream_of(stream, where);
    impl.check_queue_allowed(s, "record_event", where);
    impl.advance(impl.config.runtime_call_cycles);
    HostOpInfo info;
    info.kind = HostOpKind::EventRecord;
    info.call = "record_event";
    info.where = site_of(where);
    info.event = event.id;
    info.event_name = e.name;
    if (s.capture) {
        // Recorded into the graph: the event's real snapshot stays as it was.
        HostOp op;
        op.kind = HostOp::Kind::Record;
        op.info = std::move(info);
        e.captured_in = s.capture;
        e.captured_index = impl.capture_op(s, std::move(op));
        return;
    }
    e.captured_in.reset();
    e.recorded_on = impl.streams.at(stream.id);
    if (s.queue.empty() && impl.legacy_dependencies(s).empty()) {
        e.marker = std::make_shared<HostOpState>();
        e.marker->done = true;
        e.marker->end = impl.now();
        e.record_op = impl.instant_op(s, std::move(info));
        return;
    }
    HostOp op;
    op.kind = HostOp::Kind::Record;
    op.info = std::move(info);
    impl.queue_legacy_waits(s, where);
    e.marker = impl.enqueue(s, std::move(op));
    e.record_op = s.last_op;
}

Status Runtime::query_event(Event event, Where where) {
    Impl& impl = *m_impl;
    EventState& e = impl.event_of(event, where);
    impl.refuse_captured_event(e, event, "query_event", where);
    impl.warn_if_stream_destroyed(e, "query_event", where);
    impl.advance_query();
    if (impl.options.quirk_interprocess_query_always_succeeds &&
        has_flag(e.flags, EventFlags::Interprocess)) {
        return Status::Success;
    }
    if (e.marker && !e.marker->done) {
        impl.note_poll({HostWait::Kind::Event, e.recorded_on->id, e.record_op, event.id,
                        "query_event", site_of(where)},
                       where);
        return Status::NotReady;
    }
    impl.synchronized_op(e.record_op);
    return Status::Success;
}

void Runtime::synchronize_event(Event event, Where where) {
    Impl& impl = *m_impl;
    EventState& e = impl.event_of(event, where);
    impl.refuse_captured_event(e, event, "synchronize_event", where);
    impl.warn_if_stream_destroyed(e, "synchronize_event", where);
    if (e.marker && !e.marker->done) {
        std::shared_ptr<HostOpState> marker = e.marker;
        impl.block([marker] { return marker->done; },
                   call_text("synchronize_event", where) + ": waits for the work recorded in " +
                       event_label(event.id, e.name) + " on " +
                       stream_label(e.recorded_on->id, e.recorded_on->name),
                   {HostWait::Kind::Event, e.recorded_on->id, e.record_op, event.id,
                    "synchronize_event", site_of(where), false, e.name});
    }
    impl.synchronized_op(e.record_op);
    impl.advance(impl.config.runtime_sync_cycles);
}

void Runtime::stream_wait_event(Stream stream, Event event, Where where) {
    Impl& impl = *m_impl;
    StreamState& s = impl.stream_of(stream, where);
    EventState& e = impl.event_of(event, where);
    impl.check_queue_allowed(s, "stream_wait_event", where);
    if (!s.capture && e.in_active_capture()) impl.join_capture(s, e, where);  // cross-stream
    if (s.capture) {
        impl.capture_wait(s, e, event, where);
        return;
    }
    impl.advance(impl.config.runtime_call_cycles);
    if (!e.marker) return;  // never recorded: a no-op
    HostOpInfo info;
    info.kind = HostOpKind::EventWait;
    info.call = "stream_wait_event";
    info.where = site_of(where);
    info.event = event.id;
    info.event_name = e.name;
    info.waits_for = e.record_op;
    // Work recorded and already complete orders nothing in time, but it still orders the
    // stream's later work after it (the checker's happens-before): an op that completes at
    // once, in stream order.
    if (e.marker->done && s.queue.empty() && impl.legacy_dependencies(s).empty()) {
        impl.instant_op(s, std::move(info));
        return;
    }
    HostOp op;
    op.kind = HostOp::Kind::Wait;
    op.wait_for = e.marker;
    op.wait_stream = e.recorded_on->id;
    op.info = std::move(info);
    impl.queue_legacy_waits(s, where);
    impl.enqueue(s, std::move(op));
}

double Runtime::elapsed_ms(Event start, Event end, Where where) {
    Impl& impl = *m_impl;
    EventState& a = impl.event_of(start, where);
    EventState& b = impl.event_of(end, where);
    impl.refuse_captured_event(a, start, "elapsed_ms", where);
    impl.refuse_captured_event(b, end, "elapsed_ms", where);
    impl.advance(impl.config.runtime_call_cycles);
    if (has_flag(a.flags, EventFlags::DisableTiming) ||
        has_flag(b.flags, EventFlags::DisableTiming)) {
        Impl::fail(Status::InvalidHandle, "elapsed_ms on an event created with DisableTiming",
                   where);
    }
    if (!a.marker || !b.marker) {
        Impl::fail(Status::InvalidValue, "elapsed_ms on an event that was never recorded", where);
    }
    if (!a.marker->done || !b.marker->done) {
        Impl::fail(Status::NotReady, "elapsed_ms on an event whose work has not completed", where);
    }
    const double cycles = static_cast<double>(b.marker->end) - static_cast<double>(a.marker->end);
    return cycles / (static_cast<double>(impl.config.clock_mhz) * 1e3);
}

}  // namespace npusim
