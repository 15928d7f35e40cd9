// The host runtime's state (sim/host/runtime_engine.h): operations with their completion state,
// captured operations and graphs, streams, events, host and device allocations, and the call
// site every runtime call reports. Plain data; Runtime::Impl owns and changes it. Included only
// through sim/host/runtime_engine.h.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <source_location>
#include <span>
#include <string>
#include <vector>

#include <systemc>

#include "core/kernel_launch.h"
#include "sim/host/runtime.h"

namespace npusim {

namespace runtime_detail {

/// Set by Runtime::set_call_site: the call site every runtime call reports instead of its
/// source location (one simulation kernel per process, so one runtime runs at a time).
inline std::string& call_site_override() {
    static std::string site;
    return site;
}

inline std::string site_of(const std::source_location& where) {
    if (!call_site_override().empty()) return call_site_override();
    std::string file = where.file_name();
    const std::size_t slash = file.find_last_of('/');
    if (slash != std::string::npos) file = file.substr(slash + 1);
    return file + ":" + std::to_string(where.line());
}

inline std::string call_text(const char* call, const std::source_location& where) {
    return std::string(call) + " at " + site_of(where);
}

/// Unwinds the host thread and the stream workers when the run is aborted or stopped.
struct HostAborted {};

struct HostOpState {
    bool done = false;
    Cycle end = 0;
    bool kernel_done = false;
    Cycle kernel_end = 0;
    std::uint32_t kernel_id = 0;  // the scheduler's id once submitted
};

/// What a transfer's bytes travel through, which decides its duration and what it shares.
enum class TransferPath : std::uint8_t {
    HostToDevice,  // the host link (PCIe-class, full duplex): H2D copies share one direction
    DeviceToHost,  // ... D2H copies and host memsets (the device writes host memory) the other
    Gm,            // device to device, device memset: shared with the cores' GM traffic
};

struct HostOp {
    enum class Kind : std::uint8_t { Kernel, Transfer, Record, Wait };
    Kind kind = Kind::Record;
    HostOpInfo info;  // what observers learn (its id is assigned when queued)
    std::unique_ptr<KernelLaunch> kernel;
    TransferPath path = TransferPath::HostToDevice;
    std::uint64_t path_bytes = 0;  // bytes the path moves (a device copy: read + write)
    std::function<void()> effect;  // the data movement, applied when the op completes
    std::shared_ptr<HostOpState> wait_for;
    std::uint32_t wait_stream = 0;  // Wait: the stream the awaited record was queued on
    std::shared_ptr<HostOpState> state = std::make_shared<HostOpState>();
    std::vector<std::uint64_t> device_buffers;
    std::vector<std::uint32_t> host_buffers;
};

/// One captured operation of a graph: an op template, replayed as a new op at each launch.
struct CapturedOp {
    HostOp::Kind kind = HostOp::Kind::Record;
    HostOpInfo info;  // call and where are the capture's (the replay renames them)
    std::shared_ptr<const KernelLaunch> kernel;
    TransferPath path = TransferPath::HostToDevice;
    std::uint64_t path_bytes = 0;
    std::function<void()> effect;
    std::vector<std::uint64_t> device_buffers;
    std::vector<std::uint32_t> host_buffers;
    std::size_t waits_for = 0;  // Wait: index of the captured Record it waits for
    std::size_t lane = 0;       // the captured stream it was queued on (0: the origin)
};

/// A capture in progress (begin_capture .. end_capture). Streams that waited on an event
/// recorded in it joined it (cross-stream capture): each captured stream is a lane.
struct CaptureState {
    std::uint32_t stream = 0;          // the origin stream (begin_capture)
    std::vector<std::uint32_t> lanes;  // captured streams, the origin first
    CaptureMode mode = CaptureMode::Global;
    std::string begun_at;
    bool active = true;
    std::string invalidated;  // empty while valid; else what invalidated it, and where
    std::vector<CapturedOp> ops;
};

struct GraphState {
    std::string captured_at;  // "begin_capture at f:l .. end_capture at f:l"
    bool destroyed = false;
    std::vector<CapturedOp> ops;
    std::size_t lanes = 1;  // lane 0 replays on the launch stream, others on internal ones
};

struct StreamState {
    std::uint32_t id = 0;
    std::string name;                       // given by create_stream(name); "" for none
    std::shared_ptr<CaptureState> capture;  // set while the stream captures
    bool destroyed = false;
    bool graph_internal = false;  // a lane of a graph launch (no handle; counts as destroyed)
    std::string destroyed_at;
    std::deque<HostOp> queue;  // the head runs; an op leaves the queue when it completed
    // Its worker thread: started with its first op, it waits for more while the host program
    // runs (one thread per stream, not one per burst of ops), and ends with the host program.
    bool worker = false;
    bool worker_idle = false;        // waiting on work_arrived with an empty queue
    sc_core::sc_event work_arrived;  // an op was queued while the worker was idle
    std::uint64_t last_op = 0;       // the last op queued (0: none yet)
};

struct EventState {
    EventFlags flags = EventFlags::Default;
    std::string name;  // given by create_event(name); "" for none
    bool destroyed = false;
    std::shared_ptr<HostOpState> marker;  // the captured work (null: never recorded)
    std::uint64_t record_op = 0;          // the EventRecord op of the capture
    std::shared_ptr<StreamState> recorded_on;
    // Last recorded in a stream capture: that capture, and the captured Record's index. The
    // real snapshot above is left as it was; it counts again once the capture ended.
    std::shared_ptr<CaptureState> captured_in;
    std::size_t captured_index = 0;
    bool in_active_capture() const { return captured_in && captured_in->active; }
};

/// Host memory. With unified memory on, pinned and managed allocations live in a contiguous
/// GM buffer (device-visible, one storage for host and kernels); otherwise in `owned`.
struct HostAllocation {
    HostMemoryKind kind = HostMemoryKind::Pageable;
    std::vector<std::byte> owned;
    std::uint64_t gm_address = 0;  // 0: not device-visible
    std::span<std::byte> bytes;    // the storage, either one
    bool freed = false;
    std::uint32_t pending = 0;
};

struct DeviceAllocation {
    std::uint64_t bytes = 0;
    bool freed = false;
    std::uint32_t pending = 0;
};

inline std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
    return b == 0 ? 0 : (a + b - 1) / b;
}

}  // namespace runtime_detail

using namespace runtime_detail;

}  // namespace npusim
