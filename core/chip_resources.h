// What all cores of one simulated chip share: configuration, cost model, GM and its
// bandwidth, the time-ordered data effects, the observers, and run control (abort).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <systemc>

#include "core/transaction.h"
#include "memory/effect_queue.h"
#include "memory/gm_bandwidth.h"
#include "memory/global_memory.h"
#include "pipes/cost_model.h"
#include "sim/chip_config.h"

namespace npusim {

struct ChipResources {
    explicit ChipResources(const ChipConfig& chip_config, Cycle sync_quantum)
        : config(chip_config),
          cost(config),
          gm(config.gm_bytes),
          bandwidth(config.gm_bytes_per_cycle, config.gm_window_cycles),
          quantum(sync_quantum) {}

    const ChipConfig& config;
    CostModel cost;
    GlobalMemory gm;
    GmBandwidth bandwidth;
    EffectQueue effects;
    std::vector<TransactionObserver*> observers;
    Cycle quantum;  // how far a scalar unit may run ahead of SystemC time

    // Run control: the first kernel error stops every block; blocked waits listen to
    // abort_event so that they unwind instead of hanging.
    bool abort = false;
    bool shutdown = false;
    std::optional<std::string> first_error;
    sc_core::sc_event abort_event{"npusim_abort"};

    void publish(const Transaction& tx) const {
        for (TransactionObserver* observer : observers) observer->on_transaction(tx);
    }
    void fail(std::string message) {
        if (!first_error) first_error = std::move(message);
        abort = true;
        abort_event.notify(sc_core::SC_ZERO_TIME);
    }
};

}  // namespace npusim
