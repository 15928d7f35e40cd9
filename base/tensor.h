// Typed views of memory that kernels pass to the API. They are plain values: an address
// and an element count. Nothing is checked here; the core checks every access it issues.
#pragma once

#include <cstdint>

#include "base/types.h"

namespace npusim {

/// A range of elements in GM. Created on the host by Simulator::allocate.
template <Element T>
struct GlobalTensor {
    std::uint64_t address = 0;  // bytes
    std::uint64_t count = 0;    // elements

    std::uint64_t bytes() const { return count * sizeof(T); }
    /// Elements [offset, offset + n) of this tensor.
    GlobalTensor sub(std::uint64_t offset, std::uint64_t n) const {
        return {address + offset * sizeof(T), n};
    }
};

/// A range of elements in one of the core's local memories (UB, L1, L0A, L0B, L0C).
template <Element T>
struct LocalTensor {
    MemSpace space = MemSpace::UB;
    std::uint64_t address = 0;  // byte offset inside the space
    std::uint64_t count = 0;    // elements

    std::uint64_t bytes() const { return count * sizeof(T); }
    LocalTensor sub(std::uint64_t offset, std::uint64_t n) const {
        return {space, address + offset * sizeof(T), n};
    }
};

}  // namespace npusim
