// Kernel types and where their blocks run. No SystemC here: users see this through
// sim/simulator.h.
//
// | type         | cores per block          | block_idx() on AIC | on AIV                   |
// |--------------|--------------------------|--------------------|--------------------------|
// | AIV_ONLY     | 1 AIV                    | -                  | [0, N)                   |
// | AIC_ONLY     | 1 AIC                    | [0, N)             | -                        |
// | MIX_AIV_1_0  | 1 AIV                    | -                  | [0, N)                   |
// | MIX_AIC_1_0  | 1 AIC                    | [0, N)             | -                        |
// | MIX_AIC_1_1  | 1 AIC + 1 AIV (a group)  | [0, N)             | [0, N)                   |
// | MIX_AIC_1_2  | 1 AIC + 2 AIV (a group)  | [0, N)             | [0, 2N), sub_block_idx 0/1|
// A group runs on a physical cluster: AIC c with AIV 2c (and 2c+1). block_num() is the number
// of blocks of the calling core's type (N, or 2N on AIV in a 1:2 kernel).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/types.h"

namespace npusim {

class Block;
using KernelBody = std::function<void(Block&)>;

enum class KernelType : std::uint8_t {
    AIV_ONLY,
    AIC_ONLY,
    MIX_AIV_1_0,
    MIX_AIC_1_0,
    MIX_AIC_1_1,
    MIX_AIC_1_2,
};
std::string_view to_string(KernelType type);

enum class SyncAllScope : std::uint8_t {
    All,     // every block of the kernel, on every core type it uses
    Vector,  // the kernel's AIV blocks only
};

/// How the device places a kernel's blocks (the vendor API's SetScheduleMode).
enum class ScheduleMode : std::uint8_t {
    Normal,  // blocks start as cores free up, possibly in several rounds
    Batch,   // all blocks start at once or none does (they wait until enough cores are free)
};

/// Which ready kernel's blocks the device places first when cores free up.
enum class PlacementPolicy : std::uint8_t {
    LaunchOrder,  // kernels in the order they became ready
    RoundRobin,   // one block per stream in turn
    Random,       // seeded pseudo-random interleaving (deterministic per seed)
    HoldLast,     // adversarial for barriers: a kernel's last block only when no other ready
                  // kernel can take a core without completing its start (the deadlock witness)
};

/// Cross-core flags (CrossCoreSetFlag / CrossCoreWaitFlag, modes 0-2): ids 0 to
/// kCrossCoreFlagIds - 1; a block's counter for one id holds at most kCrossCoreMaxPending
/// unconsumed sets.
inline constexpr std::uint32_t kCrossCoreFlagIds = 16;
inline constexpr std::uint32_t kCrossCoreMaxPending = 16;

/// An inclusive range of cross-core flag ids.
struct CrossCoreFlagIdRange {
    std::uint32_t first = 0;
    std::uint32_t last = 0;
    constexpr bool contains(std::uint32_t id) const { return id >= first && id <= last; }
};
/// The flag ids hard SyncAll uses internally. A kernel that calls hard SyncAll and sets or
/// waits for one of them is a hardware-rule error (sync/kernel_sync.h); soft SyncAll uses no
/// flags, so other kernels may use these ids freely.
inline constexpr CrossCoreFlagIdRange kHardSyncAllFlagIds{11, 14};
static_assert(kHardSyncAllFlagIds.first <= kHardSyncAllFlagIds.last &&
              kHardSyncAllFlagIds.last < kCrossCoreFlagIds);
/// The rule as a fix names it, from the constants above: "use ids 0-10 or 15 in kernels that
/// call hard SyncAll; hard SyncAll uses 11-14 internally".
std::string hard_sync_all_flag_id_rule();

/// Vector cores one block (group) of this kernel type occupies: 0, 1 or 2.
std::uint32_t vector_cores_per_block(KernelType type);
/// Cube cores one block (group) occupies: 0 or 1.
std::uint32_t cube_cores_per_block(KernelType type);
/// Blocks (groups) of `type` a chip with these cores can hold at once: its cores of the one
/// type the kernel needs, or its whole clusters (AIC c with AIV 2c, and 2c+1 for 1:2). A
/// batch launch of more can never start.
std::uint32_t blocks_at_once(KernelType type, std::uint32_t vector_cores, std::uint32_t cube_cores);
/// Blocks on cores of `core` type for a launch of `groups` blocks (block_num() there).
inline std::uint32_t blocks_on(KernelType type, CoreType core, std::uint32_t groups) {
    return groups *
           (core == CoreType::Vector ? vector_cores_per_block(type) : cube_cores_per_block(type));
}

}  // namespace npusim
