// The "kernels" section of a scenario file: named kernels next to the built-in ones, of two
// kinds (docs/json-kernels.md):
//
//   "kernels": {
//     "scale": {"library": "build/libnpusim_example_kernels.so", "kernel": "example_scale"},
//     "double_it": {"type": "AIV_ONLY", "args": {...}, "params": {...}, "body": [...]}
//   }
//
// A library kernel comes from a shared library built with NPUSIM_REGISTER_KERNEL
// (sim/kernels/kernel_registry.h), loaded with dlopen; a JSON kernel is read by
// sim/kernels/json_kernel.h.
//
// Libraries stay loaded for the life of the process (never dlclose'd): findings and traces
// keep source locations that point into them. A library is loaded once per path. The program
// that loads libraries must export npusim's symbols (CMake ENABLE_EXPORTS, -rdynamic), as the
// npusim CLI and the test binary do.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/scenario/scenario_host.h"

namespace npusim {

class Diagnostics;  // base/config_diagnostics.h

/// Reads the "kernels" object of the scenario file `origin` (paths relative to `base_dir`).
/// Every problem is reported at its pointer: a library that does not load (missing file,
/// unresolved symbols), a file that is no npusim kernel library (no version symbol), a library
/// built against another npusim version, a kernel the library does not register, a name that
/// hides a built-in kernel, and every problem of a JSON kernel.
ScenarioKernels read_scenario_kernels(const nlohmann::json& kernels, const std::string& origin,
                                      const std::filesystem::path& base_dir, Diagnostics& diag);

}  // namespace npusim
