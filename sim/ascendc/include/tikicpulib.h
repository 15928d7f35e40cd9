// The CPU-debug harness of Ascend C samples (the ASCENDC_CPU_DEBUG / __CCE_KT_TEST__ branch of
// a sample's main.cpp), run on npusim instead of a CPU model:
//   GmAlloc / GmFree       host memory the program fills and reads directly;
//   SetKernelMode(mode)    the kernel type of the next ICPU_RUN_KF (AIV_MODE, AIC_MODE,
//                          MIX_MODE = MIX_AIC_1_2);
//   ICPU_RUN_KF(k, n, ...) copies every GmAlloc buffer among the arguments into simulated GM,
//                          runs k on n blocks with the checker attached, and copies the
//                          buffers back.
// The process report (npusim_ascendc/process.h) is printed when the process exits; the exit
// status is then non-zero when a run failed or the checker found errors.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "acl/acl_base.h"
#include "kernel_operator.h"
#include "npusim_ascendc/process.h"

/// SetKernelMode's argument (samples spell it without a namespace).
enum class KernelMode : std::uint8_t { MIX_MODE, AIC_MODE, AIV_MODE };
namespace AscendC {
using ::KernelMode;
}  // namespace AscendC

namespace npusim::ascendc::cpu {

struct State {
    std::map<std::uintptr_t, std::size_t> buffers;  // GmAlloc'ed host memory: start -> bytes
    KernelType type = KernelType::AIV_ONLY;
    std::uint64_t tiling_key = 0;
    bool exit_hook = false;
};
inline State& state() {
    static State s;
    return s;
}

/// Prints the report at exit and turns findings into the exit status.
inline void install_exit_hook() {
    if (state().exit_hook) return;
    state().exit_hook = true;
    (void)Process::get();  // constructed first, so it is destroyed after the hook ran
    std::atexit([] {
        const int status = Process::get().finish(0);
        if (status != 0) std::_Exit(status);
    });
}

/// One kernel argument: a GmAlloc'ed host buffer becomes a GM buffer for the run.
struct Staged {
    std::uintptr_t host = 0;
    std::size_t bytes = 0;
    GlobalTensor<std::int8_t> gm;
};

template <class Arg>
Arg to_device(Arg arg, std::vector<Staged>& staged) {
    if constexpr (std::is_pointer_v<Arg>) {
        const auto host = reinterpret_cast<std::uintptr_t>(arg);
        auto it = state().buffers.upper_bound(host);
        if (it == state().buffers.begin()) return arg;
        --it;
        if (host >= it->first + it->second) return arg;  // not GmAlloc memory
        const std::uintptr_t start = it->first;
        Staged* found = nullptr;
        for (Staged& s : staged) {
            if (s.host == start) found = &s;
        }
        if (found == nullptr) {
            Simulator& sim = Process::get().sim();
            Staged s{start, it->second, sim.allocate<std::int8_t>(it->second, "GmAlloc")};
            std::vector<std::int8_t> bytes(it->second);
            std::memcpy(bytes.data(), reinterpret_cast<const void*>(start), it->second);
            sim.write(s.gm, bytes);
            staged.push_back(s);
            found = &staged.back();
        }
        const std::uint64_t address = found->gm.address + (host - start);
        return reinterpret_cast<Arg>(gm_pointer(Process::get().sim().global_memory(), address));
    } else {
        return arg;
    }
}

/// SetKernelMode's type, refined by what the kernel's source declares (registered by
/// npusim_add_ascendc_kernel): AIV_MODE runs a kernel declared as an AIV-only mix
/// (`__mix__(0, 1)`, KERNEL_TYPE_MIX_AIV_1_0) as that mix, MIX_MODE a kernel declared 1:1 as 1:1.
inline KernelType cpu_launch_type(const char* name) {
    const KernelType mode = state().type;
    const auto& declared = acl::declared_kernel_types_by_name();
    const auto found = declared.find(std::string_view(name));
    if (found == declared.end()) return mode;
    const bool refines =
        (mode == KernelType::AIV_ONLY && found->second == KernelType::MIX_AIV_1_0) ||
        (mode == KernelType::MIX_AIC_1_2 && found->second == KernelType::MIX_AIC_1_1);
    return refines ? found->second : mode;
}

template <class... Params, class... Args>
void run_kernel(void (*kernel)(Params...), const char* name, std::uint32_t blocks, Args... args) {
    static_assert(sizeof...(Params) == sizeof...(Args),
                  "ICPU_RUN_KF: the argument count differs from the kernel's");
    install_exit_hook();
    Process& process = Process::get();
    Simulator& sim = process.sim();
    std::vector<Staged> staged;
    staged.reserve(sizeof...(Args));
    std::tuple<Params...> device_args{static_cast<Params>(to_device(args, staged))...};
    KernelBody body =
        std::apply([&](auto... a) { return bind_kernel(kernel, process.launch_options(), a...); },
                   device_args);
    LaunchSpec spec;
    spec.name = name;
    spec.blocks = blocks;
    spec.type = cpu_launch_type(name);
    try {
        sim.launch(spec, std::move(body));
        process.note(sim.run());
    } catch (const Error& error) {
        process.note_error(error.what());
    }
    for (const Staged& s : staged) {
        const std::vector<std::int8_t> bytes = sim.read(s.gm);
        std::memcpy(reinterpret_cast<void*>(s.host), bytes.data(), s.bytes);
        sim.free(s.gm);
    }
}

}  // namespace npusim::ascendc::cpu

namespace AscendC {

inline std::uint8_t* GmAlloc(std::size_t size) {
    auto* memory = static_cast<std::uint8_t*>(std::calloc(size == 0 ? 1 : size, 1));
    npusim::ascendc::cpu::state().buffers[reinterpret_cast<std::uintptr_t>(memory)] = size;
    return memory;
}
inline void GmFree(void* pointer) {
    npusim::ascendc::cpu::state().buffers.erase(reinterpret_cast<std::uintptr_t>(pointer));
    std::free(pointer);
}
inline void SetKernelMode(KernelMode mode) {
    npusim::ascendc::cpu::state().type = mode == KernelMode::AIV_MODE ? npusim::KernelType::AIV_ONLY
                                         : mode == KernelMode::AIC_MODE
                                             ? npusim::KernelType::AIC_ONLY
                                             : npusim::KernelType::MIX_AIC_1_2;
}

}  // namespace AscendC

#define ICPU_RUN_KF(kernel, blockDim, ...) \
    ::npusim::ascendc::cpu::run_kernel(kernel, #kernel, blockDim, __VA_ARGS__)
#define ICPU_SET_TILING_KEY(key)                                                   \
    (::npusim::ascendc::cpu::state().tiling_key = static_cast<std::uint64_t>(key), \
     ::npusim::ascendc::set_tiling_key(static_cast<std::uint64_t>(key)))
