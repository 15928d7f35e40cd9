// What all cores of one simulated chip share: configuration, cost model, GM and its
// bandwidth, the time-ordered data effects, the observers, and run control (abort).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <systemc>

#include "base/chip_config.h"
#include "base/transaction.h"
#include "memory/effect_queue.h"
#include "memory/global_memory.h"
#include "memory/gm_bandwidth.h"
#include "memory/l2_cache.h"
#include "pipes/cost_model.h"

namespace npusim {

struct ChipResources {
    ChipResources(const ChipConfig& chip_config, Cycle sync_quantum, Cycle idle_limit_cycles)
        : config(chip_config),
          cost(config),
          gm(config.gm_bytes),
          bandwidth(config.gm_bytes_per_cycle, config.gm_window_cycles),
          l2(config.l2_bytes, config.l2_line_bytes, config.l2_ways),
          l2_bandwidth(config.l2_bytes_per_cycle, config.gm_window_cycles),
          quantum(sync_quantum),
          idle_limit(idle_limit_cycles) {
        if (config.gm_fair_share != 0) {
            bandwidth.share_among(&busy_cores);
            l2_bandwidth.share_among(&busy_cores);
        }
    }

    const ChipConfig& config;
    CostModel cost;
    GlobalMemory gm;
    GmBandwidth bandwidth;  // HBM (all GM traffic when there is no L2)
    L2Cache l2;
    GmBandwidth l2_bandwidth;
    EffectQueue effects;
    std::vector<TransactionObserver*> observers;
    Cycle quantum;           // how far a scalar unit may run ahead of SystemC time
    bool model_data = true;  // SimOptions::model_data: false times instructions, moves no bytes

    // Deadlock detection for blocks that spin (soft SyncAll polls GM forever when a block
    // never arrives, so SystemC never runs out of events). Progress = any instruction that is
    // not part of a library sync primitive. When every busy core is blocked or spinning
    // without progress, or a spinner saw none for idle_limit cycles, the chip is stuck.
    std::uint64_t progress_epoch = 0;
    std::uint32_t busy_cores = 0;
    std::uint32_t blocked_cores = 0;
    std::uint32_t quiet_spinners = 0;
    // When the last block that finished ended (its effects are in memory from then on): a
    // spinner catches up to it before it judges the chip stuck (a flag in GM it waits for may
    // have been set by a block that finished ahead of the spinner's own time).
    Cycle last_block_end = 0;
    bool deadlock = false;
    Cycle idle_limit;
    bool idle_limit_hit = false;  // a spinner saw no progress for idle_limit (the watchdog)

    // Run control: the first kernel error stops every block; blocked waits listen to
    // abort_event so that they unwind instead of hanging.
    bool abort = false;
    bool shutdown = false;
    std::optional<std::string> first_error;
    bool first_error_internal = false;
    sc_core::sc_event abort_event{"npusim_abort"};

    // Run control from outside the simulation (stop requests, progress; sim/simulator.cpp):
    // every kPollEvery synchronizations of any core, that core calls on_poll. A countdown,
    // not the host clock, so a synchronization pays one decrement.
    static constexpr std::uint32_t kPollEvery = 64;
    std::uint32_t poll_countdown = kPollEvery;
    std::function<void()> on_poll;
    bool interrupted = false;  // the run was stopped on request (not an error)

    /// A core's safe point (it holds no half-issued instruction). True when the run has just
    /// been stopped here: the caller unwinds its block like after an abort.
    bool poll() {
        if (--poll_countdown != 0) return false;
        poll_countdown = kPollEvery;
        if (!on_poll || abort) return false;
        on_poll();
        return abort;
    }
    /// Ends the run without an error: every block unwinds as on an abort.
    void interrupt() {
        if (abort) return;
        interrupted = true;
        abort = true;
        abort_event.notify(sc_core::SC_ZERO_TIME);
    }

    /// `progress` false: an instruction that changes nothing another block waits for (a
    /// memory fence, a poll of GM that saw nothing new).
    void publish(const Transaction& tx, bool progress = true) {
        if (progress && !tx.internal) ++progress_epoch;
        for (TransactionObserver* observer : observers) observer->on_transaction(tx);
    }
    /// internal: the error is a broken invariant of npusim (InternalError), not the kernel's.
    void fail(std::string message, bool internal = false) {
        if (!first_error) {
            first_error = std::move(message);
            first_error_internal = internal;
        }
        abort = true;
        abort_event.notify(sc_core::SC_ZERO_TIME);
    }
};

}  // namespace npusim
