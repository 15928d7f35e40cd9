#include "pipes/pipe_unit.h"

#include <algorithm>

#include "base/invariant.h"
#include "pipes/op_table.h"

namespace npusim {

namespace {

/// A GM copy through the L2: HBM carries the misses and the dirty lines evicted, L2 all of
/// the transfer; the copy ends when both are done. A strided copy's rows are looked up in
/// L2 one by one and move as one transfer.
Cycle transfer_through_l2(Cycle begin, const Transaction& tx, const MemAccess& gm,
                          std::uint64_t moved, std::uint64_t path_rate, GmBandwidth& hbm,
                          const L2Path& l2, L2Statistics& stats) {
    const bool bypass = tx.l2_bypass;
    std::uint64_t hit = 0, miss = 0, writeback = 0;
    for (std::uint32_t row = 0; row < gm.rows; ++row) {
        const L2Access a = l2.cache->access(gm.row_address(row), gm.bytes, gm.write, bypass);
        hit += a.hit_bytes;
        miss += a.miss_bytes;
        writeback += a.writeback_bytes;
    }
    const std::uint64_t total = gm.total_bytes();
    const std::uint64_t extra = moved - total;  // granules straddled
    if (!gm.write) stats.add(tx.kernel_id, total, hit);
    const std::uint64_t hbm_bytes = miss + writeback + (miss != 0 ? extra : 0);
    const Cycle hbm_end = hbm.transfer(begin, hbm_bytes, path_rate);
    const std::uint64_t l2_rate = gm.write ? l2.write_bytes_per_cycle : l2.read_bytes_per_cycle;
    const std::uint64_t l2_bytes = bypass && !gm.write ? hit : moved;
    const Cycle l2_end = l2.bandwidth->transfer(begin, l2_bytes, l2_rate);
    return std::max(hbm_end, l2_end);
}

}  // namespace

void PipeUnit::start_data(PipeInstruction& instruction, Cycle start, const CostModel& cost,
                          GmBandwidth& bandwidth, const L2Path& l2, L2Statistics& stats) {
    Transaction& tx = instruction.tx;
    NPUSIM_INVARIANT(start >= tx.issue && start >= m_timeline.free_at(), "PipeUnit", start,
                     "an instruction started before it was issued or before its pipe was free");
    Cycle pipe_free = start;
    Cycle latency = 0;
    if (op_info(tx.op).unit == OpUnit::Copy) {  // DataCopy, and Fixpipe timed as its copy
        const std::uint64_t bytes = tx.accesses[0].total_bytes();
        const CopyPath& path = instruction.path;
        const MemAccess& gm =
            tx.accesses[0].space == MemSpace::GM ? tx.accesses[0] : tx.accesses[1];
        // One DMA instruction: the issue cost, then each further burst (row) its own cost; a
        // GM copy's bursts are its GM rows (a Fixpipe reads L0C as one block).
        const std::uint32_t bursts = path.uses_gm ? gm.rows : tx.accesses[0].rows;
        const Cycle begin = start + (tx.dma_continues ? path.burst_cycles : path.issue_cycles) +
                            (bursts - 1) * path.burst_cycles;
        if (path.uses_gm) {
            std::uint64_t moved = 0;
            for (std::uint32_t row = 0; row < gm.rows; ++row)
                moved += cost.gm_bytes_moved(gm.row_address(row), gm.bytes);
            if (l2.cache != nullptr && l2.cache->enabled()) {
                pipe_free = transfer_through_l2(begin, tx, gm, moved, path.bytes_per_cycle,
                                                bandwidth, l2, stats);
            } else {
                pipe_free = bandwidth.transfer(begin, moved, path.bytes_per_cycle);
            }
        } else {
            pipe_free = begin + cost.local_copy(path, bytes).occupancy;
        }
        latency = path.latency;
    } else if (tx.op == Op::Mmad) {
        const CubeTypeInfo* type = cube_type(tx.src_dtype);
        NPUSIM_INVARIANT(type != nullptr, "PipeUnit", start, "Mmad of a type the cube lacks");
        const InstructionCost c = cost.cube_op(tx.m, tx.n, tx.k, type->k0);
        pipe_free = start + c.occupancy;
        latency = c.latency;
    } else {
        std::uint64_t bytes = 0;
        std::uint64_t reads[4] = {0, 0, 0, 0};
        std::size_t read_count = 0;
        std::uint64_t write = 0;
        bool all_ub = true;
        for (std::uint8_t i = 0; i < tx.access_count; ++i) {
            const MemAccess& a = tx.accesses[i];
            bytes = std::max(bytes, a.total_bytes());  // every row of a strided operand
            all_ub = all_ub && a.space == MemSpace::UB;
            if (a.write) {
                write = a.address;
            } else {
                reads[read_count++] = a.address;
            }
        }
        const BankConflicts conflicts =
            all_ub ? ub_bank_conflicts(reads, read_count, write) : BankConflicts{};
        const InstructionCost c = cost.vector_op(bytes, conflicts);
        pipe_free = start + c.occupancy;
        latency = c.latency;
    }
    tx.start = start;
    tx.pipe_free = pipe_free;
    tx.end = pipe_free + latency;
    m_timeline.occupy(start, pipe_free, tx.end);
    m_timeline.mark_started(instruction.queue_index, start);
}

void PipeUnit::finish_zero_length(PipeInstruction& instruction, Cycle at) {
    Transaction& tx = instruction.tx;
    tx.start = tx.end = tx.pipe_free = at;
    m_timeline.occupy(at, at, at);
    m_timeline.mark_started(instruction.queue_index, at);
}

}  // namespace npusim
