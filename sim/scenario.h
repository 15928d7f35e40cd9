// Scenario files (configs/scenarios/*.json): which chip, which built-in kernel, how many
// blocks, which kernel parameters. This is the minimal form; streams and sweeps extend it.
//
//   { "description": "48-core double-buffered vector add",
//     "chip": "a2",                      // a preset name, or a path relative to this file
//     "kernel": "vector_add",
//     "blocks": 48,
//     "params": { "elements": 3145728, "tile": 2048, "buffers": 2 } }
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/chip_config.h"
#include "base/transaction.h"
#include "sim/builtin_kernels.h"
#include "sim/resource_estimate.h"
#include "sync/checker.h"
#include "sync/findings.h"

namespace npusim {

struct Scenario {
    std::string source;  // file it came from
    std::string description;
    ChipConfig chip;
    std::string kernel;  // a name from builtin_kernels()
    std::uint32_t blocks = 1;
    std::map<std::string, std::uint64_t> params;  // every parameter, defaults filled in
    // "skew": {"offsets": [0, 0, 5000], "jitter_cycles": 200, "seed": 7}: block start delays
    std::vector<Cycle> start_offsets;
    Cycle start_jitter_cycles = 0;
    std::uint64_t jitter_seed = 1;
};

/// Parses and validates; throws ConfigError naming the file and JSON pointer of every problem
/// (unknown keys with suggestions, unknown kernel or parameter, out-of-range values, a chip
/// file that does not load).
Scenario parse_scenario(std::string_view json_text, const std::string& origin,
                        const std::filesystem::path& base_dir);
Scenario load_scenario(const std::filesystem::path& file);

/// The built-in kernel's needs for the scenario's blocks and parameters.
KernelNeeds scenario_needs(const Scenario& scenario);
/// Peak host memory a run of the scenario takes (with or without the checker).
HostMemoryEstimate estimate_scenario_memory(const Scenario& scenario, bool check);
/// Throws ConfigError, one line naming the scenario file, the pointer of the value that
/// drives the biggest share, the estimate and its parts, when the estimate exceeds
/// `limit_bytes` (`limit_name` says where the limit comes from: "--max-memory").
void require_memory_fits(const Scenario& scenario, bool check, std::uint64_t limit_bytes,
                         const std::string& limit_name);
/// require_memory_fits against `max_memory` (0: none) and against available_host_memory().
void check_scenario_memory(const Scenario& scenario, bool check, std::uint64_t max_memory);

struct ScenarioOutcome {
    KernelOutcome kernel;
    std::vector<Finding> findings;  // empty when the checker was off
    bool checked = false;
};

/// Builds a simulator for the scenario's chip with `sim_options` (stop flag, progress),
/// attaches `observers` and (when `check`) the checker, runs the kernel. A KernelError
/// propagates; the checker's findings up to that point are then in `findings_on_error` if
/// given.
ScenarioOutcome run_scenario(const Scenario& scenario,
                             const std::vector<TransactionObserver*>& observers = {},
                             bool check = true, std::vector<Finding>* findings_on_error = nullptr,
                             const CheckerOptions& checker_options = {},
                             const SimOptions& sim_options = {});

}  // namespace npusim
