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
// --dump DIR` writes buffers back in the same formats (sim/scenario/buffer_files.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/chip_config.h"
#include "sim/scenario/buffer_files.h"

namespace npusim {

class Diagnostics;  // base/config_diagnostics.h

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

/// Reads the "buffers" object (in name order: JSON objects are unordered), reporting every
/// problem with its pointer, and device buffers that together do not fit the chip's GM.
std::vector<ScenarioBuffer> read_buffers(const nlohmann::json& buffers, const ChipConfig& chip,
                                         Diagnostics& diag);

}  // namespace npusim
