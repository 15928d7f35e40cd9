// Scenario files (configs/scenarios/*.json), in two forms (docs/scenarios.md):
//  - single kernel: which chip, which built-in kernel, how many blocks, which parameters;
//  - host program: runtime settings, buffers, streams, events and host operations
//    (sim/scenario/scenario_host.h), run on the host runtime (sim/host/runtime.h).
// Either form may carry an "expect" block (sim/scenario/scenario_expect.h).
//
//   { "npusim_scenario": 1,               // the format version (optional; only 1 exists)
//     "description": "48-core double-buffered vector add",
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
#include "sim/kernels/builtin_kernels.h"
#include "sim/kernels/resource_estimate.h"
#include "sim/scenario/host_program_runner.h"
#include "sim/scenario/scenario_expect.h"
#include "sim/scenario/scenario_host.h"
#include "sim/scenario/scenario_overrides.h"
#include "sync/check/checker.h"
#include "sync/check/finding_filter.h"
#include "sync/check/findings.h"

namespace npusim {

/// The scenario format this npusim reads ("npusim_scenario": 1); any other value is an error.
inline constexpr std::uint64_t kScenarioFormatVersion = 1;

struct Scenario {
    std::string source;  // file it came from
    std::string description;
    ChipConfig chip;
    std::string kernel;  // a name from builtin_kernels(); empty for a host program
    std::uint32_t blocks = 1;
    std::map<std::string, std::uint64_t> params;  // every parameter, defaults filled in
    // "skew": {"offsets": [0, 0, 5000], "jitter_cycles": 200, "seed": 7}: block start delays
    std::vector<Cycle> start_offsets;
    Cycle start_jitter_cycles = 0;
    std::uint64_t jitter_seed = 1;
    ScenarioKernels kernels;              // "kernels": JSON and user-library kernels
    RuntimeSection runtime;               // "runtime": options and placement (both forms)
    std::optional<HostProgramSpec> host;  // the host-program form
    ScenarioExpect expect;                // "expect" (present = false without it)
};

/// Parses and validates; throws ConfigError naming the file and JSON pointer of every problem
/// (unknown keys with suggestions, unknown kernel or parameter, out-of-range values, a chip
/// or buffer file that does not load). `overrides` (--set) are applied to the document
/// first; one that cannot be set is a problem at its pointer.
Scenario parse_scenario(std::string_view json_text, const std::string& origin,
                        const std::filesystem::path& base_dir,
                        const std::vector<ScenarioOverride>& overrides = {});
Scenario load_scenario(const std::filesystem::path& file,
                       const std::vector<ScenarioOverride>& overrides = {});

/// The built-in kernel's needs for the scenario's blocks and parameters; for a host program
/// the sum over its buffers and launches (sim/scenario/scenario_host.h host_program_needs).
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
    KernelOutcome kernel;           // for a host program: the run (verified, no verification text)
    std::vector<Finding> findings;  // empty when the checker was off; after `filter`
    FilteredFindings filtered;      // what `filter` left out (its `kept` stays empty)
    bool checked = false;
    std::optional<HostProgramOutcome> host;  // the host-program form
    /// The scenario's expectations, or without "expect" the default ones: the run completed,
    /// the output checked out (single kernel), no error finding, no host call failed.
    ExpectationReport expectations;
    bool passed() const { return expectations.all_held(); }
};

/// Builds a simulator for the scenario's chip with `sim_options` (stop flag, progress; the
/// placement comes from the scenario), attaches `observers` and (when `check`) the checker,
/// runs the kernel or the host program and evaluates the expectations. A KernelError
/// propagates; the checker's findings up to that point are then in `findings_on_error` if
/// given. `read_all_buffers` reads every buffer of a host program back into
/// `host->buffers` (for --dump), not only those "expect" checks.
ScenarioOutcome run_scenario(const Scenario& scenario,
                             const std::vector<TransactionObserver*>& observers = {},
                             bool check = true, std::vector<Finding>* findings_on_error = nullptr,
                             const CheckerOptions& checker_options = {},
                             const SimOptions& sim_options = {}, bool read_all_buffers = false,
                             const FindingFilter& filter = {});

/// `npusim run --dump DIR`: writes every buffer of the host program that `outcome` read back
/// (run_scenario with read_all_buffers) to DIR/<name>.npy or .bin, creating DIR. Returns one
/// line per buffer: "x  dir/x.npy", or why it was not written ("freed by /host/7"). Throws
/// UsageError for a single-kernel scenario (it has no buffers: "not supported yet") and for
/// a file that cannot be written.
std::vector<std::string> dump_scenario_buffers(const Scenario& scenario,
                                               const ScenarioOutcome& outcome,
                                               const std::filesystem::path& dir,
                                               BufferFileFormat format);

}  // namespace npusim
