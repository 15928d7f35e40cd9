#include "sync/check/finding_filter.h"

#include <algorithm>
#include <charconv>
#include <numeric>
#include <string_view>

#include "base/config_diagnostics.h"
#include "base/config_file.h"
#include "base/json_reader.h"

namespace npusim {

namespace {

constexpr FindingKind kAllKinds[] = {
    FindingKind::RaceRAW,           FindingKind::RaceWAR,
    FindingKind::RaceWAW,           FindingKind::UnpairedSetFlag,
    FindingKind::DuplicateSetFlag,  FindingKind::UnsatisfiableWait,
    FindingKind::CrossCoreOverflow, FindingKind::OutOfBounds,
    FindingKind::UseAfterFree,      FindingKind::Leak,
    FindingKind::UnusedMemory,      FindingKind::UninitializedRead};

bool file_matches(std::string_view path, std::string_view wanted) {
    if (path == wanted) return true;
    // A file name or a path suffix, at a '/' boundary.
    return path.size() > wanted.size() && path.ends_with(wanted) &&
           path[path.size() - wanted.size() - 1] == '/';
}

bool site_matches(const AccessSite& site, const Suppression& rule) {
    if (!rule.kernel.empty() && site.kernel != rule.kernel) return false;
    if (rule.file.empty()) return true;
    if (site.origin != AccessOrigin::Kernel) return false;
    if (!file_matches(site.where.file_name(), rule.file)) return false;
    return rule.line == 0 || site.where.line() == rule.line;
}

bool rule_matches(const Finding& f, const Suppression& rule) {
    if (rule.kind && f.kind != *rule.kind) return false;
    if (rule.kernel.empty() && rule.file.empty()) return true;
    return std::any_of(f.sites.begin(), f.sites.end(),
                       [&](const AccessSite& s) { return site_matches(s, rule); });
}

bool selected(const Finding& f, const FindingFilter& filter) {
    const auto in_kernels = [&](const AccessSite& s) {
        return filter.kernels.empty() || std::find(filter.kernels.begin(), filter.kernels.end(),
                                                   s.kernel) != filter.kernels.end();
    };
    const auto in_blocks = [&](const AccessSite& s) {
        return filter.blocks.empty() || (s.origin == AccessOrigin::Kernel &&
                                         std::find(filter.blocks.begin(), filter.blocks.end(),
                                                   s.block) != filter.blocks.end());
    };
    return std::any_of(f.sites.begin(), f.sites.end(),
                       [&](const AccessSite& s) { return in_kernels(s) && in_blocks(s); });
}

std::optional<Suppression> read_rule(const nlohmann::json& entry, const std::string& pointer,
                                     const std::string& origin, Diagnostics& diag) {
    if (!require_object(entry, pointer, diag)) return std::nullopt;
    check_keys(entry, pointer, {"kind", "kernel", "at", "reason"}, diag);
    Suppression rule;
    rule.origin = origin + ":" + pointer;
    bool usable = true;
    if (entry.contains("kind")) {
        const std::string at = child_pointer(pointer, "kind");
        if (const auto text = read_string(entry.at("kind"), at, diag)) {
            std::vector<std::string_view> names;
            for (const FindingKind k : kAllKinds) {
                names.push_back(to_string(k));
                if (to_string(k) == *text) rule.kind = k;
            }
            if (!rule.kind) {
                std::string message = "unknown kind " + single_quoted(*text);
                if (auto near = nearest_name(*text, names))
                    message += " (did you mean '" + *near + "'?)";
                std::string list;
                for (const std::string_view n : names)
                    list += (list.empty() ? "" : ", ") + single_quoted(n);
                diag.add(at, message + "; expected one of " + list);
                usable = false;
            }
        } else {
            usable = false;
        }
    }
    if (entry.contains("kernel")) {
        if (const auto text =
                read_string(entry.at("kernel"), child_pointer(pointer, "kernel"), diag))
            rule.kernel = *text;
        else
            usable = false;
    }
    if (entry.contains("at")) {
        const std::string at = child_pointer(pointer, "at");
        if (const auto text = read_string(entry.at("at"), at, diag)) {
            const std::size_t colon = text->rfind(':');
            rule.file = text->substr(0, colon);
            if (colon != std::string::npos) {
                const std::string_view digits = std::string_view(*text).substr(colon + 1);
                const auto [end, error] =
                    std::from_chars(digits.data(), digits.data() + digits.size(), rule.line);
                if (error != std::errc() || end != digits.data() + digits.size() ||
                    rule.line == 0) {
                    diag.add(at, "expected FILE or FILE:LINE with a line number >= 1, got " +
                                     single_quoted(*text));
                    usable = false;
                }
            }
            if (rule.file.empty()) {
                diag.add(at, "expected FILE or FILE:LINE, got " + single_quoted(*text));
                usable = false;
            }
        } else {
            usable = false;
        }
    }
    if (entry.contains("reason"))
        (void)read_string(entry.at("reason"), child_pointer(pointer, "reason"), diag);
    if (entry.contains("reason") && entry.at("reason").is_string())
        rule.reason = entry.at("reason").get<std::string>();
    if (!entry.contains("kind") && !entry.contains("kernel") && !entry.contains("at")) {
        diag.add(pointer,
                 "a rule needs \"kind\", \"kernel\" or \"at\" (it would suppress every finding)");
        usable = false;
    }
    return usable ? std::optional<Suppression>(std::move(rule)) : std::nullopt;
}

}  // namespace

std::uint64_t FilteredFindings::suppressed_total() const {
    return std::accumulate(suppressed.begin(), suppressed.end(), std::uint64_t{0});
}

FilteredFindings filter_findings(const std::vector<Finding>& findings,
                                 const FindingFilter& filter) {
    FilteredFindings out;
    out.suppressed.assign(filter.suppressions.size(), 0);
    for (const Finding& f : findings) {
        if (!selected(f, filter)) {
            ++out.not_selected;
            continue;
        }
        bool suppressed = false;
        for (std::size_t r = 0; r < filter.suppressions.size() && !suppressed; ++r) {
            if (!rule_matches(f, filter.suppressions[r])) continue;
            out.suppressed[r] += f.count;
            suppressed = true;
        }
        if (!suppressed) out.kept.push_back(f);
    }
    return out;
}

std::vector<Suppression> load_suppressions(const std::filesystem::path& file) {
    const std::string text = read_config_file(file);
    Diagnostics diag(file.string());
    std::vector<Suppression> rules;
    const std::optional<nlohmann::json> doc = parse_json(text, diag);
    if (doc && require_object(*doc, "", diag)) {
        check_keys(*doc, "", {"suppressions"}, diag);
        if (!doc->contains("suppressions")) {
            diag.add("/suppressions", "missing: the list of rules");
        } else if (!doc->at("suppressions").is_array()) {
            diag.add("/suppressions",
                     "expected an array of rules, got " + describe_json(doc->at("suppressions")));
        } else {
            const nlohmann::json& list = doc->at("suppressions");
            for (std::size_t i = 0; i < list.size(); ++i) {
                if (auto rule =
                        read_rule(list[i], child_pointer("/suppressions", i), file.string(), diag))
                    rules.push_back(std::move(*rule));
            }
        }
    }
    diag.throw_if_any();
    return rules;
}

std::string format_suppressed(const FilteredFindings& filtered, const FindingFilter& filter) {
    const std::uint64_t total = filtered.suppressed_total();
    if (total == 0) return "";
    std::string text = "suppressed: " + std::to_string(total) + " (";
    bool first = true;
    for (std::size_t r = 0; r < filtered.suppressed.size(); ++r) {
        if (filtered.suppressed[r] == 0) continue;
        text += (first ? "" : ", ") + filter.suppressions[r].origin + ": " +
                std::to_string(filtered.suppressed[r]);
        first = false;
    }
    return text + ")";
}

}  // namespace npusim
