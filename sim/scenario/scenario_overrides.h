// Command-line overrides of scenario values by JSON pointer, applied to the document before
// it is validated, so an overridden value is checked like any written one:
//
//   npusim run configs/scenarios/default.json --set /blocks=8 --set /params/tile=1024
//   npusim run study.json --set /host/0/kernel=vector_add --set '/buffers/x/shape=[64,64]'
//
// The value is JSON when it parses as JSON (8, true, [64,64], {"fill": 1}), else a string
// (vector_add). The sweep's axes (sim/study/sweep_plan.h) set values the same way.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace npusim {

class Diagnostics;  // base/config_diagnostics.h

struct ScenarioOverride {
    std::string argument;  // "/blocks=8", as given (for messages)
    std::string pointer;   // "/blocks"
    nlohmann::json value;  // 8
};

/// Parses "PATH=VALUE". Throws UsageError naming the argument when there is no '=', or PATH
/// is not a JSON pointer, or is empty (the whole document).
ScenarioOverride parse_scenario_override(std::string_view argument);

/// Sets `value` at `pointer` in `document`. The parent must exist: an object gains (or
/// replaces) the key, an array's element must exist. Returns false, changing nothing, when
/// the pointer is malformed or its parent is missing or not a container.
bool set_json_pointer(nlohmann::json& document, const std::string& pointer,
                      const nlohmann::json& value);

/// Applies `overrides` in order; each one that cannot be set is reported at its pointer
/// ("--set /host/9/blocks=4: ... no object or array element at /host/9").
void apply_overrides(nlohmann::json& document, const std::vector<ScenarioOverride>& overrides,
                     Diagnostics& diag);

}  // namespace npusim
