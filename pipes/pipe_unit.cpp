#include "pipes/pipe_unit.h"

#include <algorithm>

#include "base/invariant.h"

namespace npusim {

void PipeUnit::start_data(PipeInstruction& instruction, Cycle start, const CostModel& cost,
                          GmBandwidth& bandwidth) {
    Transaction& tx = instruction.tx;
    NPUSIM_INVARIANT(start >= tx.issue && start >= m_timeline.free_at(), "PipeUnit", start,
                     "an instruction started before it was issued or before its pipe was free");
    Cycle pipe_free = start;
    Cycle latency = 0;
    if (tx.op == Op::Copy) {
        const std::uint64_t bytes = tx.accesses[0].bytes;
        const CopyPath& path = instruction.path;
        if (path.uses_gm) {
            pipe_free = bandwidth.transfer(start, bytes, path.bytes_per_cycle);
        } else {
            pipe_free = start + cost.local_copy(path, bytes).occupancy;
        }
        latency = path.latency;
    } else if (tx.op == Op::Mmad) {
        const InstructionCost c = cost.cube_op(tx.m, tx.n, tx.k);
        pipe_free = start + c.occupancy;
        latency = c.latency;
    } else {
        std::uint64_t bytes = 0;
        for (std::uint8_t i = 0; i < tx.access_count; ++i) {
            bytes = std::max(bytes, tx.accesses[i].bytes);
        }
        const InstructionCost c = cost.vector_op(bytes);
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
