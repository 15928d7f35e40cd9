#include "base/config_diagnostics.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <fcntl.h>
#include <limits>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>
#include <utility>

#include "base/errors.h"

namespace npusim {

using nlohmann::json;

namespace {

constexpr std::string_view kHex = "0123456789abcdef";

void append_hex_byte(std::string& out, unsigned char byte) {
    out += "\\x";
    out += kHex[byte >> 4];
    out += kHex[byte & 0xF];
}

/// Length of the valid UTF-8 sequence starting at text[at] (2..4), or 0 if it is not one
/// (overlong forms, surrogates and code points past U+10FFFF are invalid).
std::size_t utf8_sequence(std::string_view text, std::size_t at) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[at + i]); };
    const unsigned char lead = byte(0);
    std::size_t length = 0;
    unsigned char low = 0x80;
    unsigned char high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0) low = 0xA0;
        if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0) low = 0x90;
        if (lead == 0xF4) high = 0x8F;
    } else {
        return 0;
    }
    if (at + length > text.size()) return 0;
    if (byte(1) < low || byte(1) > high) return 0;
    for (std::size_t i = 2; i < length; ++i) {
        if ((byte(i) & 0xC0) != 0x80) return 0;
    }
    return length;
}

/// Appends `text` escaped: control characters, DEL, C1 controls (which some terminals obey
/// as escape sequences), U+2028/U+2029 (line breaks to some viewers) and invalid UTF-8 bytes;
/// `quote` and, if asked, backslashes too.
void append_escaped(std::string& out, std::string_view text, char quote, bool escape_backslash) {
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x80) {
            const std::size_t length = utf8_sequence(text, i);
            if (length == 0) {
                append_hex_byte(out, byte);
                ++i;
                continue;
            }
            const std::string_view sequence = text.substr(i, length);
            const bool c1 =
                length == 2 && byte == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0;
            const bool separator = sequence == "\u2028" || sequence == "\u2029";
            if (c1 || separator) {
                out += c1 ? "\\u00" : "\\u202";
                const unsigned char last = static_cast<unsigned char>(sequence.back());
                if (c1) {
                    out += kHex[last >> 4];
                    out += kHex[last & 0xF];
                } else {
                    out += last == 0xA8 ? '8' : '9';
                }
            } else {
                out += sequence;
            }
            i += length;
            continue;
        }
        if (c == quote && quote != 0) {
            out += '\\';
            out += c;
        } else if (c == '\\' && escape_backslash) {
            out += "\\\\";
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c == '\r') {
            out += "\\r";
        } else if (byte < 0x20 || byte == 0x7F) {
            append_hex_byte(out, byte);
        } else {
            out += c;
        }
        ++i;
    }
}

/// The first `limit` bytes or so of `text`, not splitting a UTF-8 sequence.
std::string_view head_of(std::string_view text, std::size_t limit) {
    if (text.size() <= limit) return text;
    std::size_t end = limit;
    // At most 3 continuation bytes belong to one character; invalid UTF-8 is cut anywhere.
    for (int back = 0;
         back < 3 && end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80; ++back)
        --end;
    return text.substr(0, end);
}

/// The last `limit` bytes or so of `text`, not splitting a UTF-8 sequence.
std::string_view tail_of(std::string_view text, std::size_t limit) {
    if (text.size() <= limit) return text;
    std::size_t start = text.size() - limit;
    for (int forward = 0; forward < 3 && start < text.size() &&
                          (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80;
         ++forward)
        ++start;
    return text.substr(start);
}

/// `text` made printable and, past `limit` bytes, shortened to its head and tail.
void append_shortened(std::string& out, std::string_view text, std::size_t limit,
                      bool escape_backslash) {
    if (text.size() <= limit) {
        append_escaped(out, text, 0, escape_backslash);
        return;
    }
    append_escaped(out, head_of(text, limit / 2), 0, escape_backslash);
    out += "...";
    append_escaped(out, tail_of(text, limit / 2), 0, escape_backslash);
}

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

std::string printable(std::string_view text, bool escape_backslash) {
    std::string out;
    out.reserve(text.size());
    append_escaped(out, text, 0, escape_backslash);
    return out;
}

std::string group_thousands(std::uint64_t number) {
    std::string digits = std::to_string(number);
    for (std::size_t at = digits.size(); at > 3; at -= 3) digits.insert(at - 3, ",");
    return digits;
}

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
        append_shortened(problem, pointer, kMaxPrintedPointer, true);
        problem += ':';
    }
    problem += ' ';
    // Messages quote what they show already; this is the safety net for the terminal.
    append_shortened(problem, message, kMaxPrintedMessage, false);
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

/// What a number literal the parser handed over as a double really is, read from its text.
struct NumberLiteral {
    bool negative = false;
    bool integral = false;  // a whole number, in whatever notation
    bool fits = false;      // integral and within std::uint64_t (magnitude)
    std::uint64_t magnitude = 0;
};

/// Reads a JSON number literal exactly: digits D and decimal exponent E with value D * 10^E,
/// trailing zeros of D moved into E. Linear in the text; huge exponents saturate.
NumberLiteral classify_literal(std::string_view text) {
    NumberLiteral literal;
    std::size_t i = 0;
    if (i < text.size() && text[i] == '-') {
        literal.negative = true;
        ++i;
    }
    std::int64_t fraction_digits = 0;
    bool in_fraction = false;
    std::size_t first_nonzero = std::string_view::npos;
    std::size_t last_nonzero = std::string_view::npos;
    std::int64_t zeros_after_last = 0;  // mantissa zeros after the last nonzero digit
    for (; i < text.size() && text[i] != 'e' && text[i] != 'E'; ++i) {
        if (text[i] == '.') {
            in_fraction = true;
            continue;
        }
        if (in_fraction) ++fraction_digits;
        if (text[i] != '0') {
            if (first_nonzero == std::string_view::npos) first_nonzero = i;
            last_nonzero = i;
            zeros_after_last = 0;
        } else {
            ++zeros_after_last;
        }
    }
    constexpr std::int64_t kSaturated = std::int64_t{1} << 40;
    std::int64_t exponent = 0;
    if (i < text.size()) {
        ++i;  // 'e'
        bool negative_exponent = false;
        if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
            negative_exponent = text[i] == '-';
            ++i;
        }
        for (; i < text.size(); ++i) {
            exponent = std::min(kSaturated, exponent * 10 + (text[i] - '0'));
        }
        if (negative_exponent) exponent = -exponent;
    }
    if (first_nonzero == std::string_view::npos) {  // zero, however written
        literal.integral = true;
        literal.fits = true;
        return literal;
    }
    // Value = (digits first_nonzero..last_nonzero) * 10^scale.
    const std::int64_t scale = exponent - fraction_digits + zeros_after_last;
    if (scale < 0) return literal;  // the last nonzero digit is below the units
    literal.integral = true;
    std::uint64_t value = 0;
    std::int64_t length = 0;
    for (std::size_t at = first_nonzero; at <= last_nonzero; ++at) {
        if (text[at] == '.') continue;
        if (++length > 20) return literal;
        const auto digit = static_cast<std::uint64_t>(text[at] - '0');
        if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return literal;
        value = value * 10 + digit;
    }
    for (std::int64_t k = 0; k < scale; ++k) {
        if (value > std::numeric_limits<std::uint64_t>::max() / 10) return literal;
        value *= 10;
    }
    literal.fits = true;
    literal.magnitude = value;
    return literal;
}

/// The literal as the user wrote it, cut if very long.
std::string shown_literal(std::string_view text) {
    constexpr std::size_t kLimit = 40;
    if (text.size() <= kLimit) return std::string(text);
    return std::string(text.substr(0, kLimit)) + "... (" + group_thousands(text.size()) +
           " characters)";
}

/// Builds the document from the parser's SAX events, reporting what a plain parse would
/// silently resolve: duplicate keys (the last one wins), nesting past kMaxJsonDepth, and
/// numbers a double cannot hold as written. Memory is the document plus the open path (one
/// key per open object), so it is linear in the input.
class DocumentBuilder final {
public:
    DocumentBuilder(std::string_view text, Diagnostics& diag) : m_text(text), m_diag(diag) {}

    bool null() { return add(json(nullptr)); }
    bool boolean(bool value) { return add(json(value)); }
    bool number_integer(json::number_integer_t value) { return add(json(value)); }
    bool number_unsigned(json::number_unsigned_t value) { return add(json(value)); }
    bool number_float(json::number_float_t value, const json::string_t& text) {
        return add(number_of(value, text));
    }
    bool string(json::string_t& value) { return add(json(std::move(value))); }
    bool binary(json::binary_t& value) { return add(json(std::move(value))); }

    bool start_object(std::size_t /*elements*/) { return open(json::object()); }
    bool start_array(std::size_t /*elements*/) { return open(json::array()); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }

    bool key(json::string_t& key) {
        Level& top = m_path.back();
        top.key = std::move(key);
        if (top.container->contains(top.key))
            m_diag.add(current_pointer(), "duplicate key " + single_quoted(top.key));
        return true;
    }

    bool parse_error(std::size_t /*position*/, const std::string& last_token,
                     const nlohmann::detail::exception& error) {
        if (error.id == 406) {  // a number too large for a double: say where it is
            m_pending = 1;
            m_diag.add(current_pointer(), "number " + shown_literal(last_token) +
                                              " is too large to represent (larger than "
                                              "18446744073709551615, the largest integer "
                                              "supported)");
            m_pending = 0;
            m_stopped = true;
        } else {
            m_error = strip_exception_id(error.what());
        }
        return false;
    }

    /// Set when parsing stopped: the parser's message or the depth limit's.
    const std::optional<std::string>& error() const { return m_error; }
    /// Whether parsing stopped on a problem already reported.
    bool stopped() const { return m_stopped; }
    json& root() { return m_root; }

private:
    struct Level {
        json* container;
        std::string key;  // the member being parsed, in an object
    };

    /// The pointer of the value being parsed, built only when a problem needs it.
    std::string current_pointer() const {
        std::string pointer;
        for (std::size_t depth = 0; depth < m_path.size(); ++depth) {
            const Level& level = m_path[depth];
            // Below the top the open child is placed already; at the top maybe not yet.
            const std::size_t pending = depth + 1 == m_path.size() ? m_pending : 0;
            pointer = level.container->is_array()
                          ? child_pointer(pointer, level.container->size() + pending - 1)
                          : child_pointer(pointer, level.key);
        }
        return pointer;
    }

    /// Places `value` in the open container (or as the root); returns where it went.
    json* place(json&& value) {
        if (m_path.empty()) {
            m_root = std::move(value);
            return &m_root;
        }
        Level& top = m_path.back();
        if (top.container->is_array()) {
            top.container->push_back(std::move(value));
            return &top.container->back();
        }
        json& slot = (*top.container)[top.key];
        slot = std::move(value);
        return &slot;
    }

    bool add(json&& value) {
        place(std::move(value));
        return true;
    }

    bool open(json&& container) {
        if (m_path.size() >= kMaxJsonDepth) {
            m_error = "nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels " +
                      position_of_too_deep();
            return false;
        }
        json* placed = place(std::move(container));
        m_path.push_back({placed, {}});
        return true;
    }

    bool close() {
        m_path.pop_back();
        return true;
    }

    json number_of(double value, std::string_view text) {
        const NumberLiteral literal = classify_literal(text);
        if (literal.integral && literal.fits) {
            if (!literal.negative) return json(literal.magnitude);
            if (literal.magnitude <= std::uint64_t{1} << 63)
                return json(static_cast<std::int64_t>(0 - literal.magnitude));
        }
        std::string problem;
        if (literal.integral) {
            problem = "number " + shown_literal(text) + " is " +
                      (literal.negative ? "smaller than -9223372036854775808, the smallest"
                                        : "larger than 18446744073709551615, the largest") +
                      " integer supported";
        } else if (value == 0) {
            problem =
                "number " + shown_literal(text) + " is too small to represent (it underflows to 0)";
        } else if (std::trunc(value) == value) {
            problem = "number " + shown_literal(text) +
                      " is not a whole number but has more digits than a double holds (it "
                      "would read as " +
                      json(value).dump() + ")";
        } else {
            return json(value);  // a fraction, shown as such by whoever expects an integer
        }
        m_pending = 1;  // the value is not placed yet: its array index is one further
        m_diag.add(current_pointer(), problem);
        m_pending = 0;
        return json(std::numeric_limits<double>::quiet_NaN());
    }

    /// "at line L, column C" of the bracket that opened level kMaxJsonDepth + 1. The parser
    /// does not tell where it is, but everything up to there was valid JSON, so counting
    /// brackets outside strings finds it.
    std::string position_of_too_deep() const {
        std::size_t depth = 0;
        std::size_t line = 1;
        std::size_t column = 0;
        bool in_string = false;
        bool escaped = false;
        for (std::size_t at = 0; at < m_text.size(); ++at) {
            const char c = m_text[at];
            ++column;
            if (c == '\n') {
                ++line;
                column = 0;
            }
            if (in_string) {
                if (escaped)
                    escaped = false;
                else if (c == '\\')
                    escaped = true;
                else if (c == '"')
                    in_string = false;
                continue;
            }
            if (c == '"') {
                in_string = true;
            } else if (c == '[' || c == '{') {
                if (++depth > kMaxJsonDepth)
                    return "at line " + std::to_string(line) + ", column " +
                           std::to_string(column) + " (byte " + std::to_string(at) + ")";
            } else if (c == ']' || c == '}') {
                --depth;
            }
        }
        return "";
    }

    std::string_view m_text;
    Diagnostics& m_diag;
    json m_root;
    std::vector<Level> m_path;
    std::size_t m_pending = 0;
    std::optional<std::string> m_error;
    bool m_stopped = false;
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

std::string single_quoted(std::string_view text) {
    bool cut = false;
    const std::string_view shown = shorten(text, kMaxQuoted, cut);
    std::string result = "'";
    append_escaped(result, shown, '\'', true);
    result += cut ? "...'" : "'";
    return result;
}

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

std::optional<json> parse_json(std::string_view text, Diagnostics& diag) {
    DocumentBuilder builder(text, diag);
    bool complete = false;
    try {
        complete = json::sax_parse(text.begin(), text.end(), &builder);
    } catch (const json::exception& error) {
        diag.add("", "invalid JSON: " + strip_exception_id(error.what()));
        return std::nullopt;
    }
    if (builder.stopped()) return std::nullopt;
    if (builder.error()) {
        diag.add("", "invalid JSON: " + *builder.error());
        return std::nullopt;
    }
    if (!complete) {
        diag.add("", "invalid JSON");
        return std::nullopt;
    }
    return std::move(builder.root());
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

namespace {

/// Closes a file descriptor on every way out.
class FileDescriptor final {
public:
    explicit FileDescriptor(int fd) : m_fd(fd) {}
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    ~FileDescriptor() {
        if (m_fd >= 0) ::close(m_fd);
    }
    int get() const { return m_fd; }

private:
    int m_fd;
};

/// Why a file that is not a regular file cannot be a configuration file.
const char* special_file_kind(mode_t mode) {
    if (S_ISDIR(mode)) return "it is a directory";
    if (S_ISCHR(mode)) return "it is a character device, not a regular file";
    if (S_ISBLK(mode)) return "it is a block device, not a regular file";
    if (S_ISFIFO(mode)) return "it is a FIFO, not a regular file";
    if (S_ISSOCK(mode)) return "it is a socket, not a regular file";
    if (!S_ISREG(mode)) return "it is not a regular file";
    return nullptr;
}

std::string too_large(std::string_view origin, std::uint64_t size, bool at_least) {
    return std::string(origin) + ": cannot read file (" + (at_least ? "more than " : "") +
           group_thousands(size) + " bytes; configuration files are limited to " +
           group_thousands(kMaxConfigFileBytes) + " bytes (16 MiB))";
}

}  // namespace

std::string read_config_file(const std::filesystem::path& file) {
    const std::string origin = printable(file.string(), false);
    const auto fail = [&origin](std::string_view why) {
        throw ConfigError({origin + ": cannot read file (" + std::string(why) + ")"});
    };
    // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
    const FileDescriptor fd(::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (fd.get() < 0) {
        const int error = errno;
        if (error == ENOENT) fail("no such file");
        if (error == EISDIR) fail("it is a directory");
        fail(std::generic_category().message(error));
    }
    struct stat status {};
    if (::fstat(fd.get(), &status) != 0) fail(std::generic_category().message(errno));
    if (const char* kind = special_file_kind(status.st_mode)) fail(kind);
    if (static_cast<std::uint64_t>(status.st_size) > kMaxConfigFileBytes)
        throw ConfigError({too_large(origin, static_cast<std::uint64_t>(status.st_size), false)});

    // Read to the limit and one byte more: files in /proc report size 0, others may grow.
    std::string text;
    std::array<char, 64 * 1024> buffer{};
    for (;;) {
        const ssize_t got = ::read(fd.get(), buffer.data(), buffer.size());
        if (got < 0) {
            if (errno == EINTR) continue;
            fail(std::generic_category().message(errno));
        }
        if (got == 0) break;
        text.append(buffer.data(), static_cast<std::size_t>(got));
        if (text.size() > kMaxConfigFileBytes)
            throw ConfigError({too_large(origin, kMaxConfigFileBytes, true)});
    }
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
