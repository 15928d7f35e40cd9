// The host-program part of a scenario file: runtime settings, named buffers, streams and
// events, and an ordered list of host operations run by Simulator::run_host (docs/runtime.md,
// docs/scenarios.md). Plain data plus the reader that checks it; running it is
// sim/scenario/host_program_runner.h.
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
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/chip_config.h"
#include "base/kernel_type.h"
#include "sim/host/runtime.h"
#include "sim/kernels/builtin_kernels.h"
#include "sim/kernels/resource_estimate.h"
#include "sim/scenario/runtime_section.h"
#include "sim/scenario/scenario_buffers.h"

namespace npusim {

class Diagnostics;  // base/config_diagnostics.h

struct ScenarioEvent {
    std::string name;
    std::string pointer;  // "/events/e1"
    EventFlags flags = EventFlags::Default;
};

enum class ScenarioOpKind : std::uint8_t {
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
const char* to_string(ScenarioOpKind kind);  // the "op" name: "memcpy_async"

/// One host operation. Which fields matter depends on `kind`; names are checked references.
struct ScenarioOp {
    ScenarioOpKind kind = ScenarioOpKind::SynchronizeDevice;
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
    /// A kernel of the scenario's "kernels" section (JSON or user library); null for a
    /// built-in kernel (find_builtin_kernel(kernel)).
    std::shared_ptr<const KernelDefinition> definition;
};

/// The kernels a scenario's "kernels" section defines (sim/kernels/json_kernel.h,
/// sim/scenario/scenario_kernels.h), by name. Launches look here first, then among the built-in
/// kernels; a name may not hide a built-in one.
struct ScenarioKernels {
    std::map<std::string, std::shared_ptr<const KernelDefinition>> by_name;
    const KernelDefinition* find(const std::string& name) const {
        const auto it = by_name.find(name);
        return it == by_name.end() ? nullptr : it->second.get();
    }
};

struct HostProgramSpec {
    std::vector<ScenarioBuffer> buffers;  // in name order (JSON objects are unordered)
    std::vector<std::string> streams;     // created at start, in order
    std::vector<ScenarioEvent> events;    // created at start, in name order
    std::vector<ScenarioOp> ops;

    const ScenarioBuffer* find_buffer(const std::string& name) const;
};

/// Reads "buffers", "streams", "events" and "host" of a scenario document (the caller checks
/// the top-level keys and reads "runtime"). Reports every problem with its pointer: unknown
/// keys (with suggestions), types, ranges, undefined buffer, stream, event and graph
/// references, kernel arguments that do not fit the kernel, kernel needs the chip cannot hold.
HostProgramSpec read_host_program(const nlohmann::json& doc, const ChipConfig& chip,
                                  Diagnostics& diag, const ScenarioKernels& kernels = {});

/// What the host program needs of the chip and the host, summed over its buffers and
/// launches (for the host memory estimate); `blocks` is the largest launch.
KernelNeeds host_program_needs(const HostProgramSpec& spec, std::uint32_t& blocks);

}  // namespace npusim
