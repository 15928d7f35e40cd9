// Run reports: a readable text summary and the same facts as JSON. Formatting only; the
// numbers come from RunResult. Output is deterministic (fixed decimals, fixed order).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "base/chip_config.h"
#include "sim/builtin_kernels.h"
#include "sim/run_result.h"

namespace npusim {

/// Multi-line summary: outcome, cycles and simulated time, per-kernel span, per-core per-pipe
/// busy cycles / utilization / instruction counts, and for a deadlock who waits where.
std::string format_summary(const RunResult& run, const ChipConfig& chip);

/// Summary plus the built-in kernel's output check.
std::string format_summary(const KernelOutcome& outcome, const ChipConfig& chip);

nlohmann::json to_json(const RunResult& run);
nlohmann::json to_json(const KernelOutcome& outcome);

}  // namespace npusim
