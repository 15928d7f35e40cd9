// What the host runtime tells observers about the work it queues: every stream operation
// (kernel launch, asynchronous copy or memset, event record, stream wait) with its stream and
// call site, when it starts and completes, and what the host thread learned by
// synchronizing. Checkers derive inter-stream happens-before from these alone; the runtime
// never needs to know what they do with it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/launch_identity.h"

namespace npusim {

enum class HostOpKind : std::uint8_t { Kernel, Copy, Memset, EventRecord, EventWait };
const char* to_string(HostOpKind kind);

/// GM bytes [address, address + bytes).
struct GmRange {
    std::uint64_t address = 0;
    std::uint64_t bytes = 0;
};

/// One operation queued on a stream. Operations of one stream run in order, one at a time.
struct HostOpInfo {
    std::uint64_t op = 0;  // unique id, increasing in host program order (1, 2, ...)
    HostOpKind kind = HostOpKind::Kernel;
    std::uint32_t stream = 0;  // 0: the default stream
    std::string stream_name;   // the name the program gave it ("": none; stream_label())
    std::string call;          // the runtime call: "launch", "memcpy_async", "record_event", ...
    std::string where;         // its call site, "file.cpp:17" (a scenario: the op's JSON pointer)
    /// Kernel: the launch; its stream, host_op and launch_site equal stream, op and where.
    LaunchIdentity launch;
    // EventRecord / EventWait
    std::uint32_t event = 0;
    std::string event_name;       // the name the program gave it ("": none; event_label())
    std::uint64_t waits_for = 0;  // EventWait: the EventRecord op it waits for
    // Copy / Memset: the GM bytes it reads and writes (host memory is not listed)
    std::vector<GmRange> reads;
    std::vector<GmRange> writes;
};

/// A synchronous runtime call that read or wrote GM on the host thread (memcpy, memset).
struct HostAccess {
    GmRange range;
    bool write = false;
    std::string call;
    std::string where;
};

}  // namespace npusim
