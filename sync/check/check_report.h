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

#include <nlohmann/json_fwd.hpp>  // the full header only where findings_to_json is used

#include "sync/check/findings.h"

namespace npusim {

/// The findings as text, each with its accesses' file:line and the fix. `limit` (0: all)
/// prints the first `limit` and then one line saying how many more were not shown.
std::string format_findings(const std::vector<Finding>& findings, std::size_t limit = 0);
/// The same in the vendor sanitizer's layout: every line starts with "====== ", an access is
/// "PIPE_MTE2 Write at UB+0x0 in block 0 (aiv) on device 0 at f.cpp:18 (serialNo:14)" followed
/// by "#0 f.cpp:18:22"; non-race findings follow the vendor's headings ("uninitialized read of
/// size N", "illegal write of size N", "Unpaired set_flag instructions detected"). The fix is
/// kept as a last "fix:" line (the vendor tool prints none).
std::string format_findings_vendor(const std::vector<Finding>& findings, std::size_t limit = 0);
/// One line: "checker: 2 errors, 1 warning" or "checker: no findings". With `interrupted`
/// (the run was stopped before it finished): "checker (interrupted, findings so far): ...".
std::string format_findings_summary(const std::vector<Finding>& findings, bool interrupted = false);
nlohmann::json findings_to_json(const std::vector<Finding>& findings);

}  // namespace npusim
