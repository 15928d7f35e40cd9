// Run reports: a readable text summary and the same facts as JSON. Formatting only; the
// numbers come from RunResult. Output is deterministic (fixed decimals, fixed order).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/chip_config.h"
#include "sim/engine/run_result.h"
#include "sim/kernels/kernel_definition.h"

namespace npusim {

/// Multi-line summary: outcome, cycles and simulated time, per-kernel span, per-core per-pipe
/// busy cycles / utilization / instruction counts, and for a deadlock who waits where.
std::string format_summary(const RunResult& run, const ChipConfig& chip);

/// Summary plus the built-in kernel's output check.
std::string format_summary(const KernelOutcome& outcome, const ChipConfig& chip);

/// Deadlock findings (RunResult::deadlocks, or the predictor's warnings), numbered from 1.
std::string format_deadlocks(const std::vector<DeadlockFinding>& findings);

/// {"kind", "summary", "cycle", "participants": [{"role", "kernel", "stream", "blocks",
/// "state", "cores", "where", "launch"}], "fix", "signature"}; `to_json(RunResult)` puts
/// them under "deadlocks".
nlohmann::json to_json(const DeadlockFinding& finding);
nlohmann::json to_json(const RunResult& run);
nlohmann::json to_json(const KernelOutcome& outcome);

/// The version of the JSON report's layout; raised when a key changes meaning or goes away.
inline constexpr int kReportFormatVersion = 2;

/// The chip as a report records it: {"name", "source", "parameters": {JSON pointer: value}}
/// with every resolved parameter of chip_parameters() (overrides and presets applied).
nlohmann::json chip_to_json(const ChipConfig& chip);

/// What every report starts with, also the report of a run that failed: {"npusim_version",
/// "report_format", "scenario" (the path as given), "chip" (chip_to_json)}.
nlohmann::json report_header(const std::string& scenario_path, const ChipConfig& chip);

}  // namespace npusim
