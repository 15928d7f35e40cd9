// Synchronization across the blocks of one kernel launch: hard SyncAll (a hardware barrier
// over all blocks or the AIV blocks), soft SyncAll (a software barrier through GM built from
// real instructions, sync/soft_sync_all.h) and cross-core flags. The core reaches it through
// CrossBlockSync (core/sync_port.h); it reaches the core through CorePort.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <utility>

#include "core/kernel_launch.h"
#include "core/sync_port.h"
#include "sync/cross_core_flags.h"
#include "sync/hard_barrier.h"
#include "sync/syncall_id.h"

namespace npusim {

class KernelSync final : public CrossBlockSync {
public:
    explicit KernelSync(const KernelLaunch& launch);

    void hard_sync_all(CorePort& core, SyncAllScope scope, const Loc& loc) override;
    void soft_sync_all(CorePort& core, const Operand& gm_workspace, const Operand& ub_workspace,
                       std::uint32_t used_cores, const Loc& loc) override;
    void post_cross_core(CorePort& core, const Transaction& tx, Cycle at) override;
    Cycle take_cross_core(CorePort& core, Transaction& tx, const Loc& loc) override;

    /// Soft SyncAll bookkeeping (sync/soft_sync_all.cpp).
    /// True the first time a workspace is used in this kernel (it must then be all zero).
    bool first_use(std::uint64_t gm_workspace) {
        return m_soft_checked.insert(gm_workspace).second;
    }
    /// The next epoch of this block on this workspace (1, 2, ...).
    std::int32_t next_epoch(CoreType type, std::uint32_t block, std::uint64_t gm_workspace);
    /// The identity of soft SyncAll instance `epoch` on a workspace (same for every block).
    SyncAllId soft_instance(std::uint64_t gm_workspace, std::int32_t epoch);

private:
    /// Index of a block among the barrier's participants: AIV blocks, then AIC blocks.
    std::uint32_t participant(CoreType type, std::uint32_t block) const {
        return type == CoreType::Vector ? block : m_vector_blocks + block;
    }

    const KernelLaunch& m_kernel;
    std::uint32_t m_vector_blocks;
    std::uint32_t m_cube_blocks;
    HardBarrier m_barrier_all;     // participants: AIV blocks, then AIC blocks
    HardBarrier m_barrier_vector;  // participants: AIV blocks
    CrossCoreFlags m_flags;
    std::set<std::uint64_t> m_soft_checked;
    std::map<std::pair<BlockKey, std::uint64_t>, std::int32_t> m_soft_epochs;
    std::map<std::pair<std::uint64_t, std::int32_t>, std::uint64_t> m_soft_instances;
};

}  // namespace npusim
