// Block::alloc() on one core: a bump allocator per local space, reset at every block start
// (allocations live as long as their block). Pure: no SystemC, unit-tested on its own.
//
//   LocalAllocator alloc(local_capacities(chip, CoreType::Vector));
//   LocalAllocation a = alloc.allocate(MemSpace::UB, 1000);   // a.address == 0
//   LocalAllocation b = alloc.allocate(MemSpace::UB, 64);     // b.address == 1024 (32-aligned)
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "base/types.h"

namespace npusim {

class LocalAllocator final {
public:
    /// capacities indexed by MemSpace; 0 means the core has no such space.
    explicit LocalAllocator(const std::array<std::uint64_t, kMemSpaces>& capacities)
        : m_capacity(capacities) {}

    struct Result {
        std::uint64_t address = 0;
        std::string error;  // empty on success; otherwise why nothing was allocated
        bool ok() const { return error.empty(); }
    };
    /// Contract: on success the range [address, address + bytes) lies inside the space,
    /// starts at the space's alignment and overlaps no earlier allocation of this block.
    Result allocate(MemSpace space, std::uint64_t bytes, CoreType core_type);
    /// Forgets every allocation (block start).
    void reset() { m_top.fill(0); }
    std::uint64_t used(MemSpace space) const { return m_top[static_cast<std::size_t>(space)]; }

private:
    std::array<std::uint64_t, kMemSpaces> m_capacity;
    std::array<std::uint64_t, kMemSpaces> m_top{};
};

}  // namespace npusim
