#include "base/config_diagnostics.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <utility>

#include "base/errors.h"
#include "base/printable_text.h"

namespace npusim {

using nlohmann::json;

namespace {

constexpr std::size_t kMaxPrintedPointer = 200;
constexpr std::size_t kMaxPrintedMessage = 2000;

/// N of a summary line "<origin>: ... and N more problem(s)", if `message` is one.
std::optional<std::uint64_t> summary_count(std::string_view message) {
    constexpr std::string_view kMarker = ": ... and ";
    std::string_view rest = message;
    if (rest.ends_with(" more problems"))
        rest.remove_suffix(std::string_view(" more problems").size());
    else if (rest.ends_with(" more problem"))
        rest.remove_suffix(std::string_view(" more problem").size());
    else
        return std::nullopt;
    const std::size_t marker = rest.rfind(kMarker);
    if (marker == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(marker + kMarker.size());
    if (rest.empty()) return std::nullopt;
    std::uint64_t count = 0;
    for (const char c : rest) {
        if (c == ',') continue;
        if (c < '0' || c > '9') return std::nullopt;
        if (count > (std::numeric_limits<std::uint64_t>::max() - 9) / 10) return std::nullopt;
        count = count * 10 + static_cast<std::uint64_t>(c - '0');
    }
    return count;
}

}  // namespace

Diagnostics::Diagnostics(std::string origin)
    : m_origin(std::move(origin)), m_printed_origin(printable(m_origin, false)) {}

void Diagnostics::add(std::string_view pointer, std::string_view message) {
    if (const auto forwarded = summary_count(message)) {
        m_count += *forwarded;
        return;
    }
    ++m_count;
    if (m_problems.size() >= kMaxReported) return;  // counted, not kept
    std::string problem = m_printed_origin;
    problem += ':';
    if (!pointer.empty()) {
        // Backslashes too: the pointer is bare text, so "\n" must not look like a newline.
        problem += printable_shortened(pointer, kMaxPrintedPointer, true);
        problem += ':';
    }
    problem += ' ';
    // Messages quote what they show already; this is the safety net for the terminal.
    problem += printable_shortened(message, kMaxPrintedMessage, false);
    m_problems.push_back(std::move(problem));
}

void Diagnostics::throw_if_any() const {
    if (m_count == 0) return;
    std::vector<std::string> problems = m_problems;
    if (const std::uint64_t hidden = m_count - m_problems.size(); hidden > 0) {
        problems.push_back(m_printed_origin + ": ... and " + group_thousands(hidden) + " more " +
                           (hidden == 1 ? "problem" : "problems"));
    }
    throw ConfigError(std::move(problems));
}

std::string child_pointer(std::string_view parent, std::string_view key) {
    std::string pointer(parent);
    pointer.reserve(parent.size() + key.size() + 1);
    pointer += '/';
    for (const char c : key) {
        if (c == '~')
            pointer += "~0";
        else if (c == '/')
            pointer += "~1";
        else
            pointer += c;
    }
    return pointer;
}

std::string child_pointer(std::string_view parent, std::size_t index) {
    std::string pointer(parent);
    pointer += '/';
    pointer += std::to_string(index);
    return pointer;
}

namespace {

char fold(char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> previous(b.size() + 1);
    std::vector<std::size_t> current(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        current[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t substitution = fold(a[i - 1]) == fold(b[j - 1]) ? 0 : 1;
            current[j] =
                std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + substitution});
        }
        std::swap(previous, current);
    }
    return previous[b.size()];
}

std::optional<std::uint64_t> read_plain_unsigned(const json& value, std::string_view pointer,
                                                 Diagnostics& diag) {
    switch (value.type()) {
        case json::value_t::number_unsigned:
            return value.get<std::uint64_t>();
        case json::value_t::number_integer:
            if (const auto number = value.get<std::int64_t>(); number >= 0)
                return static_cast<std::uint64_t>(number);
            break;
        case json::value_t::number_float: {
            // parse_json makes whole numbers integers; a float here is a fraction, a number
            // parse_json already reported (NaN), or one built in code.
            const double number = value.get<double>();
            if (std::isnan(number)) return std::nullopt;
            if (std::isfinite(number) && number >= 0 && number < 18446744073709551616.0 &&
                std::trunc(number) == number)
                return static_cast<std::uint64_t>(number);
            if (number >= 18446744073709551616.0) {
                diag.add(pointer, "expected an unsigned integer, got " + describe_json(value) +
                                      ", which is larger than 18446744073709551615");
                return std::nullopt;
            }
            break;
        }
        default:
            break;
    }
    diag.add(pointer, "expected an unsigned integer, got " + describe_json(value));
    return std::nullopt;
}

}  // namespace

std::string describe_json(const json& value) {
    switch (value.type()) {
        case json::value_t::null:
            return "null";
        case json::value_t::boolean:
            return value.get<bool>() ? "boolean true" : "boolean false";
        case json::value_t::number_float:
            if (std::isnan(value.get<double>())) return "a number that cannot be represented";
            return value.dump();
        case json::value_t::number_integer:
        case json::value_t::number_unsigned:
            return value.dump();
        case json::value_t::string: {
            bool cut = false;
            const std::string_view shown =
                shorten_utf8(value.get_ref<const std::string&>(), kMaxQuotedBytes, cut);
            // dump() escapes quotes and control characters; replace keeps it from throwing.
            std::string text =
                json(std::string(shown)).dump(-1, ' ', false, json::error_handler_t::replace);
            if (cut) text.insert(text.size() - 1, "...");
            return "string " + text;
        }
        case json::value_t::array:
            return "array";
        case json::value_t::object:
            return "object";
        default:
            return "unsupported value";
    }
}

std::optional<std::string> nearest_name(std::string_view word,
                                        std::span<const std::string_view> candidates) {
    // A third of the length: 'ub_byte' -> 'ub_bytes' is a typo, 'queue' -> 'cube' is not.
    const std::size_t allowed = word.size() <= 5 ? 1 : word.size() / 3;
    std::optional<std::string> best;
    std::size_t best_distance = allowed + 1;
    for (const std::string_view candidate : candidates) {
        // The distance is at least the difference in length: skip the quadratic work (a key
        // of megabytes is no typo).
        const std::size_t longer = std::max(word.size(), candidate.size());
        if (longer - std::min(word.size(), candidate.size()) > allowed) continue;
        const std::size_t distance = edit_distance(word, candidate);
        // Replacing every character of a short name is not a typo ('x' -> 'v').
        if (distance >= std::max(word.size(), candidate.size())) continue;
        if (distance < best_distance) {
            best_distance = distance;
            best = std::string(candidate);
        }
    }
    return best;
}

bool require_object(const json& value, std::string_view pointer, Diagnostics& diag) {
    if (value.is_object()) return true;
    diag.add(pointer, "expected an object, got " + describe_json(value));
    return false;
}

void check_keys(const json& object, std::string_view pointer,
                std::span<const std::string_view> allowed, Diagnostics& diag) {
    if (!require_object(object, pointer, diag)) return;
    for (const auto& [key, value] : object.items()) {
        const std::string key_pointer = child_pointer(pointer, key);
        if (key == kCommentKey) {
            read_string(value, key_pointer, diag);
            continue;
        }
        if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;

        std::vector<std::string_view> candidates(allowed.begin(), allowed.end());
        candidates.push_back(kCommentKey);
        std::string message = "unknown key " + single_quoted(key);
        if (const auto suggestion = nearest_name(key, candidates)) {
            message += " (did you mean " + single_quoted(*suggestion) + "?)";
        } else {
            message += " (allowed:";
            const char* separator = " ";
            for (const std::string_view name : allowed) {
                message += separator + single_quoted(name);
                separator = ", ";
            }
            message += ")";
        }
        diag.add(key_pointer, message);
    }
}

std::optional<std::string> read_string(const json& value, std::string_view pointer,
                                       Diagnostics& diag) {
    if (value.is_string()) return value.get<std::string>();
    diag.add(pointer, "expected a string, got " + describe_json(value));
    return std::nullopt;
}

std::optional<NotedUnsigned> read_unsigned(const json& value, std::string_view pointer,
                                           Diagnostics& diag) {
    if (!value.is_object()) {
        const auto number = read_plain_unsigned(value, pointer, diag);
        if (!number) return std::nullopt;
        return NotedUnsigned{*number, std::nullopt};
    }

    check_keys(value, pointer, {"value", "note"}, diag);
    std::optional<NotedUnsigned> result;
    if (const auto inner = value.find("value"); inner == value.end()) {
        diag.add(pointer, R"(missing key 'value' (write N or {"value": N, "note": "..."}))");
    } else if (const auto number =
                   read_plain_unsigned(*inner, child_pointer(pointer, "value"), diag)) {
        result = NotedUnsigned{*number, std::nullopt};
    }
    if (const auto note = value.find("note"); note != value.end()) {
        auto text = read_string(*note, child_pointer(pointer, "note"), diag);
        if (result && text) result->note = std::move(*text);
    }
    return result;
}

bool check_range(std::uint64_t value, std::uint64_t min, std::uint64_t max, std::string_view unit,
                 std::string_view pointer, Diagnostics& diag) {
    if (value >= min && value <= max) return true;
    diag.add(pointer, "expected " + std::to_string(min) + ".." + std::to_string(max) +
                          (unit.empty() ? "" : " " + std::string(unit)) + ", got " +
                          std::to_string(value));
    return false;
}

}  // namespace npusim
