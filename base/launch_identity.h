// Who a kernel launch is: its kernel, id, stream, launch call site, kernel type and size.
// Written once and embedded wherever a launch is described — the launch the scheduler places
// (core/kernel_launch.h), what observers hear (KernelInfo, base/transaction.h), a stream
// operation (HostOpInfo, base/host_ops.h), the scheduler's state for the deadlock analysis
// (sync/deadlock/wait_state.h), a run's result (KernelResult, sim/engine/run_result.h) and
// the deadlock predictor's record — so a new field is added in one place and copied whole.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/kernel_type.h"

namespace npusim {

/// How reports name a stream: by the name the program gave it ("stream s1"), else "the
/// default stream" or "stream 3".
inline std::string stream_label(std::uint32_t stream, std::string_view name) {
    if (!name.empty()) return "stream " + std::string(name);
    return stream == 0 ? std::string("the default stream") : "stream " + std::to_string(stream);
}

/// How reports name an event: by the name the program gave it ("event e1"), else "event 3".
inline std::string event_label(std::uint32_t event, std::string_view name) {
    return "event " + (name.empty() ? std::to_string(event) : std::string(name));
}

/// Whether a launch (or host call) site is a scenario's: the scenario runner names each op
/// "file.json#/host/N" (a JSON pointer after '#'); C++ and Ascend C sites are "file.cpp:40".
inline bool is_scenario_site(std::string_view site) {
    return site.find("#/") != std::string_view::npos;
}

/// The fixes' words for "start each kernel whole" and "order them", in the launcher's terms:
/// the scenario's keys for launches a scenario made, the API otherwise.
inline std::string batch_mode_remedy(std::string_view launch_site) {
    return is_scenario_site(launch_site)
               ? "\"schedule_mode\": \"batch\" on their launch ops"
               : "LaunchSpec::schedule_mode = ScheduleMode::Batch; in Ascend C SetScheduleMode(1)";
}
inline std::string ordering_remedy(std::string_view launch_site) {
    return is_scenario_site(launch_site)
               ? "one \"stream\" for both, or a \"record_event\" op after the first and a "
                 "\"stream_wait_event\" op before the second"
               : "one stream, or record_event + stream_wait_event";
}

struct LaunchIdentity {
    std::uint32_t id = 0;       // the device scheduler's kernel id (0: not yet submitted)
    std::string name;           // the kernel's name
    std::uint32_t stream = 0;   // the stream it was launched on (0: the default stream)
    std::string stream_name;    // the name the program gave that stream ("": none)
    std::uint64_t host_op = 0;  // the runtime's op id (0: Simulator::launch)
    std::string launch_site;    // the launch call site ("" for Simulator::launch)
    KernelType type = KernelType::AIV_ONLY;
    ScheduleMode schedule_mode = ScheduleMode::Normal;
    std::uint32_t blocks = 0;  // N (groups, for mixed kernels)

    const LaunchIdentity& identity() const { return *this; }
    LaunchIdentity& identity() { return *this; }
};

}  // namespace npusim
