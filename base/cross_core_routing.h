// Where a CrossCoreSetFlag goes: written once, used by the kernel's flags (sync/kernel_sync.h)
// and by the checker's happens-before (sync/check/sync_edges.cpp); a protocol fact both read,
// so it lives below both.
//   mode 0: a round among all AIV blocks (or all AIC blocks) of the kernel;
//   mode 1: a round among the two AIV blocks of one group (MIX_AIC_1_2);
//   mode 2: point to point in a group: an AIC set goes to each AIV of its group, an AIV set to
//           its group's AIC.
// In a round every member gets one count once all members have set.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/kernel_type.h"

namespace npusim {

/// npusim's point-to-point set from an AIC to one AIV of its group: mode
/// kCrossCoreModeToAiv + that AIV's sub-block index (0 or 1). The Matmul API's replies in a
/// mixed kernel use it (a mode-2 set would reach both AIVs); CrossCoreSetFlag cannot name it.
inline constexpr std::uint32_t kCrossCoreModeToAiv = 3;

/// A block as a destination: its core type and block index.
struct BlockKey {
    CoreType type = CoreType::Vector;
    std::uint32_t block = 0;
    friend bool operator<(const BlockKey& a, const BlockKey& b) {
        return a.type != b.type ? a.type < b.type : a.block < b.block;
    }
};

struct CrossCoreRoute {
    bool round = false;             // modes 0 and 1
    std::uint64_t round_key = 0;    // identifies the member set within the kernel (rounds)
    std::vector<BlockKey> targets;  // round: its members; mode 2: the receivers
    std::string receiver;           // who overflows, for messages ("an AIV of group 3")
};

/// The group (physical cluster) of a block: equal on the AIC and AIV(s) that run together.
std::uint32_t group_of(KernelType type, CoreType core, std::uint32_t block);

/// Contract: `mode` passed the decoder's rules for this kernel type and core type.
/// `groups` is the launch's block count N.
CrossCoreRoute route_cross_core_set(KernelType type, std::uint32_t groups, CoreType setter,
                                    std::uint32_t block, std::uint32_t mode);

}  // namespace npusim
