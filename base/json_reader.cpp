#include "base/json_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "base/config_diagnostics.h"
#include "base/printable_text.h"

namespace npusim {

using nlohmann::json;

namespace {

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

}  // namespace

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

}  // namespace npusim
