// Scenario buffers ("buffers" of a host-program scenario, docs/scenarios.md): element type,
// size, memory kind and initial contents, and their reader. Issue 10's file inputs and
// outputs extend this component.
//
//   "buffers": {"x": {"dtype": "float32", "shape": [4096], "init": {"range": {"start": 0}}},
//               "h": {"dtype": "uint8", "bytes": 4096, "memory": "pinned"}}
#pragma once

#include <cstdint>
#include <string>
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
    enum class Kind : std::uint8_t { None, Zeros, Fill, Range, Random };
    Kind kind = Kind::None;
    double value = 0.0;  // Fill
    double start = 0.0;  // Range: element i = start + i * step
    double step = 1.0;
    double low = 0.0;  // Random (uniform in [low, high), deterministic per seed)
    double high = 1.0;
    std::uint64_t seed = 1;
};

struct ScenarioBuffer {
    std::string name;
    std::string pointer;  // "/buffers/x"
    BufferType type = BufferType::Float32;
    std::uint64_t elements = 0;
    std::uint64_t bytes = 0;
    BufferMemory memory = BufferMemory::Device;
    BufferInit init;
};

/// Element values of a buffer's initial contents, as doubles (converted to the type when
/// written). Random: splitmix64 on the seed, the same values on every platform.
std::vector<double> initial_values(const ScenarioBuffer& buffer);

/// Reads the "buffers" object (in name order: JSON objects are unordered), reporting every
/// problem with its pointer, and device buffers that together do not fit the chip's GM.
std::vector<ScenarioBuffer> read_buffers(const nlohmann::json& buffers, const ChipConfig& chip,
                                         Diagnostics& diag);

}  // namespace npusim
