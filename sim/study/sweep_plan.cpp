#include "sim/study/sweep_plan.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include "base/config_diagnostics.h"
#include "base/config_file.h"
#include "base/errors.h"
#include "base/json_reader.h"
#include "sim/scenario/scenario_overrides.h"

namespace npusim {

namespace {

constexpr std::size_t kMaxAxisValues = 100000;
constexpr std::size_t kMaxTasks = 100000000;

std::optional<std::int64_t> to_integer(std::string_view text) {
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return value;
}

nlohmann::json value_of(std::string_view text) {
    nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
    if (!parsed.is_discarded()) return parsed;
    return std::string(text);
}

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    std::size_t begin = 0;
    while (true) {
        const std::size_t end = text.find(separator, begin);
        parts.push_back(text.substr(begin, end - begin));
        if (end == std::string_view::npos) return parts;
        begin = end + 1;
    }
}

void check_pointer(const std::string& pointer, const std::string& context) {
    try {
        (void)nlohmann::json::json_pointer(pointer);
    } catch (const nlohmann::json::exception&) {
        throw UsageError(context + ": '" + pointer +
                         "' is not a JSON pointer (it starts with '/', as in /host/0/blocks)");
    }
    if (pointer.empty()) {
        throw UsageError(context + ": the empty pointer would replace the whole scenario");
    }
}

void add_axis(std::vector<SweepAxis>& axes, SweepAxis axis) {
    for (SweepAxis& existing : axes) {
        if (existing.pointer == axis.pointer) {
            existing = std::move(axis);
            return;
        }
    }
    axes.push_back(std::move(axis));
}

/// A key as one JSON pointer token (RFC 6901: ~ and / escaped).
std::string pointer_token(const std::string& key) {
    std::string token;
    for (char c : key) {
        if (c == '~') {
            token += "~0";
        } else if (c == '/') {
            token += "~1";
        } else {
            token += c;
        }
    }
    return token;
}

bool valid_pointer(const std::string& pointer, const std::string& at, Diagnostics& diag) {
    try {
        check_pointer(pointer, "the value");
        return true;
    } catch (const UsageError& e) {
        diag.add(at, e.what());
        return false;
    }
}

/// An axis of a scenario's "sweep" section at `at` (already checked to have set and values).
std::optional<SweepAxis> parse_section_axis(const nlohmann::json& a, const std::string& at,
                                            Diagnostics& diag) {
    SweepAxis axis;
    for (const nlohmann::json& v : a["values"]) axis.values.push_back(v);
    const nlohmann::json& set = a["set"];
    if (!a.contains("name")) {
        if (!set.is_string()) {
            diag.add(at + "/set", "a pointer string (or give the axis a \"name\" to set several)");
            return std::nullopt;
        }
        axis.pointer = set.get<std::string>();
        if (!valid_pointer(axis.pointer, at + "/set", diag)) return std::nullopt;
        return axis;
    }
    if (!a["name"].is_string() || a["name"].get<std::string>().empty() ||
        a["name"].get<std::string>().front() == '/') {
        diag.add(at + "/name", "a column name that is not a pointer (\"streams\")");
        return std::nullopt;
    }
    axis.pointer = a["name"].get<std::string>();
    bool ok = true;
    if (set.is_array() && !set.empty()) {
        for (std::size_t j = 0; j < set.size(); ++j) {
            const std::string where = at + "/set/" + std::to_string(j);
            if (!set[j].is_string()) {
                diag.add(where, "expected a JSON pointer string");
                ok = false;
                continue;
            }
            ok = valid_pointer(set[j].get<std::string>(), where, diag) && ok;
            axis.links.push_back({set[j].get<std::string>(), {}});
        }
    } else if (set.is_object() && !set.empty()) {
        for (const auto& item : set.items()) {
            const std::string where = at + "/set/" + pointer_token(item.key());
            ok = valid_pointer(item.key(), where, diag) && ok;
            if (!item.value().is_array() || item.value().size() != axis.values.size()) {
                diag.add(where, "expected an array of " + std::to_string(axis.values.size()) +
                                    " values, one per axis value");
                ok = false;
                continue;
            }
            axis.links.push_back({item.key(), item.value().get<std::vector<nlohmann::json>>()});
        }
    } else {
        diag.add(at + "/set", "a named axis sets [pointers] or {pointer: [value per axis value]}");
        ok = false;
    }
    if (!ok) return std::nullopt;
    return axis;
}

}  // namespace

SweepAxis parse_sweep_axis(std::string_view argument) {
    const std::string context = "--set " + std::string(argument);
    const std::size_t equals = argument.find('=');
    if (equals == std::string_view::npos) {
        throw UsageError(context + ": expected PATH=v1,v2,... or PATH=start:stop:step");
    }
    SweepAxis axis;
    axis.pointer = std::string(argument.substr(0, equals));
    // A name (no leading '/') picks values of the scenario's named axis (plan_sweep checks).
    if (axis.pointer.empty() || axis.pointer.front() == '/') check_pointer(axis.pointer, context);
    const std::string_view values = argument.substr(equals + 1);
    const std::vector<std::string_view> range = split(values, ':');
    if (range.size() == 3) {
        const auto start = to_integer(range[0]);
        const auto stop = to_integer(range[1]);
        const auto step = to_integer(range[2]);
        if (!start || !stop || !step) {
            throw UsageError(context + ": start:stop:step takes three integers");
        }
        if (*step <= 0) throw UsageError(context + ": the step must be positive");
        if (*stop < *start) throw UsageError(context + ": stop is below start");
        const std::uint64_t count =
            (static_cast<std::uint64_t>(*stop - *start) / static_cast<std::uint64_t>(*step)) + 1;
        if (count > kMaxAxisValues) {
            throw UsageError(context + ": " + std::to_string(count) + " values (at most " +
                             std::to_string(kMaxAxisValues) + " per axis)");
        }
        for (std::int64_t v = *start; v <= *stop; v += *step) {
            axis.values.emplace_back(v);
            if (v > std::numeric_limits<std::int64_t>::max() - *step) break;
        }
        return axis;
    }
    for (std::string_view text : split(values, ',')) {
        if (text.empty()) throw UsageError(context + ": an empty value");
        axis.values.push_back(value_of(text));
    }
    return axis;
}

Shard parse_shard(std::string_view argument) {
    const std::size_t slash = argument.find('/');
    const auto index =
        slash == std::string_view::npos ? std::nullopt : to_integer(argument.substr(0, slash));
    const auto count =
        slash == std::string_view::npos ? std::nullopt : to_integer(argument.substr(slash + 1));
    if (!index || !count || *count < 1 || *index < 1 || *index > *count ||
        *count > std::numeric_limits<std::uint32_t>::max()) {
        throw UsageError("--shard " + std::string(argument) + ": expected K/N with 1 <= K <= N");
    }
    return {static_cast<std::uint32_t>(*index), static_cast<std::uint32_t>(*count)};
}

std::size_t SweepPlan::points() const {
    std::size_t n = 1;
    for (const SweepAxis& axis : axes) n *= axis.values.size();
    return n;
}

std::vector<nlohmann::json> SweepPlan::values_of(std::size_t point) const {
    std::vector<nlohmann::json> values(axes.size());
    for (std::size_t i = axes.size(); i-- > 0;) {
        const std::size_t n = axes[i].values.size();
        values[i] = axes[i].values[point % n];
        point /= n;
    }
    return values;
}

nlohmann::json SweepPlan::document_of(std::size_t point) const {
    nlohmann::json result = document;
    Diagnostics diag(source);
    auto set = [&](const std::string& pointer, const nlohmann::json& value) {
        if (!set_json_pointer(result, pointer, value)) {
            diag.add(pointer,
                     "a swept value cannot be set here: the scenario has no object or array "
                     "element at this pointer's parent");
        }
    };
    for (std::size_t i = axes.size(); i-- > 0;) {
        const SweepAxis& axis = axes[i];
        const std::size_t index = point % axis.values.size();
        point /= axis.values.size();
        if (axis.links.empty()) set(axis.pointer, axis.values[index]);
        for (const SweepAxis::Link& link : axis.links) {
            set(link.pointer, link.values.empty() ? axis.values[index] : link.values[index]);
        }
    }
    diag.throw_if_any();
    return result;
}

SweepPlan plan_sweep(const std::filesystem::path& file, const std::vector<SweepAxis>& extra_axes,
                     std::optional<std::uint32_t> schedules, std::optional<std::uint64_t> seed) {
    const std::string text = read_config_file(file);
    Diagnostics diag(file.string());
    std::optional<nlohmann::json> document = parse_json(text, diag);
    diag.throw_if_any();
    return plan_sweep(std::move(*document), file.string(), file.parent_path(), extra_axes,
                      schedules, seed);
}

SweepPlan plan_sweep(nlohmann::json document, const std::string& origin,
                     const std::filesystem::path& base_dir,
                     const std::vector<SweepAxis>& extra_axes,
                     std::optional<std::uint32_t> schedules, std::optional<std::uint64_t> seed) {
    SweepPlan plan;
    plan.source = origin;
    plan.base_dir = base_dir;
    Diagnostics diag(origin);
    if (!document.is_object()) {
        diag.add("", "a scenario is a JSON object");
        diag.throw_if_any();
    }
    const nlohmann::json section =
        document.contains("sweep") ? document["sweep"] : nlohmann::json::object();
    document.erase("sweep");
    if (!section.is_object()) diag.add("/sweep", "expected an object with \"axes\"");
    if (section.is_object()) {
        for (const auto& item : section.items()) {
            const std::string& key = item.key();
            if (key != "axes" && key != "schedules" && key != "seed") {
                diag.add("/sweep/" + pointer_token(key),
                         "unknown key (expected axes, schedules, seed)");
            }
        }
    }
    if (section.is_object() && section.contains("axes")) {
        const nlohmann::json& axes = section["axes"];
        if (!axes.is_array()) diag.add("/sweep/axes", "expected an array of axes");
        for (std::size_t i = 0; axes.is_array() && i < axes.size(); ++i) {
            const std::string at = "/sweep/axes/" + std::to_string(i);
            const nlohmann::json& a = axes[i];
            if (!a.is_object() || !a.contains("set") || !a.contains("values") ||
                !a["values"].is_array() || a["values"].empty()) {
                diag.add(at,
                         "expected {\"set\": \"/json/pointer\", \"values\": [v1, v2, ...]} or "
                         "a named axis {\"name\", \"values\", \"set\": [pointers] or "
                         "{pointer: [value per axis value]}}");
                continue;
            }
            for (const auto& item : a.items()) {
                if (item.key() != "set" && item.key() != "values" && item.key() != "name") {
                    diag.add(at + "/" + pointer_token(item.key()),
                             "unknown key (expected set, values, name)");
                }
            }
            std::optional<SweepAxis> axis = parse_section_axis(a, at, diag);
            if (axis) add_axis(plan.axes, std::move(*axis));
        }
    }
    for (const char* key : {"schedules", "seed"}) {
        if (!section.is_object() || !section.contains(key)) continue;
        const nlohmann::json& v = section[key];
        const bool ok = v.is_number_integer() && v.get<std::int64_t>() >= 0 &&
                        (std::string(key) == "seed" ||
                         (v.get<std::uint64_t>() >= 1 && v.get<std::uint64_t>() <= 1000000));
        if (!ok) {
            diag.add(std::string("/sweep/") + key, std::string(key) == "seed"
                                                       ? "expected an unsigned integer"
                                                       : "expected an integer in 1..1000000");
            continue;
        }
        if (std::string(key) == "seed") {
            plan.seed = v.get<std::uint64_t>();
        } else {
            plan.schedules = v.get<std::uint32_t>();
        }
    }
    diag.throw_if_any();
    for (const SweepAxis& axis : extra_axes) {
        if (axis.pointer.front() == '/') {
            add_axis(plan.axes, axis);
            continue;
        }
        // --set NAME=v1,v2: a subset of the named axis's values, with their linked values.
        const auto named = std::find_if(
            plan.axes.begin(), plan.axes.end(),
            [&](const SweepAxis& a) { return a.pointer == axis.pointer && !a.links.empty(); });
        if (named == plan.axes.end()) {
            throw UsageError("--set " + axis.pointer + "=...: " + origin +
                             " has no named sweep axis '" + axis.pointer +
                             "' (a path starts with '/', as in /host/0/blocks)");
        }
        SweepAxis subset{named->pointer, {}, {}};
        for (const SweepAxis::Link& link : named->links) subset.links.push_back({link.pointer, {}});
        for (const nlohmann::json& value : axis.values) {
            const auto at = std::find(named->values.begin(), named->values.end(), value);
            if (at == named->values.end()) {
                throw UsageError("--set " + axis.pointer + ": " + value.dump() +
                                 " is not one of the values of the named axis (" +
                                 nlohmann::json(named->values).dump() + ")");
            }
            const auto index = static_cast<std::size_t>(at - named->values.begin());
            subset.values.push_back(value);
            for (std::size_t l = 0; l < named->links.size(); ++l) {
                if (!named->links[l].values.empty()) {
                    subset.links[l].values.push_back(named->links[l].values[index]);
                }
            }
        }
        *named = std::move(subset);
    }
    if (schedules) {
        if (*schedules < 1) throw UsageError("--schedules must be at least 1");
        plan.schedules = *schedules;
    }
    if (seed) plan.seed = *seed;
    plan.document = std::move(document);
    std::size_t tasks = plan.schedules;
    for (const SweepAxis& axis : plan.axes) {
        if (axis.values.empty()) throw UsageError("axis " + axis.pointer + " has no values");
        if (tasks > kMaxTasks / axis.values.size()) {
            throw UsageError(origin + ": the study has more than " + std::to_string(kMaxTasks) +
                             " runs; split it");
        }
        tasks *= axis.values.size();
    }
    // Every point must be settable: check the first one now, not in a worker.
    (void)plan.document_of(0);
    return plan;
}

}  // namespace npusim
