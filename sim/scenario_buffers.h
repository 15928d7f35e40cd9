// Scenario buffers ("buffers" of a host-program scenario, docs/scenarios.md): element type,
// size, memory kind and initial contents, and their reader. Issue 10's file inputs and
// outputs extend this component.
//
//   "buffers": {"x": {"dtype": "float32", "shape": [4096], "init": {"range": {"start": 0}}},
//               "h": {"dtype": "uint8", "bytes": 4096, "memory": "pinned"},
//               "w": {"dtype": "float16", "shape": [64, 64], "init": {"file": "w.npy"}}}
//
// Files: raw little-endian elements (".bin", as the vendor samples' data scripts write them)
// or NumPy ".npy" (format 1.0, 2.0 or 3.0; a little-endian dtype matching the buffer's:
// '<f4', '<f2', '<i4', '|i1', '|u1'; C order; the shape equal to the buffer's). `npusim run
// --dump DIR` writes buffers back in the same formats.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/chip_config.h"

namespace npusim {

class Diagnostics;  // base/config_diagnostics.h

/// Element types of scenario buffers; kernels take F32, F16 and I32 (base/types.h DType).
enum class BufferType : std::uint8_t { Float32, Float16, Int32, Int8, Uint8 };
const char* to_string(BufferType type);  // "float32", ...
std::uint64_t size_of(BufferType type);

enum class BufferMemory : std::uint8_t { Device, Pageable, Pinned, Managed };
const char* to_string(BufferMemory memory);  // "device", "pageable", "pinned", "managed"

/// Initial contents. None: device memory is left unwritten (the checker's initcheck sees
/// reads of it), host memory is zero.
struct BufferInit {
    enum class Kind : std::uint8_t { None, Zeros, Fill, Range, Random, File };
    Kind kind = Kind::None;
    double value = 0.0;  // Fill
    double start = 0.0;  // Range: element i = start + i * step
    double step = 1.0;
    double low = 0.0;  // Random (uniform in [low, high), deterministic per seed)
    double high = 1.0;
    std::uint64_t seed = 1;
    std::string file;               // File: as written, relative to the scenario file
    std::filesystem::path path;     // File: resolved and checked by check_buffer_files
    std::uint64_t data_offset = 0;  // File: bytes before the elements (the .npy header)
};

struct ScenarioBuffer {
    std::string name;
    std::string pointer;  // "/buffers/x"
    BufferType type = BufferType::Float32;
    std::uint64_t elements = 0;
    std::uint64_t bytes = 0;
    std::vector<std::uint64_t> shape;  // as declared; empty when given by "bytes"
    BufferMemory memory = BufferMemory::Device;
    BufferInit init;
};

/// Element values of a buffer's initial contents, as doubles (converted to the type when
/// written). Random: splitmix64 on the seed, the same values on every platform. File: read
/// from the checked file; throws ConfigError naming it if it changed since.
std::vector<double> initial_values(const ScenarioBuffer& buffer);

/// Checks the files of "init": {"file": ...} (resolved against `base_dir`, the scenario's
/// folder): readable regular file, raw size or .npy header (dtype, order, shape) and size
/// matching the buffer. Problems name the pointer ("/buffers/x/init/file") and the file.
void check_buffer_files(std::vector<ScenarioBuffer>& buffers, const std::filesystem::path& base_dir,
                        Diagnostics& diag);

enum class BufferFileFormat : std::uint8_t { Raw, Npy };
/// ".bin" -> Raw, ".npy" -> Npy, other extensions nullopt.
std::optional<BufferFileFormat> buffer_file_format(const std::filesystem::path& file);

/// The .npy header of a file: "descr" ('<f4'), "fortran_order" and "shape".
struct NpyHeader {
    std::string descr;
    bool fortran_order = false;
    std::vector<std::uint64_t> shape;
    std::uint64_t data_offset = 0;  // where the elements start
};
/// Parses the header at the start of `head` (the first bytes of a file, at least the whole
/// header); nullopt with `problem` set when it is no .npy header this reader takes.
std::optional<NpyHeader> parse_npy_header(std::string_view head, std::string& problem);
/// The .npy dtype of a buffer type: "<f4", "<f2", "<i4", "|i1", "|u1".
const char* npy_descr(BufferType type);

/// `values` as the type's little-endian element bytes (what a .bin file holds).
std::string encode_elements(BufferType type, const std::vector<double>& values);
/// Element bytes back to values; `bytes` holds whole elements.
std::vector<double> decode_elements(BufferType type, std::string_view bytes);
/// A whole .npy file (format 1.0, C order) of `values` with `shape`.
std::string npy_file(BufferType type, const std::vector<std::uint64_t>& shape,
                     const std::vector<double>& values);

/// Writes `values` of `buffer` to `dir`/<name>.bin or .npy (the shape is the declared one, or
/// one dimension); names with characters outside [A-Za-z0-9_.-] are %-escaped. Returns the
/// path; throws UsageError naming it when it cannot be written.
std::filesystem::path write_buffer_file(const std::filesystem::path& dir,
                                        const ScenarioBuffer& buffer,
                                        const std::vector<double>& values, BufferFileFormat format);

/// Reads the "buffers" object (in name order: JSON objects are unordered), reporting every
/// problem with its pointer, and device buffers that together do not fit the chip's GM.
std::vector<ScenarioBuffer> read_buffers(const nlohmann::json& buffers, const ChipConfig& chip,
                                         Diagnostics& diag);

}  // namespace npusim
