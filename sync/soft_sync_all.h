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

}  // namespace npusim
