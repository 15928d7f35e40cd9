// AiCore (core/ai_core.h), how a block waits: until a condition holds, forever when it is
// stuck (reported as a deadlock with its reason), and until its pipes have drained. Its own
// source file only to keep ai_core.cpp readable; the class is one component.
#include <algorithm>

#include "core/ai_core.h"
#include "pipes/op_table.h"

namespace npusim {

StuckWait AiCore::flag_wait(const Transaction& wait_flag) {
    StuckWait wait;
    wait.kind = StuckWaitKind::Flag;
    wait.flag_id = wait_flag.event_id;
    wait.flag_src = wait_flag.flag_src;
    wait.flag_dst = wait_flag.flag_dst;
    wait.flag_where = format_location(wait_flag.where);
    return wait;
}

void AiCore::block_stuck(const Loc& loc, std::string reason, StuckWait stuck_wait) {
    m_stuck = StuckInfo{m_current.kernel->id,
                        m_current.kernel->name,
                        m_current.block_idx,
                        format_location(loc),
                        [text = std::move(reason)] { return text; },
                        [w = std::move(stuck_wait)] { return w; }};
    ++m_chip.blocked_cores;
    for (;;) {
        wait(m_chip.abort_event);
        if (m_chip.abort) {
            --m_chip.blocked_cores;
            abort_block();
        }
    }
}

void AiCore::block_until(const std::function<bool()>& ready, const Loc& loc,
                         std::function<std::string()> reason,
                         std::function<StuckWait()> stuck_wait) {
    if (ready()) return;
    m_stuck = StuckInfo{m_current.kernel->id, m_current.kernel->name, m_current.block_idx,
                        format_location(loc), std::move(reason),      std::move(stuck_wait)};
    ++m_chip.blocked_cores;
    do {
        wait(m_current.runtime->sync_event | m_chip.abort_event);
        if (m_chip.abort) {
            --m_chip.blocked_cores;
            abort_block();
        }
    } while (!ready());
    --m_chip.blocked_cores;
    m_stuck.reset();
    m_local_time = std::max(m_local_time, now_cycles());
}

void AiCore::drain_pipes(const Loc& loc, const char* what) {
    Cycle done = std::max(m_local_time, m_scalar_drained);
    for (Pipe pipe : pipes_of(m_type)) {
        if (pipe == Pipe::S) continue;
        if (const PipeInstruction* head = m_pipes.stalled_head(pipe)) {
            const Transaction wait = head->tx;
            block_stuck(loc,
                        std::string(what) + " waits for " + std::string(to_string(pipe)) +
                            ", which waits at " + flag_instruction_name(wait) + " (serial " +
                            std::to_string(wait.serial) + ", " + format_location(wait.where) +
                            ") for a SetFlag that is never issued",
                        flag_wait(wait));
        }
        done = std::max(done, m_pipes.drained_at(pipe));
    }
    m_local_time = done;
}

}  // namespace npusim
