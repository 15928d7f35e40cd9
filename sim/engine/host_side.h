// What the engine asks of the host side when a run ends (Chip::finish_run): is the host
// program still busy, what does its thread wait for, and who waits for what among its
// streams. The host runtime (sim/host/host_session.h) implements it, so the engine works
// without including the layer above it (the way core/sync_port.h keeps the cores below the
// synchronization they call).
#pragma once

#include <string>

#include "sync/deadlock/wait_state.h"

namespace npusim {

/// Contract: asked only after the simulation stopped (no SystemC process is running), once
/// per run, before the host side is torn down.
class HostSide {
public:
    /// The host program has not returned, or work it queued has not completed.
    virtual bool pending() const = 0;
    /// What the host thread waits for, in words with its call site ("" once it returned).
    virtual std::string host_wait() const = 0;
    /// The streams' heads and the host thread's wait, for the deadlock analysis.
    virtual RuntimeWaitState wait_state() const = 0;

protected:
    ~HostSide() = default;
};

}  // namespace npusim
