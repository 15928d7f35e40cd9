// The "expect" block of a scenario file: what a run must produce for `npusim run` to exit 0.
// A scenario with expectations is a regression test (docs/scenarios.md).
//
//   "expect": {"outcome": "completed", "cycles": {"min": 1000, "max": 90000},
//              "buffers": {"z": {"all": 3.0}, "h": {"equals": [0, 1, 2], "tolerance": 1e-6}},
//              "findings": [{"kind": "RAW", "scope": "inter-core"}],
//              "warnings": [{"op": "/host/4", "contains": "destroyed"}],
//              "statuses": [{"op": 3, "status": "NotReady"}],
//              "kernels": [{"kernel": 1, "end": {"max": 40000}}]}
//
// Rules: each listed finding, warning and status must occur (each matched by a distinct
// one). Error-level findings no entry covers fail. With "warnings" given, a runtime warning no
// entry covers fails. A call that threw (the host program stopped) fails unless "statuses"
// names it. "outcome" defaults to "completed"; "output" (single-kernel form: the built-in
// kernel's own check) to "correct", "wrong" or "any" for racy kernels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/engine/run_result.h"
#include "sim/host/runtime.h"
#include "sim/scenario/host_program_runner.h"
#include "sim/scenario/scenario_host.h"
#include "sync/check/finding_match.h"

namespace npusim {

class Diagnostics;  // base/config_diagnostics.h

struct BufferExpectation {
    std::string buffer;
    std::string pointer;  // "/expect/buffers/z"
    enum class Kind : std::uint8_t { Equals, All, Range } kind = Kind::All;
    std::vector<double> values;  // Equals
    double value = 0.0;          // All
    double start = 0.0, step = 1.0;
    double tolerance = 0.0;  // absolute
    std::string file;        // Equals from a golden file (as written; its values fill `values`)
};

struct FindingExpectation {
    std::string pointer;
    Expected match;
    bool any_race = false;              // kind "race": RAW, WAR or WAW
    std::optional<std::string> kernel;  // the first access's kernel name
};

struct WarningExpectation {
    std::string pointer;
    std::string op;  // the call's pointer, "/host/4"
    std::string contains;
};

struct StatusExpectation {
    std::string pointer;
    std::string op;
    Status status = Status::Success;
};

/// Cycle window of one kernel, by launch order (the run report's kernel id).
struct KernelExpectation {
    std::string pointer;
    std::uint32_t kernel = 0;
    std::optional<Cycle> start_min, start_max, end_min, end_max;
};

struct ScenarioExpect {
    bool present = false;
    RunOutcome outcome = RunOutcome::Completed;
    /// Single-kernel form: the built-in kernel's own output check after a completed run.
    enum class Output : std::uint8_t { Correct, Wrong, Any } output = Output::Correct;
    std::optional<Cycle> min_cycles, max_cycles;
    std::vector<KernelExpectation> kernels;
    std::vector<BufferExpectation> buffers;
    std::vector<FindingExpectation> findings;
    std::vector<WarningExpectation> warnings;
    bool warnings_listed = false;
    std::vector<StatusExpectation> statuses;
};

/// Reads "expect". `host` (null for single-kernel scenarios) resolves buffer names and the
/// calls "op" refers to: an index into "host", or a pointer ("/host/3", "/buffers/x",
/// "/streams/0", "/events/e1").
ScenarioExpect read_expect(const nlohmann::json& value, const HostProgramSpec* host,
                           Diagnostics& diag);

struct ExpectationResult {
    std::string pointer;  // of the expectation ("/expect/statuses/0"), "" for implicit ones
    std::string what;     // "status of /host/3 is NotReady"
    bool held = false;
    std::string detail;  // what happened instead
};

struct ExpectationReport {
    std::vector<ExpectationResult> results;
    std::set<std::size_t> covered_calls;                             // indices into calls
    std::set<std::pair<std::size_t, std::size_t>> covered_warnings;  // (call, warning)
    std::set<std::size_t> covered_findings;
    bool all_held() const;
};

/// Checks every expectation against a run. `host` is null for single-kernel scenarios.
ExpectationReport evaluate_expectations(const ScenarioExpect& expect, const RunResult& run,
                                        const std::vector<Finding>& findings, bool checked,
                                        const HostProgramOutcome* host);

}  // namespace npusim
