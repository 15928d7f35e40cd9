#include "sim/report/process_report.h"

#include <nlohmann/json.hpp>

#include "sync/check/check_report.h"

namespace npusim {

std::string process_report_json(const ProcessReport& report, const std::vector<Finding>& findings) {
    nlohmann::json doc;
    doc["schema"] = "npusim-process-report/1";
    doc["chip"] = report.chip;
    doc["runs"] = report.runs;
    doc["last_end_cycle"] = report.last_end_cycle;
    doc["runs_completed"] = report.runs_completed;
    doc["program_status"] = report.program_status;
    doc["findings"] = findings_to_json(findings);
    return doc.dump(2) + "\n";
}

}  // namespace npusim
