// The private memories of one AI core (UB on a vector core; L1, L0A, L0B, L0C on a cube
// core). Each space is a dense array allocated on first touch, so idle cores cost nothing.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "base/types.h"

namespace npusim {

class LocalMemory final {
public:
    /// capacities indexed by MemSpace; 0 means the space does not exist on this core.
    explicit LocalMemory(const std::array<std::uint64_t, kMemSpaces>& capacities)
        : m_capacity(capacities) {}

    std::uint64_t capacity(MemSpace space) const { return m_capacity[index(space)]; }

    /// Pointer to the first byte of a space; allocates (zeroed) on first use.
    std::byte* data(MemSpace space) {
        auto& bytes = m_data[index(space)];
        if (!bytes) bytes = std::make_unique<std::byte[]>(m_capacity[index(space)]);
        return bytes.get();
    }

private:
    static std::size_t index(MemSpace space) { return static_cast<std::size_t>(space); }

    std::array<std::uint64_t, kMemSpaces> m_capacity;
    std::array<std::unique_ptr<std::byte[]>, kMemSpaces> m_data;
};

}  // namespace npusim
