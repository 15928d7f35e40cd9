// One Simulator::run_host call's host side: it creates the Runtime the program sees, on the
// engine's chip, starts the program's simulated host thread, and answers the engine's
// questions at the end of the run (HostSide, sim/engine/host_side.h). Not a public header.
#pragma once

#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "sim/engine/host_side.h"
#include "sim/engine/run_result.h"
#include "sim/host/runtime.h"

namespace npusim {

class HostSession final : public HostSide {
public:
    /// Contract: the chip has no run in progress; the session lives until finish_run returned.
    HostSession(Chip& chip, const RuntimeOptions& options);
    ~HostSession();

    /// Spawns the host thread that runs `program` once the chip simulates.
    void start(HostProgram program);
    /// What the program threw (null if it returned or was unwound by a stopped run).
    std::exception_ptr host_error() const;
    /// The runtime's lifecycle diagnostics (RunResult::warnings).
    const std::vector<HostWarning>& warnings() const;

    bool pending() const override;
    std::string host_wait() const override;
    RuntimeWaitState wait_state() const override;

private:
    std::unique_ptr<Runtime> m_runtime;
};

}  // namespace npusim
