// Stream capture and graphs (sim/runtime.h, docs/runtime.md "Stream capture"): while a
// stream captures, Runtime::Impl::submit records its work into a CaptureState instead of
// queueing it; end_capture turns that into a graph, and launch_graph replays the graph's ops
// on a stream as new operations.
#include "sim/runtime.h"

// The engine header defines SC_INCLUDE_DYNAMIC_PROCESSES before it includes SystemC, so it
// brings every include this file needs.
#include "sim/runtime_engine.h"

namespace npusim {

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
