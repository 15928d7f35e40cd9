// The default task of a study: the point's scenario document run as `npusim run` would run
// it (checker on), summarised as the result columns of sim/study/sweep_output.h.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/engine/run_result.h"
#include "sim/study/sweep.h"
#include "sync/check/findings.h"

namespace npusim {

/// Parses the point's document as a scenario (errors name the file and pointer) and runs
/// schedule `schedule` of it: the placement seed and the start-jitter seed are `seed`.
SweepTaskRunner scenario_task_runner();

/// The result columns for a run (kSweepResultColumns without host_seconds).
nlohmann::json sweep_result_columns(const RunResult& run, const std::vector<Finding>& findings,
                                    const std::string& expect_status);

}  // namespace npusim
