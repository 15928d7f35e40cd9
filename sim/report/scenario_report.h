// The host-program and expectation parts of a scenario run's report, as text and JSON
// (sim/report/report.h formats the run itself). Deterministic: fixed order, no addresses.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/scenario/scenario.h"

namespace npusim {

/// Per-stream and per-kernel cycles, every host call that returned a non-success status or
/// raised a warning (its pointer, call, status and message, "(expected)" when an
/// expectation covers it), and the expectation results: all of them when the scenario has
/// "expect", else only the failed ones. Empty for a single-kernel scenario without failures.
std::string format_scenario_details(const Scenario& scenario, const ScenarioOutcome& outcome);

/// {"host": {"streams", "kernels", "calls"}, "expectations": [...], "passed": bool}.
nlohmann::json scenario_details_to_json(const Scenario& scenario, const ScenarioOutcome& outcome);

}  // namespace npusim
