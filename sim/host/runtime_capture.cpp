// Stream capture and graphs (sim/host/runtime.h, docs/runtime.md "Stream capture"): while a
// stream captures, Runtime::Impl::submit records its work into a CaptureState instead of
// queueing it; end_capture turns that into a graph, and launch_graph replays the graph's ops
// on a stream as new operations.
#include "sim/host/runtime.h"

// The engine header defines SC_INCLUDE_DYNAMIC_PROCESSES before it includes SystemC, so it
// brings every include this file needs.
#include "sim/host/runtime_engine.h"

namespace npusim {

// ---- Runtime::Impl: what a capture permits, and recording into it ------------------------

std::string Runtime::Impl::capture_text(const CaptureState& capture) const {
    return "the capture of stream " + std::to_string(capture.stream) + " (" + capture.begun_at +
           ")";
}

void Runtime::Impl::invalidate(CaptureState& capture, const std::string& why,
                               const std::source_location& where) {
    if (capture.invalidated.empty()) {
        capture.invalidated = "invalidated by " + why + " at " + site_of(where);
    }
}

std::vector<CaptureState*> Runtime::Impl::captures_refusing(bool every_mode) {
    std::vector<CaptureState*> refusing;
    for (const auto& [id, s] : streams) {
        if (s->capture && (every_mode || s->capture->mode != CaptureMode::Relaxed)) {
            refusing.push_back(s->capture.get());
        }
    }
    return refusing;
}

void Runtime::Impl::refuse_in_capture(bool every_mode, const char* call, const std::string& rule,
                                      const std::source_location& where) {
    const std::vector<CaptureState*> refusing = captures_refusing(every_mode);
    if (refusing.empty()) return;
    for (CaptureState* c : refusing) invalidate(*c, call, where);
    fail(Status::NotPermitted,
         std::string(call) + " is not permitted while " + capture_text(*refusing.front()) +
             " is active (" + rule + "); the capture is invalidated",
         where);
}

void Runtime::Impl::refuse_capturing_stream(StreamState& stream, const char* call,
                                            const std::source_location& where) {
    if (!stream.capture) return;
    invalidate(*stream.capture, call, where);
    fail(Status::NotPermitted,
         "operation not permitted on a capturing stream: " + std::string(call) + " on stream " +
             std::to_string(stream.id) + " during " + capture_text(*stream.capture) +
             "; the capture is invalidated",
         where);
}

void Runtime::Impl::refuse_captured_event(EventState& event, Event handle, const char* call,
                                          const std::source_location& where) {
    if (!event.in_active_capture()) return;
    invalidate(*event.captured_in, call, where);
    fail(Status::NotPermitted,
         "operation not permitted on an event last recorded in a capturing stream: " +
             std::string(call) + " on " + event_label(handle.id, event.name) + " during " +
             capture_text(*event.captured_in) + "; the capture is invalidated",
         where);
}

void Runtime::Impl::check_queue_allowed(StreamState& stream, const char* call,
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

std::size_t Runtime::Impl::capture_op(StreamState& stream, HostOp op) {
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
    c.lane =
        static_cast<std::size_t>(std::find(lanes.begin(), lanes.end(), stream.id) - lanes.begin());
    stream.capture->ops.push_back(std::move(c));
    return stream.capture->ops.size() - 1;
}

void Runtime::Impl::join_capture(StreamState& stream, const EventState& event,
                                 const std::source_location& where) {
    if (!event.captured_in->invalidated.empty()) {
        fail(Status::NotPermitted,
             "stream_wait_event would join " + capture_text(*event.captured_in) + ", which was " +
                 event.captured_in->invalidated,
             where);
    }
    stream.capture = event.captured_in;
    stream.capture->lanes.push_back(stream.id);
}

std::vector<std::uint32_t> Runtime::Impl::unjoined_lanes(const CaptureState& capture) {
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

void Runtime::Impl::end_capture_of(CaptureState& capture) {
    capture.active = false;  // its events count by their real snapshots again
    for (std::uint32_t id : capture.lanes) streams.at(id)->capture.reset();
}

void Runtime::Impl::capture_wait(StreamState& stream, const EventState& event, Event handle,
                                 const std::source_location& where) {
    CaptureState& capture = *stream.capture;
    if (event.captured_in.get() != &capture) {
        invalidate(capture, "stream_wait_event", where);
        fail(Status::NotPermitted,
             "stream_wait_event during " + capture_text(capture) + " on " +
                 event_label(handle.id, event.name) +
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
    op.info.event_name = event.name;
    const std::size_t index = capture_op(stream, std::move(op));
    capture.ops[index].waits_for = event.captured_index;
}

void Runtime::Impl::warn_if_graph_uses(std::uint64_t address, std::uint32_t host_id,
                                       const char* call, const std::source_location& where) {
    for (const auto& [id, graph] : graphs) {
        if (graph.destroyed) continue;
        for (const CapturedOp& op : graph.ops) {
            const bool uses = (address != 0 && std::count(op.device_buffers.begin(),
                                                          op.device_buffers.end(), address) > 0) ||
                              (host_id != 0 && std::count(op.host_buffers.begin(),
                                                          op.host_buffers.end(), host_id) > 0);
            if (!uses) continue;
            warn(std::string(call) + " of memory that graph " + std::to_string(id) + " (" +
                     graph.captured_at +
                     ") uses: launching the graph afterwards fails (destroy it first)",
                 where);
            return;
        }
    }
}

// ---- the capture API ------------------------------------------------------------------------

void Runtime::begin_capture(Stream stream, Where where) {
    begin_capture(stream, CaptureMode::Global, where);
}

void Runtime::begin_capture(Stream stream, CaptureMode mode, Where where) {
    Impl& impl = *m_impl;
    StreamState& s = impl.stream_of(stream, where);
    if (stream.id == 0) {
        Impl::fail(Status::NotPermitted,
                   "begin_capture on the default stream (ACL_ERROR_RT_STREAM_CAPTURE_IMPLICIT): "
                   "capture a created stream",
                   where);
    }
    if (s.capture) {
        Impl::fail(Status::NotPermitted,
                   "begin_capture on stream " + std::to_string(stream.id) + ", already in " +
                       impl.capture_text(*s.capture) + " (ACL_ERROR_RT_STREAM_CAPTURED)",
                   where);
    }
    impl.advance(impl.config.runtime_call_cycles);
    s.capture = std::make_shared<CaptureState>();
    s.capture->stream = stream.id;
    s.capture->lanes = {stream.id};
    s.capture->mode = mode;
    s.capture->begun_at = "begun at " + site_of(where);
}

Graph Runtime::end_capture(Stream stream, Where where) {
    Impl& impl = *m_impl;
    StreamState& s = impl.stream_of(stream, where);
    if (!s.capture) {
        Impl::fail(Status::NotPermitted,
                   "end_capture on stream " + std::to_string(stream.id) +
                       ", which is not capturing (ACL_ERROR_RT_STREAM_NOT_CAPTURED)",
                   where);
    }
    if (s.capture->stream != stream.id) {
        Impl::fail(Status::NotPermitted,
                   "end_capture on stream " + std::to_string(stream.id) + ", which joined " +
                       impl.capture_text(*s.capture) +
                       ": end it on its origin stream (ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED)",
                   where);
    }
    impl.advance(impl.config.runtime_call_cycles);
    const std::shared_ptr<CaptureState> capture = s.capture;
    impl.end_capture_of(*capture);
    if (!capture->invalidated.empty()) {
        Impl::fail(Status::NotPermitted,
                   impl.capture_text(*capture) + " was " + capture->invalidated +
                       ": no graph (the streams no longer capture)",
                   where);
    }
    const std::vector<std::uint32_t> unjoined = Impl::unjoined_lanes(*capture);
    if (!unjoined.empty()) {
        std::string list;
        for (std::uint32_t id : unjoined) list += (list.empty() ? "" : ", ") + std::to_string(id);
        Impl::fail(Status::NotPermitted,
                   "end_capture: stream(s) " + list + " joined " + impl.capture_text(*capture) +
                       " but did not rejoin the origin stream through an event record and wait "
                       "as their last operation (ACL_ERROR_RT_STREAM_UNJOINED): no graph",
                   where);
    }
    const std::uint32_t id = impl.next_graph++;
    GraphState& graph = impl.graphs[id];
    graph.captured_at = "captured on stream " + std::to_string(stream.id) + ", " +
                        capture->begun_at + ", ended at " + site_of(where);
    graph.ops = std::move(capture->ops);
    graph.lanes = capture->lanes.size();
    return {id};
}

CaptureStatus Runtime::capture_status(Stream stream, Where where) {
    Impl& impl = *m_impl;
    const StreamState& s = impl.stream_of(stream, where);
    impl.advance_query();
    if (!s.capture) return CaptureStatus::None;
    return s.capture->invalidated.empty() ? CaptureStatus::Active : CaptureStatus::Invalidated;
}

namespace {

/// The graph's entry; InvalidHandle when it does not exist or was destroyed.
auto live_graph(Runtime::Impl& impl, Graph graph, const std::source_location& where) {
    const auto it = impl.graphs.find(graph.id);
    if (it == impl.graphs.end() || it->second.destroyed) {
        Runtime::Impl::fail(Status::InvalidHandle,
                            "graph " + std::to_string(graph.id) +
                                (it == impl.graphs.end() ? " does not exist" : " was destroyed"),
                            where);
    }
    return it;
}

}  // namespace

void Runtime::launch_graph(Graph graph, Stream stream, Where where) {
    Impl& impl = *m_impl;
    const auto it = live_graph(impl, graph, where);
    const GraphState& g = it->second;
    StreamState& s = impl.stream_of(stream, where);
    if (s.capture) {
        Impl::fail(Status::NotSupported,
                   "launch_graph into a capturing stream (a graph inside a graph) is not "
                   "modelled yet",
                   where);
    }
    impl.check_queue_allowed(s, "launch_graph", where);
    // Memory the graph uses must still be live (ACL: until the model is destroyed).
    for (const CapturedOp& op : g.ops) {
        const std::string context = " (graph " + std::to_string(graph.id) + ", " + g.captured_at +
                                    ", its op at " + op.info.where + ")";
        for (std::uint64_t address : op.device_buffers) {
            const auto d = impl.device.find(address);
            if (d == impl.device.end() || d->second.freed) {
                Impl::fail(Status::InvalidValue,
                           "launch_graph: device memory at GM address " + std::to_string(address) +
                               " was freed" + context,
                           where);
            }
        }
        for (std::uint32_t id : op.host_buffers) {
            const auto h = impl.host.find(id);
            if (h == impl.host.end() || h->second.freed) {
                Impl::fail(
                    Status::InvalidValue,
                    "launch_graph: host buffer " + std::to_string(id) + " was freed" + context,
                    where);
            }
        }
    }
    impl.advance(impl.config.runtime_launch_cycles);
    // Replay in capture order, lane 0 on `stream` and every other lane on an internal stream
    // of this launch (so branches run concurrently, as the captured streams did); a captured
    // wait waits for the replayed record it named.
    const std::string site = site_of(where);
    std::vector<StreamState*> lanes{&s};
    for (std::size_t lane = 1; lane < g.lanes; ++lane) {
        auto internal = std::make_shared<StreamState>();
        internal->id = impl.next_stream++;
        internal->destroyed = true;  // no handle: the program cannot use it
        internal->graph_internal = true;
        internal->destroyed_at = "internal stream of launch_graph at " + site;
        lanes.push_back(internal.get());
        impl.streams.emplace(internal->id, std::move(internal));
    }
    impl.queue_legacy_waits(s, where);
    std::vector<std::shared_ptr<HostOpState>> states(g.ops.size());
    std::vector<std::uint64_t> op_ids(g.ops.size(), 0);
    for (std::size_t i = 0; i < g.ops.size(); ++i) {
        const CapturedOp& c = g.ops[i];
        HostOp op;
        op.kind = c.kind;
        op.info = c.info;
        op.info.call = "launch_graph";
        op.info.where = site + " (captured at " + c.info.where + ")";
        if (c.kernel) op.kernel = std::make_unique<KernelLaunch>(*c.kernel);
        op.path = c.path;
        op.path_bytes = c.path_bytes;
        op.effect = c.effect;
        op.device_buffers = c.device_buffers;
        op.host_buffers = c.host_buffers;
        if (c.kind == HostOp::Kind::Wait) {
            op.wait_for = states[c.waits_for];
            op.wait_stream = lanes[g.ops[c.waits_for].lane]->id;
            op.info.waits_for = op_ids[c.waits_for];
        }
        StreamState& lane = *lanes[c.lane];
        states[i] = impl.enqueue(lane, std::move(op));
        op_ids[i] = lane.last_op;
    }
}

void Runtime::destroy_graph(Graph graph, Where where) {
    Impl& impl = *m_impl;
    const auto it = live_graph(impl, graph, where);
    impl.advance(impl.config.runtime_call_cycles);
    it->second.destroyed = true;
    it->second.ops.clear();
}

}  // namespace npusim
