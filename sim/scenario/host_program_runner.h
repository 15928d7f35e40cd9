// Runs a scenario's host program (sim/scenario/scenario_host.h) on a Simulator through
// Simulator::run_host, and records what each host operation did: its status, its message,
// the runtime's warnings it raised, and the buffers' final contents for the expectations.
//
// Prologue, in this order, each step's pointer standing for its call site: buffers
// ("/buffers/x", name order; device memory with Runtime::malloc, host memory with
// malloc_host; initial contents written without simulated cost), streams ("/streams/0"),
// events ("/events/e1", name order). Then the operations ("/host/0", ...). A call that
// returns a status (query_event, query_stream) is recorded and the program goes on; a
// RuntimeError is recorded with its status and the program stops there (the run still
// completes its queued work and reports).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/engine/run_result.h"
#include "sim/host/runtime.h"
#include "sim/scenario/scenario_host.h"
#include "sim/simulator.h"

namespace npusim {

/// One host call of the program (prologue step or operation) and what it did.
struct HostCallRecord {
    std::string pointer;  // "/host/3", "/buffers/x", ...
    std::string call;     // "query_event(done)"
    Status status = Status::Success;
    std::string message;                // the error's text, or the result ("0.125 ms")
    bool threw = false;                 // a RuntimeError: the program stopped here
    std::vector<std::string> warnings;  // lifecycle warnings this call raised
};

/// A buffer's contents at the end: device buffers after all work completed, host buffers
/// when the program's last operation returned (synchronize before to see async copies).
struct BufferSnapshot {
    bool read = false;
    std::string why_not;  // when !read: "freed by /host/7", "the host program did not finish"
    std::vector<double> values;
};

struct HostProgramOutcome {
    RunResult run;
    std::vector<HostCallRecord> calls;              // every call made, in order
    std::optional<std::size_t> stopped_at;          // index into `calls` of the RuntimeError
    bool finished = false;                          // the program reached its end or stopped
    std::vector<std::string> launch_streams;        // stream name of each kernel, in launch order
    std::map<std::string, BufferSnapshot> buffers;  // the `read_back` buffers
};

/// Runs `spec` on `sim` (placement comes from the simulator's SimOptions); the buffers named
/// in `read_back` are read into HostProgramOutcome::buffers at the end. Throws
/// ConfigError for operations not supported yet (capture), naming their pointer, before
/// anything runs; KernelError as Simulator::run_host does.
HostProgramOutcome run_host_program(Simulator& sim, const HostProgramSpec& spec,
                                    const RuntimeOptions& options, const std::string& origin,
                                    const std::set<std::string>& read_back = {});

}  // namespace npusim
