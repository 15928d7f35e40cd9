// The host runtime: an ACL/CUDA-like API a host program calls while the chip runs, in
// simulated time. Simulator::run_host runs the program on its own simulated host thread next
// to the cores: asynchronous calls return at once, synchronizing calls block the host thread
// until the device work completes, and every call costs host time (chip parameters under
// /runtime). See docs/runtime.md for the semantics, the memory-kind rules and the rules of
// stream capture.
//
//   sim.run_host([&](npusim::Runtime& rt) {
//       npusim::Stream s = rt.create_stream();
//       npusim::DeviceBuffer x = rt.malloc(4096);
//       rt.memcpy_async(x, host, 4096, s);
//       rt.launch(s, {.name = "k", .blocks = 4}, body);
//       rt.synchronize_stream(s);
//   });
//
// Like sim/simulator.h, this header does not include SystemC. The runtime works on the engine
// (sim/engine/chip.h), never on the facade; HostSession (sim/host/host_session.h) is how the
// facade starts one and how the engine asks it about the host side at the end of a run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <source_location>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "base/errors.h"
#include "base/host_ops.h"
#include "base/kernel_type.h"
#include "base/tensor.h"
#include "base/types.h"
#include "sim/engine/launch_spec.h"
#include "sim/engine/run_result.h"
#include "sync/deadlock/wait_state.h"

namespace npusim {

class Chip;
class Runtime;

/// A host program for Simulator::run_host.
using HostProgram = std::function<void(Runtime&)>;

/// Outcome of a runtime call, named after the ACL/CUDA status families.
enum class Status : std::uint8_t {
    Success,
    InvalidValue,   // a bad argument (size, memory kind, flag combination)
    InvalidHandle,  // a stream, event or buffer that does not exist or was destroyed
    NotReady,       // queried work has not completed yet
    NotPermitted,   // the call is not allowed in the handle's state
    NotSupported,   // the simulator does not model this yet
    OutOfMemory,    // device (GM) allocation failed
};
const char* to_string(Status status);

/// A runtime call failed: the status and the call site (file:line of the host program).
class RuntimeError final : public Error {
public:
    RuntimeError(Status status, const std::string& message, std::source_location where);
    Status status() const { return m_status; }
    /// "file:line" of the failing call in the host program.
    const std::string& where() const { return m_where; }

private:
    Status m_status;
    std::string m_where;
};

/// How a runtime behaves where ACL and HIP/CUDA differ.
enum class RuntimeFlavor : std::uint8_t {
    Acl,  // aclrtDestroyStream waits for the stream's pending work
    Hip,  // hipStreamDestroy / cudaStreamDestroy return at once; the work still completes
};

struct RuntimeOptions {
    RuntimeFlavor flavor = RuntimeFlavor::Acl;
    /// The device can reach host memory (unified-memory mode): pinned and managed host
    /// allocations are device-visible (Runtime::device_view: kernels read and write them,
    /// one storage with host_bytes) and memset / memset_async accept them. Pageable host
    /// memory is refused either way.
    bool unified_memory = false;
    /// CUDA's legacy default stream: work queued on the default stream first waits for the
    /// work pending on every other stream, work queued on another stream first waits for the
    /// default stream's pending work, and synchronous copies and memsets first wait for
    /// every stream (they are issued into the default stream). Every created stream counts
    /// as blocking. Off: the default stream is an ordinary stream (per-thread default stream,
    /// and ACL, whose documents give its default stream no implicit synchronization).
    bool legacy_default_stream = false;
    /// Quirk, off by default: query_event on an interprocess event returns Success even while
    /// the work recorded before it still runs. Reproduces a bug of a released vendor runtime
    /// (interprocess events reported complete while their stream was still running); with
    /// the quirk off, every flag combination follows the documented snapshot semantics.
    bool quirk_interprocess_query_always_succeeds = false;
    /// Host stack of the simulated host thread: the host program runs on it.
    std::size_t host_stack_bytes = 1024 * 1024;
};

enum class HostMemoryKind : std::uint8_t {
    Pageable,  // plain host memory (malloc/new)
    Pinned,    // page-locked / registered (aclrtMallocHost, cudaMallocHost)
    Managed,   // unified / managed memory (cudaMallocManaged)
};
const char* to_string(HostMemoryKind kind);

/// Event creation flags; combine with |.
enum class EventFlags : std::uint32_t {
    Default = 0,
    DisableTiming = 1,  // no timestamps: elapsed_ms refuses the event
    Interprocess = 2,   // shareable between processes; requires DisableTiming
};
constexpr EventFlags operator|(EventFlags a, EventFlags b) {
    return static_cast<EventFlags>(static_cast<std::uint32_t>(a) | static_cast<std::uint32_t>(b));
}
constexpr bool has_flag(EventFlags flags, EventFlags flag) {
    return (static_cast<std::uint32_t>(flags) & static_cast<std::uint32_t>(flag)) != 0;
}

struct Stream {
    std::uint32_t id = 0;  // 0: the default stream
    bool operator==(const Stream&) const = default;
};

struct Event {
    std::uint32_t id = 0;
    bool operator==(const Event&) const = default;
};

/// Work captured from a stream (begin_capture .. end_capture), launched with launch_graph:
/// an ACL model run instance (aclmdlRI), a CUDA graph exec.
struct Graph {
    std::uint32_t id = 0;
    bool operator==(const Graph&) const = default;
};

/// Which calls a capture forbids while it is active (aclmdlRICaptureMode, cudaStreamCapture-
/// Mode). The host program is one thread, so Global and ThreadLocal behave the same here:
/// synchronous copies and memsets, and async copies with pageable host memory, are refused
/// and invalidate the capture. Relaxed allows them. Queries and synchronization of a
/// capturing stream (or an event recorded in one) are refused in every mode.
enum class CaptureMode : std::uint8_t { Global, ThreadLocal, Relaxed };

/// A stream's capture state (aclmdlRICaptureGetInfo).
enum class CaptureStatus : std::uint8_t {
    None,         // not capturing
    Active,       // capturing
    Invalidated,  // capturing, but a forbidden call invalidated it: end_capture fails
};

/// Device (GM) memory from Runtime::malloc. It stays allocated in the simulator after
/// run_host returns unless the program frees it, so results can be read with Simulator::read.
struct DeviceBuffer {
    std::uint64_t address = 0;
    std::uint64_t bytes = 0;
    template <Element T>
    GlobalTensor<T> as() const {
        return {address, bytes / sizeof(T)};
    }
};

/// Host memory owned by the runtime (freed when run_host returns at the latest).
struct HostBuffer {
    std::uint32_t id = 0;
    HostMemoryKind kind = HostMemoryKind::Pageable;
    std::uint64_t bytes = 0;
};

class Runtime final {
public:
    using Where = std::source_location;

    ~Runtime();
    Runtime(const Runtime&) = delete;
    Runtime& operator=(const Runtime&) = delete;

    /// The host thread's simulated time (cycles). Costs nothing.
    Cycle now() const;
    const RuntimeOptions& options() const;
    /// Lifecycle diagnostics so far, each naming the call site (also in RunResult::warnings).
    const std::vector<HostWarning>& warnings() const;
    /// For a scripting layer (the scenario runner passes "file.json#/host/3"): the calls
    /// made until the next set_call_site("") report `site` as their call site instead of
    /// their C++ source location, in errors, warnings and what observers see.
    void set_call_site(std::string site);
    /// Streams' head operations and what the host thread waits for, now.
    RuntimeWaitState wait_state() const;

    // ---- memory ---------------------------------------------------------------------------
    DeviceBuffer malloc(std::uint64_t bytes, std::string name = {}, Where where = Where::current());
    /// Pending copies or memsets on the buffer: a warning, and the memory is released when
    /// they complete. (The runtime cannot see which buffers a kernel uses.)
    void free(DeviceBuffer buffer, Where where = Where::current());
    HostBuffer malloc_host(std::uint64_t bytes, HostMemoryKind kind,
                           Where where = Where::current());
    void free_host(HostBuffer buffer, Where where = Where::current());
    /// The host bytes, readable and writable by the program (no simulated cost). For
    /// device-visible memory (unified memory) they are the bytes kernels read and write,
    /// with the kernels' writes up to now in.
    std::span<std::byte> host_bytes(HostBuffer buffer, Where where = Where::current());
    template <class T>
    requires std::is_trivially_copyable_v<T> std::span<T> host_span(
        HostBuffer buffer, Where where = Where::current()) {
        const std::span<std::byte> bytes = host_bytes(buffer, where);
        return {reinterpret_cast<T*>(bytes.data()), bytes.size() / sizeof(T)};
    }

    /// The GM address of pinned or managed host memory under RuntimeOptions::unified_memory:
    /// kernels reach the host bytes through it. InvalidValue for pageable memory or with
    /// unified memory off.
    std::uint64_t device_address(HostBuffer buffer, Where where = Where::current());
    template <Element T>
    GlobalTensor<T> device_view(HostBuffer buffer, Where where = Where::current()) {
        return {device_address(buffer, where), buffer.bytes / sizeof(T)};
    }

    /// Synchronous copies run at once on the host thread (no ordering with streams, as
    /// aclrtMemcpy) and return when the data landed.
    void memcpy(DeviceBuffer dst, HostBuffer src, std::uint64_t bytes,
                Where where = Where::current());
    void memcpy(HostBuffer dst, DeviceBuffer src, std::uint64_t bytes,
                Where where = Where::current());
    void memcpy(DeviceBuffer dst, DeviceBuffer src, std::uint64_t bytes,
                Where where = Where::current());
    /// Queued on the stream. With pageable host memory the host waits until the copy is done
    /// (the runtime stages it), as CUDA does.
    void memcpy_async(DeviceBuffer dst, HostBuffer src, std::uint64_t bytes, Stream stream,
                      Where where = Where::current());
    void memcpy_async(HostBuffer dst, DeviceBuffer src, std::uint64_t bytes, Stream stream,
                      Where where = Where::current());
    void memcpy_async(DeviceBuffer dst, DeviceBuffer src, std::uint64_t bytes, Stream stream,
                      Where where = Where::current());
    void memset(DeviceBuffer dst, std::uint8_t value, std::uint64_t bytes,
                Where where = Where::current());
    /// Pageable: InvalidValue. Pinned/managed: accepted only with RuntimeOptions::unified_memory.
    void memset(HostBuffer dst, std::uint8_t value, std::uint64_t bytes,
                Where where = Where::current());
    void memset_async(DeviceBuffer dst, std::uint8_t value, std::uint64_t bytes, Stream stream,
                      Where where = Where::current());
    void memset_async(HostBuffer dst, std::uint8_t value, std::uint64_t bytes, Stream stream,
                      Where where = Where::current());

    // ---- streams --------------------------------------------------------------------------
    Stream default_stream() const { return {}; }
    Stream create_stream(Where where = Where::current());
    /// The same, with a name reports use for it ("stream s1" instead of "stream 1"): findings,
    /// fixes, deadlock reports and runtime errors. Names need not be unique.
    Stream create_stream(std::string name, Where where = Where::current());
    /// Acl flavor: waits for the stream's pending work, then destroys it. Hip flavor: returns
    /// at once; the pending work still completes. The handle is invalid afterwards.
    void destroy_stream(Stream stream, Where where = Where::current());
    /// Queues a kernel: it is submitted to the device scheduler when the stream's previous
    /// operation completed. Throws RuntimeError(InvalidValue) for a bad spec.
    void launch(Stream stream, const LaunchSpec& spec, KernelBody body,
                Where where = Where::current());
    void synchronize_stream(Stream stream, Where where = Where::current());
    /// Success when every operation queued on the stream completed, NotReady otherwise.
    Status query_stream(Stream stream, Where where = Where::current());
    /// Waits for every stream, including destroyed ones still draining.
    void synchronize_device(Where where = Where::current());

    // ---- events ---------------------------------------------------------------------------
    /// Interprocess without DisableTiming: InvalidValue.
    Event create_event(EventFlags flags = EventFlags::Default, Where where = Where::current());
    /// The same, with a name reports use for it ("event e1" instead of "event 3"): deadlock
    /// reports and runtime errors. Names need not be unique.
    Event create_event(std::string name, EventFlags flags = EventFlags::Default,
                       Where where = Where::current());
    /// Allowed while recorded work is pending (a warning); the event is gone at once.
    void destroy_event(Event event, Where where = Where::current());
    /// Captures the work queued on the stream so far; re-recording replaces the capture.
    void record_event(Event event, Stream stream, Where where = Where::current());
    /// NotReady until the captured work completed; Success after, and before any record.
    Status query_event(Event event, Where where = Where::current());
    void synchronize_event(Event event, Where where = Where::current());
    /// Later work on `stream` waits for the event's capture as it is now; a never-recorded
    /// event makes this a no-op. An event last recorded in an active stream capture makes a
    /// stream that is not capturing join that capture (cross-stream capture).
    void stream_wait_event(Stream stream, Event event, Where where = Where::current());
    // ---- stream capture and graphs --------------------------------------------------------
    /// Work queued on the stream from now on (launch, memcpy_async, memset_async,
    /// record_event, stream_wait_event) is recorded into a graph instead of running. Refused
    /// (NotPermitted) on the default stream and on a stream already capturing.
    void begin_capture(Stream stream, Where where = Where::current());
    void begin_capture(Stream stream, CaptureMode mode, Where where = Where::current());
    /// Ends the capture and returns its graph. NotPermitted when the stream is not capturing,
    /// or when a forbidden call invalidated the capture (the message names that call and
    /// where it was made); the stream stops capturing either way.
    Graph end_capture(Stream stream, Where where = Where::current());
    CaptureStatus capture_status(Stream stream, Where where = Where::current());
    /// Queues the graph's work on `stream`, as new operations (call "launch_graph", where
    /// "<this call> (captured at <its capture site>)"); a graph launches on any stream, any
    /// number of times. InvalidHandle for a destroyed graph; InvalidValue when memory the
    /// graph uses was freed.
    void launch_graph(Graph graph, Stream stream, Where where = Where::current());
    /// Launches already queued still run.
    void destroy_graph(Graph graph, Where where = Where::current());

    /// Milliseconds between two completed events. DisableTiming on either: InvalidHandle (as
    /// cudaEventElapsedTime); never recorded: InvalidValue; not completed: NotReady.
    double elapsed_ms(Event start, Event end, Where where = Where::current());

    struct Impl;

private:
    friend class HostSession;  // creates the runtime and starts its host thread
    explicit Runtime(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

}  // namespace npusim
