// The files behind scenario buffers (sim/scenario/scenario_buffers.h): element types and their
// bytes, raw little-endian ".bin" and NumPy ".npy" files, checked when a scenario is read, read for
// a buffer's initial contents and written by `npusim run --dump DIR`. Included by
// sim/scenario/scenario_buffers.h, so its users see all of it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace npusim {

class Diagnostics;      // base/config_diagnostics.h
struct ScenarioBuffer;  // sim/scenario/scenario_buffers.h

/// Element types of scenario buffers; kernels take F32, F16 and I32 (base/types.h DType).
enum class BufferType : std::uint8_t { Float32, Float16, Int32, Int8, Uint8 };
/// Their names in scenario files.
inline constexpr std::pair<std::string_view, BufferType> kBufferTypes[] = {
    {"float32", BufferType::Float32}, {"float16", BufferType::Float16},
    {"int32", BufferType::Int32},     {"int8", BufferType::Int8},
    {"uint8", BufferType::Uint8},
};
const char* to_string(BufferType type);  // "float32", ...
std::uint64_t size_of(BufferType type);

/// Checks the files of "init": {"file": ...} (resolved against `base_dir`, the scenario's
/// folder): readable regular file, raw size or .npy header (dtype, order, shape) and size
/// matching the buffer. Problems name the pointer ("/buffers/x/init/file") and the file.
void check_buffer_files(std::vector<ScenarioBuffer>& buffers, const std::filesystem::path& base_dir,
                        Diagnostics& diag);

/// The elements of a buffer whose "init" is a file checked by check_buffer_files; throws
/// ConfigError naming the file if it changed since.
std::vector<double> read_buffer_file(const ScenarioBuffer& buffer);

/// A golden file for `buffer` ("expect": {"buffers": {"z": {"file": ...}}}): checked like an
/// "init" file (same formats, the buffer's type and size) with problems at `at`, then read.
/// Nullopt when a problem was reported.
std::optional<std::vector<double>> read_golden_file(const ScenarioBuffer& buffer,
                                                    const std::string& file, const std::string& at,
                                                    const std::filesystem::path& base_dir,
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

}  // namespace npusim
