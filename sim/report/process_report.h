// The report of an Ascend C host process (npusim_ascendc's Process, NPUSIM_REPORT=<file>):
// how its runs ended and the checker's findings, as JSON for tools.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/types.h"
#include "sync/check/findings.h"

namespace npusim {

struct ProcessReport {
    std::string chip;
    std::uint64_t runs = 0;
    Cycle last_end_cycle = 0;
    bool runs_completed = true;  // false when a run deadlocked, was interrupted or failed
    int program_status = 0;      // what the user's main returned
};

/// The report as JSON text (schema "npusim-process-report/1", 2-space indent, newline-ended).
std::string process_report_json(const ProcessReport& report, const std::vector<Finding>& findings);

}  // namespace npusim
