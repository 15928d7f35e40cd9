#include "sim/study/study_fingerprint.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <set>

#include "sim/kernels/kernel_registry.h"

namespace npusim {

namespace {

std::string fnv1a64(const std::string& text) {
    std::uint64_t hash = 14695981039346656037ULL;
    for (const char c : text) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 1099511628211ULL;
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
    return std::string("fnv1a64:") + hex;
}

std::string shown(const nlohmann::json& value) {
    return value.is_null() ? "(none)" : value.dump();
}

/// "K/N" -> {K, N}; {0, 0} when it is not one.
std::pair<std::size_t, std::size_t> parse_shard_text(const std::string& text) {
    unsigned long k = 0, n = 0;
    char tail = 0;
    if (std::sscanf(text.c_str(), "%lu/%lu%c", &k, &n, &tail) != 2 || k == 0 || k > n) return {};
    return {k, n};
}

}  // namespace

nlohmann::json study_fingerprint(const SweepPlan& plan, const Shard& shard) {
    nlohmann::json axes = nlohmann::json::array();
    for (const SweepAxis& axis : plan.axes) {
        nlohmann::json entry = {{"axis", axis.pointer}, {"values", axis.values}};
        if (!axis.links.empty()) {
            nlohmann::json links = nlohmann::json::array();
            for (const SweepAxis::Link& link : axis.links)
                links.push_back({{"set", link.pointer}, {"values", link.values}});
            entry["links"] = std::move(links);
        }
        axes.push_back(std::move(entry));
    }
    return {{"scenario_hash", fnv1a64(plan.document.dump())},
            {"axes", std::move(axes)},
            {"schedules", plan.schedules},
            {"seed", plan.seed},
            {"npusim_version", NPUSIM_VERSION_STRING},
            {"tasks", plan.tasks()},
            {"shard", std::to_string(shard.index) + "/" + std::to_string(shard.count)}};
}

std::string study_difference(const nlohmann::json& expected, const nlohmann::json& found,
                             const std::string& expected_label, const std::string& found_label) {
    const auto at = [](const nlohmann::json& j, const char* key) {
        return j.is_object() && j.contains(key) ? j[key] : nlohmann::json();
    };
    const std::string here = " in " + expected_label + ", ";
    const std::string there = " in " + found_label;
    if (!expected.is_object()) return expected_label + " names no study (an older npusim wrote it)";
    if (!found.is_object()) return found_label + " names no study (an older npusim wrote it)";
    std::string text;
    const auto differ = [&](const char* key, const std::string& what) {
        const nlohmann::json a = at(expected, key), b = at(found, key);
        if (a == b) return;
        if (!text.empty()) text += "; ";
        text += what + " " + shown(a) + here + shown(b) + there;
    };
    differ("scenario_hash", "the scenario's content:");
    const nlohmann::json ea = at(expected, "axes"), fa = at(found, "axes");
    if (ea != fa) {
        if (!text.empty()) text += "; ";
        if (ea.size() != fa.size()) {
            text += std::to_string(ea.size()) + " axes" + here + std::to_string(fa.size()) + there;
        } else {
            for (std::size_t i = 0; i < ea.size(); ++i) {
                if (ea[i] == fa[i]) continue;
                text += "axis " + shown(at(ea[i], "axis")) + " " + shown(at(ea[i], "values")) +
                        here + shown(at(fa[i], "axis")) + " " + shown(at(fa[i], "values")) + there;
                break;
            }
        }
    }
    differ("schedules", "schedules");
    differ("seed", "seed");
    differ("npusim_version", "npusim version");
    differ("tasks", "tasks");
    return text;
}

std::string describe_missing_tasks(const nlohmann::json& fingerprint,
                                   const std::vector<std::size_t>& tasks,
                                   const std::vector<std::string>& shards) {
    if (!fingerprint.is_object() || !fingerprint.contains("tasks") ||
        !fingerprint["tasks"].is_number_unsigned())
        return "";
    const std::size_t total = fingerprint["tasks"].get<std::size_t>();
    const std::set<std::size_t> present(tasks.begin(), tasks.end());
    std::vector<std::size_t> missing;
    for (std::size_t t = 0; t < total; ++t)
        if (!present.contains(t)) missing.push_back(t);
    if (missing.empty()) return "";
    std::string text =
        std::to_string(missing.size()) + " of " + std::to_string(total) + " tasks missing (";
    for (std::size_t i = 0; i < missing.size() && i < 10; ++i)
        text += (i > 0 ? ", " : "") + std::to_string(missing[i]);
    text += missing.size() > 10 ? ", ...)" : ")";
    // The shard count the inputs were cut into: name each shard that lost tasks.
    std::size_t count = 0;
    std::set<std::size_t> seen;
    for (const std::string& s : shards) {
        const auto [k, n] = parse_shard_text(s);
        if (n > 1) {
            count = n;
            seen.insert(k);
        }
    }
    if (count == 0) return text;
    std::set<std::size_t> lost;
    for (const std::size_t t : missing) lost.insert(t % count + 1);
    text += ":";
    for (const std::size_t k : lost) {
        text += " shard " + std::to_string(k) + "/" + std::to_string(count) +
                (seen.contains(k) ? " (its output is partial)" : " (no input holds it)") + ",";
    }
    text.pop_back();
    return text;
}

}  // namespace npusim
