// What the checker reports. Plain data: formatting lives in sync/check/check_report.h.
#pragma once

#include <cstdint>
#include <source_location>
#include <string>
#include <vector>

#include "base/types.h"

namespace npusim {

enum class FindingKind : std::uint8_t {
    // racecheck
    RaceRAW,
    RaceWAR,
    RaceWAW,
    // synccheck
    UnpairedSetFlag,    // SetFlag never waited for by the end of the kernel
    DuplicateSetFlag,   // second SetFlag on the same (pipe pair, id) before its WaitFlag
    UnsatisfiableWait,  // WaitFlag / CrossCoreWaitFlag that can never be satisfied
    CrossCoreOverflow,  // cross-core flag counter over kCrossCoreMaxPending (16)
    // memcheck
    OutOfBounds,   // outside the buffer it was allocated as
    UseAfterFree,  // GM buffer already freed
    Leak,          // GM buffer never freed
    UnusedMemory,  // GM buffer bytes no access touched (CheckerOptions::unused_memory)
    // initcheck
    UninitializedRead,
};

enum class Severity : std::uint8_t { Warning, Error };

/// Where the two accesses of a race are. InterStream and Host come from runtime programs
/// (Simulator::run_host): accesses of two different host operations with no stream order,
/// event or host synchronization between them.
enum class RaceScope : std::uint8_t {
    IntraPipe,    // one pipe of one block
    InterPipe,    // two pipes (or the scalar unit) of one block
    InterCore,    // two blocks of one kernel, or two kernels launched with Simulator::launch
    InterStream,  // two stream operations: kernels on different streams, a kernel and an
                  // asynchronous copy or memset, two copies
    Host,         // a synchronous access of the host thread and device work it did not wait for
    None,
};

/// Who made an access. Stream and HostThread accesses have no kernel, block, pipe or source
/// line: `AccessSite::call` and `call_site` name them.
enum class AccessOrigin : std::uint8_t {
    Kernel,      // an instruction of a kernel
    Stream,      // an asynchronous copy or memset on a stream
    HostThread,  // a synchronous runtime call on the host thread (memcpy, memset)
};
std::string_view to_string(AccessOrigin origin);  // "kernel", "stream", "host"

/// One side of a finding: an instruction's access.
struct AccessSite {
    std::uint32_t kernel_id = 0;
    std::string kernel;
    std::uint32_t block = 0;
    CoreType core_type = CoreType::Vector;
    Pipe pipe = Pipe::S;
    bool write = false;
    std::uint64_t serial = 0;
    std::source_location where;
    MemSpace space = MemSpace::GM;
    std::uint64_t address = 0;  // start of the overlap
    std::uint64_t bytes = 0;
    std::string buffer;        // GM buffer name, or the local space name
    std::uint64_t offset = 0;  // offset of `address` inside `buffer`
    // Runtime programs (Simulator::run_host): who made the access and the host call it
    // belongs to. `call` is empty for kernels launched with Simulator::launch and for
    // Simulator::write.
    AccessOrigin origin = AccessOrigin::Kernel;
    std::string call;          // "launch", "memcpy_async", "memset_async", "memcpy", ...
    std::string call_site;     // its host call site, "prog.cpp:40" (a scenario: a JSON pointer)
    std::uint32_t stream = 0;  // the stream it was queued on (Kernel, Stream)
    std::string stream_name;   // the name the program gave it (stream_label())
};

struct Finding {
    FindingKind kind = FindingKind::RaceRAW;
    Severity severity = Severity::Error;
    RaceScope scope = RaceScope::None;
    MemSpace space = MemSpace::GM;
    std::vector<AccessSite> sites;  // races: the earlier access first; others: one site
    std::string message;            // one line: what is wrong
    std::string fix;                // one line: what would fix it
    std::uint64_t count = 1;        // instances folded into this finding (same source pair)
};

std::string_view to_string(FindingKind kind);  // "RAW", "WAR", "WAW", "unpaired SetFlag", ...
/// "intra-pipe", "inter-pipe", "inter-core", "inter-stream", "host" ("" for None)
std::string_view to_string(RaceScope scope);
bool is_race(FindingKind kind);

}  // namespace npusim
