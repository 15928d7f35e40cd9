#include "sync/check/finding_match.h"

namespace npusim {

bool matches(const Finding& f, const Expected& e) {
    if (f.kind != e.kind) return false;
    if (e.space && f.space != *e.space) return false;
    if (e.scope && f.scope != *e.scope) return false;
    const AccessSite* first = f.sites.empty() ? nullptr : &f.sites.front();
    const AccessSite* second = f.sites.size() > 1 ? &f.sites[1] : first;
    if (e.first_pipe && (first == nullptr || first->pipe != *e.first_pipe)) return false;
    if (e.second_pipe && (second == nullptr || second->pipe != *e.second_pipe)) return false;
    if (e.first_line && (first == nullptr || first->where.line() != *e.first_line)) return false;
    if (e.second_line && (second == nullptr || second->where.line() != *e.second_line))
        return false;
    return true;
}

std::string describe(const Expected& e) {
    std::string text(to_string(e.kind));
    if (e.space) text += " at " + std::string(to_string(*e.space));
    if (e.scope) text += " (" + std::string(to_string(*e.scope)) + ")";
    if (e.first_pipe || e.first_line) {
        text += " first " +
                (e.first_pipe ? std::string(to_string(*e.first_pipe)) : std::string("*")) + ":" +
                (e.first_line ? std::to_string(*e.first_line) : std::string("*"));
    }
    if (e.second_pipe || e.second_line) {
        text += " second " +
                (e.second_pipe ? std::string(to_string(*e.second_pipe)) : std::string("*")) + ":" +
                (e.second_line ? std::to_string(*e.second_line) : std::string("*"));
    }
    return text;
}

std::string describe(const Finding& f) {
    std::string text(to_string(f.kind));
    text += " at " + std::string(to_string(f.space));
    if (f.scope != RaceScope::None) text += " (" + std::string(to_string(f.scope)) + ")";
    for (std::size_t i = 0; i < f.sites.size(); ++i) {
        const AccessSite& s = f.sites[i];
        text += i == 0 ? " first " : " second ";
        if (s.origin != AccessOrigin::Kernel) {
            text += s.call + " at " + s.call_site;
            continue;
        }
        text += std::string(to_string(s.pipe)) + ":" + std::to_string(s.where.line()) + " block " +
                std::to_string(s.block);
        if (!s.call.empty()) text += " (" + s.call + " at " + s.call_site + ")";
    }
    if (!f.message.empty() && !is_race(f.kind)) text += ": " + f.message;
    return text;
}

std::string compare_findings(const std::vector<Finding>& findings,
                             const std::vector<Expected>& expected) {
    std::vector<bool> used(findings.size(), false);
    std::string problems;
    for (const Expected& e : expected) {
        bool found = false;
        for (std::size_t i = 0; i < findings.size() && !found; ++i) {
            if (!used[i] && matches(findings[i], e)) used[i] = found = true;
        }
        if (!found) problems += "missing: " + describe(e) + "\n";
    }
    for (std::size_t i = 0; i < findings.size(); ++i) {
        if (!used[i]) problems += "unexpected: " + describe(findings[i]) + "\n";
    }
    return problems;
}

}  // namespace npusim
