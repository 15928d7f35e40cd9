// A study's results: one row per (point, schedule), written as CSV or JSON (by the file's
// extension) in task order whatever the number of workers or shards, read back for --resume
// and `npusim merge`. Pure: no SystemC, no processes.
//
// Columns: task, point, schedule, seed, one per axis (named by its JSON pointer), status
// (ok | error | crashed | timeout), error, then kSweepResultColumns. Cells are JSON values;
// in CSV a string is written as is and anything else as compact JSON, so reading a file and
// writing it again gives the same bytes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/study/sweep_plan.h"

namespace npusim {

/// What a run of one point reports, in output order (docs/sweeps.md explains each).
inline constexpr std::array<const char*, 13> kSweepResultColumns = {
    "outcome",             // completed | deadlock | kernel_error | invalid | interrupted
    "makespan_cycles",     // simulated cycles of the whole run
    "kernel_cycles",       // "name=cycles;..." per kernel in launch order
    "vector_utilization",  // busy fraction of the vector cores' pipes (mean over pipes)
    "cube_utilization",
    "deadlock",            // true | false
    "deadlock_kind",       // the first deadlock finding's kind, "" if none
    "hazards",             // checker findings of error severity
    "warnings",            // checker warnings plus host-runtime warnings
    "expect",              // pass | fail | none
    "possible_deadlock",   // the vendor rule warns (DeadlockPredictor): true | false
    "reachable_deadlock",  // the exact verdict: true | false | "" (not computed: mixed kernels)
    "host_seconds",        // wall time of the run (the one column that varies between runs)
};

struct SweepRow {
    std::size_t task = 0;
    std::size_t point = 0;
    std::uint32_t schedule = 0;
    std::uint64_t seed = 0;
    std::vector<nlohmann::json> values;  // one per axis
    std::string status = "ok";
    std::string error;
    nlohmann::json result = nlohmann::json::object();  // kSweepResultColumns (missing: "")
};

/// The header of a study's output: fixed columns, axes, results.
std::vector<std::string> sweep_columns(const std::vector<std::string>& axis_pointers);
std::vector<std::string> axis_pointers(const SweepPlan& plan);

/// Writes rows (sorted by task) to `file` under the output rule (base/output_file.h:
/// atomically, never over a folder or a device). ".json" writes {"npusim_sweep": 1,
/// "source", "study", "columns", "rows": [{column: value}]}, anything else CSV with the
/// comment lines "# npusim sweep of SOURCE" and "# study {...}" first. `study` is the
/// study's fingerprint (sim/study/study_fingerprint.h). Throws UsageError naming the file.
void write_sweep_output(const std::filesystem::path& file, const std::string& source,
                        const std::vector<std::string>& axis_pointers, const nlohmann::json& study,
                        std::vector<SweepRow> rows);

struct SweepOutput {
    std::string source;
    std::vector<std::string> axis_pointers;
    nlohmann::json study;  // the fingerprint; null in files of older npusim versions
    std::vector<SweepRow> rows;
};
/// Reads an output written by write_sweep_output. Throws ConfigError naming the file (and
/// line or pointer) when it is not one.
SweepOutput read_sweep_output(const std::filesystem::path& file);

/// Combines shard outputs (`names[i]` names inputs[i] in messages): rows by task, a task
/// present twice kept once (the first input wins). Throws UsageError naming the input and
/// the difference when the inputs are different studies (fingerprints, or without them
/// source and axes). The result's study is the inputs' with shard "1/1".
SweepOutput merge_sweep_outputs(const std::vector<SweepOutput>& inputs,
                                const std::vector<std::string>& names);

/// One CSV line (RFC 4180 quoting), without the newline; and its inverse for one line.
std::string csv_line(const std::vector<std::string>& cells);
std::vector<std::string> parse_csv_line(const std::string& line, bool& ok);

}  // namespace npusim
