// The wait-for graph built from plain run-state snapshots (sync/deadlock/wait_state.h): the
// streams' heads and the host thread's wait as the runtime reports them, without a runtime.
#include "sync/deadlock/deadlock_analysis.h"

#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

using namespace npusim;

namespace {

using VertexId = WaitForGraph::VertexId;

/// The one vertex of `kind` (with id `id` for streams and events).
VertexId vertex_of(const WaitForGraph& graph, WaitVertexKind kind, std::uint64_t id = 0) {
    std::optional<VertexId> found;
    for (VertexId v = 0; v < graph.size(); ++v) {
        const WaitVertex& vertex = graph.vertex(v);
        if (vertex.kind != kind) continue;
        if ((kind == WaitVertexKind::Stream || kind == WaitVertexKind::Event) && vertex.id != id)
            continue;
        REQUIRE_FALSE(found);
        found = v;
    }
    REQUIRE(found);
    return *found;
}

StreamWaitState head(std::uint32_t stream, HostOpKind kind, std::string where) {
    StreamWaitState s;
    s.stream = stream;
    s.queued = 1;
    s.head_op = stream;
    s.head_kind = kind;
    s.head_where = std::move(where);
    return s;
}

}  // namespace

TEST_CASE(
    "synchronizing the device waits for every busy stream; an event wait for the recording "
    "stream") {
    RuntimeWaitState state;
    state.streams.push_back(head(1, HostOpKind::Kernel, "host.cpp:10"));
    StreamWaitState waits = head(2, HostOpKind::EventWait, "host.cpp:11");
    waits.event = 7;
    waits.waits_for_op = 1;
    waits.waits_for_stream = 1;
    state.streams.push_back(waits);
    StreamWaitState idle;
    idle.stream = 3;  // nothing queued: no vertex
    state.streams.push_back(idle);
    state.host = {HostWait::Kind::Device, 0, 0, 0, "synchronize_device", "host.cpp:12"};

    DeadlockInputs inputs;
    inputs.capacity = {8, 4};
    inputs.runtime = state;
    const WaitForGraph graph = build_wait_for_graph(inputs);

    const VertexId host = vertex_of(graph, WaitVertexKind::Host);
    const VertexId s1 = vertex_of(graph, WaitVertexKind::Stream, 1);
    const VertexId s2 = vertex_of(graph, WaitVertexKind::Stream, 2);
    const VertexId event = vertex_of(graph, WaitVertexKind::Event, 7);
    CHECK(graph.vertex(host).what == "synchronize_device");
    CHECK(graph.vertex(host).where == "host.cpp:12");
    CHECK(graph.vertex(s2).where == "host.cpp:11");
    CHECK(graph.has_edge(host, s1));
    CHECK(graph.has_edge(host, s2));
    CHECK(graph.has_edge(s2, event));
    CHECK(graph.has_edge(event, s1));
    CHECK(graph.size() == 4);  // stream 3 is idle
}

TEST_CASE("a host thread synchronizing one stream waits for that stream only") {
    RuntimeWaitState state;
    state.streams.push_back(head(1, HostOpKind::Copy, "host.cpp:20"));
    state.streams.push_back(head(2, HostOpKind::Copy, "host.cpp:21"));
    state.host = {HostWait::Kind::Stream, 2, 2, 0, "synchronize_stream", "host.cpp:22"};
    DeadlockInputs inputs;
    inputs.runtime = state;
    const WaitForGraph graph = build_wait_for_graph(inputs);
    const VertexId host = vertex_of(graph, WaitVertexKind::Host);
    CHECK(graph.successors(host) ==
          std::vector<VertexId>{vertex_of(graph, WaitVertexKind::Stream, 2)});
}

TEST_CASE("without a runtime (Simulator::run) there are no stream or host vertices") {
    DeadlockInputs inputs;
    const WaitForGraph graph = build_wait_for_graph(inputs);
    CHECK(graph.size() == 0);
}
