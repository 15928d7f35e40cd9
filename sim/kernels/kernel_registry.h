// Register C++ kernels in a shared library that npusim loads at run time, so a kernel
// developer runs and sweeps their own kernels from scenario files without rebuilding npusim
// (docs/json-kernels.md, examples/user_kernels/):
//
//   #include <npusim/sim/kernels/kernel_registry.h>
//   using namespace npusim;
//
//   void my_scale(Block& b, GlobalTensor<float> x, GlobalTensor<float> y, std::uint64_t n) {
//       auto ub = b.alloc<float>(MemSpace::UB, n);
//       b.copy(ub, x.sub(b.block_idx() * n, n), n);
//       ...
//   }
//   NPUSIM_REGISTER_KERNEL(my_scale, AIV_ONLY, my_scale,
//                          kernel_arg("x", "input"), kernel_arg("y", "output"),
//                          kernel_param("n", 256, 8, 65536, "elements per block"));
//
// and in the scenario: "kernels": {"scale": {"library": "libmykernels.so", "kernel":
// "my_scale"}}. The kernel function takes the Block, then its GM arguments (GlobalTensor<T>,
// T one of half, float, int32_t, int8_t), then its integer parameters, in that order; the
// macro names them in the same order (checked at compile time). Reports name the kernel's own
// C++ source lines, as for a kernel compiled into npusim.
//
// ABI: the library exports three C functions (defined here, emitted by the macro). npusim
// first calls npusim_kernel_abi_version() and npusim_kernel_library_version() and refuses a
// library built against another npusim version; only then does it read the C++ registry.
// Build the library against the same npusim headers as the program that loads it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "base/kernel_type.h"
#include "base/tensor.h"
#include "base/types.h"
#include "core/block.h"

/// Bumped whenever Block, the tensors or this header change in a way a library sees.
#define NPUSIM_KERNEL_ABI_VERSION 1u
/// The npusim release these headers belong to (equal to the CMake project version; a test
/// checks it).
#define NPUSIM_VERSION_STRING "0.1.0"

namespace npusim {

/// A GM argument of a registered kernel: its name in scenario files ("args": {"x": ...}).
struct KernelArgSpec {
    const char* name;
    const char* description;
};
/// An integer parameter of a registered kernel: default and accepted range.
struct KernelParamSpec {
    const char* name;
    std::uint64_t default_value;
    std::uint64_t min;
    std::uint64_t max;
    const char* description;
};
inline KernelArgSpec kernel_arg(const char* name, const char* description = "") {
    return {name, description};
}
inline KernelParamSpec kernel_param(const char* name, std::uint64_t default_value,
                                    std::uint64_t min, std::uint64_t max,
                                    const char* description = "") {
    return {name, default_value, min, max, description};
}

namespace kernel_registry {

/// The values of one launch: each GM argument's address and size in bytes, each parameter.
struct LaunchValues {
    std::vector<std::uint64_t> addresses;
    std::vector<std::uint64_t> bytes;
    std::vector<std::uint64_t> params;
};

struct ArgumentInfo {
    std::string name;
    DType dtype = DType::F32;
    std::string description;
};

/// One registered kernel, as the loader reads it (same npusim version on both sides).
struct KernelEntry {
    std::string name;
    KernelType type = KernelType::AIV_ONLY;
    std::vector<ArgumentInfo> arguments;
    std::vector<KernelParamSpec> parameters;
    std::function<void(Block&, const LaunchValues&)> invoke;
    const KernelEntry* next = nullptr;
};

/// The library's registry: one list per library (hidden, so that neither the program nor
/// another library can interpose it).
inline __attribute__((visibility("hidden"))) const KernelEntry* g_first = nullptr;

template <class T>
struct TensorElement {
    static constexpr bool is_tensor = false;
};
template <Element E>
struct TensorElement<GlobalTensor<E>> {
    static constexpr bool is_tensor = true;
    using type = E;
};

template <class T>
T argument_value(const LaunchValues& values, const bool* is_tensor, std::size_t position) {
    std::size_t rank = 0;
    for (std::size_t i = 0; i < position; ++i) rank += is_tensor[i] == is_tensor[position];
    if constexpr (TensorElement<T>::is_tensor) {
        using E = typename TensorElement<T>::type;
        return T{values.addresses[rank], values.bytes[rank] / sizeof(E)};
    } else {
        static_assert(std::is_integral_v<T>,
                      "a registered kernel takes Block&, then GlobalTensor<T> arguments, then "
                      "integer parameters");
        return static_cast<T>(values.params[rank]);
    }
}

template <class... A, std::size_t... I>
void call(void (*function)(Block&, A...), Block& block, const LaunchValues& values,
          std::index_sequence<I...>) {
    static constexpr bool is_tensor[sizeof...(A) + 1] = {
        TensorElement<std::remove_cvref_t<A>>::is_tensor..., false};
    function(block, argument_value<std::remove_cvref_t<A>>(values, is_tensor, I)...);
}

template <class... A, class... Specs>
const KernelEntry* make_entry(const char* name, KernelType type, void (*function)(Block&, A...),
                              Specs... specs) {
    constexpr std::size_t tensors = (0 + ... + TensorElement<std::remove_cvref_t<A>>::is_tensor);
    constexpr std::size_t arg_specs = (0 + ... + std::is_same_v<Specs, KernelArgSpec>);
    constexpr std::size_t param_specs = (0 + ... + std::is_same_v<Specs, KernelParamSpec>);
    static_assert(arg_specs + param_specs == sizeof...(Specs),
                  "NPUSIM_REGISTER_KERNEL takes kernel_arg(...) and kernel_param(...) only");
    static_assert(arg_specs == tensors,
                  "one kernel_arg(...) per GlobalTensor argument of the kernel function");
    static_assert(param_specs == sizeof...(A) - tensors,
                  "one kernel_param(...) per integer parameter of the kernel function");
    auto* entry = new KernelEntry;  // lives as long as the library
    entry->name = name;
    entry->type = type;
    static constexpr DType kNoType = DType::F32;
    const DType dtypes[sizeof...(A) + 1] = {
        [] {
            using T = std::remove_cvref_t<A>;
            if constexpr (TensorElement<T>::is_tensor) {
                return dtype_of<typename TensorElement<T>::type>;
            } else {
                return kNoType;
            }
        }()...,
        kNoType};
    const bool is_tensor[sizeof...(A) + 1] = {TensorElement<std::remove_cvref_t<A>>::is_tensor...,
                                              false};
    std::vector<DType> tensor_types;
    for (std::size_t i = 0; i < sizeof...(A); ++i) {
        if (is_tensor[i]) tensor_types.push_back(dtypes[i]);
    }
    std::size_t next_arg = 0;
    const auto add = [&](const auto& spec) {
        if constexpr (std::is_same_v<std::remove_cvref_t<decltype(spec)>, KernelArgSpec>) {
            entry->arguments.push_back({spec.name, tensor_types[next_arg++], spec.description});
        } else {
            entry->parameters.push_back(spec);
        }
    };
    (add(specs), ...);
    entry->invoke = [function](Block& block, const LaunchValues& values) {
        call(function, block, values, std::index_sequence_for<A...>{});
    };
    entry->next = g_first;
    g_first = entry;
    return entry;
}

}  // namespace kernel_registry
}  // namespace npusim

// The exported entry points npusim looks up with dlsym: emitted ("used") in every library that
// includes this header. npusim's own loader defines NPUSIM_KERNEL_LOADER and gets only the
// types.
#ifndef NPUSIM_KERNEL_LOADER
extern "C" __attribute__((used, visibility("default"))) inline std::uint32_t
npusim_kernel_abi_version() {
    return NPUSIM_KERNEL_ABI_VERSION;
}
extern "C" __attribute__((used, visibility("default"))) inline const char*
npusim_kernel_library_version() {
    return NPUSIM_VERSION_STRING;
}
extern "C" __attribute__((used, visibility("default"))) inline const void*
npusim_kernel_registry() {
    return npusim::kernel_registry::g_first;
}
#endif

#define NPUSIM_KERNEL_CONCAT_(a, b) a##b
#define NPUSIM_KERNEL_CONCAT(a, b) NPUSIM_KERNEL_CONCAT_(a, b)
/// Registers `function` as kernel `name` of `type` (a KernelType enumerator: AIV_ONLY, ...),
/// with one kernel_arg(...) per GlobalTensor argument and one kernel_param(...) per integer
/// parameter, in the function's order. Use at namespace scope, once per kernel name.
#define NPUSIM_REGISTER_KERNEL(name, type, function, ...)                         \
    [[maybe_unused]] static const ::npusim::kernel_registry::KernelEntry* const   \
    NPUSIM_KERNEL_CONCAT(npusim_registered_kernel_, name) =                       \
        (::npusim::kernel_registry::make_entry(#name, ::npusim::KernelType::type, \
                                               &function __VA_OPT__(, ) __VA_ARGS__))
