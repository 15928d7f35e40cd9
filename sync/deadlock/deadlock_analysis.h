// Analysis of a run that can make no progress: builds the wait-for graph
// (sync/deadlock/wait_for_graph.h) from the scheduler's state (who holds which core, which
// blocks wait for one), the stuck blocks (what each waits for) and the host runtime's wait
// state (stream heads, what the host thread waits for), and turns its cycles and orphan
// waits into findings (sync/deadlock/deadlock_finding.h).
//
// Contract: plain data in (sync/deadlock/wait_state.h), findings out; no SystemC. The engine
// (sim/engine/chip.cpp) calls it when a run ends in RunOutcome::Deadlock and puts the findings
// in RunResult::deadlocks.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sync/deadlock/deadlock_finding.h"
#include "sync/deadlock/wait_for_graph.h"
#include "sync/deadlock/wait_state.h"

namespace npusim {

struct DeadlockInputs {
    SchedulerState scheduler;
    std::vector<StuckBlock> stuck;  // every stuck block on a core (core >= 0); others ignored
    CoreCapacity capacity;
    /// run_host: the runtime's streams and host thread (kernels have streams, stream heads
    /// and the host are vertices); empty for Simulator::run.
    std::optional<RuntimeWaitState> runtime;
};

/// The graph alone (for tests and `--explain` style tools).
WaitForGraph build_wait_for_graph(const DeadlockInputs& inputs);

/// Builds the graph and describes its deadlocks.
std::vector<DeadlockFinding> analyze_deadlock(const DeadlockInputs& inputs);

}  // namespace npusim
