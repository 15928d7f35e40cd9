// The run-and-verify half of the built-in kernels (sim/kernels/builtin_kernels.h,
// KernelDefinition::run): each sets up its inputs in GM, runs the kernel body
// (sim/kernels/builtin_kernel_bodies.h) for a LaunchSpec and parameters the scenario loader checked
// and completed, and compares the output with what the kernel must compute. Used only by
// sim/kernels/builtin_kernels.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "sim/kernels/builtin_kernel_bodies.h"
#include "sim/kernels/kernel_definition.h"

namespace npusim::builtin_kernel_runs {

using Params = std::map<std::string, std::uint64_t>;

KernelOutcome run_vector_add(Simulator& sim, const LaunchSpec& launch, const Params& params);
KernelOutcome run_syncall_reduction(Simulator& sim, const LaunchSpec& launch, const Params& params);
KernelOutcome run_mix_matmul(Simulator& sim, const LaunchSpec& launch, const Params& params);
KernelOutcome run_vector_chain(Simulator& sim, const LaunchSpec& launch, const Params& params);
KernelOutcome run_busy(Simulator& sim, const LaunchSpec& launch, const Params& params);
KernelOutcome run_syncall(Simulator& sim, const LaunchSpec& launch, const Params& params);

}  // namespace npusim::builtin_kernel_runs
