// StreamOrder (sync/check/stream_order.h), the checker's happens-before for runtime programs,
// driven by hand-made host-op hooks without a simulation: stream order, event captures at
// record completion, waits on them, host synchronization and the end of a program.
#include "sync/check/stream_order.h"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sync/check/host_calls.h"

using namespace npusim;
using namespace npusim::check;

namespace {

HostOpInfo op(std::uint64_t id, HostOpKind kind, std::uint32_t stream) {
    HostOpInfo info;
    info.op = id;
    info.kind = kind;
    info.stream = stream;
    return info;
}

/// Queues, starts and completes `info`, giving a stream access (an epoch) to copies.
EpochCount run(StreamOrder& order, const HostOpInfo& info) {
    order.queued(info, 0);
    order.started(info.op);
    const EpochCount epoch =
        info.kind == HostOpKind::Copy ? order.stream_access(info.stream) : EpochCount{0};
    order.completed(info.op);
    return epoch;
}

}  // namespace

TEST_CASE("stream order: one stream orders its ops, another learns them only by an event",
          "[unit]") {
    Agents agents;
    StreamOrder order(agents);
    order.begin();
    const AgentId s1 = order.stream_agent(1);
    const AgentId s2 = order.stream_agent(2);
    const EpochCount copy = run(order, op(1, HostOpKind::Copy, 1));
    CHECK(agents.agent(s1).clock.get(s1) == copy);  // later ops of stream 1 come after it
    CHECK(agents.agent(s2).clock.get(s1) == 0);     // stream 2 knows nothing of it

    HostOpInfo record = op(2, HostOpKind::EventRecord, 1);
    record.event = 7;
    HostOpInfo wait = op(3, HostOpKind::EventWait, 2);
    wait.event = 7;
    wait.waits_for = 2;
    order.queued(record, 0);
    order.queued(wait, 0);  // queued before the record completes: it waits for the capture
    order.started(2);
    order.started(3);
    order.completed(2);  // the record captures stream 1 now
    // A copy on stream 1 after the record is not part of its capture.
    const EpochCount later = run(order, op(4, HostOpKind::Copy, 1));
    order.completed(3);
    CHECK(agents.agent(s2).clock.get(s1) == copy);
    CHECK(agents.agent(s2).clock.get(s1) < later);
}

TEST_CASE("stream order: an op starts with the host's knowledge when it was queued", "[unit]") {
    Agents agents;
    StreamOrder order(agents);
    order.begin();
    Agent& host = agents.host();
    host.clock.set(Agents::kHost, 5);  // the host wrote something
    order.queued(op(1, HostOpKind::Copy, 1), 0);
    agents.host().clock.set(Agents::kHost, 9);  // and something else after queueing
    order.started(1);
    const AgentId s1 = order.stream_agent(1);
    CHECK(agents.agent(s1).clock.get(Agents::kHost) == 5);
}

TEST_CASE("stream order: host synchronization learns the stream up to the op", "[unit]") {
    Agents agents;
    StreamOrder order(agents);
    order.begin();
    const AgentId s1 = order.stream_agent(1);
    const EpochCount first = run(order, op(1, HostOpKind::Copy, 1));
    HostOpInfo record = op(2, HostOpKind::EventRecord, 1);
    record.event = 3;
    run(order, record);
    const EpochCount second = run(order, op(3, HostOpKind::Copy, 1));
    CHECK(agents.host().clock.get(s1) == 0);
    order.host_synchronized(2);  // synchronize_event: up to the record, not the copy after it
    CHECK(agents.host().clock.get(s1) == first);
    order.host_synchronized(3);  // synchronize_stream: everything
    CHECK(agents.host().clock.get(s1) == second);
}

TEST_CASE("stream order: the end of a program gives the host everything and forgets it", "[unit]") {
    Agents agents;
    StreamOrder order(agents);
    order.begin();
    const AgentId s2 = order.stream_agent(2);
    const EpochCount copy = run(order, op(1, HostOpKind::Copy, 2));
    CHECK(order.last_op() == 1);
    order.end();
    CHECK_FALSE(order.active());
    CHECK(order.last_op() == 0);
    CHECK(agents.host().clock.get(s2) == copy);
    CHECK(order.pending(1) == nullptr);
}

TEST_CASE("stream order: a kernel ended by its agents' counts raises its stream by them",
          "[unit]") {
    Agents agents;
    StreamOrder order(agents);
    order.begin();
    const AgentId s1 = order.stream_agent(1);
    const EpochCount copy = run(order, op(1, HostOpKind::Copy, 1));
    // Kernel op 2 on stream 1: its blocks' agents 40..41 and 60 did 3, 5 and 2 instructions.
    const std::vector<ClockEntry> counts = {{40, 3}, {41, 5}, {60, 2}};
    order.queued(op(2, HostOpKind::Kernel, 1), 0);
    order.started(2);
    order.kernel_ended(2, counts);
    CHECK(agents.agent(s1).clock.get(41) == 0);  // learned when the op completes
    order.completed(2);
    const VectorClock& stream = agents.agent(s1).clock;
    CHECK(stream.get(s1) == copy);
    CHECK(stream.get(40) == 3);
    CHECK(stream.get(41) == 5);
    CHECK(stream.get(60) == 2);
    // Kernel op 3 never completes: the end of the program gives the host its counts too.
    order.queued(op(3, HostOpKind::Kernel, 1), 0);
    order.started(3);
    order.kernel_ended(3, std::vector<ClockEntry>{{41, 9}});
    order.end();
    CHECK(agents.host().clock.get(40) == 3);
    CHECK(agents.host().clock.get(41) == 9);
    CHECK(agents.host().clock.get(s1) == copy);
}

TEST_CASE("host calls: a recent call is found by its fields, an older one by its key", "[unit]") {
    HostCalls calls;
    auto call = [](std::uint32_t stream, std::string where) {
        HostCall c;
        c.origin = AccessOrigin::Kernel;
        c.stream = stream;
        c.call = "launch";
        c.where = std::move(where);
        c.kernel = "k";
        return c;
    };
    const std::uint32_t first = calls.intern(call(1, "p.cpp:10"));
    CHECK(calls.recent(AccessOrigin::Kernel, 1, "launch", "p.cpp:10", "k") == first);
    // Another line, stream, kernel or origin is another call.
    CHECK(calls.recent(AccessOrigin::Kernel, 1, "launch", "p.cpp:11", "k") == 0);
    CHECK(calls.recent(AccessOrigin::Kernel, 2, "launch", "p.cpp:10", "k") == 0);
    CHECK(calls.recent(AccessOrigin::Kernel, 1, "launch", "p.cpp:10", "j") == 0);
    CHECK(calls.recent(AccessOrigin::Stream, 1, "launch", "p.cpp:10", "k") == 0);
    // Past 8 other calls it is no longer recent, and interning finds the same id.
    for (std::uint32_t line = 20; line < 30; ++line)
        CHECK(calls.intern(call(1, "p.cpp:" + std::to_string(line))) != first);
    CHECK(calls.recent(AccessOrigin::Kernel, 1, "launch", "p.cpp:10", "k") == 0);
    CHECK(calls.intern(call(1, "p.cpp:10")) == first);
    CHECK(calls.recent(AccessOrigin::Kernel, 1, "launch", "p.cpp:10", "k") == first);
    CHECK(calls[first].where == "p.cpp:10");
}
