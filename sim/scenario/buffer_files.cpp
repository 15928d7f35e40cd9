#include "sim/scenario/buffer_files.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <system_error>

#include "base/config_diagnostics.h"
#include "base/errors.h"
#include "base/output_file.h"
#include "base/types.h"
#include "sim/scenario/scenario_buffers.h"

namespace npusim {

namespace {

constexpr std::uint64_t kMaxNpyHeaderBytes = 1 << 20;

std::string file_problem(const std::filesystem::path& path, const std::string& why) {
    return printable(path.string(), false) + ": " + why;
}

/// Reads `count` bytes at `offset` of `path`; throws ConfigError naming the file.
std::string read_bytes_at(const std::filesystem::path& path, std::uint64_t offset,
                          std::uint64_t count) {
    errno = 0;
    std::ifstream in(path, std::ios::binary);
    std::string bytes(count, '\0');
    if (in) in.seekg(static_cast<std::streamoff>(offset));
    if (in) in.read(bytes.data(), static_cast<std::streamsize>(count));
    if (!in || static_cast<std::uint64_t>(in.gcount()) != count) {
        throw ConfigError(
            {file_problem(path, std::string("cannot read ") + std::to_string(count) +
                                    " bytes at offset " + std::to_string(offset) +
                                    (errno != 0 ? std::string(" (") + std::strerror(errno) + ")"
                                                : std::string(" (file too short)")))});
    }
    return bytes;
}

std::string shape_text(const std::vector<std::uint64_t>& shape) {
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        text += (i == 0 ? "" : ", ") + std::to_string(shape[i]);
    return text + "]";
}

/// Scans a Python literal dict header ("{'descr': '<f4', 'fortran_order': False, 'shape':
/// (2, 3), }") for its three keys. Lenient about spacing, strict about values.
class NpyDictReader final {
public:
    explicit NpyDictReader(std::string_view text) : m_text(text) {}

    bool read(NpyHeader& out, std::string& problem) {
        skip_space();
        if (!take('{')) return fail(problem, "the header is not a dict");
        bool descr = false, order = false, shape = false;
        for (;;) {
            skip_space();
            if (take('}')) break;
            std::string key;
            if (!quoted(key)) return fail(problem, "expected a quoted key in the header");
            skip_space();
            if (!take(':')) return fail(problem, "expected ':' after '" + key + "'");
            skip_space();
            if (key == "descr") {
                if (!quoted(out.descr)) return fail(problem, "'descr' is not a string");
                descr = true;
            } else if (key == "fortran_order") {
                if (word("True")) {
                    out.fortran_order = true;
                } else if (word("False")) {
                    out.fortran_order = false;
                } else {
                    return fail(problem, "'fortran_order' is neither True nor False");
                }
                order = true;
            } else if (key == "shape") {
                if (!dims(out.shape)) return fail(problem, "'shape' is not a tuple of integers");
                shape = true;
            } else {
                return fail(problem, "unknown header key '" + printable(key) + "'");
            }
            skip_space();
            if (take(',')) continue;
            skip_space();
            if (take('}')) break;
            return fail(problem, "expected ',' or '}' in the header");
        }
        if (!descr || !order || !shape)
            return fail(problem, "the header lacks 'descr', 'fortran_order' or 'shape'");
        return true;
    }

private:
    static bool fail(std::string& problem, std::string why) {
        problem = std::move(why);
        return false;
    }
    void skip_space() {
        while (m_at < m_text.size() && (m_text[m_at] == ' ' || m_text[m_at] == '\t')) ++m_at;
    }
    bool take(char c) {
        if (m_at < m_text.size() && m_text[m_at] == c) {
            ++m_at;
            return true;
        }
        return false;
    }
    bool word(std::string_view w) {
        if (m_text.substr(m_at, w.size()) != w) return false;
        m_at += w.size();
        return true;
    }
    bool quoted(std::string& out) {
        if (m_at >= m_text.size() || (m_text[m_at] != '\'' && m_text[m_at] != '"')) return false;
        const char quote = m_text[m_at++];
        const std::size_t end = m_text.find(quote, m_at);
        if (end == std::string_view::npos || end - m_at > 64) return false;
        out = std::string(m_text.substr(m_at, end - m_at));
        m_at = end + 1;
        return true;
    }
    bool dims(std::vector<std::uint64_t>& out) {
        if (!take('(')) return false;
        out.clear();
        for (;;) {
            skip_space();
            if (take(')')) return true;
            std::uint64_t v = 0;
            std::size_t digits = 0;
            while (m_at < m_text.size() && m_text[m_at] >= '0' && m_text[m_at] <= '9') {
                if (v > (std::numeric_limits<std::uint64_t>::max() - 9) / 10) return false;
                v = v * 10 + static_cast<std::uint64_t>(m_text[m_at++] - '0');
                ++digits;
            }
            if (m_at < m_text.size() && m_text[m_at] == 'L') ++m_at;  // Python 2's long
            if (digits == 0 || out.size() >= 32) return false;
            out.push_back(v);
            skip_space();
            if (take(',')) continue;
            skip_space();
            return take(')');
        }
    }

    std::string_view m_text;
    std::size_t m_at = 0;
};

template <class Bits>
void put_le(std::string& out, Bits bits) {
    for (std::size_t i = 0; i < sizeof(Bits); ++i)
        out.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
}

template <class Bits>
Bits get_le(const unsigned char* p) {
    Bits bits = 0;
    for (std::size_t i = 0; i < sizeof(Bits); ++i) bits |= static_cast<Bits>(p[i]) << (8 * i);
    return bits;
}

/// A buffer name as one file name: [A-Za-z0-9_.-] kept (no leading '.'), other bytes %XX.
std::string file_name_of(const std::string& name) {
    std::string out;
    for (std::size_t i = 0; i < name.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(name[i]);
        const bool plain = std::isalnum(c) != 0 || c == '_' || c == '-' || (c == '.' && i > 0);
        if (plain) {
            out.push_back(static_cast<char>(c));
        } else {
            char hex[4];
            std::snprintf(hex, sizeof hex, "%%%02X", c);
            out += hex;
        }
    }
    return out.empty() ? std::string("%") : out;
}

void check_buffer_file(ScenarioBuffer& b, const std::filesystem::path& base_dir, Diagnostics& diag,
                       const std::string& at) {
    const std::filesystem::path written(b.init.file);
    const std::filesystem::path path = written.is_absolute() ? written : base_dir / written;
    const std::string shown = printable(path.string(), false);
    std::error_code error;
    const std::filesystem::file_status status = std::filesystem::status(path, error);
    if (status.type() == std::filesystem::file_type::not_found ||
        (error && !std::filesystem::exists(status))) {
        diag.add(at, shown + ": cannot read file (" +
                         (status.type() == std::filesystem::file_type::not_found
                              ? std::string("no such file")
                              : error.message()) +
                         ")");
        return;
    }
    if (!std::filesystem::is_regular_file(status)) {
        // Never opened: a FIFO would block until a writer comes.
        diag.add(at, shown + ": cannot read file (" +
                         (std::filesystem::is_directory(status) ? "it is a directory"
                          : std::filesystem::is_fifo(status)    ? "it is a FIFO, not a regular file"
                                                                : "not a regular file") +
                         ")");
        return;
    }
    const std::uint64_t size = std::filesystem::file_size(path, error);
    if (error) {
        diag.add(at, shown + ": cannot read file (" + error.message() + ")");
        return;
    }
    std::ifstream probe(path, std::ios::binary);
    if (!probe) {
        diag.add(at, shown + ": cannot read file (" + std::strerror(errno) + ")");
        return;
    }
    b.init.path = path;
    const std::string what = "buffer " + single_quoted(b.name) + " (" + to_string(b.type) + ", " +
                             std::to_string(b.elements) + " elements, " + std::to_string(b.bytes) +
                             " bytes)";
    if (*buffer_file_format(path) == BufferFileFormat::Raw) {
        b.init.data_offset = 0;
        if (size != b.bytes) {
            diag.add(at, shown + ": holds " + std::to_string(size) + " bytes; " + what + " takes " +
                             std::to_string(b.bytes) + " (raw little-endian elements, no header)");
        }
        return;
    }
    std::string head(static_cast<std::size_t>(std::min<std::uint64_t>(size, 12)), '\0');
    probe.read(head.data(), static_cast<std::streamsize>(head.size()));
    std::string problem;
    if (size >= 12) {
        const auto* p = reinterpret_cast<const unsigned char*>(head.data());
        const std::uint64_t header_bytes =
            p[6] == 1 ? 10 + get_le<std::uint16_t>(p + 8) : 12 + get_le<std::uint32_t>(p + 8);
        if (header_bytes <= std::min(size, kMaxNpyHeaderBytes)) {
            head.resize(static_cast<std::size_t>(header_bytes));
            probe.read(head.data() + 12, static_cast<std::streamsize>(header_bytes - 12));
        }
    }
    const std::optional<NpyHeader> header = parse_npy_header(head, problem);
    if (!header) {
        diag.add(at, shown + ": not a .npy file this reader takes: " + problem);
        return;
    }
    if (header->descr != npy_descr(b.type) &&
        !(size_of(b.type) == 1 && header->descr.size() == 3 && header->descr[0] == '<' &&
          header->descr.substr(1) == std::string(npy_descr(b.type)).substr(1))) {
        diag.add(at, shown + ": holds dtype '" + printable(header->descr) + "'; " + what +
                         " needs '" + npy_descr(b.type) + "'" +
                         (!header->descr.empty() && header->descr[0] == '>'
                              ? " (big-endian files are not supported: save little-endian)"
                              : ""));
        return;
    }
    if (header->fortran_order) {
        diag.add(at, shown + ": is in Fortran order; save it in C order (numpy.ascontiguousarray)");
        return;
    }
    std::uint64_t elements = 1;
    for (std::uint64_t d : header->shape) {
        elements = d != 0 && elements > std::numeric_limits<std::uint64_t>::max() / d
                       ? std::numeric_limits<std::uint64_t>::max()
                       : elements * d;
    }
    const bool shape_ok = b.shape.empty() ? elements == b.elements : header->shape == b.shape;
    if (!shape_ok) {
        diag.add(at, shown + ": has shape " + shape_text(header->shape) + "; " + what +
                         (b.shape.empty() ? "" : " has shape " + shape_text(b.shape)));
        return;
    }
    if (size != header->data_offset + b.bytes) {
        diag.add(at, shown + ": holds " + std::to_string(size - header->data_offset) +
                         " bytes of elements after its header; shape " + shape_text(header->shape) +
                         " of " + header->descr + " takes " + std::to_string(b.bytes));
        return;
    }
    b.init.data_offset = header->data_offset;
}

}  // namespace

const char* to_string(BufferType type) {
    for (const auto& [name, t] : kBufferTypes) {
        if (t == type) return name.data();
    }
    return "?";
}

std::uint64_t size_of(BufferType type) {
    switch (type) {
        case BufferType::Float32:
        case BufferType::Int32:
            return 4;
        case BufferType::Float16:
            return 2;
        case BufferType::Int8:
        case BufferType::Uint8:
            return 1;
    }
    return 1;
}

std::vector<double> read_buffer_file(const ScenarioBuffer& buffer) {
    const std::string bytes =
        read_bytes_at(buffer.init.path, buffer.init.data_offset, buffer.bytes);
    return decode_elements(buffer.type, bytes);
}

void check_buffer_files(std::vector<ScenarioBuffer>& buffers, const std::filesystem::path& base_dir,
                        Diagnostics& diag) {
    for (ScenarioBuffer& b : buffers) {
        if (b.init.kind == BufferInit::Kind::File)
            check_buffer_file(b, base_dir, diag, b.pointer + "/init/file");
    }
}

std::optional<BufferFileFormat> buffer_file_format(const std::filesystem::path& file) {
    const std::string extension = file.extension().string();
    if (extension == ".bin") return BufferFileFormat::Raw;
    if (extension == ".npy") return BufferFileFormat::Npy;
    return std::nullopt;
}

std::optional<NpyHeader> parse_npy_header(std::string_view head, std::string& problem) {
    static constexpr std::string_view kMagic = "\x93NUMPY";
    if (head.size() < 10 || head.substr(0, 6) != kMagic) {
        problem = "no .npy magic (\\x93NUMPY) at the start";
        return std::nullopt;
    }
    const auto* p = reinterpret_cast<const unsigned char*>(head.data());
    const unsigned major = p[6];
    if (major < 1 || major > 3) {
        problem = "format version " + std::to_string(major) + "." + std::to_string(p[7]) +
                  " (this reader takes 1.0, 2.0 and 3.0)";
        return std::nullopt;
    }
    const std::uint64_t prefix = major == 1 ? 10 : 12;
    if (head.size() < prefix) {
        problem = "the header is cut short";
        return std::nullopt;
    }
    const std::uint64_t length =
        major == 1 ? get_le<std::uint16_t>(p + 8) : get_le<std::uint32_t>(p + 8);
    if (length > kMaxNpyHeaderBytes || prefix + length > head.size()) {
        problem = "the header of " + std::to_string(length) + " bytes is cut short or too long";
        return std::nullopt;
    }
    NpyHeader header;
    header.data_offset = prefix + length;
    NpyDictReader reader(
        head.substr(static_cast<std::size_t>(prefix), static_cast<std::size_t>(length)));
    if (!reader.read(header, problem)) return std::nullopt;
    return header;
}

const char* npy_descr(BufferType type) {
    switch (type) {
        case BufferType::Float32:
            return "<f4";
        case BufferType::Float16:
            return "<f2";
        case BufferType::Int32:
            return "<i4";
        case BufferType::Int8:
            return "|i1";
        case BufferType::Uint8:
            return "|u1";
    }
    return "?";
}

std::string encode_elements(BufferType type, const std::vector<double>& values) {
    std::string out;
    out.reserve(values.size() * size_of(type));
    for (double v : values) {
        switch (type) {
            case BufferType::Float32: {
                std::uint32_t bits = 0;
                const float f = static_cast<float>(v);
                std::memcpy(&bits, &f, sizeof bits);
                put_le(out, bits);
                break;
            }
            case BufferType::Float16:
                put_le(out, half(static_cast<float>(v)).bits);
                break;
            case BufferType::Int32:
                put_le(out, static_cast<std::uint32_t>(static_cast<std::int64_t>(v)));
                break;
            case BufferType::Int8:
            case BufferType::Uint8:
                out.push_back(static_cast<char>(static_cast<std::int64_t>(v) & 0xff));
                break;
        }
    }
    return out;
}

std::vector<double> decode_elements(BufferType type, std::string_view bytes) {
    const std::size_t size = static_cast<std::size_t>(size_of(type));
    std::vector<double> values(bytes.size() / size);
    const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
    for (std::size_t i = 0; i < values.size(); ++i, p += size) {
        switch (type) {
            case BufferType::Float32: {
                const std::uint32_t bits = get_le<std::uint32_t>(p);
                float f = 0;
                std::memcpy(&f, &bits, sizeof f);
                values[i] = static_cast<double>(f);
                break;
            }
            case BufferType::Float16: {
                half h;
                h.bits = get_le<std::uint16_t>(p);
                values[i] = as_double(h);
                break;
            }
            case BufferType::Int32:
                values[i] =
                    static_cast<double>(static_cast<std::int32_t>(get_le<std::uint32_t>(p)));
                break;
            case BufferType::Int8:
                values[i] = static_cast<double>(static_cast<std::int8_t>(*p));
                break;
            case BufferType::Uint8:
                values[i] = static_cast<double>(*p);
                break;
        }
    }
    return values;
}

std::string npy_file(BufferType type, const std::vector<std::uint64_t>& shape,
                     const std::vector<double>& values) {
    std::string dict =
        std::string("{'descr': '") + npy_descr(type) + "', 'fortran_order': False, 'shape': (";
    for (std::size_t i = 0; i < shape.size(); ++i)
        dict += (i == 0 ? "" : ", ") + std::to_string(shape[i]);
    dict += shape.size() == 1 ? ",), }" : "), }";  // a 1-tuple is "(4,)" in Python
    // Magic, version 1.0, a 2-byte length, the dict padded with spaces and ended by '\n' to a
    // multiple of 64 bytes (what numpy writes).
    const std::size_t unpadded = 10 + dict.size() + 1;
    dict.append((64 - unpadded % 64) % 64, ' ');
    dict += '\n';
    std::string out = "\x93NUMPY";
    out.push_back('\x01');
    out.push_back('\x00');
    put_le(out, static_cast<std::uint16_t>(dict.size()));
    out += dict;
    out += encode_elements(type, values);
    return out;
}

std::filesystem::path write_buffer_file(const std::filesystem::path& dir,
                                        const ScenarioBuffer& buffer,
                                        const std::vector<double>& values,
                                        BufferFileFormat format) {
    const bool npy = format == BufferFileFormat::Npy;
    const std::filesystem::path path = dir / (file_name_of(buffer.name) + (npy ? ".npy" : ".bin"));
    const std::vector<std::uint64_t> shape =
        buffer.shape.empty() ? std::vector<std::uint64_t>{values.size()} : buffer.shape;
    const std::string bytes =
        npy ? npy_file(buffer.type, shape, values) : encode_elements(buffer.type, values);
    write_output_file(path, bytes, "buffer dump");
    return path;
}

std::optional<std::vector<double>> read_golden_file(const ScenarioBuffer& buffer,
                                                    const std::string& file, const std::string& at,
                                                    const std::filesystem::path& base_dir,
                                                    Diagnostics& diag) {
    ScenarioBuffer golden = buffer;
    golden.init = BufferInit{};
    golden.init.kind = BufferInit::Kind::File;
    golden.init.file = file;
    const std::uint64_t before = diag.size();
    check_buffer_file(golden, base_dir, diag, at);
    if (diag.size() != before) return std::nullopt;
    return read_buffer_file(golden);
}

}  // namespace npusim
