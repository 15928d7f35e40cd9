// What a kernel launch asks for: name, blocks, kernel type, schedule mode and timing what-ifs.
// Simulator::launch and Runtime::launch take it; the engine turns it into the KernelLaunch the
// scheduler places (Chip::make_launch, sim/engine/chip.h). Plain data; no SystemC.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/kernel_type.h"
#include "base/types.h"

namespace npusim {

struct LaunchSpec {
    std::string name = "kernel";
    std::uint32_t blocks = 1;  // N: for mixed kernels the number of groups
    KernelType type = KernelType::AIV_ONLY;
    /// Timing what-ifs: block (group) g starts start_offsets[g] cycles late (missing entries
    /// are 0), plus a deterministic pseudo-random 0..start_jitter_cycles drawn from
    /// jitter_seed. Shows races that only some timings expose.
    std::vector<Cycle> start_offsets;
    Cycle start_jitter_cycles = 0;
    /// Batch: every block starts at once or the kernel waits (SetScheduleMode(1)).
    ScheduleMode schedule_mode = ScheduleMode::Normal;
    std::uint64_t jitter_seed = 1;
};

}  // namespace npusim
