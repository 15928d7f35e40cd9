// Terminal-safe text: everything npusim prints that came from a file or the command line
// (paths, JSON keys and strings, parser messages) goes through these helpers.
//
// Contract: every function is pure and never throws except std::bad_alloc. Their results
// contain no raw control characters, DEL, C1 controls, U+2028/U+2029 or invalid UTF-8, so a
// value stays on one line and cannot drive the terminal; shortening never splits a valid
// UTF-8 sequence.
//
// Example:
//   printable("a\nb")            // "a\\nb"
//   single_quoted("it's")        // "'it\\'s'"
//   group_thousands(13099950)    // "13,099,950"
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace npusim {

/// Bytes of text single_quoted (and describe_json) show before cutting it with "...".
inline constexpr std::size_t kMaxQuotedBytes = 60;

/// `text` with control characters, DEL, C1 controls and invalid UTF-8 escaped (\n, \x1b,
/// \u0085, \xff) and, if `escape_backslash`, backslashes doubled: safe to print on one line.
std::string printable(std::string_view text, bool escape_backslash = true);

/// printable(text, escape_backslash) and, if `text` is longer than `limit` bytes, only about
/// `limit` / 2 bytes of its head and of its tail around "...".
std::string printable_shortened(std::string_view text, std::size_t limit, bool escape_backslash);

/// 13099950 -> "13,099,950".
std::string group_thousands(std::uint64_t number);

/// `text` cut to at most `limit` bytes without splitting a UTF-8 sequence; `cut` tells
/// whether anything was cut. The result is not made printable.
std::string_view shorten_utf8(std::string_view text, std::size_t limit, bool& cut);

/// `text` in single quotes, with quotes and control characters escaped and long text
/// shortened, so that a message always stays on one readable line. (Not named `quoted`:
/// std::quoted would win by argument-dependent lookup for std::string arguments.)
std::string single_quoted(std::string_view text);

}  // namespace npusim
