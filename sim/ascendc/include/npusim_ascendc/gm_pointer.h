// What a `__gm__` pointer (GM_ADDR) is: the host address of its GM byte in the simulator's GM
// window (memory/global_memory.h), so that GM address A of the running simulator is the
// pointer host_base() + A. Kernels pass such pointers to SetGlobalBuffer, do arithmetic on
// them, and may also dereference them, as scalar code does on hardware (e.g. a loop that
// copies the tiling struct out of GM): such a read or write sees the simulated bytes, but it
// is not timed and the checker does not see it (docs/ascendc.md).
#pragma once

#include <cstdint>
#include <cstdio>
#include <source_location>
#include <string>

#include "base/errors.h"
#include "memory/global_memory.h"

namespace npusim::ascendc {

/// The GM address of a `__gm__` pointer (nullptr is address 0). Throws KernelError naming
/// `loc` when the pointer lies in no live simulator's GM (e.g. a host pointer passed as a
/// kernel's GM_ADDR argument).
inline std::uint64_t gm_address(const void* pointer,
                                const std::source_location& loc = std::source_location::current()) {
    if (pointer == nullptr) return 0;
    const GlobalMemory* gm = GlobalMemory::owner_of(pointer);
    const GlobalMemory* running = GlobalMemory::running();
    if (gm != nullptr && (running == nullptr || running == gm)) {
        return static_cast<std::uint64_t>(static_cast<const std::byte*>(pointer) - gm->host_base());
    }
    char text[32];
    std::snprintf(text, sizeof text, "%p", pointer);
    std::string file = loc.file_name();
    file = file.substr(file.find_last_of('/') + 1);
    throw KernelError(file + ":" + std::to_string(loc.line()) + ": the __gm__ pointer " + text +
                      (gm != nullptr ? " is in another simulator's GM than the running one"
                                     : " is not in the simulator's GM") +
                      " (GM_ADDR arguments must be GM buffers of the simulator that runs the "
                      "kernel: aclrtMalloc, GmAlloc or npusim::ascendc::gm_addr, docs/ascendc.md)");
}

/// The GM address of `pointer` if it lies in a live simulator's GM, else 0 (not a GM pointer).
inline std::uint64_t gm_address_if_any(const void* pointer) {
    const GlobalMemory* gm = pointer == nullptr ? nullptr : GlobalMemory::owner_of(pointer);
    if (gm == nullptr) return 0;
    return static_cast<std::uint64_t>(static_cast<const std::byte*>(pointer) - gm->host_base());
}

/// The `__gm__` pointer of GM address `address` in `gm` (address 0 is nullptr).
template <class T = std::uint8_t>
T* gm_pointer(const GlobalMemory& gm, std::uint64_t address) {
    if (address == 0) return nullptr;
    return reinterpret_cast<T*>(gm.host_base() + address);
}

/// The `__gm__` pointer of GM address `address` in the implied GM: the one whose run this
/// thread is executing, else the live simulator's created last. Throws UsageError naming
/// `loc` when no simulator is alive.
template <class T = std::uint8_t>
T* gm_pointer(std::uint64_t address,
              const std::source_location& loc = std::source_location::current()) {
    if (address == 0) return nullptr;
    const GlobalMemory* gm = GlobalMemory::implied();
    if (gm == nullptr) {
        std::string file = loc.file_name();
        file = file.substr(file.find_last_of('/') + 1);
        throw UsageError(file + ":" + std::to_string(loc.line()) +
                         ": a GM address was turned into a __gm__ pointer while no simulator "
                         "is alive");
    }
    return gm_pointer<T>(*gm, address);
}

}  // namespace npusim::ascendc
