#include "sync/soft_sync_all.h"

#include <vector>

#include "core/chip_resources.h"
#include "core/instruction_decoder.h"
#include "core/quiet_watch.h"
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

// The instructions both GM-slot protocols issue: a drain of every pipe, a word written to a
// GM slot through UB (fill, drain, copy out, drain), and GM slots read into UB (copy in, drain).
Request drain_all() {
    Request drain;
    drain.op = Op::PipeBarrier;
    drain.barrier_pipe = Pipe::ALL;
    return drain;
}

void write_slot(CorePort& core, const Operand& ub_slot, const Operand& gm_slot, std::int32_t value,
                const Loc& loc) {
    Request fill;
    fill.op = Op::Fill;
    fill.dst = ub_slot;
    fill.count = 8;
    fill.scalar = value;
    core.issue(fill, loc);
    core.issue(drain_all(), loc);
    Request write;
    write.op = Op::Copy;
    write.dst = gm_slot;
    write.src0 = ub_slot;
    write.count = 8;
    core.issue(write, loc);
    core.issue(drain_all(), loc);
}

void read_slots(CorePort& core, const Operand& ub, const Operand& gm, std::uint32_t count,
                const Loc& loc) {
    Request poll;
    poll.op = Op::Copy;
    poll.dst = ub;
    poll.src0 = gm;
    poll.count = count;
    core.issue(poll, loc);
    core.issue(drain_all(), loc);
}

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
    const Request drain = drain_all();

    core.set_internal(true);
    // Everything this block did before must be complete before its slot says "arrived".
    core.issue(drain, loc);
    tx.start = core.local_time();
    core.publish_arrival(tx);
    write_slot(core, ub_slot, my_slot, epoch, loc);

    std::vector<std::uint32_t> behind;
    QuietWatch watch(core.chip(), core.local_time());
    for (;;) {
        read_slots(core, ub_all, all_slots, used * 8U, loc);
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

void run_gm_flag(CorePort& core, const GmFlagCall& call, const Loc& loc) {
    Transaction tx = core.begin_record(Pipe::S, call.set ? Op::GmFlagSet : Op::GmFlagWait, loc);
    const InstructionDecoder& decoder = core.decoder();
    if (core.core_type() != CoreType::Vector) {
        decoder.rule_error(tx, call.name + " runs on vector cores only");
    }
    if (call.value < (call.set ? 0 : 1) || call.value > 0xFFFF) {
        decoder.rule_error(tx, call.name + ": flag value " + std::to_string(call.value) +
                                   " is outside " + (call.set ? "0" : "1") + "..65535");
    }
    if (call.ub.space != MemSpace::UB) {
        decoder.rule_error(tx, call.name + ": the UB workspace must be in UB (it is in " +
                                   std::string(to_string(call.ub.space)) + ")");
    }
    decoder.check_global(tx, call.slot, 8, "GM workspace slot");
    decoder.check_local(tx, call.ub, 8, "UB workspace");
    core.scalar_issue(tx);
    tx.start = tx.issue;
    tx.sync_id = gm_flag_id(call.slot.address, call.value);
    const Operand gm_slot{MemSpace::GM, call.slot.address, 8, DType::I32};
    const Operand ub_slot{MemSpace::UB, call.ub.address, 8, DType::I32};
    const Request drain = drain_all();

    core.set_internal(true);
    if (call.set) {
        core.issue(drain, loc);  // everything before is complete when the flag says so
        tx.start = core.local_time();
        write_slot(core, ub_slot, gm_slot, call.value, loc);
        core.set_internal(false);
        tx.end = tx.pipe_free = core.local_time();
        core.publish(tx);
        core.maybe_sync();
        return;
    }
    QuietWatch watch(core.chip(), core.local_time());
    for (;;) {
        // Every effect up to now is applied before the poll reads, and a block that finished
        // (so no longer counts as busy) did so before it: its flag is in GM by then.
        const std::uint32_t busy = core.chip().busy_cores;
        core.advance_to(core.chip().last_block_end);
        core.sync_to_local();
        read_slots(core, ub_slot, gm_slot, 8, loc);
        std::int32_t seen = 0;
        core.scalar_load({MemSpace::UB, call.ub.address, 1, DType::I32}, &seen, loc);
        if (seen >= call.value) break;
        if (watch.stuck_after_poll(core.local_time(), busy, 2)) {
            watch.leave();
            core.set_internal(false);
            StuckWait wait;
            wait.kind = StuckWaitKind::GmFlag;
            wait.gm_flag = call.name;
            core.block_stuck(loc,
                             call.name + " polls forever: its GM slot holds " +
                                 std::to_string(seen) + ", waiting for " +
                                 std::to_string(call.value) + " (no block sets it any more)",
                             std::move(wait));
        }
    }
    watch.leave();
    core.set_internal(false);
    tx.end = tx.pipe_free = core.local_time();
    core.publish(tx);
    core.maybe_sync();
}

}  // namespace npusim
