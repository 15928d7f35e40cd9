// The ACL runtime API as Ascend C sample hosts use it, mapped onto npusim::Runtime
// (sim/runtime.h). Host programs run on npusim's simulated host thread: either through
// npusim::acl::run_host(sim, program), or, for a sample's unchanged main.cpp, through the
// main() of the npusim::ascendc_main library (this header renames the program's main to
// npusim_acl_user_main unless NPUSIM_ACL_NO_MAIN is defined).
//
// Pointers: aclrtMalloc returns the simulated GM address as a pointer (kernels receive it as
// GM_ADDR); host code must not dereference it. aclrtMallocHost returns real host memory.
// aclrtMemcpy infers the direction from the pointers (the kind is ignored, as documented);
// host pointers not from aclrtMallocHost are staged through pageable host buffers.
// Status codes are the documented numeric values (docs/ascendc.md lists the mapping).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <map>
#include <source_location>
#include <string>
#include <utility>

#include "kernel_operator.h"
#include "sim/runtime.h"
#include "sim/simulator.h"

using aclError = int;
using aclrtStream = void*;
using aclrtEvent = void*;
using aclrtContext = void*;

// ---- status codes (numeric values as documented) ---------------------------------------------
constexpr aclError ACL_SUCCESS = 0;
constexpr aclError ACL_ERROR_NONE = 0;
constexpr aclError ACL_ERROR_INVALID_PARAM = 100000;
constexpr aclError ACL_ERROR_UNINITIALIZE = 100001;
constexpr aclError ACL_ERROR_REPEAT_INITIALIZE = 100002;
constexpr aclError ACL_ERROR_REPEAT_FINALIZE = 100037;
constexpr aclError ACL_ERROR_BAD_ALLOC = 200000;
constexpr aclError ACL_ERROR_API_NOT_SUPPORT = 200001;
constexpr aclError ACL_ERROR_INVALID_DEVICE = 200002;
constexpr aclError ACL_ERROR_INVALID_RESOURCE_HANDLE = 200005;
constexpr aclError ACL_ERROR_FEATURE_UNSUPPORTED = 200006;
constexpr aclError ACL_ERROR_INTERNAL_ERROR = 500000;
constexpr aclError ACL_ERROR_FAILURE = 500001;
constexpr aclError ACL_ERROR_RT_FAILURE = 500003;
constexpr aclError ACL_ERROR_RT_PARAM_INVALID = 107000;
constexpr aclError ACL_ERROR_RT_INVALID_DEVICEID = 107001;
constexpr aclError ACL_ERROR_RT_CONTEXT_NULL = 107002;
constexpr aclError ACL_ERROR_RT_STREAM_CONTEXT = 107003;
constexpr aclError ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID = 107006;
constexpr aclError ACL_ERROR_RT_INVALID_MEMORY_TYPE = 107016;
constexpr aclError ACL_ERROR_RT_INVALID_HANDLE = 107017;
constexpr aclError ACL_ERROR_RT_FEATURE_NOT_SUPPORT = 207000;
constexpr aclError ACL_ERROR_RT_MEMORY_ALLOCATION = 207001;
constexpr aclError ACL_ERROR_RT_STREAM_NOT_COMPLETE = 507004;
constexpr aclError ACL_ERROR_RT_EVENT_NOT_COMPLETE = 507006;
constexpr aclError ACL_ERROR_RT_AICORE_EXCEPTION = 507015;

enum aclrtMemMallocPolicy {
    ACL_MEM_MALLOC_HUGE_FIRST = 0,
    ACL_MEM_MALLOC_HUGE_ONLY = 1,
    ACL_MEM_MALLOC_NORMAL_ONLY = 2,
};
enum aclrtMemcpyKind {
    ACL_MEMCPY_HOST_TO_HOST = 0,
    ACL_MEMCPY_HOST_TO_DEVICE = 1,
    ACL_MEMCPY_DEVICE_TO_HOST = 2,
    ACL_MEMCPY_DEVICE_TO_DEVICE = 3,
    ACL_MEMCPY_DEFAULT = 4,
};
enum aclrtStreamStatus {
    ACL_STREAM_STATUS_COMPLETE = 0,
    ACL_STREAM_STATUS_NOT_READY = 1,
    ACL_STREAM_STATUS_RESERVED = 0xFFFF,
};
enum aclrtEventRecordedStatus {
    ACL_EVENT_RECORDED_STATUS_NOT_READY = 0,
    ACL_EVENT_RECORDED_STATUS_COMPLETE = 1,
};
enum aclrtEventStatus {
    ACL_EVENT_STATUS_COMPLETE = 0,
    ACL_EVENT_STATUS_NOT_READY = 1,
    ACL_EVENT_STATUS_RESERVED = 2,
};
constexpr std::uint32_t ACL_EVENT_SYNC = 0x1;
constexpr std::uint32_t ACL_EVENT_CAPTURE_STREAM_PROGRESS = 0x2;
constexpr std::uint32_t ACL_EVENT_TIME_LINE = 0x8;
constexpr std::uint32_t ACL_EVENT_DEVICE_USE_ONLY = 0x10;
constexpr std::uint32_t ACL_EVENT_EXTERNAL = 0x20;
constexpr std::uint32_t ACL_EVENT_IPC = 0x40;

namespace npusim::acl {

using Where = std::source_location;

/// The host side's state: the runtime of the host program that is running, and which
/// pointers it handed out.
struct HostState {
    Runtime* runtime = nullptr;
    bool initialised = false;
    std::map<std::uint64_t, DeviceBuffer> device;  // by GM address
    std::map<const std::byte*, HostBuffer> host;   // aclrtMallocHost, by start
    std::map<const void*, KernelType> kernel_types;
    std::map<const void*, ScheduleMode> schedule_modes;
    std::string last_error;  // aclGetRecentErrMsg
};
inline HostState g_host;

inline aclError to_acl(Status status) {
    switch (status) {
        case Status::Success:
            return ACL_SUCCESS;
        case Status::InvalidValue:
            return ACL_ERROR_RT_PARAM_INVALID;
        case Status::InvalidHandle:
            return ACL_ERROR_RT_INVALID_HANDLE;
        case Status::NotReady:
            return ACL_ERROR_RT_EVENT_NOT_COMPLETE;
        case Status::NotPermitted:
            return ACL_ERROR_RT_PARAM_INVALID;
        case Status::NotSupported:
            return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
        case Status::OutOfMemory:
            return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    return ACL_ERROR_FAILURE;
}

/// Runs one runtime call: ACL_ERROR_UNINITIALIZE outside a host program, the status of a
/// RuntimeError otherwise. KernelError and the other npusim errors propagate.
template <class F>
aclError call(F&& f) {
    if (g_host.runtime == nullptr) return ACL_ERROR_UNINITIALIZE;
    try {
        f(*g_host.runtime);
    } catch (const RuntimeError& error) {
        g_host.last_error = error.what();
        return to_acl(error.status());
    }
    return ACL_SUCCESS;
}

inline Stream stream_of(aclrtStream stream) {
    return Stream{static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(stream))};
}
inline aclrtStream handle_of(Stream stream) {
    return reinterpret_cast<aclrtStream>(static_cast<std::uintptr_t>(stream.id));
}
// Event and model handles are id + 1, so that no valid handle is null.
inline Event event_of(aclrtEvent event) {
    return Event{static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(event) - 1)};
}
inline aclrtEvent handle_of(Event event) {
    return reinterpret_cast<aclrtEvent>(static_cast<std::uintptr_t>(event.id) + 1);
}
inline Graph graph_of(void* model) {
    return Graph{static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(model) - 1)};
}
inline void* handle_of(Graph graph) {
    return reinterpret_cast<void*>(static_cast<std::uintptr_t>(graph.id) + 1);
}

/// The device buffer a pointer falls in, as a view from that pointer; nullopt-like
/// (bytes 0) when it is no device pointer.
inline DeviceBuffer device_at(const void* pointer) {
    const auto address = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(pointer));
    auto it = g_host.device.upper_bound(address);
    if (it == g_host.device.begin()) return {};
    --it;
    const DeviceBuffer& buffer = it->second;
    if (address >= buffer.address + buffer.bytes) return {};
    return DeviceBuffer{address, buffer.address + buffer.bytes - address};
}
/// The aclrtMallocHost buffer that holds [pointer, pointer + bytes) starting at its start.
inline const HostBuffer* host_at(const void* pointer) {
    const auto it = g_host.host.find(static_cast<const std::byte*>(pointer));
    return it == g_host.host.end() ? nullptr : &it->second;
}

/// A host range for a runtime copy: an aclrtMallocHost buffer as is, other memory staged
/// through a pageable buffer (copied in before, out after).
class HostSide {
public:
    HostSide(Runtime& rt, void* pointer, std::uint64_t bytes, bool copy_in, Where where)
        : m_rt(rt), m_pointer(pointer), m_bytes(bytes), m_where(where) {
        if (const HostBuffer* known = host_at(pointer)) {
            m_buffer = *known;
            return;
        }
        m_buffer = rt.malloc_host(bytes, HostMemoryKind::Pageable, where);
        m_staged = true;
        if (copy_in) std::memcpy(rt.host_bytes(m_buffer, where).data(), pointer, bytes);
    }
    HostSide(const HostSide&) = delete;
    HostSide& operator=(const HostSide&) = delete;
    ~HostSide() {
        if (m_staged) m_rt.free_host(m_buffer, m_where);
    }
    const HostBuffer& buffer() const { return m_buffer; }
    void copy_out() {
        if (m_staged) std::memcpy(m_pointer, m_rt.host_bytes(m_buffer, m_where).data(), m_bytes);
    }

private:
    Runtime& m_rt;
    void* m_pointer;
    std::uint64_t m_bytes;
    Where m_where;
    HostBuffer m_buffer;
    bool m_staged = false;
};

/// Copies `bytes` from src to dst, direction from the pointers. `stream` null: synchronous.
inline aclError copy(void* dst, std::size_t dest_max, const void* src, std::size_t bytes,
                     const Stream* stream, Where where) {
    if (dst == nullptr || src == nullptr || bytes > dest_max) return ACL_ERROR_INVALID_PARAM;
    return call([&](Runtime& rt) {
        const DeviceBuffer d = device_at(dst);
        const DeviceBuffer s = device_at(src);
        if (d.bytes != 0 && s.bytes != 0) {
            if (stream != nullptr) {
                rt.memcpy_async(d, s, bytes, *stream, where);
            } else {
                rt.memcpy(d, s, bytes, where);
            }
        } else if (d.bytes != 0) {
            HostSide host(rt, const_cast<void*>(src), bytes, true, where);
            if (stream != nullptr) {
                rt.memcpy_async(d, host.buffer(), bytes, *stream, where);
            } else {
                rt.memcpy(d, host.buffer(), bytes, where);
            }
        } else if (s.bytes != 0) {
            HostSide host(rt, dst, bytes, false, where);
            if (stream != nullptr) {
                rt.memcpy_async(host.buffer(), s, bytes, *stream, where);
            } else {
                rt.memcpy(host.buffer(), s, bytes, where);
            }
            host.copy_out();
        } else {
            std::memmove(dst, src, bytes);  // host to host
        }
    });
}

/// Runs `program` as the simulator's host program with the ACL API bound to its runtime.
inline RunResult run_host(Simulator& sim, const std::function<int()>& program, int* exit_code,
                          const RuntimeOptions& options = {}) {
    return sim.run_host(
        [&](Runtime& rt) {
            g_host = HostState{};
            g_host.runtime = &rt;
            struct Reset {
                ~Reset() { g_host = HostState{}; }
            } reset;
            const int code = program();
            if (exit_code != nullptr) *exit_code = code;
        },
        options);
}

/// The kernel type a kernel is launched with (default AIV_ONLY; the qualifiers
/// __mix__(1, 2) etc. carry no information in a host build).
inline void set_kernel_type(const void* kernel, KernelType type) {
    g_host.kernel_types[kernel] = type;
}
/// The schedule mode a kernel is launched with (default Normal; __schedmode__ and the
/// op project's SetScheduleMode carry no information in a host build).
inline void set_schedule_mode(const void* kernel, ScheduleMode mode) {
    g_host.schedule_modes[kernel] = mode;
}

template <class To, class From>
To kernel_arg(From value) {
    if constexpr (std::is_pointer_v<To> && std::is_pointer_v<From>) {
        return reinterpret_cast<To>(const_cast<void*>(static_cast<const void*>(value)));
    } else {
        return static_cast<To>(value);
    }
}

/// ACLRT_LAUNCH_KERNEL(kernel)(blockDim, stream, args...) and the <<<>>> replacement.
template <class... Params>
struct Launcher {
    void (*kernel)(Params...);
    std::string name;
    Where where;

    template <class... Args>
    aclError operator()(std::uint32_t block_dim, aclrtStream stream, Args... args) const {
        static_assert(sizeof...(Args) == sizeof...(Params),
                      "ACLRT_LAUNCH_KERNEL: the argument count differs from the kernel's");
        const auto found = g_host.kernel_types.find(reinterpret_cast<const void*>(kernel));
        LaunchSpec spec;
        spec.name = name;
        spec.blocks = block_dim;
        spec.type = found == g_host.kernel_types.end() ? KernelType::AIV_ONLY : found->second;
        const auto mode = g_host.schedule_modes.find(reinterpret_cast<const void*>(kernel));
        if (mode != g_host.schedule_modes.end()) spec.schedule_mode = mode->second;
        const Where at = where;
        auto* const k = kernel;
        return call([&](Runtime& rt) {
            rt.launch(stream_of(stream), spec,
                      ascendc::bind_kernel(k, ascendc::launch_options_from_environment(),
                                           kernel_arg<Params>(args)...),
                      at);
        });
    }
};
template <class... Params>
Launcher<Params...> launcher(void (*kernel)(Params...), const char* name,
                             Where where = Where::current()) {
    return {kernel, name, where};
}
/// kernel<<<blockDim, l2ctrl, stream>>>(args...) spelled NPUSIM_KERNEL_LAUNCH(kernel,
/// blockDim, l2ctrl, stream)(args...).
template <class... Params>
auto chevron(void (*kernel)(Params...), const char* name, std::uint32_t block_dim, void* l2ctrl,
             aclrtStream stream, Where where = Where::current()) {
    (void)l2ctrl;
    std::string bare(name);  // "(kernel)" from the rewritten launch
    if (bare.size() >= 2 && bare.front() == '(' && bare.back() == ')') {
        bare = bare.substr(1, bare.size() - 2);
    }
    return [kernel, bare, block_dim, stream, where](auto... args) {
        return Launcher<Params...>{kernel, bare, where}(block_dim, stream, args...);
    };
}

}  // namespace npusim::acl

#define ACLRT_LAUNCH_KERNEL(kernel) ::npusim::acl::launcher(kernel, #kernel)
#define NPUSIM_KERNEL_LAUNCH(kernel, block_dim, l2ctrl, stream) \
    ::npusim::acl::chevron(kernel, #kernel, block_dim, l2ctrl, stream)

// ---- the API ----------------------------------------------------------------------------------
inline aclError aclInit(const char* config = nullptr) {
    (void)config;
    if (npusim::acl::g_host.runtime == nullptr) return ACL_ERROR_UNINITIALIZE;
    if (npusim::acl::g_host.initialised) return ACL_ERROR_REPEAT_INITIALIZE;
    npusim::acl::g_host.initialised = true;
    return ACL_SUCCESS;
}
inline aclError aclFinalize() {
    if (npusim::acl::g_host.runtime == nullptr) return ACL_ERROR_UNINITIALIZE;
    if (!npusim::acl::g_host.initialised) return ACL_ERROR_REPEAT_FINALIZE;
    npusim::acl::g_host.initialised = false;
    return ACL_SUCCESS;
}
/// One simulated device: id 0.
inline aclError aclrtSetDevice(std::int32_t deviceId) {
    if (npusim::acl::g_host.runtime == nullptr) return ACL_ERROR_UNINITIALIZE;
    return deviceId == 0 ? ACL_SUCCESS : ACL_ERROR_RT_INVALID_DEVICEID;
}
inline aclError aclrtResetDevice(std::int32_t deviceId) {
    return aclrtSetDevice(deviceId);
}
inline aclError aclrtGetDevice(std::int32_t* deviceId) {
    if (deviceId == nullptr) return ACL_ERROR_INVALID_PARAM;
    *deviceId = 0;
    return ACL_SUCCESS;
}
/// One context per device; the handle is a token.
inline aclError aclrtCreateContext(aclrtContext* context, std::int32_t deviceId) {
    if (context == nullptr) return ACL_ERROR_INVALID_PARAM;
    *context = reinterpret_cast<aclrtContext>(std::uintptr_t{1});
    return aclrtSetDevice(deviceId);
}
inline aclError aclrtDestroyContext(aclrtContext context) {
    return context != nullptr ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
}
inline aclError aclrtSetCurrentContext(aclrtContext context) {
    return context != nullptr ? ACL_SUCCESS : ACL_ERROR_INVALID_PARAM;
}

inline aclError aclrtMalloc(void** devPtr, std::size_t size, aclrtMemMallocPolicy policy,
                            npusim::acl::Where where = npusim::acl::Where::current()) {
    (void)policy;
    if (devPtr == nullptr || size == 0) return ACL_ERROR_INVALID_PARAM;
    return npusim::acl::call([&](npusim::Runtime& rt) {
        const npusim::DeviceBuffer buffer = rt.malloc(size, {}, where);
        npusim::acl::g_host.device[buffer.address] = buffer;
        *devPtr = reinterpret_cast<void*>(static_cast<std::uintptr_t>(buffer.address));
    });
}
inline aclError aclrtFree(void* devPtr, npusim::acl::Where where = npusim::acl::Where::current()) {
    const auto address = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(devPtr));
    const auto it = npusim::acl::g_host.device.find(address);
    if (it == npusim::acl::g_host.device.end()) return ACL_ERROR_INVALID_PARAM;
    const npusim::DeviceBuffer buffer = it->second;
    return npusim::acl::call([&](npusim::Runtime& rt) {
        rt.free(buffer, where);
        npusim::acl::g_host.device.erase(address);
    });
}
inline aclError aclrtMallocHost(void** hostPtr, std::size_t size,
                                npusim::acl::Where where = npusim::acl::Where::current()) {
    if (hostPtr == nullptr || size == 0) return ACL_ERROR_INVALID_PARAM;
    return npusim::acl::call([&](npusim::Runtime& rt) {
        const npusim::HostBuffer buffer =
            rt.malloc_host(size, npusim::HostMemoryKind::Pinned, where);
        std::byte* data = rt.host_bytes(buffer, where).data();
        npusim::acl::g_host.host[data] = buffer;
        *hostPtr = data;
    });
}
inline aclError aclrtFreeHost(void* hostPtr,
                              npusim::acl::Where where = npusim::acl::Where::current()) {
    const auto it = npusim::acl::g_host.host.find(static_cast<const std::byte*>(hostPtr));
    if (it == npusim::acl::g_host.host.end()) return ACL_ERROR_INVALID_PARAM;
    const npusim::HostBuffer buffer = it->second;
    return npusim::acl::call([&](npusim::Runtime& rt) {
        rt.free_host(buffer, where);
        npusim::acl::g_host.host.erase(it);
    });
}

inline aclError aclrtMemcpy(void* dst, std::size_t destMax, const void* src, std::size_t count,
                            aclrtMemcpyKind kind,
                            npusim::acl::Where where = npusim::acl::Where::current()) {
    (void)kind;  // reserved: the direction follows from the pointers
    return npusim::acl::copy(dst, destMax, src, count, nullptr, where);
}
inline aclError aclrtMemcpyAsync(void* dst, std::size_t destMax, const void* src, std::size_t count,
                                 aclrtMemcpyKind kind, aclrtStream stream,
                                 npusim::acl::Where where = npusim::acl::Where::current()) {
    (void)kind;
    const npusim::Stream s = npusim::acl::stream_of(stream);
    return npusim::acl::copy(dst, destMax, src, count, &s, where);
}
inline aclError aclrtMemset(void* devPtr, std::size_t maxCount, std::int32_t value,
                            std::size_t count,
                            npusim::acl::Where where = npusim::acl::Where::current()) {
    if (count > maxCount) return ACL_ERROR_INVALID_PARAM;
    const npusim::DeviceBuffer d = npusim::acl::device_at(devPtr);
    return npusim::acl::call([&](npusim::Runtime& rt) {
        if (d.bytes != 0) {
            rt.memset(d, static_cast<std::uint8_t>(value), count, where);
        } else if (const npusim::HostBuffer* h = npusim::acl::host_at(devPtr)) {
            rt.memset(*h, static_cast<std::uint8_t>(value), count, where);
        } else {
            throw npusim::RuntimeError(npusim::Status::InvalidValue,
                                       "aclrtMemset: memory not from aclrtMalloc/aclrtMallocHost",
                                       where);
        }
    });
}
inline aclError aclrtMemsetAsync(void* devPtr, std::size_t maxCount, std::int32_t value,
                                 std::size_t count, aclrtStream stream,
                                 npusim::acl::Where where = npusim::acl::Where::current()) {
    if (count > maxCount) return ACL_ERROR_INVALID_PARAM;
    const npusim::DeviceBuffer d = npusim::acl::device_at(devPtr);
    const npusim::Stream s = npusim::acl::stream_of(stream);
    return npusim::acl::call([&](npusim::Runtime& rt) {
        if (d.bytes != 0) {
            rt.memset_async(d, static_cast<std::uint8_t>(value), count, s, where);
        } else if (const npusim::HostBuffer* h = npusim::acl::host_at(devPtr)) {
            rt.memset_async(*h, static_cast<std::uint8_t>(value), count, s, where);
        } else {
            throw npusim::RuntimeError(npusim::Status::InvalidValue,
                                       "aclrtMemsetAsync: memory not from aclrtMalloc/"
                                       "aclrtMallocHost",
                                       where);
        }
    });
}

inline aclError aclrtCreateStream(aclrtStream* stream,
                                  npusim::acl::Where where = npusim::acl::Where::current()) {
    if (stream == nullptr) return ACL_ERROR_INVALID_PARAM;
    return npusim::acl::call(
        [&](npusim::Runtime& rt) { *stream = npusim::acl::handle_of(rt.create_stream(where)); });
}
inline aclError aclrtDestroyStream(aclrtStream stream,
                                   npusim::acl::Where where = npusim::acl::Where::current()) {
    return npusim::acl::call(
        [&](npusim::Runtime& rt) { rt.destroy_stream(npusim::acl::stream_of(stream), where); });
}
inline aclError aclrtSynchronizeStream(aclrtStream stream,
                                       npusim::acl::Where where = npusim::acl::Where::current()) {
    return npusim::acl::call(
        [&](npusim::Runtime& rt) { rt.synchronize_stream(npusim::acl::stream_of(stream), where); });
}
inline aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus* status,
                                 npusim::acl::Where where = npusim::acl::Where::current()) {
    if (status == nullptr) return ACL_ERROR_INVALID_PARAM;
    return npusim::acl::call([&](npusim::Runtime& rt) {
        const npusim::Status s = rt.query_stream(npusim::acl::stream_of(stream), where);
        *status =
            s == npusim::Status::Success ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
    });
}
inline aclError aclrtSynchronizeDevice(npusim::acl::Where where = npusim::acl::Where::current()) {
    return npusim::acl::call([&](npusim::Runtime& rt) { rt.synchronize_device(where); });
}

/// Plain events record timestamps (usable with aclrtEventElapsedTime).
inline aclError aclrtCreateEvent(aclrtEvent* event,
                                 npusim::acl::Where where = npusim::acl::Where::current()) {
    if (event == nullptr) return ACL_ERROR_INVALID_PARAM;
    return npusim::acl::call([&](npusim::Runtime& rt) {
        *event = npusim::acl::handle_of(rt.create_event(npusim::EventFlags::Default, where));
    });
}
/// Flags: ACL_EVENT_TIME_LINE keeps timestamps; without it the event has none.
inline aclError aclrtCreateEventWithFlag(aclrtEvent* event, std::uint32_t flag,
                                         npusim::acl::Where where = npusim::acl::Where::current()) {
    if (event == nullptr || (flag & ~(ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS |
                                      ACL_EVENT_TIME_LINE | ACL_EVENT_DEVICE_USE_ONLY)) != 0) {
        return ACL_ERROR_INVALID_PARAM;
    }
    const npusim::EventFlags flags = (flag & ACL_EVENT_TIME_LINE) != 0
                                         ? npusim::EventFlags::Default
                                         : npusim::EventFlags::DisableTiming;
    return npusim::acl::call([&](npusim::Runtime& rt) {
        *event = npusim::acl::handle_of(rt.create_event(flags, where));
    });
}
/// As WithFlag, plus ACL_EVENT_IPC (alone): an interprocess event without timestamps.
inline aclError aclrtCreateEventExWithFlag(
    aclrtEvent* event, std::uint32_t flag,
    npusim::acl::Where where = npusim::acl::Where::current()) {
    if (flag == ACL_EVENT_IPC) {
        if (event == nullptr) return ACL_ERROR_INVALID_PARAM;
        return npusim::acl::call([&](npusim::Runtime& rt) {
            *event = npusim::acl::handle_of(rt.create_event(
                npusim::EventFlags::Interprocess | npusim::EventFlags::DisableTiming, where));
        });
    }
    if ((flag & ACL_EVENT_IPC) != 0) return ACL_ERROR_INVALID_PARAM;  // IPC cannot be OR-ed
    return aclrtCreateEventWithFlag(event, flag, where);
}
inline aclError aclrtDestroyEvent(aclrtEvent event,
                                  npusim::acl::Where where = npusim::acl::Where::current()) {
    return npusim::acl::call(
        [&](npusim::Runtime& rt) { rt.destroy_event(npusim::acl::event_of(event), where); });
}
inline aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream,
                                 npusim::acl::Where where = npusim::acl::Where::current()) {
    return npusim::acl::call([&](npusim::Runtime& rt) {
        rt.record_event(npusim::acl::event_of(event), npusim::acl::stream_of(stream), where);
    });
}
inline aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus* status,
                                      npusim::acl::Where where = npusim::acl::Where::current()) {
    if (status == nullptr) return ACL_ERROR_INVALID_PARAM;
    return npusim::acl::call([&](npusim::Runtime& rt) {
        const npusim::Status s = rt.query_event(npusim::acl::event_of(event), where);
        *status = s == npusim::Status::Success ? ACL_EVENT_RECORDED_STATUS_COMPLETE
                                               : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    });
}
/// Deprecated form, opposite numbering (COMPLETE = 0).
inline aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus* status,
                                npusim::acl::Where where = npusim::acl::Where::current()) {
    if (status == nullptr) return ACL_ERROR_INVALID_PARAM;
    return npusim::acl::call([&](npusim::Runtime& rt) {
        const npusim::Status s = rt.query_event(npusim::acl::event_of(event), where);
        *status =
            s == npusim::Status::Success ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
    });
}
inline aclError aclrtSynchronizeEvent(aclrtEvent event,
                                      npusim::acl::Where where = npusim::acl::Where::current()) {
    return npusim::acl::call(
        [&](npusim::Runtime& rt) { rt.synchronize_event(npusim::acl::event_of(event), where); });
}
inline aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event,
                                     npusim::acl::Where where = npusim::acl::Where::current()) {
    return npusim::acl::call([&](npusim::Runtime& rt) {
        rt.stream_wait_event(npusim::acl::stream_of(stream), npusim::acl::event_of(event), where);
    });
}
inline aclError aclrtEventElapsedTime(float* ms, aclrtEvent startEvent, aclrtEvent endEvent,
                                      npusim::acl::Where where = npusim::acl::Where::current()) {
    if (ms == nullptr) return ACL_ERROR_INVALID_PARAM;
    return npusim::acl::call([&](npusim::Runtime& rt) {
        *ms = static_cast<float>(rt.elapsed_ms(npusim::acl::event_of(startEvent),
                                               npusim::acl::event_of(endEvent), where));
    });
}

/// The message of the last failed call (it names the call site), or null.
inline const char* aclGetRecentErrMsg() {
    return npusim::acl::g_host.last_error.empty() ? nullptr
                                                  : npusim::acl::g_host.last_error.c_str();
}

// ---- model run instances: stream capture onto npusim's graphs ---------------------------------
using aclmdlRI = void*;
enum aclmdlRICaptureMode {
    ACL_MODEL_RI_CAPTURE_MODE_GLOBAL = 0,
    ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL = 1,
    ACL_MODEL_RI_CAPTURE_MODE_RELAXED = 2,
};
enum aclmdlRICaptureStatus {
    ACL_MODEL_RI_CAPTURE_STATUS_NONE = 0,
    ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE = 1,
    ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED = 2,
};

inline aclError aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode,
                                     npusim::acl::Where where = npusim::acl::Where::current()) {
    const npusim::CaptureMode capture =
        mode == ACL_MODEL_RI_CAPTURE_MODE_RELAXED        ? npusim::CaptureMode::Relaxed
        : mode == ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL ? npusim::CaptureMode::ThreadLocal
                                                         : npusim::CaptureMode::Global;
    return npusim::acl::call([&](npusim::Runtime& rt) {
        rt.begin_capture(npusim::acl::stream_of(stream), capture, where);
    });
}
inline aclError aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI* modelRI,
                                   npusim::acl::Where where = npusim::acl::Where::current()) {
    if (modelRI == nullptr) return ACL_ERROR_INVALID_PARAM;
    return npusim::acl::call([&](npusim::Runtime& rt) {
        *modelRI = npusim::acl::handle_of(rt.end_capture(npusim::acl::stream_of(stream), where));
    });
}
/// `modelRI` (may be null) receives null: npusim names the model only at CaptureEnd.
inline aclError aclmdlRICaptureGetInfo(aclrtStream stream, aclmdlRICaptureStatus* status,
                                       aclmdlRI* modelRI,
                                       npusim::acl::Where where = npusim::acl::Where::current()) {
    if (status == nullptr) return ACL_ERROR_INVALID_PARAM;
    return npusim::acl::call([&](npusim::Runtime& rt) {
        const npusim::CaptureStatus s = rt.capture_status(npusim::acl::stream_of(stream), where);
        *status = s == npusim::CaptureStatus::Active ? ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE
                  : s == npusim::CaptureStatus::Invalidated
                      ? ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED
                      : ACL_MODEL_RI_CAPTURE_STATUS_NONE;
        if (modelRI != nullptr) *modelRI = nullptr;
    });
}
inline aclError aclmdlRIExecuteAsync(aclmdlRI modelRI, aclrtStream stream,
                                     npusim::acl::Where where = npusim::acl::Where::current()) {
    return npusim::acl::call([&](npusim::Runtime& rt) {
        rt.launch_graph(npusim::acl::graph_of(modelRI), npusim::acl::stream_of(stream), where);
    });
}
inline aclError aclmdlRIDestroy(aclmdlRI modelRI,
                                npusim::acl::Where where = npusim::acl::Where::current()) {
    return npusim::acl::call(
        [&](npusim::Runtime& rt) { rt.destroy_graph(npusim::acl::graph_of(modelRI), where); });
}

// A sample's main() becomes the simulated host program (the npusim::ascendc_main library
// provides the process's main). Define NPUSIM_ACL_NO_MAIN to call npusim::acl::run_host
// yourself.
#ifndef NPUSIM_ACL_NO_MAIN
int npusim_acl_user_main();
int npusim_acl_user_main(int argc, char** argv);
#define main npusim_acl_user_main
#endif
