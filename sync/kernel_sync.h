// Synchronization across the blocks of one kernel launch: hard SyncAll (a hardware barrier
// over all blocks or the AIV blocks), soft SyncAll (a software barrier through GM built from
// real instructions, sync/soft_sync_all.h) and cross-core flags. The core reaches it through
// CrossBlockSync (core/sync_port.h); it reaches the core through CorePort.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <source_location>
#include <string>
#include <utility>

#include "base/syncall_id.h"
#include "core/kernel_launch.h"
#include "core/sync_port.h"
#include "sync/cross_core_flags.h"
#include "sync/hard_barrier.h"

namespace npusim {

class KernelSync final : public CrossBlockSync {
public:
    explicit KernelSync(const KernelLaunch& launch);

    void hard_sync_all(CorePort& core, SyncAllScope scope, const Loc& loc) override;
    void soft_sync_all(CorePort& core, const Operand& gm_workspace, const Operand& ub_workspace,
                       std::uint32_t used_cores, const Loc& loc) override;
    void post_cross_core(CorePort& core, const Transaction& tx, Cycle at) override;
    Cycle take_cross_core(CorePort& core, Transaction& tx, const Loc& loc) override;
    void gm_flag(CorePort& core, const GmFlagCall& call, const Loc& loc) override;

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

    /// A call that takes part in the hard-SyncAll flag-id rule: its name, line and block.
    struct RuleCall {
        std::string name;  // "hard SyncAll", "CrossCoreSetFlag<0, PIPE_S>(12)"
        std::source_location where;
        std::uint32_t block = 0;
        CoreType core_type = CoreType::Vector;
    };
    /// Hard SyncAll uses the flag ids kHardSyncAllFlagIds internally: a kernel that calls it
    /// must not use them. Records the first hard SyncAll and the first cross-core flag call
    /// with such an id; the second kind to arrive throws a KernelError naming both lines.
    void check_hard_sync_all_flag_ids(CorePort& core, const Transaction& tx);

    const KernelLaunch& m_kernel;
    std::uint32_t m_vector_blocks;
    std::uint32_t m_cube_blocks;
    HardBarrier m_barrier_all;     // participants: AIV blocks, then AIC blocks
    HardBarrier m_barrier_vector;  // participants: AIV blocks
    CrossCoreFlags m_flags;
    std::optional<RuleCall> m_first_hard_sync_all;
    std::optional<RuleCall> m_first_reserved_flag;  // the first set or wait of a reserved id
    std::set<std::uint64_t> m_soft_checked;
    std::map<std::pair<BlockKey, std::uint64_t>, std::int32_t> m_soft_epochs;
    std::map<std::pair<std::uint64_t, std::int32_t>, std::uint64_t> m_soft_instances;
};

}  // namespace npusim
