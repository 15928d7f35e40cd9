// Strict JSON parsing for configuration files: parse_json reports what a plain parse would
// silently resolve (duplicate keys, numbers a double cannot hold as written, absurd nesting).
//
// Contract: parse_json never throws except std::bad_alloc. Every problem goes into the
// Diagnostics (base/config_diagnostics.h) with the JSON pointer it concerns; nullopt means
// the text is no usable document, a returned document may still carry reported problems.
// Time and memory are linear in the size of the text.
//
// Example:
//   Diagnostics diag("chip.json");
//   if (std::optional<nlohmann::json> doc = parse_json(text, diag)) use(*doc);
//   diag.throw_if_any();
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace npusim {

class Diagnostics;

/// Deepest nesting of arrays and objects parse_json accepts; config files need about 4.
inline constexpr std::size_t kMaxJsonDepth = 256;

/// Parses `text`. A syntax error is reported as "<origin>: invalid JSON: <parser message with
/// line and column>" and yields nullopt, and so does nesting deeper than kMaxJsonDepth
/// ("<origin>: invalid JSON: nesting deeper than 256 levels at line 1, column 257").
/// Duplicate keys (which JSON parsers silently resolve to the last one) are reported at
/// their pointer; the document is still returned. Memory is linear in the size of `text`.
///
/// Numbers are taken as written, not as a double happens to round them: a whole number in
/// any notation (1024, 1024.0, 1.024e3) within 64 bits becomes an exact integer; a whole
/// number beyond 64 bits ("18446744073709551616 is larger than 18446744073709551615") and a
/// fraction a double would round to a whole number ("1e-400 is too small to represent;
/// underflows to 0", "4.00000000000000000001 ... would read as 4") are reported at their
/// pointer and left in the document as NaN, which no text can produce and which
/// read_unsigned rejects without a second message.
std::optional<nlohmann::json> parse_json(std::string_view text, Diagnostics& diag);

}  // namespace npusim
