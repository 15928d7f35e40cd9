#include "sync/check/check_report.h"

#include <algorithm>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/launch_identity.h"
#include "base/transaction.h"

namespace npusim {

namespace {

std::string location(const AccessSite& s) {
    if (s.where.file_name() == nullptr || *s.where.file_name() == '\0') return "?";
    return format_location(s.where);
}

std::string describe(const AccessSite& s) {
    const std::string access =
        std::string(s.write ? " Write" : " Read") + " at " + s.buffer + "+" + hex_string(s.offset);
    switch (s.origin) {
        case AccessOrigin::Stream:
            return s.call + access + " on " + stream_label(s.stream, s.stream_name) + " at " +
                   s.call_site;
        case AccessOrigin::HostThread:
            return s.call + access + " on the host thread at " + s.call_site;
        case AccessOrigin::Kernel:
            break;
    }
    std::string text = std::string(to_string(s.pipe)) + access + " in block " +
                       std::to_string(s.block) + " (" + std::string(to_string(s.core_type)) +
                       ") serialNo " + std::to_string(s.serial) + " at " + location(s);
    if (!s.call.empty()) {
        text += " (" + s.call + " on " + stream_label(s.stream, s.stream_name) + " at " +
                s.call_site + ")";
    }
    return text;
}

/// Who made the access, for the head line of an inter-stream or host race.
std::string who(const AccessSite& s) {
    switch (s.origin) {
        case AccessOrigin::Stream:
            return s.call + " on " + stream_label(s.stream, s.stream_name);
        case AccessOrigin::HostThread:
            return s.call + " on the host thread";
        case AccessOrigin::Kernel:
            break;
    }
    return "kernel " + s.kernel +
           (s.call.empty() ? "" : " on " + stream_label(s.stream, s.stream_name));
}

bool between_host_calls(const Finding& f) {
    return (f.scope == RaceScope::InterStream || f.scope == RaceScope::Host) && f.sites.size() == 2;
}

std::string not_shown(std::size_t shown, std::size_t total, const char* prefix) {
    if (shown >= total) return "";
    const std::size_t more = total - shown;
    return std::string(prefix) + std::to_string(more) +
           (more == 1 ? " more finding" : " more findings") + " not shown (--print-limit " +
           std::to_string(shown) + ")\n";
}

std::string vendor_site(const AccessSite& s) {
    if (s.origin != AccessOrigin::Kernel) return describe(s);
    std::string at = "?";
    if (s.where.file_name() != nullptr && *s.where.file_name() != '\0') {
        const std::string_view file = s.where.file_name();
        at = std::string(file.substr(file.rfind('/') + 1)) + ":" + std::to_string(s.where.line());
    }
    return std::string(to_string(s.pipe)) + (s.write ? " Write" : " Read") + " at " + s.buffer +
           "+" + hex_string(s.offset) + " in block " + std::to_string(s.block) + " (" +
           std::string(to_string(s.core_type)) + ") on device 0 at " + at +
           " (serialNo:" + std::to_string(s.serial) + ")";
}

/// The vendor's heading for a finding that is not a race.
std::string vendor_heading(const Finding& f) {
    const std::uint64_t bytes = f.sites.empty() ? 0 : f.sites.front().bytes;
    const bool write = !f.sites.empty() && f.sites.front().write;
    switch (f.kind) {
        case FindingKind::UninitializedRead:
            return "uninitialized read of size " + std::to_string(bytes);
        case FindingKind::OutOfBounds:
        case FindingKind::UseAfterFree:
            return std::string(write ? "illegal write of size " : "illegal read of size ") +
                   std::to_string(bytes);
        case FindingKind::UnpairedSetFlag:
            return "Unpaired set_flag instructions detected";
        case FindingKind::Leak:
            return "LeakCheck: detected memory leaks";
        case FindingKind::UnusedMemory:
            return "Unused memory of " + std::to_string(bytes) + " byte(s)";
        default:
            return std::string(to_string(f.kind));
    }
}

}  // namespace

std::string format_findings_vendor(const std::vector<Finding>& findings, std::size_t limit) {
    std::ostringstream out;
    const std::size_t shown = limit == 0 ? findings.size() : std::min(limit, findings.size());
    for (std::size_t i = 0; i < shown; ++i) {
        const Finding& f = findings[i];
        const char* level = f.severity == Severity::Error ? "ERROR" : "WARNING";
        const std::string kernel = f.sites.empty() ? "?" : f.sites.front().kernel;
        if (is_race(f.kind)) {
            out << "====== " << level << ": Potential " << to_string(f.kind)
                << " hazard detected at " << to_string(f.space) << " in " << kernel
                << " on device 0:\n";
        } else {
            out << "====== " << level << ": " << vendor_heading(f) << "\n";
            if (!f.sites.empty()) {
                const AccessSite& s = f.sites.front();
                out << "======    at " << hex_string(s.address) << " on " << to_string(s.space)
                    << " in " << kernel << "\n";
            }
            out << "======    " << f.message << "\n";
        }
        for (const AccessSite& s : f.sites) {
            if (!is_race(f.kind) && s.serial == 0) continue;
            out << "======    " << vendor_site(s) << "\n";
            if (s.origin == AccessOrigin::Kernel && s.where.file_name() && *s.where.file_name())
                out << "======    #0 " << format_location(s.where) << "\n";
        }
        if (f.count > 1) out << "======    " << f.count << " instances\n";
        out << "======    fix: " << f.fix << "\n";
    }
    out << not_shown(shown, findings.size(), "====== ");
    return out.str();
}

std::string format_findings(const std::vector<Finding>& findings, std::size_t limit) {
    std::ostringstream out;
    const std::size_t shown = limit == 0 ? findings.size() : std::min(limit, findings.size());
    for (std::size_t i = 0; i < shown; ++i) {
        const Finding& f = findings[i];
        const char* level = f.severity == Severity::Error ? "ERROR" : "WARNING";
        const std::string kernel = f.sites.empty() ? "?" : f.sites.front().kernel;
        if (is_race(f.kind)) {
            out << level << ": Potential " << to_string(f.kind) << " hazard detected at "
                << to_string(f.space);
            if (between_host_calls(f)) {
                out << " between " << who(f.sites[0]) << " and " << who(f.sites[1]) << ":\n";
            } else {
                out << " in kernel " << kernel << ":\n";
            }
            for (const AccessSite& s : f.sites) out << "    " << describe(s) << "\n";
            out << "    scope: " << to_string(f.scope);
        } else {
            // Leaks and unused memory belong to no kernel: their message names the buffer.
            out << level << ": " << to_string(f.kind);
            if (!kernel.empty()) out << " in kernel " << kernel;
            out << ": " << f.message << "\n";
            for (const AccessSite& s : f.sites) {
                if (s.serial != 0) out << "    " << describe(s) << "\n";
            }
        }
        if (is_race(f.kind)) {
            if (f.count > 1) out << "; " << f.count << " instances";
            out << "\n";
        } else if (f.count > 1) {
            out << "    " << f.count << " instances\n";
        }
        out << "    fix: " << f.fix << "\n";
    }
    out << not_shown(shown, findings.size(), "");
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
            nlohmann::json a;
            if (s.origin == AccessOrigin::Kernel) {
                a = {{"kernel", s.kernel},
                     {"block", s.block},
                     {"core_type", to_string(s.core_type)},
                     {"pipe", to_string(s.pipe)},
                     {"access", s.write ? "write" : "read"},
                     {"buffer", s.buffer},
                     {"offset", s.offset},
                     {"bytes", s.bytes},
                     {"serial", s.serial},
                     {"location", location(s)}};
            } else {
                a = {{"access", s.write ? "write" : "read"},
                     {"buffer", s.buffer},
                     {"offset", s.offset},
                     {"bytes", s.bytes}};
            }
            // Runtime programs: who made it and the host call it belongs to.
            if (!s.call.empty()) {
                a["origin"] = to_string(s.origin);
                a["call"] = s.call;
                a["call_site"] = s.call_site;
                if (s.origin != AccessOrigin::HostThread) {
                    a["stream"] = s.stream;
                    if (!s.stream_name.empty()) a["stream_name"] = s.stream_name;
                }
            }
            j["accesses"].push_back(std::move(a));
        }
        list.push_back(std::move(j));
    }
    return list;
}

}  // namespace npusim
