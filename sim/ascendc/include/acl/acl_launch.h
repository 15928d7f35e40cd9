// Running an ACL host program and launching work (acl/acl.h): npusim::acl::run_host,
// ACLRT_LAUNCH_KERNEL and the <<<>>> replacement, the kernel type and schedule mode a kernel
// is launched with, and model run instances (stream capture onto npusim's graphs).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>

#include "acl/acl_base.h"
#include "kernel_operator.h"
#include "sim/simulator.h"

namespace npusim::acl {

/// Runs `program` as the simulator's host program with the ACL API bound to its runtime.
inline RunResult run_host(Simulator& sim, const std::function<int()>& program, int* exit_code,
                          const RuntimeOptions& options = {}) {
    return sim.run_host(
        [&](Runtime& rt) {
            g_host = HostState{};
            g_host.runtime = &rt;
            g_host.chip = &sim.chip();
            struct Reset {
                ~Reset() { g_host = HostState{}; }
            } reset;
            const int code = program();
            if (exit_code != nullptr) *exit_code = code;
            for (const auto& clean_up : g_host.at_exit) clean_up(rt);
        },
        options);
}

/// The kernel type a kernel is launched with. Without it: the type its source declares
/// (declared_kernel_types(), filled by npusim_add_ascendc_kernel), else AIV_ONLY.
inline void set_kernel_type(const void* kernel, KernelType type) {
    g_host.kernel_types[kernel] = type;
}
/// The schedule mode a kernel is launched with (default Normal; __schedmode__ and the
/// op project's SetScheduleMode carry no information in a host build).
inline void set_schedule_mode(const void* kernel, ScheduleMode mode) {
    g_host.schedule_modes[kernel] = mode;
}

/// The type a launch of `kernel` (named `name`, perhaps with template arguments) gets:
/// set_kernel_type's, else the one declared for it, else the one declared for its name, else
/// AIV_ONLY.
inline KernelType launch_type(const void* kernel, std::string_view name = {}) {
    if (const auto set = g_host.kernel_types.find(kernel); set != g_host.kernel_types.end())
        return set->second;
    const auto& declared = declared_kernel_types();
    if (const auto found = declared.find(kernel); found != declared.end()) return found->second;
    std::string_view bare = name.substr(0, name.find('<'));
    while (!bare.empty() && (bare.back() == ' ' || bare.back() == '\n' || bare.back() == '\t'))
        bare.remove_suffix(1);
    if (const auto colons = bare.rfind("::"); colons != std::string_view::npos)
        bare.remove_prefix(colons + 2);
    const auto& named = declared_kernel_types_by_name();
    const auto found = named.find(bare);
    return found != named.end() ? found->second : KernelType::AIV_ONLY;
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
        // A launch through a function pointer: the kernel's own name, where it was registered.
        const auto& names = declared_kernel_names();
        const auto known = names.find(reinterpret_cast<const void*>(kernel));
        const std::string& name = known != names.end() ? known->second : this->name;
        LaunchSpec spec;
        spec.name = name;
        spec.blocks = block_dim;
        spec.type = launch_type(reinterpret_cast<const void*>(kernel), name);
        const auto mode = g_host.schedule_modes.find(reinterpret_cast<const void*>(kernel));
        if (mode != g_host.schedule_modes.end()) spec.schedule_mode = mode->second;
        const Where at = where;
        auto* const k = kernel;
        ascendc::LaunchOptions options = ascendc::launch_options_from_environment();
        const auto& kfc = declared_kfc_workspaces();
        if (const auto found = kfc.find(std::string_view(name).substr(0, name.find('<')));
            found != kfc.end()) {
            std::uint32_t i = 0;
            (
                [&](const auto& arg) {
                    if constexpr (std::is_pointer_v<std::decay_t<decltype(arg)>>) {
                        if (i == found->second) {
                            options.sys_workspace = ascendc::gm_address(arg, where);
                        }
                    }
                    ++i;
                }(args),
                ...);
            (void)i;  // a kernel without parameters
        }
        return call([&](Runtime& rt) {
            rt.launch(stream_of(stream), spec,
                      ascendc::bind_kernel(k, options, kernel_arg<Params>(args)...), at);
        });
    }
};
template <class... Params>
Launcher<Params...> launcher(void (*kernel)(Params...), const char* name,
                             Where where = Where::current()) {
    return {kernel, name, where};
}
/// kernel<<<blockDim, l2ctrl, stream>>>(args...) spelled NPUSIM_KERNEL_LAUNCH(kernel,
/// blockDim, l2ctrl, stream)(args...); without the stream (`<<<blockDim, l2ctrl>>>`) the
/// kernel goes to the default stream.
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
template <class... Params>
auto chevron(void (*kernel)(Params...), const char* name, std::uint32_t block_dim, void* l2ctrl,
             Where where = Where::current()) {
    return chevron(kernel, name, block_dim, l2ctrl, aclrtStream{nullptr}, where);
}

}  // namespace npusim::acl

#define ACLRT_LAUNCH_KERNEL(kernel) ::npusim::acl::launcher(kernel, #kernel)
#define NPUSIM_KERNEL_LAUNCH(kernel, ...) ::npusim::acl::chevron(kernel, #kernel, __VA_ARGS__)

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
