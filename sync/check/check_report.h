// Checker findings as text (the layout Ascend kernel developers read from the vendor
// sanitizer) and as JSON for tools.
//
//   ERROR: Potential RAW hazard detected at UB in kernel vadd:
//       PIPE_MTE2 Write at UB+0x100 in block 0 (aiv) serialNo 3 at vadd.cpp:17:5
//       PIPE_V Read at UB+0x100 in block 0 (aiv) serialNo 5 at vadd.cpp:22:5
//       scope: inter-pipe; 4 instances
//       fix: SetFlag<MTE2_V> after line 17 and WaitFlag<MTE2_V> before line 22
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sync/check/findings.h"

namespace npusim {

std::string format_findings(const std::vector<Finding>& findings);
/// One line: "checker: 2 errors, 1 warning" or "checker: no findings". With `interrupted`
/// (the run was stopped before it finished): "checker (interrupted, findings so far): ...".
std::string format_findings_summary(const std::vector<Finding>& findings, bool interrupted = false);
nlohmann::json findings_to_json(const std::vector<Finding>& findings);

}  // namespace npusim
