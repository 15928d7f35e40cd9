// The "runtime" section of a scenario file (both forms): the host runtime's options, how
// blocks are placed on cores, and how many launches keep a full report row (docs/runtime.md,
// docs/scenarios.md).
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "base/kernel_type.h"
#include "sim/engine/run_result.h"
#include "sim/host/runtime.h"

namespace npusim {

class Diagnostics;  // base/config_diagnostics.h

/// Placement settings from "runtime" (used by both scenario forms).
struct RuntimeSection {
    RuntimeOptions options;
    PlacementPolicy placement = PlacementPolicy::LaunchOrder;
    std::uint64_t seed = 1;
    std::uint64_t launch_rows = kDefaultLaunchRows;  // SimOptions::launch_rows
};

/// Reads "runtime" at `value`; every problem goes to `diag` with its pointer under /runtime.
RuntimeSection read_runtime_section(const nlohmann::json& value, Diagnostics& diag);

}  // namespace npusim
