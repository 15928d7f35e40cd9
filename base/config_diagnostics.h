// Helpers for strict JSON configuration parsing (chip configs, scenario files).
//
// Every problem is collected with the file and the JSON pointer it concerns, so a user fixes
// all of them in one pass instead of one per run; nothing is silently ignored or defaulted.
//
// Contract: the helpers never let an nlohmann exception escape. They report into a
// Diagnostics and return an empty optional (or false) when a value is unusable, so the caller
// can go on checking the rest of the document. Only Diagnostics::throw_if_any() throws.
//
// Example:
//   Diagnostics diag("chip.json");
//   std::optional<nlohmann::json> doc = parse_json(text, diag);
//   if (doc && require_object(*doc, "", diag)) {
//       check_keys(*doc, "", {"name", "clock_mhz"}, diag);
//       if (!doc->contains("clock_mhz")) diag.add("/clock_mhz", "missing required parameter");
//       else if (auto mhz = read_unsigned(doc->at("clock_mhz"), "/clock_mhz", diag)) use(*mhz);
//   }
//   diag.throw_if_any();  // ConfigError: "chip.json:/clock_mhz: expected an unsigned ..."
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace npusim {

/// Key accepted in every object of every config file and ignored apart from its type: JSON
/// has no comments, and people need somewhere to write why a value is what it is.
inline constexpr std::string_view kCommentKey = "$comment";

/// Collects the problems of one document, each as "<origin>:<pointer>: <message>".
class Diagnostics final {
public:
    explicit Diagnostics(std::string origin);

    /// `pointer` is a JSON pointer; the empty pointer (the whole document) is written as
    /// "<origin>: <message>" rather than "<origin>:: <message>".
    void add(std::string_view pointer, std::string_view message);

    const std::string& origin() const { return m_origin; }
    const std::vector<std::string>& problems() const { return m_problems; }
    bool empty() const { return m_problems.empty(); }
    std::size_t size() const { return m_problems.size(); }

    /// Throws ConfigError with every problem collected so far, if there is any.
    void throw_if_any() const;

private:
    std::string m_origin;
    std::vector<std::string> m_problems;
};

/// JSON pointer of `key` inside the object at `parent` ("~" -> "~0", "/" -> "~1").
std::string child_pointer(std::string_view parent, std::string_view key);
/// JSON pointer of element `index` of the array at `parent`.
std::string child_pointer(std::string_view parent, std::size_t index);

/// `text` in single quotes, with quotes and control characters escaped and long text
/// shortened, so that a message always stays on one readable line. (Not named `quoted`:
/// std::quoted would win by argument-dependent lookup for std::string arguments.)
std::string single_quoted(std::string_view text);

/// Short description of a value for "expected X, got Y" messages: `string "12"`,
/// `boolean true`, `null`, `array`, `object`, `-3`, `1.5`.
std::string describe_json(const nlohmann::json& value);

/// The candidate closest to `word` by edit distance (case-insensitive), if it is close enough
/// to be a plausible typo: at most 1 edit for words up to 5 characters, about a third of the
/// length beyond. Ties go to the earlier candidate so suggestions are deterministic.
std::optional<std::string> nearest_name(std::string_view word,
                                        std::span<const std::string_view> candidates);

/// The whole file as text. Throws ConfigError "<path>: cannot read file (no such file)",
/// "(it is a directory)" or plain "cannot read file".
std::string read_config_file(const std::filesystem::path& file);

/// Parses `text`. A syntax error is reported as "<origin>: invalid JSON: <parser message with
/// line and column>" and yields nullopt. Duplicate keys (which JSON parsers silently resolve
/// to the last one) are reported at their pointer; the document is still returned.
std::optional<nlohmann::json> parse_json(std::string_view text, Diagnostics& diag);

/// Reports "expected an object, got ..." unless `value` is an object.
bool require_object(const nlohmann::json& value, std::string_view pointer, Diagnostics& diag);

/// Reports every key of the object at `pointer` that is not in `allowed`, as
/// "unknown key 'ub_byte' (did you mean 'ub_bytes'?)". kCommentKey is always allowed but must
/// hold a string. Reports "expected an object" if `object` is not one.
void check_keys(const nlohmann::json& object, std::string_view pointer,
                std::span<const std::string_view> allowed, Diagnostics& diag);
inline void check_keys(const nlohmann::json& object, std::string_view pointer,
                       std::initializer_list<std::string_view> allowed, Diagnostics& diag) {
    check_keys(object, pointer, std::span(allowed.begin(), allowed.size()), diag);
}

/// A string value; reports "expected a string, got ..." otherwise.
std::optional<std::string> read_string(const nlohmann::json& value, std::string_view pointer,
                                       Diagnostics& diag);

/// An unsigned integer parameter and the note written beside it, if any.
struct NotedUnsigned {
    std::uint64_t value = 0;
    std::optional<std::string> note;
};

/// Reads an unsigned integer written as a plain number or as {"value": N, "note": "..."}.
/// Rejects negatives, fractions, booleans, strings, null and out-of-range numbers (message
/// e.g. `expected an unsigned integer, got string "12"`); a float without fraction (1024.0)
/// is accepted. In the object form: "value" is required, "note" must be a string, other keys
/// are unknown (kCommentKey excepted). Problems inside the object name the inner pointer.
std::optional<NotedUnsigned> read_unsigned(const nlohmann::json& value, std::string_view pointer,
                                           Diagnostics& diag);

/// Reports "expected <min>..<max> <unit>, got <value>" unless min <= value <= max.
bool check_range(std::uint64_t value, std::uint64_t min, std::uint64_t max, std::string_view unit,
                 std::string_view pointer, Diagnostics& diag);

}  // namespace npusim
