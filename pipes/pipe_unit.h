// One in-order pipe of one AI core (MTE2, MTE3, V, M, MTE1, FIX): its timeline, the queue of
// instructions stalled behind an unresolved WaitFlag, and the timing of the data
// instructions it executes. No SystemC: instructions are timed when they can start, which is
// decided by CorePipes (pipes/core_pipes.h) from the flags between pipes.
//
// Timing (docs/cost-model.md): a copy occupies its pipe for bytes / rate cycles (GM copies
// share the chip's GM bandwidth), a vector op for one cycle per repeat, a cube op for one
// cycle per 16x16x16 fractal; each then has a latency that overlaps the next instruction.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "base/transaction.h"
#include "memory/gm_bandwidth.h"
#include "memory/l2_cache.h"
#include "pipes/cost_model.h"
#include "pipes/pipe_timeline.h"

namespace npusim {

/// An instruction on its way through a pipe: the record observers will see, plus what the
/// pipe needs to time it.
/// The L2 between the cores and HBM, when the chip has one: its lines and its chip-wide
/// bandwidth, and one core's L2 rates (docs/cost-model.md, "L2 cache").
struct L2Path {
    L2Cache* cache = nullptr;
    GmBandwidth* bandwidth = nullptr;
    std::uint64_t read_bytes_per_cycle = 1;
    std::uint64_t write_bytes_per_cycle = 1;
};

/// GM reads of one core: bytes read, and the part L2 served; the same per kernel
/// (`by_kernel[kernel_id]`).
struct L2Counts {
    std::uint64_t read_bytes = 0;
    std::uint64_t hit_bytes = 0;
};
struct L2Statistics : L2Counts {
    std::vector<L2Counts> by_kernel;

    void add(std::uint32_t kernel_id, std::uint64_t read, std::uint64_t hit) {
        read_bytes += read;
        hit_bytes += hit;
        if (kernel_id >= by_kernel.size()) by_kernel.resize(kernel_id + 1);
        by_kernel[kernel_id].read_bytes += read;
        by_kernel[kernel_id].hit_bytes += hit;
    }
};

struct PipeInstruction {
    Transaction tx;
    std::uint64_t queue_index = 0;  // PipeTimeline::enqueue
    CopyPath path;                  // DataCopy only
    int write_access = -1;          // index into tx.accesses written at commit, -1 for none
};

class PipeUnit final {
public:
    PipeUnit(Pipe pipe, std::uint64_t queue_depth) : m_pipe(pipe), m_timeline(queue_depth) {}

    Pipe pipe() const { return m_pipe; }
    PipeTimeline& timeline() { return m_timeline; }
    const PipeTimeline& timeline() const { return m_timeline; }

    /// Instructions issued behind an unresolved WaitFlag, oldest first.
    std::deque<PipeInstruction*>& stalled() { return m_stalled; }
    const std::deque<PipeInstruction*>& stalled() const { return m_stalled; }

    /// Times a data instruction (copy, vector or cube op) that may start at `start`: sets
    /// tx.start, tx.pipe_free and tx.end and books the pipe. Contract: instructions arrive in
    /// issue order; GM copies reserve GM bandwidth from `bandwidth`.
    void start_data(PipeInstruction& instruction, Cycle start, const CostModel& cost,
                    GmBandwidth& bandwidth, const L2Path& l2, L2Statistics& stats);
    /// Books a zero-length instruction (flag, barrier) completing at `at`.
    void finish_zero_length(PipeInstruction& instruction, Cycle at);

    /// Drops every stalled instruction and all timing state (after an aborted run); the
    /// dropped instructions are appended to `dropped`.
    template <class Sink>
    void reset(Sink&& dropped) {
        for (PipeInstruction* instruction : m_stalled) dropped(instruction);
        m_stalled.clear();
        m_timeline = PipeTimeline(m_timeline.queue_depth());
    }

private:
    Pipe m_pipe;
    PipeTimeline m_timeline;
    std::deque<PipeInstruction*> m_stalled;
};

}  // namespace npusim
