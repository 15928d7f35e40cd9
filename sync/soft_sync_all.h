// Soft SyncAll: a software barrier through GM, built from real instructions so that its
// traffic costs what it costs on hardware. Each block (epoch e on this workspace):
//   1. drains its pipes (everything before the barrier is complete), then fills its UB slot
//      with e (V) and writes it to its own 32-byte GM slot (MTE3);
//   2. polls: copies all used_cores GM slots to UB (MTE2) and reads each with a scalar load,
//      until every slot holds >= e.
// The instructions are marked internal; the checker treats the primitive as one barrier.
// A block that polls while no block anywhere makes progress is reported stuck (deadlock).
#pragma once

#include <cstdint>

#include "core/sync_port.h"

namespace npusim {

class KernelSync;

/// Runs one soft SyncAll for the block on `core`. Throws KernelError on a broken rule
/// (workspace sizes, usedCores, non-zero workspace at first use, cube core).
void run_soft_sync_all(CorePort& core, KernelSync& kernel, const Operand& gm_workspace,
                       const Operand& ub_workspace, std::uint32_t used_cores, const Loc& loc);

/// The identity of a flag in GM holding `value` (Transaction::sync_id of GmFlagSet /
/// GmFlagWait): the slot's address in the low 48 bits, the value above.
inline std::uint64_t gm_flag_id(std::uint64_t slot_address, std::int32_t value) {
    return (static_cast<std::uint64_t>(static_cast<std::uint16_t>(value)) << 48) |
           (slot_address & ((std::uint64_t{1} << 48) - 1));
}

/// A flag in GM (core/sync_port.h GmFlagCall), from the same kind of real instructions as the
/// soft SyncAll: set drains the block's pipes, fills its UB slot with the value (V) and writes
/// it to the GM slot (MTE3); wait copies the GM slot to UB (MTE2) and reads it with a scalar
/// load until it holds the value or more. The instructions are marked internal; the checker
/// sees a GmFlagSet (what the block did before) and a GmFlagWait (learns it). A wait that no
/// block can satisfy any more is reported stuck (deadlock) at its line.
void run_gm_flag(CorePort& core, const GmFlagCall& call, const Loc& loc);

}  // namespace npusim
