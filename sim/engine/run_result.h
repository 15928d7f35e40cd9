// What a run produces: outcome, timing, per-core per-pipe statistics, and for a stuck
// chip, who waits where.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/kernel_type.h"
#include "base/launch_identity.h"
#include "base/transaction.h"
#include "base/types.h"
#include "sync/deadlock/deadlock_finding.h"
#include "sync/deadlock/wait_state.h"

namespace npusim {

enum class RunOutcome : std::uint8_t {
    Completed,  // every launched kernel finished
    Deadlock,   // no block could make progress; see RunResult::stuck
    /// stopped on request (Simulator::request_stop, SimOptions::stop_flag) before every
    /// kernel finished; the statistics cover the simulated part
    Interrupted,
};

/// Every outcome's name (reports, sweeps, expectations, exploration) and its headline in the
/// text report: the one table all of them read.
struct RunOutcomeName {
    RunOutcome outcome;
    std::string_view name;
    std::string_view headline;
};
inline constexpr std::array<RunOutcomeName, 3> kRunOutcomeNames{{
    {RunOutcome::Completed, "completed", "completed"},
    {RunOutcome::Deadlock, "deadlock", "DEADLOCK"},
    {RunOutcome::Interrupted, "interrupted", "INTERRUPTED (stopped on request; partial results)"},
}};
constexpr std::string_view to_string(RunOutcome outcome) {
    for (const RunOutcomeName& row : kRunOutcomeNames) {
        if (row.outcome == outcome) return row.name;
    }
    return "unknown";
}
constexpr std::string_view headline(RunOutcome outcome) {
    for (const RunOutcomeName& row : kRunOutcomeNames) {
        if (row.outcome == outcome) return row.headline;
    }
    return "unknown";
}
/// The outcome named `name`, if any.
constexpr std::optional<RunOutcome> run_outcome_named(std::string_view name) {
    for (const RunOutcomeName& row : kRunOutcomeNames) {
        if (row.name == name) return row.outcome;
    }
    return std::nullopt;
}

/// Why a run that did not complete stopped, when a watchdog or a request stopped it.
enum class StopCause : std::uint8_t {
    None,        // completed, or a deadlock found by the wait analysis
    Request,     // Simulator::request_stop / SimOptions::stop_flag
    TimeLimit,   // SimOptions::max_cycles of simulated time passed (outcome Interrupted)
    NoProgress,  // a spinning block saw no progress for SimOptions::deadlock_idle_cycles
                 // (outcome Deadlock)
};

struct PipeUsage {
    Pipe pipe = Pipe::S;
    Cycle busy_cycles = 0;     // union of the intervals the pipe executed something
    double utilization = 0.0;  // busy_cycles / run cycles
    std::uint64_t instructions = 0;
};

struct CoreUsage {
    CoreType type = CoreType::Vector;
    std::uint32_t index = 0;
    std::uint64_t blocks = 0;
    std::vector<PipeUsage> pipes;     // in pipe order S, MTE2, (MTE1), V/M, MTE3/FIX
    std::uint64_t gm_read_bytes = 0;  // GM bytes its copies read
    std::uint64_t l2_hit_bytes = 0;   // of those, served by L2 (0 without an L2)
};

/// A launched kernel's result: its launch identity (base/launch_identity.h) and how it ran.
struct KernelResult : LaunchIdentity {
    CoreType core_type = CoreType::Vector;  // Cube for kernels with a cube part
    std::uint32_t blocks_finished = 0;
    Cycle start = 0;
    Cycle end = 0;                    // when its last block finished (valid if completed())
    std::uint64_t gm_read_bytes = 0;  // GM bytes its copies read (sum over its cores)
    std::uint64_t l2_hit_bytes = 0;   // of those, served by L2 (0 without an L2)
    bool completed() const { return blocks_finished == blocks; }
};

/// How many launches of a run keep a full KernelResult row by default
/// (SimOptions::launch_rows): a long program's later launches are summed per kernel name.
inline constexpr std::uint64_t kDefaultLaunchRows = 10'000;
/// SimOptions::launch_rows that keeps a row for every launch.
inline constexpr std::uint64_t kAllLaunchRows = ~std::uint64_t{0};

/// The launches of one kernel name past SimOptions::launch_rows: what a report needs of them
/// without one row each. Cycles are end - start of the completed ones.
struct KernelSummary {
    std::string name;
    std::uint64_t launches = 0;
    std::uint64_t completed = 0;  // launches whose every block finished
    std::uint64_t blocks = 0;     // summed over the launches
    Cycle cycles_min = 0;
    Cycle cycles_max = 0;
    Cycle cycles_total = 0;  // summed over the completed launches
    /// Checker findings naming one of these launches (filled where the findings are known:
    /// the scenario runner; 0 otherwise).
    std::uint64_t findings = 0;
    double cycles_mean() const {
        return completed == 0 ? 0.0
                              : static_cast<double>(cycles_total) / static_cast<double>(completed);
    }
};

/// A lifecycle diagnostic of the host runtime (sim/host/runtime.h): legal but suspicious use,
/// e.g. synchronizing an event whose recording stream was destroyed.
struct HostWarning {
    std::string message;
    std::string where;  // "file:line" of the host program's call
};

/// A running simulation's state, for SimOptions::progress.
struct RunProgress {
    Cycle cycles = 0;                // simulated cycles since the run started
    std::uint64_t instructions = 0;  // instructions issued since the run started
    double host_seconds = 0.0;       // wall-clock time since the run started
};

struct RunResult {
    RunOutcome outcome = RunOutcome::Completed;
    std::uint64_t clock_mhz = 0;
    Cycle start_cycle = 0;
    Cycle end_cycle = 0;
    std::uint64_t instructions = 0;
    std::uint64_t gm_bytes = 0;       // bytes moved through GM bandwidth by pipes
    std::uint64_t gm_read_bytes = 0;  // GM bytes the cores' copies read (sum over cores)
    std::uint64_t l2_hit_bytes = 0;   // of those, served by L2: the L2 read hit rate's numerator
    /// One row per launch, in launch order, for the first SimOptions::launch_rows launches.
    std::vector<KernelResult> kernels;
    /// The launches after those, per kernel name in order of first appearance (empty when
    /// every launch has its row). Their kernel ids are first_summarized_id and up.
    std::vector<KernelSummary> kernel_summaries;
    std::uint32_t first_summarized_id = 0;
    std::uint64_t launches = 0;    // every launch of the run, with a row or summed
    std::vector<CoreUsage> cores;  // cores that ran at least one block
    std::vector<StuckBlock> stuck;
    // Simulator::run_host only:
    std::vector<HostWarning> warnings;  // the runtime's lifecycle diagnostics
    /// For a Deadlock: what the host thread waited for, and where ("" if it had returned).
    std::string host_wait;
    /// For a Deadlock: one finding per deadlock (cycle or orphan wait) and per host wait
    /// stuck behind one, with its kind, the cycle in words, participants and fix.
    std::vector<DeadlockFinding> deadlocks;
    StopCause stopped_by = StopCause::None;

    Cycle cycles() const { return end_cycle - start_cycle; }
    double simulated_seconds() const {
        return static_cast<double>(cycles()) / (static_cast<double>(clock_mhz) * 1e6);
    }
    bool completed() const { return outcome == RunOutcome::Completed; }
    bool interrupted() const { return outcome == RunOutcome::Interrupted; }
};

}  // namespace npusim
