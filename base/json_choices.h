// Helpers the scenario readers share (sim/scenario/scenario_host.cpp,
// sim/scenario/scenario_buffers.cpp): a value from a fixed set of names, a finite number, an
// undefined name with a suggestion. Internal: not a public header.
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/config_diagnostics.h"

namespace npusim::json_choices {

using json = nlohmann::json;

/// `value` as one of `names` (a to_string table), with a suggestion when it is not.
template <class Enum, std::size_t N>
std::optional<Enum> read_choice(const json& value, const std::string& pointer,
                                const std::pair<std::string_view, Enum> (&names)[N],
                                Diagnostics& diag) {
    const auto text = read_string(value, pointer, diag);
    if (!text) return std::nullopt;
    std::vector<std::string_view> candidates;
    std::string list;
    for (const auto& [name, e] : names) {
        if (name == *text) return e;
        candidates.push_back(name);
        list += (list.empty() ? "" : ", ") + std::string(name);
    }
    std::string message = "unknown value " + single_quoted(*text);
    if (auto near = nearest_name(*text, candidates)) message += " (did you mean '" + *near + "'?)";
    diag.add(pointer, message + "; expected one of " + list);
    return std::nullopt;
}

inline std::optional<double> read_number(const json& value, const std::string& pointer,
                                         Diagnostics& diag) {
    if (!value.is_number()) {
        diag.add(pointer, "expected a number, got " + describe_json(value));
        return std::nullopt;
    }
    const double v = value.get<double>();
    if (!std::isfinite(v)) {
        diag.add(pointer, "expected a finite number");
        return std::nullopt;
    }
    return v;
}

/// Whether `v` fits the element type (integers: whole and in range; float16: |v| <= 65504).

/// "undefined <what> 'name' (did you mean ...?); defined: a, b".
inline void unknown_name(const std::string& what, const std::string& name,
                         const std::vector<std::string>& known, const std::string& pointer,
                         Diagnostics& diag) {
    std::vector<std::string_view> candidates(known.begin(), known.end());
    std::string message = "undefined " + what + " " + single_quoted(name);
    if (auto near = nearest_name(name, candidates)) message += " (did you mean '" + *near + "'?)";
    if (known.empty()) {
        message += "; none is defined";
    } else {
        std::string list;
        for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
        message += "; defined: " + list;
    }
    diag.add(pointer, message);
}

}  // namespace npusim::json_choices
