// ACL (acl/acl.h) types, status codes and flags, npusim's host-side state behind the API
// (the runtime of the running host program, the pointers it handed out), and the calls that
// set up a device: aclInit, aclrtSetDevice, contexts, aclGetRecentErrMsg. Status codes are
// the documented numeric values (docs/ascendc.md lists the mapping).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <source_location>
#include <string>
#include <utility>
#include <vector>

#include "npusim_ascendc/gm_pointer.h"
#include "sim/host/runtime.h"

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
    const ChipConfig* chip = nullptr;  // the running program's chip (platform queries)
    bool initialised = false;
    std::map<std::uint64_t, DeviceBuffer> device;  // by GM address
    std::map<const std::byte*, HostBuffer> host;   // aclrtMallocHost, by start
    std::map<const void*, KernelType> kernel_types;
    std::map<const void*, ScheduleMode> schedule_modes;
    std::string last_error;        // aclGetRecentErrMsg
    aclError last_error_code = 0;  // aclrtGetLastError / aclrtPeekAtLastError (ACL_SUCCESS)
    /// Run when the host program returns (npusim's own clean-up, e.g. the aclnn calls'
    /// tiling buffers).
    std::vector<std::function<void(Runtime&)>> at_exit;
};
inline HostState g_host;

/// Kernel types the kernels' sources declare (`__mix__(1, 2)`, `__cube__`, or
/// KERNEL_TASK_TYPE_DEFAULT in the body), registered at static initialization by the source
/// npusim_add_ascendc_kernel generates: in a host build the qualifiers carry nothing, and the
/// host program never names a type. Outlives host programs; npusim::acl::set_kernel_type
/// overrides it.
inline std::map<const void*, KernelType>& declared_kernel_types() {
    static std::map<const void*, KernelType> types;
    return types;
}
inline bool declare_kernel_type(const void* kernel, KernelType type) {
    declared_kernel_types()[kernel] = type;
    return true;
}
/// The same by kernel name, for kernels the generated source cannot name by address
/// (templates, kernels without extern "C" in a single-source program): a launch whose kernel
/// has no entry by address takes the one of its name (template arguments ignored).
inline std::map<std::string, KernelType, std::less<>>& declared_kernel_types_by_name() {
    static std::map<std::string, KernelType, std::less<>> types;
    return types;
}
inline bool declare_kernel_type(const char* name, KernelType type) {
    declared_kernel_types_by_name()[name] = type;
    return true;
}
// The same, written by npusim_add_ascendc_kernel on the line of a kernel's header in a source
// it rewrites: the registration then compiles only where the header does (a kernel declared
// `__cube__` under `#if SCENARIO_NUM == 2` and `__aicore__` under `#else`).
#define NPUSIM_ACL_CAT2(a, b) a##b
#define NPUSIM_ACL_CAT(a, b) NPUSIM_ACL_CAT2(a, b)
#define NPUSIM_DECLARE_KERNEL_TYPE(name, type)                                         \
    [[maybe_unused]] static const bool NPUSIM_ACL_CAT(npusim_declared_, __COUNTER__) = \
        ::npusim::acl::declare_kernel_type(name, ::npusim::KernelType::type);
// A kernel using the Matmul API without a declared type: mixed (1 AIC : 2 AIV), as the
// vendor's compiler makes it, unless ASCENDC_CUBE_ONLY was defined before lib/matmul_intf.h.
#define NPUSIM_DECLARE_MATMUL_KERNEL(name)                                             \
    [[maybe_unused]] static const bool NPUSIM_ACL_CAT(npusim_declared_, __COUNTER__) = \
        NPUSIM_ASCENDC_CUBE_ONLY ||                                                    \
        ::npusim::acl::declare_kernel_type(name, ::npusim::KernelType::MIX_AIC_1_2);
/// Kernel names by address, registered by npusim_add_ascendc_kernel next to each plain
/// kernel of a source it rewrites: a launch through a function pointer (`auto k = ...;
/// k<<<...>>>(...)`) is then known by its kernel's name (its type, its system workspace, the
/// name in reports), not by the pointer variable's.
inline std::map<const void*, std::string>& declared_kernel_names() {
    static std::map<const void*, std::string> names;
    return names;
}
inline bool declare_kernel_name(const void* kernel, const char* name) {
    declared_kernel_names().emplace(kernel, name);
    return true;
}
#define NPUSIM_DECLARE_KERNEL_NAME(kernel, pointer_type)                            \
    [[maybe_unused]] static const bool NPUSIM_ACL_CAT(npusim_named_, __COUNTER__) = \
        ::npusim::acl::declare_kernel_name(                                         \
            reinterpret_cast<const void*>(static_cast<pointer_type>(&kernel)), #kernel);
/// Kernels whose parameter `index` is marked `__kfc_workspace__` (the system workspace the
/// launch hands the library APIs, so GetSysWorkSpacePtr needs no SetSysWorkspace), by name;
/// registered by the same generated source.
inline std::map<std::string, std::uint32_t, std::less<>>& declared_kfc_workspaces() {
    static std::map<std::string, std::uint32_t, std::less<>> args;
    return args;
}
inline bool declare_kfc_workspace(const char* name, std::uint32_t index) {
    declared_kfc_workspaces()[name] = index;
    return true;
}

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
        g_host.last_error_code = to_acl(error.status());
        return g_host.last_error_code;
    }
    return ACL_SUCCESS;
}

/// A failed call's status, recorded for aclrtGetLastError.
inline aclError noted(aclError status) {
    if (status != ACL_SUCCESS) g_host.last_error_code = status;
    return status;
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
    const std::uint64_t address = ascendc::gm_address_if_any(pointer);
    if (address == 0) return {};
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

}  // namespace npusim::acl

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
    return npusim::acl::noted(deviceId == 0 ? ACL_SUCCESS : ACL_ERROR_RT_INVALID_DEVICEID);
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

/// The level of a last-error query: the vendor's runtime has only the thread level (one host
/// thread here).
typedef enum aclrtLastErrLevel {
    ACL_RT_THREAD_LEVEL = 0,
} aclrtLastErrLevel;
/// The status of the last failed runtime call, which is then cleared (ACL_SUCCESS until
/// another call fails).
inline aclError aclrtGetLastError(aclrtLastErrLevel level) {
    (void)level;
    return std::exchange(npusim::acl::g_host.last_error_code, ACL_SUCCESS);
}
/// The same, not cleared.
inline aclError aclrtPeekAtLastError(aclrtLastErrLevel level) {
    (void)level;
    return npusim::acl::g_host.last_error_code;
}

/// The message of the last failed call (it names the call site), or null.
inline const char* aclGetRecentErrMsg() {
    return npusim::acl::g_host.last_error.empty() ? nullptr
                                                  : npusim::acl::g_host.last_error.c_str();
}
