#include "sim/check_report.h"

#include <algorithm>
#include <sstream>

#include "base/transaction.h"

namespace npusim {

namespace {

std::string location(const AccessSite& s) {
    if (s.where.file_name() == nullptr || *s.where.file_name() == '\0') return "?";
    return format_location(s.where);
}

std::string describe(const AccessSite& s) {
    std::string text = std::string(to_string(s.pipe)) + (s.write ? " Write" : " Read") + " at " +
                       s.buffer + "+" + hex_string(s.offset) + " in block " +
                       std::to_string(s.block) + " (" + std::string(to_string(s.core_type)) +
                       ") serialNo " + std::to_string(s.serial) + " at " + location(s);
    return text;
}

}  // namespace

std::string format_findings(const std::vector<Finding>& findings) {
    std::ostringstream out;
    for (const Finding& f : findings) {
        const char* level = f.severity == Severity::Error ? "ERROR" : "WARNING";
        const std::string kernel = f.sites.empty() ? "?" : f.sites.front().kernel;
        if (is_race(f.kind)) {
            out << level << ": Potential " << to_string(f.kind) << " hazard detected at "
                << to_string(f.space) << " in kernel " << kernel << ":\n";
            for (const AccessSite& s : f.sites) out << "    " << describe(s) << "\n";
            out << "    scope: " << to_string(f.scope);
        } else {
            out << level << ": " << to_string(f.kind) << " in kernel " << kernel << ": "
                << f.message << "\n";
            for (const AccessSite& s : f.sites) {
                if (s.serial != 0) out << "    " << describe(s) << "\n";
            }
            out << "   ";
        }
        if (f.count > 1) out << (is_race(f.kind) ? "; " : " ") << f.count << " instances";
        out << "\n    fix: " << f.fix << "\n";
    }
    return out.str();
}

std::string format_findings_summary(const std::vector<Finding>& findings, bool interrupted) {
    const std::string head = interrupted ? "checker (interrupted, findings so far): " : "checker: ";
    const auto errors = std::count_if(findings.begin(), findings.end(), [](const Finding& f) {
        return f.severity == Severity::Error;
    });
    const auto warnings = static_cast<std::ptrdiff_t>(findings.size()) - errors;
    if (findings.empty()) return head + "no findings";
    return head + std::to_string(errors) + (errors == 1 ? " error, " : " errors, ") +
           std::to_string(warnings) + (warnings == 1 ? " warning" : " warnings");
}

nlohmann::json findings_to_json(const std::vector<Finding>& findings) {
    nlohmann::json list = nlohmann::json::array();
    for (const Finding& f : findings) {
        nlohmann::json j;
        j["kind"] = to_string(f.kind);
        j["severity"] = f.severity == Severity::Error ? "error" : "warning";
        if (is_race(f.kind)) j["scope"] = to_string(f.scope);
        j["space"] = to_string(f.space);
        j["message"] = f.message;
        j["fix"] = f.fix;
        j["count"] = f.count;
        j["accesses"] = nlohmann::json::array();
        for (const AccessSite& s : f.sites) {
            j["accesses"].push_back({{"kernel", s.kernel},
                                     {"block", s.block},
                                     {"core_type", to_string(s.core_type)},
                                     {"pipe", to_string(s.pipe)},
                                     {"access", s.write ? "write" : "read"},
                                     {"buffer", s.buffer},
                                     {"offset", s.offset},
                                     {"bytes", s.bytes},
                                     {"serial", s.serial},
                                     {"location", location(s)}});
        }
        list.push_back(std::move(j));
    }
    return list;
}

}  // namespace npusim
