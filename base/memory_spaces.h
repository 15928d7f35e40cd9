// The one table of memory spaces: names, DataCopy alignment, which core types have the
// space, and the chip parameter that sizes it.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "base/chip_config.h"
#include "base/types.h"

namespace npusim {

struct MemSpaceInfo {
    MemSpace space = MemSpace::GM;
    std::string_view name;
    std::uint64_t alignment = 32;  // DataCopy and alloc() alignment in bytes
    bool on_vector = false;        // a private space of each AIV core
    bool on_cube = false;          // a private space of each AIC core
    std::uint64_t ChipConfig::*capacity = nullptr;
};

/// In MemSpace enumerator order.
inline constexpr std::array<MemSpaceInfo, kMemSpaces> kMemSpaceTable{{
    {MemSpace::GM, "GM", 32, false, false, &ChipConfig::gm_bytes},
    {MemSpace::UB, "UB", 32, true, false, &ChipConfig::ub_bytes},
    {MemSpace::L1, "L1", 32, false, true, &ChipConfig::l1_bytes},
    {MemSpace::L0A, "L0A", 512, false, true, &ChipConfig::l0a_bytes},
    {MemSpace::L0B, "L0B", 512, false, true, &ChipConfig::l0b_bytes},
    {MemSpace::L0C, "L0C", 512, false, true, &ChipConfig::l0c_bytes},
    // The bias table: written by the C1 -> C2 copy (MTE1), read by Mmad with a bias.
    {MemSpace::BT, "BT", 64, false, true, &ChipConfig::bt_bytes},
}};

constexpr const MemSpaceInfo& mem_space_info(MemSpace space) {
    return kMemSpaceTable[static_cast<std::size_t>(space)];
}

constexpr bool mem_space_rows_in_order() {
    for (std::size_t i = 0; i < kMemSpaceTable.size(); ++i) {
        if (static_cast<std::size_t>(kMemSpaceTable[i].space) != i) return false;
    }
    return true;
}
static_assert(mem_space_rows_in_order(), "kMemSpaceTable is in MemSpace order");

/// Capacities of a core type's private spaces (0 where the core has no such space).
std::array<std::uint64_t, kMemSpaces> local_capacities(const ChipConfig& chip, CoreType type);

}  // namespace npusim
