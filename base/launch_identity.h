// Who a kernel launch is: its kernel, id, stream, launch call site, kernel type and size.
// Written once and embedded wherever a launch is described — the launch the scheduler places
// (core/kernel_launch.h), what observers hear (KernelInfo, base/transaction.h), a stream
// operation (HostOpInfo, base/host_ops.h), the scheduler's state for the deadlock analysis
// (sync/deadlock/wait_state.h), a run's result (KernelResult, sim/engine/run_result.h) and
// the deadlock predictor's record — so a new field is added in one place and copied whole.
#pragma once

#include <cstdint>
#include <string>

#include "base/kernel_type.h"

namespace npusim {

struct LaunchIdentity {
    std::uint32_t id = 0;       // the device scheduler's kernel id (0: not yet submitted)
    std::string name;           // the kernel's name
    std::uint32_t stream = 0;   // the stream it was launched on (0: the default stream)
    std::uint64_t host_op = 0;  // the runtime's op id (0: Simulator::launch)
    std::string launch_site;    // the launch call site ("" for Simulator::launch)
    KernelType type = KernelType::AIV_ONLY;
    ScheduleMode schedule_mode = ScheduleMode::Normal;
    std::uint32_t blocks = 0;  // N (groups, for mixed kernels)

    const LaunchIdentity& identity() const { return *this; }
    LaunchIdentity& identity() { return *this; }
};

}  // namespace npusim
