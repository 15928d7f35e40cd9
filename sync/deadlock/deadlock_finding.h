// Deadlock findings: one per deadlock of a stuck run (a cycle or an orphan wait of the
// wait-for graph, sync/deadlock/wait_for_graph.h), plus host waits stuck behind them, the
// watchdogs' stops, and the predictor's "possible deadlock" warnings. Each finding says what
// kind of deadlock it is, spells the cycle in words, names every participant (kernel,
// stream, blocks, cores, source line or host call site) and gives the fix.
//
//   kernel A (stream 1) blocks 0-23 wait at SyncAll line 40 (k.cpp) for blocks 24-29,
//   which wait for a vector core held by kernel C (stream 2) blocks 0-23, which wait at
//   SyncAll line 40 (k.cpp) for blocks 24-29, which wait for a vector core held by
//   kernel A (stream 1) blocks 0-23 again
//
// Contract: plain data, no SystemC; the same graph gives the same findings, text included.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/chip_config.h"
#include "sync/deadlock/wait_for_graph.h"

namespace npusim {

enum class DeadlockKind : std::uint8_t {
    BarrierCycleAcrossKernels,  // barriers of two or more kernels wait for each other's cores
    BlocksExceedCores,          // one kernel's barrier waits for its own blocks without a core
    WaitCycle,                  // any other cycle (cross-core flags and barriers of one kernel)
    OrphanFlagWait,             // a WaitFlag whose SetFlag is never issued
    OrphanCrossCoreWait,        // a CrossCoreWaitFlag no block can set
    OrphanBarrierWait,          // a SyncAll that blocks which already finished never reached
    OrphanGmFlagWait,           // a wait for a flag in GM (IBWait, WaitPreBlock) no block sets
    HostWaitsOnStuckStream,     // the host thread waits for work that cannot finish
    SimulatedTimeLimit,         // watchdog: the run passed SimOptions::max_cycles
    NoProgressLimit,            // watchdog: nothing progressed for SimOptions::no_progress_cycles
    PossibleDeadlock,           // prediction: this launch pattern can deadlock under some timing
};
/// "barrier cycle across kernels", "blocks exceed cores", ... (stable: JSON and tests use it)
std::string_view to_string(DeadlockKind kind);

/// One party of a deadlock: a group of blocks of a kernel, or the host thread.
struct DeadlockParticipant {
    std::string kernel;  // "" for the host thread
    std::uint32_t kernel_id = 0;
    std::optional<std::uint32_t> stream;  // launched through the runtime
    std::string stream_name;              // the name the program gave it ("": none)
    std::string blocks;                   // "0-23", "24-29", "5" ("" for the host)
    std::string state;   // "at SyncAll", "waiting for a vector core", "host: synchronize_stream"
    std::string cores;   // cores it holds: "aiv 0-23" ("" if none)
    std::string where;   // kernel source location or host call site
    std::string launch;  // host call site of the kernel's launch, if known
};

struct DeadlockFinding {
    DeadlockKind kind = DeadlockKind::WaitCycle;
    std::string summary;  // one line: what happened
    std::string cycle;    // the cycle (or wait chain) in words
    std::vector<DeadlockParticipant> participants;
    std::string fix;
    /// PossibleDeadlock only: the exact verdict beside the rule's warning (DeadlockPredictor:
    /// exact_deadlock_verdict): reachable, or not (the rule is conservative there); unset
    /// where it is not computed. `verdict` says it with the arithmetic.
    std::optional<bool> reachable;
    std::string verdict;
    /// Identity across schedules: the kind and the participants' kernels, streams and source
    /// lines, without block numbers or cores (those depend on the placement).
    std::string signature;
};

/// The chip capacity the fixes quote.
struct CoreCapacity {
    std::uint32_t vector_cores = 0;
    std::uint32_t cube_cores = 0;
};
inline CoreCapacity capacity_of(const ChipConfig& chip) {
    return {static_cast<std::uint32_t>(chip.vector_cores),
            static_cast<std::uint32_t>(chip.cube_cores)};
}

/// Findings for every cycle and orphan of `graph`, then for the host thread if it waits
/// behind one. Order: cycles and orphans in vertex order, then host findings.
std::vector<DeadlockFinding> describe_deadlocks(const WaitForGraph& graph,
                                                const WaitForAnalysis& analysis,
                                                const CoreCapacity& capacity);

/// "0-23", "5", "0-3, 8-11" for a sorted list of indices.
std::string format_ranges(const std::vector<std::uint32_t>& sorted);

/// Several lines for a terminal: "deadlock 1: <kind>: <summary>", the cycle, each participant,
/// "fix: ...".
std::string format_deadlock(const DeadlockFinding& finding, std::size_t number);

}  // namespace npusim
