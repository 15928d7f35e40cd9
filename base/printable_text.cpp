#include "base/printable_text.h"

#include <string>

namespace npusim {

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

}  // namespace

std::string printable(std::string_view text, bool escape_backslash) {
    std::string out;
    out.reserve(text.size());
    append_escaped(out, text, 0, escape_backslash);
    return out;
}

std::string printable_shortened(std::string_view text, std::size_t limit, bool escape_backslash) {
    std::string out;
    append_shortened(out, text, limit, escape_backslash);
    return out;
}

std::string group_thousands(std::uint64_t number) {
    std::string digits = std::to_string(number);
    for (std::size_t at = digits.size(); at > 3; at -= 3) digits.insert(at - 3, ",");
    return digits;
}

std::string_view shorten_utf8(std::string_view text, std::size_t limit, bool& cut) {
    cut = text.size() > limit;
    if (!cut) return text;
    std::size_t end = limit;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    return text.substr(0, end);
}

std::string single_quoted(std::string_view text) {
    bool cut = false;
    const std::string_view shown = shorten_utf8(text, kMaxQuotedBytes, cut);
    std::string result = "'";
    append_escaped(result, shown, '\'', true);
    result += cut ? "...'" : "'";
    return result;
}

}  // namespace npusim
