#include "sync/kernel_sync.h"

#include <algorithm>
#include <optional>

#include "base/cross_core_routing.h"
#include "core/chip_resources.h"
#include "core/instruction_decoder.h"
#include "sync/soft_sync_all.h"

namespace npusim {

KernelSync::KernelSync(const KernelLaunch& launch)
    : m_kernel(launch),
      m_vector_blocks(blocks_on(launch.type, CoreType::Vector, launch.blocks)),
      m_cube_blocks(blocks_on(launch.type, CoreType::Cube, launch.blocks)),
      m_barrier_all(m_vector_blocks + m_cube_blocks),
      m_barrier_vector(m_vector_blocks > 0 ? m_vector_blocks : 1) {}

// ---- hard SyncAll -----------------------------------------------------------------------

void KernelSync::hard_sync_all(CorePort& core, SyncAllScope scope, const Loc& loc) {
    Transaction tx = core.begin_record(Pipe::S, Op::SyncAll, loc);
    core.decoder().decode_sync_all(scope, tx);
    check_hard_sync_all_flag_ids(core, tx);
    core.scalar_issue(tx);
    core.drain_pipes(loc, "SyncAll");
    core.sync_to_local();  // arrivals reach the barrier in simulated-time order
    HardBarrier& barrier = scope == SyncAllScope::All ? m_barrier_all : m_barrier_vector;
    const std::uint32_t me = participant(core.core_type(), tx.block);
    const HardBarrier::Arrival arrival =
        barrier.arrive(me, core.local_time(), core.chip().config.syncall_latency);
    tx.start = core.local_time();
    const auto kind =
        scope == SyncAllScope::All ? SyncAllId::Kind::HardAll : SyncAllId::Kind::HardVector;
    tx.sync_id = SyncAllId{kind, arrival.generation}.encode();
    core.publish_arrival(tx);
    if (arrival.last) core.notify_kernel();
    const std::uint32_t vector_blocks = m_vector_blocks;
    core.block_until(
        [&] { return barrier.released(arrival.generation); }, loc,
        [&barrier, vector_blocks] {
            // Participants are numbered AIV blocks first, then AIC blocks:
            // name them as blocks of their core type, never as cores.
            std::string text = "hard SyncAll: " + std::to_string(barrier.arrived()) + " of " +
                               std::to_string(barrier.participants()) +
                               " blocks arrived; still waiting for";
            std::string vec_list, cube_list;
            std::size_t vec_count = 0, cube_count = 0;
            int listed = 0;
            bool more = false;
            for (std::uint32_t p : barrier.missing()) {
                if (listed++ == 8) {
                    more = true;
                    break;
                }
                const bool vec = p < vector_blocks;
                std::string& list = vec ? vec_list : cube_list;
                list += (list.empty() ? "" : ", ") + std::to_string(vec ? p : p - vector_blocks);
                ++(vec ? vec_count : cube_count);
            }
            const auto group = [](std::size_t count, const std::string& list, const char* type) {
                return std::string(count == 1 ? " block " : " blocks ") + list + " (" + type + ")";
            };
            if (vec_count > 0) text += group(vec_count, vec_list, "aiv");
            if (cube_count > 0)
                text += (vec_count > 0 ? " and" : "") + group(cube_count, cube_list, "aic");
            if (more) text += ", ...";
            return text;
        },
        [&barrier, vector_blocks, kind, generation = arrival.generation] {
            StuckWait wait;
            wait.kind = StuckWaitKind::HardSyncAll;
            wait.sync_id = SyncAllId{kind, generation}.encode();
            for (std::uint32_t p : barrier.missing()) {
                if (p < vector_blocks) {
                    wait.missing_vector.push_back(p);
                } else {
                    wait.missing_cube.push_back(p - vector_blocks);
                }
            }
            return wait;
        });
    core.advance_to(barrier.last_release());
    tx.end = tx.pipe_free = core.local_time();
    core.publish(tx);
    core.maybe_sync();
}

// ---- soft SyncAll -----------------------------------------------------------------------

void KernelSync::soft_sync_all(CorePort& core, const Operand& gm_workspace,
                               const Operand& ub_workspace, std::uint32_t used_cores,
                               const Loc& loc) {
    run_soft_sync_all(core, *this, gm_workspace, ub_workspace, used_cores, loc);
}

std::int32_t KernelSync::next_epoch(CoreType type, std::uint32_t block,
                                    std::uint64_t gm_workspace) {
    return ++m_soft_epochs[{BlockKey{type, block}, gm_workspace}];
}

SyncAllId KernelSync::soft_instance(std::uint64_t gm_workspace, std::int32_t epoch) {
    const auto [it, added] =
        m_soft_instances.try_emplace({gm_workspace, epoch}, m_soft_instances.size());
    return {SyncAllId::Kind::Soft, it->second};
}

// ---- cross-core flags -------------------------------------------------------------------

void KernelSync::post_cross_core(CorePort& core, const Transaction& tx, Cycle at) {
    check_hard_sync_all_flag_ids(core, tx);
    const Cycle latency = core.chip().config.cross_core_flag_latency;
    const CrossCoreRoute route =
        route_cross_core_set(m_kernel.type, m_kernel.blocks, tx.core_type, tx.block, tx.mode);
    const CrossCoreSet set{at + latency, tx.block, tx.core_type, tx.serial};
    bool ok = true;
    if (route.round) {
        ok = m_flags.join_round(route.round_key, tx.event_id, route.targets,
                                {at, tx.block, tx.core_type, tx.serial}, latency);
    } else {
        for (const BlockKey& target : route.targets) {
            ok = m_flags.post(target, tx.event_id, set) && ok;
        }
    }
    if (!ok) {
        core.decoder().rule_error(tx, "cross-core flag " + std::to_string(tx.event_id) +
                                          " overflows: " + route.receiver + " already holds " +
                                          std::to_string(kCrossCoreMaxPending) +
                                          " sets that no CrossCoreWaitFlag consumed");
    }
    core.notify_kernel();
}

Cycle KernelSync::take_cross_core(CorePort& core, Transaction& tx, const Loc& loc) {
    const BlockKey me{core.core_type(), tx.block};
    const std::uint32_t flag_id = tx.event_id;
    check_hard_sync_all_flag_ids(core, tx);
    std::optional<CrossCoreSet> got;
    core.block_until([&] { return (got = m_flags.take(me, flag_id)).has_value(); }, loc,
                     [flag_id] {
                         return "waits at CrossCoreWaitFlag(" + std::to_string(flag_id) +
                                "): no block sets this flag for it";
                     },
                     [flag_id] {
                         StuckWait wait;
                         wait.kind = StuckWaitKind::CrossCoreFlag;
                         wait.flag_id = flag_id;
                         return wait;
                     });
    tx.partner_block = got->block;
    tx.partner_core_type = got->core_type;
    tx.partner_serial = got->serial;
    return got->visible;
}

// ---- the flag ids hard SyncAll reserves ---------------------------------------------------

namespace {

// "k.cpp:12:5 (block 3, aiv)"
std::string place(const std::source_location& where, std::uint32_t block, CoreType type) {
    return format_location(where) + " (block " + std::to_string(block) + ", " +
           std::string(to_string(type)) + ")";
}

}  // namespace

void KernelSync::check_hard_sync_all_flag_ids(CorePort& core, const Transaction& tx) {
    const bool sync_all = tx.op == Op::SyncAll;
    if (!sync_all && !kHardSyncAllFlagIds.contains(tx.event_id)) return;
    const auto name = [&] {
        return sync_all ? std::string("hard SyncAll")
                        : InstructionDecoder::cross_core_call_name(tx);
    };
    std::optional<RuleCall>& mine = sync_all ? m_first_hard_sync_all : m_first_reserved_flag;
    const std::optional<RuleCall>& other = sync_all ? m_first_reserved_flag : m_first_hard_sync_all;
    if (!mine) mine = RuleCall{name(), tx.where, tx.block, core.core_type()};
    if (!other) return;
    const std::string fix = hard_sync_all_flag_id_rule();
    if (sync_all) {
        core.decoder().rule_error(
            tx,
            "hard SyncAll in a kernel that uses a cross-core flag id it reserves: " + other->name +
                " at " + place(other->where, other->block, other->core_type) + "; " + fix);
    }
    core.decoder().rule_error(
        tx, name() +
                " uses a flag id that hard SyncAll reserves, and this kernel calls hard "
                "SyncAll at " +
                place(other->where, other->block, other->core_type) + "; " + fix);
}

// ---- flags in GM (IBSet / IBWait, NotifyNextBlock / WaitPreBlock) -----------------------

void KernelSync::gm_flag(CorePort& core, const GmFlagCall& call, const Loc& loc) {
    run_gm_flag(core, call, loc);
}

}  // namespace npusim
