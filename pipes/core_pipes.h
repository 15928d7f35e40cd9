// The pipes of one AI core and the event flags between them: decides when each issued
// instruction starts. No SystemC: the scalar unit (core/ai_core.h) issues into it at its own
// simulated time and learns through PipeClient when instructions are timed.
//
// Rules (docs/cost-model.md):
//   - each pipe starts its instructions in issue order; an instruction behind an unresolved
//     WaitFlag stalls its whole pipe (later instructions queue behind it);
//   - SetFlag fires once everything issued earlier to its pipe has completed; a WaitFlag
//     consumes the oldest unconsumed SetFlag of its (src, dst, id) and releases its pipe;
//   - PipeBarrier<p>: later instructions of p wait for its earlier ones to complete;
//   - CrossCoreSetFlag issued to a pipe fires when that pipe has drained.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <vector>

#include "base/chip_config.h"
#include "base/pipe_table.h"
#include "memory/gm_bandwidth.h"
#include "pipes/cost_model.h"
#include "pipes/flag_table.h"
#include "pipes/pipe_unit.h"

namespace npusim {

/// What the pipes need from their core. Contract: called synchronously from enqueue() or
/// set_flag(), in the order instructions become timed.
class PipeClient {
public:
    /// A data instruction is timed (tx.start/end final): publish it and schedule its effects.
    virtual void on_data_started(PipeInstruction& instruction) = 0;
    /// A zero-length instruction (flag, barrier) completed: publish it; it is no longer used.
    virtual void on_zero_length_done(PipeInstruction& instruction) = 0;
    /// A CrossCoreSetFlag issued to a pipe fired at `at`.
    virtual void on_cross_core_set(const Transaction& tx, Cycle at) = 0;

protected:
    ~PipeClient() = default;
};

class CorePipes final {
public:
    CorePipes(const ChipConfig& chip, const CostModel& cost, GmBandwidth& bandwidth,
              PipeClient& client);

    PipeUnit& unit(Pipe pipe) { return m_units[static_cast<std::size_t>(pipe_index(pipe))]; }
    const PipeUnit& unit(Pipe pipe) const {
        return m_units[static_cast<std::size_t>(pipe_index(pipe))];
    }

    /// When the scalar unit may put the next instruction into `pipe`'s queue;
    /// PipeTimeline::kNotStarted when the queue is full behind a stalled WaitFlag.
    Cycle queue_slot_free_at(Pipe pipe) const { return unit(pipe).timeline().queue_slot_free_at(); }
    /// The oldest instruction stalled in `pipe`, or null.
    const PipeInstruction* stalled_head(Pipe pipe) const {
        const auto& stalled = unit(pipe).stalled();
        return stalled.empty() ? nullptr : stalled.front();
    }

    /// Issues an instruction to tx.pipe at tx.issue. Contract: the queue slot is free at
    /// tx.issue (queue_slot_free_at), the instruction was decoded, and the client keeps it
    /// alive until it is reported timed or done.
    void enqueue(PipeInstruction* instruction);
    /// A SetFlag fired on the scalar unit at `at` (SetFlag<S_x>): releases x if it waits.
    void scalar_set_flag(Pipe dst, std::uint32_t event_id, const FlagSet& set);
    /// WaitFlag<x_S>: takes the oldest SetFlag, if one has fired.
    std::optional<FlagSet> scalar_consume_flag(Pipe src, std::uint32_t event_id) {
        return m_flags.consume(src, Pipe::S, event_id);
    }
    /// When every instruction issued to `pipe` so far has completed.
    Cycle drained_at(Pipe pipe) const { return unit(pipe).timeline().drained_at(); }

    /// After an aborted run: drops stalled instructions (reported to `dropped`), timing state
    /// and flags.
    template <class Sink>
    void reset(Sink&& dropped) {
        for (PipeUnit& unit : m_units) unit.reset(dropped);
        m_flags.clear();
    }
    void reset_statistics() {
        for (PipeUnit& unit : m_units) unit.timeline().reset_statistics();
        m_l2_stats = {};
    }
    /// Routes this core's GM copies through the chip's L2 (none by default).
    void attach_l2(const L2Path& l2) { m_l2 = l2; }
    const L2Statistics& l2_statistics() const { return m_l2_stats; }

private:
    bool try_start(PipeInstruction* instruction);
    void complete_zero_length(PipeInstruction* instruction, Cycle at);
    /// Starts the stalled instructions of `pipe` that can start now, in order.
    void resolve(Pipe pipe);

    const CostModel& m_cost;
    GmBandwidth& m_bandwidth;
    PipeClient& m_client;
    FlagTable m_flags;
    std::vector<PipeUnit> m_units;  // by pipe_index
    L2Path m_l2;
    L2Statistics m_l2_stats;
};

}  // namespace npusim
