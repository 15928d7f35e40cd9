// Timing state of one in-order pipe of one core.
//
// Instructions start in issue order; an instruction may start once the previous one has
// finished occupying the pipe (its latency overlaps the next instruction: that overlap is
// what makes same-pipe hazards real without a PipeBarrier). The queue in front of the pipe
// holds `queue_depth` instructions that have not started; the scalar unit stalls when it
// is full.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "base/types.h"

namespace npusim {

class PipeTimeline final {
public:
    static constexpr Cycle kNotStarted = std::numeric_limits<Cycle>::max();

    explicit PipeTimeline(std::uint64_t queue_depth) : m_started(queue_depth, 0) {}

    std::uint64_t queue_depth() const { return m_started.size(); }

    /// When the next instruction may enter the queue: the instruction queue_depth places
    /// earlier must have started. kNotStarted: that one is stalled (unknown yet).
    Cycle queue_slot_free_at() const {
        if (m_issued < m_started.size()) return 0;
        return m_started[m_issued % m_started.size()];
    }
    /// Registers an issued instruction; returns its queue index (for mark_started).
    std::uint64_t enqueue() {
        const std::uint64_t index = m_issued++;
        m_started[index % m_started.size()] = kNotStarted;
        return index;
    }
    void mark_started(std::uint64_t index, Cycle start) {
        if (index + m_started.size() >= m_issued) m_started[index % m_started.size()] = start;
    }

    Cycle free_at() const { return m_free_at; }        // earliest start of the next one
    Cycle drained_at() const { return m_drained_at; }  // all issued work complete

    /// Books an instruction that runs [start, end) and frees the pipe at `pipe_free`.
    void occupy(Cycle start, Cycle pipe_free, Cycle end) {
        m_free_at = pipe_free;
        if (end > m_drained_at) m_drained_at = end;
        const Cycle from = start > m_covered_until ? start : m_covered_until;
        if (end > from) m_busy += end - from;
        if (end > m_covered_until) m_covered_until = end;
        ++m_instructions;
    }
    /// PipeBarrier: nothing later starts before everything earlier completed.
    void barrier() {
        if (m_drained_at > m_free_at) m_free_at = m_drained_at;
    }
    /// Zero-length instructions (flags, barriers) still count as instructions.
    void count_instruction() { ++m_instructions; }

    Cycle busy_cycles() const { return m_busy; }
    std::uint64_t instructions() const { return m_instructions; }
    void reset_statistics() {
        m_busy = 0;
        m_instructions = 0;
    }

private:
    std::vector<Cycle> m_started;  // ring: start cycle of the last queue_depth instructions
    std::uint64_t m_issued = 0;
    Cycle m_free_at = 0;
    Cycle m_drained_at = 0;
    Cycle m_covered_until = 0;
    Cycle m_busy = 0;
    std::uint64_t m_instructions = 0;
};

}  // namespace npusim
