#include "base/config_diagnostics.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <fstream>
#include <set>
#include <utility>

#include "base/errors.h"

namespace npusim {

using nlohmann::json;

Diagnostics::Diagnostics(std::string origin) : m_origin(std::move(origin)) {}

void Diagnostics::add(std::string_view pointer, std::string_view message) {
    std::string problem = m_origin;
    problem += ':';
    if (!pointer.empty()) {
        problem += pointer;
        problem += ':';
    }
    problem += ' ';
    problem += message;
    m_problems.push_back(std::move(problem));
}

void Diagnostics::throw_if_any() const {
    if (!m_problems.empty()) throw ConfigError(m_problems);
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

constexpr std::size_t kMaxQuoted = 60;

/// Cuts `text` to about `limit` bytes without splitting a UTF-8 sequence.
std::string_view shorten(std::string_view text, std::size_t limit, bool& cut) {
    cut = text.size() > limit;
    if (!cut) return text;
    std::size_t end = limit;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    return text.substr(0, end);
}

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

/// nlohmann prefixes messages with "[json.exception.parse_error.101] "; users need the rest.
std::string strip_exception_id(std::string_view what) {
    if (what.starts_with("[json.exception.")) {
        if (const auto end = what.find("] "); end != std::string_view::npos)
            what.remove_prefix(end + 2);
    }
    return std::string(what);
}

/// Follows the parser's events to know the pointer of each key, so that a duplicate key can
/// be reported where it is; nlohmann itself keeps the last value without a word.
class DuplicateKeyFinder final {
public:
    explicit DuplicateKeyFinder(Diagnostics& diag) : m_diag(diag) {}

    bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
        switch (event) {
            case json::parse_event_t::object_start:
            case json::parse_event_t::array_start:
                m_frames.push_back({event == json::parse_event_t::array_start,
                                    pointer_of_next_value(),
                                    {},
                                    {},
                                    0});
                break;
            case json::parse_event_t::key: {
                Frame& frame = m_frames.back();
                const std::string& key = parsed.get_ref<const std::string&>();
                frame.key_pointer = child_pointer(frame.pointer, key);
                if (!frame.keys.insert(key).second)
                    m_diag.add(frame.key_pointer, "duplicate key " + single_quoted(key));
                break;
            }
            case json::parse_event_t::object_end:
            case json::parse_event_t::array_end:
                m_frames.pop_back();
                value_done();
                break;
            case json::parse_event_t::value:
                value_done();
                break;
        }
        return true;  // keep everything: we only observe
    }

private:
    struct Frame {
        bool is_array;
        std::string pointer;
        std::set<std::string> keys;
        std::string key_pointer;  // pointer of the member being parsed
        std::size_t index;        // next element of an array
    };

    std::string pointer_of_next_value() const {
        if (m_frames.empty()) return "";
        const Frame& top = m_frames.back();
        return top.is_array ? child_pointer(top.pointer, top.index) : top.key_pointer;
    }

    void value_done() {
        if (!m_frames.empty() && m_frames.back().is_array) ++m_frames.back().index;
    }

    Diagnostics& m_diag;
    std::vector<Frame> m_frames;
};

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
            // Numbers past 2^64 arrive as floats too; 2^64 itself is exactly representable.
            const double number = value.get<double>();
            if (std::isfinite(number) && number >= 0 && number < 18446744073709551616.0 &&
                std::trunc(number) == number)
                return static_cast<std::uint64_t>(number);
            break;
        }
        default:
            break;
    }
    diag.add(pointer, "expected an unsigned integer, got " + describe_json(value));
    return std::nullopt;
}

}  // namespace

std::string single_quoted(std::string_view text) {
    bool cut = false;
    const std::string_view shown = shorten(text, kMaxQuoted, cut);
    std::string result = "'";
    for (const char c : shown) {
        const auto byte = static_cast<unsigned char>(c);
        switch (c) {
            case '\'':
                result += "\\'";
                break;
            case '\\':
                result += "\\\\";
                break;
            case '\n':
                result += "\\n";
                break;
            case '\t':
                result += "\\t";
                break;
            case '\r':
                result += "\\r";
                break;
            default:
                if (byte < 0x20 || byte == 0x7F) {
                    constexpr std::string_view kHex = "0123456789abcdef";
                    result += "\\x";
                    result += kHex[byte >> 4];
                    result += kHex[byte & 0xF];
                } else {
                    result += c;
                }
        }
    }
    result += cut ? "...'" : "'";
    return result;
}

std::string describe_json(const json& value) {
    switch (value.type()) {
        case json::value_t::null:
            return "null";
        case json::value_t::boolean:
            return value.get<bool>() ? "boolean true" : "boolean false";
        case json::value_t::number_integer:
        case json::value_t::number_unsigned:
        case json::value_t::number_float:
            return value.dump();
        case json::value_t::string: {
            bool cut = false;
            const std::string_view shown =
                shorten(value.get_ref<const std::string&>(), kMaxQuoted, cut);
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

std::optional<json> parse_json(std::string_view text, Diagnostics& diag) {
    try {
        return json::parse(text.begin(), text.end(), DuplicateKeyFinder(diag));
    } catch (const json::exception& error) {
        diag.add("", "invalid JSON: " + strip_exception_id(error.what()));
    }
    return std::nullopt;
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

std::string read_config_file(const std::filesystem::path& file) {
    const std::string origin = file.string();
    std::error_code error;
    // exists() also fails on a permission problem, which is not "no such file".
    if (!std::filesystem::exists(file, error) && !error) {
        throw ConfigError({origin + ": cannot read file (no such file)"});
    }
    if (std::filesystem::is_directory(file, error)) {
        throw ConfigError({origin + ": cannot read file (it is a directory)"});
    }
    std::ifstream in(file, std::ios::binary);
    std::string text;
    std::array<char, 64 * 1024> buffer{};
    while (in && (in.read(buffer.data(), buffer.size()) || in.gcount() > 0)) {
        text.append(buffer.data(), static_cast<std::size_t>(in.gcount()));
    }
    if (!in.is_open() || in.bad()) throw ConfigError({origin + ": cannot read file"});
    return text;
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
