#include "pipes/core_pipes.h"

#include <algorithm>

#include "base/invariant.h"

namespace npusim {

CorePipes::CorePipes(const ChipConfig& chip, const CostModel& cost, GmBandwidth& bandwidth,
                     PipeClient& client)
    : m_cost(cost),
      m_bandwidth(bandwidth),
      m_client(client),
      m_flags(static_cast<std::uint32_t>(chip.event_ids)) {
    m_units.reserve(kPipeCount);
    for (const PipeInfo& info : kPipeTable) m_units.emplace_back(info.pipe, chip.queue_depth);
}

void CorePipes::enqueue(PipeInstruction* instruction) {
    PipeUnit& pipe = unit(instruction->tx.pipe);
    const Cycle slot = pipe.timeline().queue_slot_free_at();
    NPUSIM_INVARIANT(slot != PipeTimeline::kNotStarted && slot <= instruction->tx.issue,
                     "CorePipes", instruction->tx.issue,
                     "an instruction entered a pipe queue that had no free slot");
    instruction->queue_index = pipe.timeline().enqueue();
    if (!pipe.stalled().empty() || !try_start(instruction)) pipe.stalled().push_back(instruction);
}

void CorePipes::scalar_set_flag(Pipe dst, std::uint32_t event_id, const FlagSet& set) {
    m_flags.set(Pipe::S, dst, event_id, set);
    resolve(dst);
}

bool CorePipes::try_start(PipeInstruction* instruction) {
    Transaction& tx = instruction->tx;
    PipeUnit& pipe = unit(tx.pipe);
    PipeTimeline& timeline = pipe.timeline();
    Cycle start = std::max(tx.issue, timeline.free_at());
    switch (tx.op) {
        case Op::WaitFlag: {
            const auto set = m_flags.consume(tx.flag_src, tx.flag_dst, tx.event_id);
            if (!set) return false;
            tx.partner_serial = set->serial;
            complete_zero_length(instruction, std::max(start, set->time));
            return true;
        }
        case Op::SetFlag: {
            // Fires once everything issued earlier to this pipe has completed.
            start = std::max(start, timeline.drained_at());
            const Pipe src = tx.flag_src, dst = tx.flag_dst;
            const std::uint32_t id = tx.event_id;
            const FlagSet set{start, tx.serial, tx.block};
            complete_zero_length(instruction, start);  // the record is gone after this
            m_flags.set(src, dst, id, set);
            resolve(dst);
            return true;
        }
        case Op::CrossCoreSetFlag: {
            start = std::max(start, timeline.drained_at());
            const Transaction copy = tx;
            complete_zero_length(instruction, start);
            m_client.on_cross_core_set(copy, start);
            return true;
        }
        case Op::PipeBarrier:
            timeline.barrier();
            complete_zero_length(instruction, std::max(tx.issue, timeline.free_at()));
            return true;
        default:
            break;
    }
    pipe.start_data(*instruction, start, m_cost, m_bandwidth, m_l2, m_l2_stats);
    m_client.on_data_started(*instruction);
    return true;
}

void CorePipes::complete_zero_length(PipeInstruction* instruction, Cycle at) {
    unit(instruction->tx.pipe).finish_zero_length(*instruction, at);
    m_client.on_zero_length_done(*instruction);
}

void CorePipes::resolve(Pipe pipe) {
    if (pipe == Pipe::S) return;  // the scalar unit consumes its flags when it reaches them
    auto& queue = unit(pipe).stalled();
    while (!queue.empty()) {
        PipeInstruction* instruction = queue.front();
        queue.pop_front();  // popped first: starting it may resolve other pipes re-entrantly
        if (!try_start(instruction)) {
            queue.push_front(instruction);
            return;
        }
    }
}

}  // namespace npusim
