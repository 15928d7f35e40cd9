#include "sync/soft_sync_all.h"

#include <vector>

#include "core/chip_resources.h"
#include "core/instruction_decoder.h"
#include "sync/kernel_sync.h"

namespace npusim {

namespace {

constexpr std::uint64_t kSlotBytes = 32;  // one slot per block: a DataCopy's minimum

void check_rules(CorePort& core, const Transaction& tx, const Operand& gm_ws, const Operand& ub_ws,
                 std::uint32_t used) {
    const InstructionDecoder& decoder = core.decoder();
    const std::uint64_t need = std::uint64_t{used} * kSlotBytes;
    if (core.core_type() != CoreType::Vector) {
        decoder.rule_error(tx,
                           "soft SyncAll(gm, ub, usedCores) runs on vector cores only; use "
                           "the hard SyncAll on cube cores");
    }
    if (used == 0 || used > core.block_num()) {
        decoder.rule_error(tx, "soft SyncAll: usedCores " + std::to_string(used) +
                                   " must be between 1 and the kernel's block count " +
                                   std::to_string(core.block_num()));
    }
    if (tx.block >= used) {
        decoder.rule_error(tx, "soft SyncAll: block " + std::to_string(tx.block) +
                                   " takes part but usedCores is " + std::to_string(used));
    }
    if (gm_ws.count * 4 < need) {
        decoder.rule_error(tx, "soft SyncAll: GM workspace holds " +
                                   std::to_string(gm_ws.count * 4) +
                                   " bytes, needs usedCores x 32 = " + std::to_string(need));
    }
    if (ub_ws.space != MemSpace::UB || ub_ws.count * 4 < need) {
        decoder.rule_error(tx,
                           "soft SyncAll: UB workspace must be in UB and hold usedCores x "
                           "32 = " +
                               std::to_string(need) + " bytes (it holds " +
                               std::to_string(ub_ws.count * 4) + " in " +
                               std::string(to_string(ub_ws.space)) + ")");
    }
    decoder.check_global(tx, gm_ws, need / 4, "GM workspace");
    decoder.check_local(tx, ub_ws, need / 4, "UB workspace");
}

/// Tracks whether the whole chip is stuck while this block polls: progress is any instruction
/// that is not a synchronization primitive's own traffic (ChipResources::progress_epoch).
class QuietWatch final {
public:
    QuietWatch(ChipResources& chip, Cycle now)
        : m_chip(chip), m_seen_epoch(chip.progress_epoch), m_quiet_since(now) {}
    ~QuietWatch() { leave(); }
    QuietWatch(const QuietWatch&) = delete;
    QuietWatch& operator=(const QuietWatch&) = delete;

    /// After one poll at `now`: true when the chip can make no more progress.
    bool stuck_after_poll(Cycle now) {
        if (m_chip.progress_epoch != m_seen_epoch) {
            m_seen_epoch = m_chip.progress_epoch;
            m_quiet_since = now;
            m_quiet_polls = 0;
            leave();
        } else if (++m_quiet_polls >= 2 && !m_counted) {
            ++m_chip.quiet_spinners;
            m_counted = true;
        }
        const bool everyone_stuck =
            m_counted && m_chip.quiet_spinners + m_chip.blocked_cores >= m_chip.busy_cores;
        if (!everyone_stuck && now - m_quiet_since > m_chip.idle_limit) {
            m_chip.idle_limit_hit = true;
        }
        if (everyone_stuck || now - m_quiet_since > m_chip.idle_limit) m_chip.deadlock = true;
        return m_chip.deadlock;
    }
    void leave() {
        if (m_counted) --m_chip.quiet_spinners;
        m_counted = false;
    }

private:
    ChipResources& m_chip;
    std::uint64_t m_seen_epoch;
    Cycle m_quiet_since;
    int m_quiet_polls = 0;
    bool m_counted = false;
};

}  // namespace

void run_soft_sync_all(CorePort& core, KernelSync& kernel, const Operand& gm_ws,
                       const Operand& ub_ws, std::uint32_t used, const Loc& loc) {
    Transaction tx = core.begin_record(Pipe::S, Op::SoftSyncAll, loc);
    check_rules(core, tx, gm_ws, ub_ws, used);
    const std::uint64_t need = std::uint64_t{used} * kSlotBytes;
    core.scalar_issue(tx);
    tx.start = tx.issue;
    // Claim the first use in simulated-time order: after the synchronization every block
    // that called earlier in simulated time has claimed it (with start offsets, a block that
    // calls later on the host may be earlier on the chip and have written its slot already).
    core.sync_to_local();
    if (kernel.first_use(gm_ws.address)) {
        // First use in this kernel: nobody has written a slot yet, so it must be all zero.
        std::vector<std::int32_t> slots(need / 4);
        core.chip().gm.read(gm_ws.address, slots.data(), need);
        for (std::uint32_t i = 0; i < used; ++i) {
            if (slots[i * 8] != 0) {
                core.decoder().rule_error(
                    tx, "soft SyncAll: GM workspace is not zero before first use (slot " +
                            std::to_string(i) + " holds " + std::to_string(slots[i * 8]) +
                            "); zero it on the host before the launch");
            }
        }
    }
    const std::int32_t epoch = kernel.next_epoch(core.core_type(), tx.block, gm_ws.address);
    tx.sync_id = kernel.soft_instance(gm_ws.address, epoch).encode();
    const Operand my_slot{MemSpace::GM, gm_ws.address + std::uint64_t{tx.block} * kSlotBytes, 8,
                          DType::I32};
    const Operand ub_slot{MemSpace::UB, ub_ws.address, 8, DType::I32};
    const Operand all_slots{MemSpace::GM, gm_ws.address, used * 8U, DType::I32};
    const Operand ub_all{MemSpace::UB, ub_ws.address, used * 8U, DType::I32};
    Request drain;
    drain.op = Op::PipeBarrier;
    drain.barrier_pipe = Pipe::ALL;

    core.set_internal(true);
    // Everything this block did before must be complete before its slot says "arrived".
    core.issue(drain, loc);
    tx.start = core.local_time();
    core.publish_arrival(tx);
    Request fill;
    fill.op = Op::Fill;
    fill.dst = ub_slot;
    fill.count = 8;
    fill.scalar = epoch;
    core.issue(fill, loc);
    core.issue(drain, loc);
    Request write;
    write.op = Op::Copy;
    write.dst = my_slot;
    write.src0 = ub_slot;
    write.count = 8;
    core.issue(write, loc);
    core.issue(drain, loc);

    std::vector<std::uint32_t> behind;
    QuietWatch watch(core.chip(), core.local_time());
    for (;;) {
        Request poll;
        poll.op = Op::Copy;
        poll.dst = ub_all;
        poll.src0 = all_slots;
        poll.count = used * 8U;
        core.issue(poll, loc);
        core.issue(drain, loc);
        behind.clear();
        for (std::uint32_t i = 0; i < used; ++i) {
            std::int32_t value = 0;
            core.scalar_load(
                {MemSpace::UB, ub_ws.address + std::uint64_t{i} * kSlotBytes, 1, DType::I32},
                &value, loc);
            if (value < epoch) behind.push_back(i);
        }
        if (behind.empty()) break;
        if (watch.stuck_after_poll(core.local_time())) {
            watch.leave();
            core.set_internal(false);
            std::string text = "soft SyncAll (epoch " + std::to_string(epoch) +
                               ") polls forever: slots still behind for blocks";
            for (std::size_t i = 0; i < behind.size() && i < 8; ++i) {
                text += (i ? ", " : " ") + std::to_string(behind[i]);
            }
            if (behind.size() > 8) text += ", ...";
            StuckWait wait;
            wait.kind = StuckWaitKind::SoftSyncAll;
            wait.sync_id = tx.sync_id;
            wait.missing_vector = behind;
            core.block_stuck(loc, text, std::move(wait));
        }
    }
    watch.leave();
    core.set_internal(false);
    tx.end = tx.pipe_free = core.local_time();
    core.publish(tx);
    core.maybe_sync();
}

}  // namespace npusim
