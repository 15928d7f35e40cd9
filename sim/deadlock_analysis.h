// Analysis of a run that can make no progress: builds the wait-for graph
// (sync/deadlock/wait_for_graph.h) from the scheduler's state (who holds which core, which
// blocks wait for one), the stuck blocks (what each waits for) and the host runtime's wait
// state (stream heads, what the host thread waits for), and turns its cycles and orphan
// waits into findings (sync/deadlock/deadlock_finding.h).
//
// Contract: plain data in, findings out; no SystemC. Simulator::run and run_host call it when
// a run ends in RunOutcome::Deadlock and put the findings in RunResult::deadlocks.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/transaction.h"
#include "sim/run_result.h"
#include "sim/runtime.h"
#include "sim/scheduler.h"
#include "sync/deadlock/deadlock_finding.h"
#include "sync/deadlock/wait_for_graph.h"

namespace npusim {

/// What a stream's head operation is, for the graph.
struct StreamHead {
    enum class Kind : std::uint8_t { Kernel, Transfer, EventRecord, EventWait };
    std::uint32_t stream = 0;
    Kind kind = Kind::Kernel;
    std::uint64_t op = 0;
    std::string call;                        // "launch", "stream_wait_event", ...
    std::string where;                       // host call site
    std::optional<std::uint32_t> kernel_id;  // Kernel: the scheduler's id, once submitted
    std::string kernel;                      // Kernel: its name
    /// EventWait: the event, and the stream whose record op it waits for.
    std::uint32_t event = 0;
    std::optional<std::uint32_t> waits_for_stream;
    std::string record_where;  // EventWait: the record's call site
};

/// What the host thread waits for when the chip stopped.
struct HostWaitPoint {
    enum class Kind : std::uint8_t { Stream, Event, Device, Copy };
    Kind kind = Kind::Stream;
    std::string call;                    // "synchronize_stream", ...
    std::string where;                   // host call site
    std::vector<std::uint32_t> streams;  // Stream: the one; Device: every busy stream
    std::uint32_t event = 0;             // Event
};

struct DeadlockInputs {
    SchedulerState scheduler;
    std::vector<StuckBlock> stuck;  // every stuck block on a core (core >= 0); others ignored
    CoreCapacity capacity;
    bool runtime = false;  // run_host: kernels have streams, stream heads and host below
    std::vector<StreamHead> stream_heads;
    std::optional<HostWaitPoint> host;
};

/// The runtime part of the inputs from the runtime's wait state (sim/runtime.h).
void add_runtime_state(DeadlockInputs& inputs, const RuntimeWaitState& state);

/// The graph alone (for tests and `--explain` style tools).
WaitForGraph build_wait_for_graph(const DeadlockInputs& inputs);

/// Builds the graph and describes its deadlocks.
std::vector<DeadlockFinding> analyze_deadlock(const DeadlockInputs& inputs);

}  // namespace npusim
