// The host-program part of a scenario file: runtime settings, named buffers, streams and
// events, and an ordered list of host operations run by Simulator::run_host (docs/runtime.md,
// docs/scenarios.md). Plain data plus the reader that checks it; running it is
// sim/host_program_runner.h.
//
//   "runtime": {"flavor": "acl", "placement": "round_robin"},
//   "buffers": {"x": {"dtype": "float32", "shape": [4096], "init": {"fill": 1}}},
//   "streams": ["s1"],
//   "events": {"done": {"flags": ["disable_timing"]}},
//   "host": [{"op": "launch", "kernel": "busy", "blocks": 2, "stream": "s1"},
//            {"op": "record_event", "event": "done", "stream": "s1"},
//            {"op": "query_event", "event": "done"}]
//
// Every operation keeps its JSON pointer ("/host/2"): it stands for the call site in reports.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/chip_config.h"
#include "base/kernel_type.h"
#include "sim/builtin_kernels.h"
#include "sim/resource_estimate.h"
#include "sim/runtime.h"

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

struct ScenarioEvent {
    std::string name;
    std::string pointer;  // "/events/e1"
    EventFlags flags = EventFlags::Default;
};

enum class HostCallKind : std::uint8_t {
    Launch,
    Memcpy,
    MemcpyAsync,
    Memset,
    MemsetAsync,
    Free,
    CreateStream,
    DestroyStream,
    SynchronizeStream,
    QueryStream,
    SynchronizeDevice,
    RecordEvent,
    QueryEvent,
    SynchronizeEvent,
    StreamWaitEvent,
    DestroyEvent,
    ElapsedMs,
    BeginCapture,  // parsed; running them waits for the runtime's capture API
    EndCapture,
    LaunchGraph,
};
const char* to_string(HostCallKind kind);  // the "op" name: "memcpy_async"

/// One host operation. Which fields matter depends on `kind`; names are checked references.
struct HostOp {
    HostCallKind kind = HostCallKind::SynchronizeDevice;
    std::string pointer;  // "/host/3": the call site in reports
    std::string stream = "default";
    std::string event;      // record/query/synchronize/wait/destroy; elapsed_ms: start
    std::string end_event;  // elapsed_ms
    std::string dst, src;   // memcpy, memset (dst), free (dst)
    std::uint64_t bytes = 0;
    std::uint8_t value = 0;  // memset
    std::string graph;       // end_capture, launch_graph
    // launch:
    std::string kernel;
    std::uint32_t blocks = 1;
    KernelParams params;                      // every parameter, defaults filled in
    std::map<std::string, std::string> args;  // kernel argument -> buffer name
    ScheduleMode schedule_mode = ScheduleMode::Normal;
};

struct HostProgramSpec {
    std::vector<ScenarioBuffer> buffers;  // in name order (JSON objects are unordered)
    std::vector<std::string> streams;     // created at start, in order
    std::vector<ScenarioEvent> events;    // created at start, in name order
    std::vector<HostOp> ops;

    const ScenarioBuffer* find_buffer(const std::string& name) const;
};

/// Reads "buffers", "streams", "events" and "host" of a scenario document (the caller checks
/// the top-level keys and reads "runtime"). Reports every problem with its pointer: unknown
/// keys (with suggestions), types, ranges, undefined buffer, stream, event and graph
/// references, kernel arguments that do not fit the kernel, kernel needs the chip cannot hold.
HostProgramSpec read_host_program(const nlohmann::json& doc, const ChipConfig& chip,
                                  Diagnostics& diag);

/// Placement settings from "runtime" (used by both scenario forms).
struct RuntimeSection {
    RuntimeOptions options;
    PlacementPolicy placement = PlacementPolicy::LaunchOrder;
    std::uint64_t seed = 1;
};
RuntimeSection read_runtime_section(const nlohmann::json& value, Diagnostics& diag);

/// What the host program needs of the chip and the host, summed over its buffers and
/// launches (for the host memory estimate); `blocks` is the largest launch.
KernelNeeds host_program_needs(const HostProgramSpec& spec, std::uint32_t& blocks);

}  // namespace npusim
