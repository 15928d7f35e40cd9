#include "sim/scenario/scenario_overrides.h"

#include <charconv>
#include <cstdint>
#include <optional>

#include "base/config_diagnostics.h"
#include "base/errors.h"

namespace npusim {

namespace {

std::optional<std::size_t> to_index(std::string_view text) {
    std::size_t value = 0;
    if (text.empty() || (text.size() > 1 && text.front() == '0')) return std::nullopt;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size()) return std::nullopt;
    return value;
}

}  // namespace

ScenarioOverride parse_scenario_override(std::string_view argument) {
    const std::string context = "--set " + printable(argument, false);
    const std::size_t equals = argument.find('=');
    if (equals == std::string_view::npos) {
        throw UsageError(context + ": expected PATH=VALUE, as in /blocks=8");
    }
    ScenarioOverride o;
    o.argument = std::string(argument);
    o.pointer = std::string(argument.substr(0, equals));
    if (o.pointer.empty()) {
        throw UsageError(context + ": the empty pointer would replace the whole scenario");
    }
    try {
        (void)nlohmann::json::json_pointer(o.pointer);
    } catch (const nlohmann::json::exception&) {
        throw UsageError(context + ": '" + printable(o.pointer, false) +
                         "' is not a JSON pointer (it starts with '/', as in /host/0/blocks)");
    }
    const std::string_view text = argument.substr(equals + 1);
    nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
    o.value = parsed.is_discarded() ? nlohmann::json(std::string(text)) : std::move(parsed);
    return o;
}

bool set_json_pointer(nlohmann::json& document, const std::string& pointer,
                      const nlohmann::json& value) {
    try {
        const nlohmann::json::json_pointer target(pointer);
        if (target.empty()) return false;
        const nlohmann::json::json_pointer parent = target.parent_pointer();
        if (!document.contains(parent)) return false;
        nlohmann::json& container = document.at(parent);
        const std::string& key = target.back();
        if (container.is_object()) {
            container[key] = value;
            return true;
        }
        if (!container.is_array()) return false;
        const std::optional<std::size_t> index = to_index(key);
        if (!index || *index >= container.size()) return false;
        container[*index] = value;
        return true;
    } catch (const nlohmann::json::exception&) {
        return false;  // a malformed pointer or an array index nlohmann refuses
    }
}

void apply_overrides(nlohmann::json& document, const std::vector<ScenarioOverride>& overrides,
                     Diagnostics& diag) {
    for (const ScenarioOverride& o : overrides) {
        if (set_json_pointer(document, o.pointer, o.value)) continue;
        std::string parent = o.pointer.substr(0, o.pointer.rfind('/'));
        diag.add(o.pointer, "--set " + o.argument +
                                ": cannot set a value here: the scenario has no object or "
                                "array element at '" +
                                (parent.empty() ? std::string("/") : parent) + "'" +
                                " (an array element must already exist)");
    }
}

}  // namespace npusim
