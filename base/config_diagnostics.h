// Helpers for strict JSON configuration checking (chip configs, scenario files).
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
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

// Also provided here, as config readers use them together: parse_json, read_config_file,
// printable and single_quoted.
#include "base/config_file.h"
#include "base/json_reader.h"
#include "base/printable_text.h"

namespace npusim {

/// Key accepted in every object of every config file and ignored apart from its type: JSON
/// has no comments, and people need somewhere to write why a value is what it is.
inline constexpr std::string_view kCommentKey = "$comment";

/// Collects the problems of one document, each as "<origin>:<pointer>: <message>".
///
/// Only the first kMaxReported problems are kept as text; the rest are counted, so that a
/// file with millions of bad values costs neither memory nor a flood of output. The origin,
/// pointer and message are printed with control characters, DEL and invalid UTF-8 escaped, so
/// every problem stays one line and nothing from the file reaches the terminal raw.
class Diagnostics final {
public:
    /// Problems kept as text; throw_if_any() adds one "... and N more problems" line.
    static constexpr std::size_t kMaxReported = 20;

    explicit Diagnostics(std::string origin);

    /// `pointer` is a JSON pointer; the empty pointer (the whole document) is written as
    /// "<origin>: <message>" rather than "<origin>:: <message>". A message that is itself a
    /// summary line of another Diagnostics ("x.json: ... and N more problems", as when a
    /// scenario forwards its chip file's problems) adds its N to the count instead of a line.
    void add(std::string_view pointer, std::string_view message);

    const std::string& origin() const { return m_origin; }
    /// The first kMaxReported problems (without the summary line).
    const std::vector<std::string>& problems() const { return m_problems; }
    bool empty() const { return m_count == 0; }
    /// Every problem reported, kept as text or not.
    std::uint64_t size() const { return m_count; }

    /// Throws ConfigError with the problems kept and, if some were not, a last line
    /// "<origin>: ... and 13,099,950 more problems".
    void throw_if_any() const;

private:
    std::string m_origin;
    std::string m_printed_origin;  // escaped for the terminal
    std::vector<std::string> m_problems;
    std::uint64_t m_count = 0;
};

/// JSON pointer of `key` inside the object at `parent` ("~" -> "~0", "/" -> "~1").
std::string child_pointer(std::string_view parent, std::string_view key);
/// JSON pointer of element `index` of the array at `parent`.
std::string child_pointer(std::string_view parent, std::size_t index);

/// Short description of a value for "expected X, got Y" messages: `string "12"`,
/// `boolean true`, `null`, `array`, `object`, `-3`, `1.5`.
std::string describe_json(const nlohmann::json& value);

/// The candidate closest to `word` by edit distance (case-insensitive), if it is close enough
/// to be a plausible typo: at most 1 edit for words up to 5 characters, about a third of the
/// length beyond. Ties go to the earlier candidate so suggestions are deterministic.
std::optional<std::string> nearest_name(std::string_view word,
                                        std::span<const std::string_view> candidates);

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
/// is accepted (parse_json already makes it an exact integer). In the object form: "value" is
/// required, "note" must be a string, other keys are unknown (kCommentKey excepted). Problems
/// inside the object name the inner pointer.
std::optional<NotedUnsigned> read_unsigned(const nlohmann::json& value, std::string_view pointer,
                                           Diagnostics& diag);

/// Reports "expected <min>..<max> <unit>, got <value>" unless min <= value <= max.
bool check_range(std::uint64_t value, std::uint64_t min, std::uint64_t max, std::string_view unit,
                 std::string_view pointer, Diagnostics& diag);

}  // namespace npusim
