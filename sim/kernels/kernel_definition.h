// A kernel definition: what a scenario, the CLI and the host-program runner know of any kernel
// by name — its parameters and their checks, what it needs of the chip, its GM arguments, how
// to make an instance for bound buffers, and (for built-in kernels) how to run and verify it
// alone. Built-in kernels (sim/kernels/builtin_kernels.h), JSON kernels
// (sim/kernels/json_kernel.h) and kernels from user libraries (sim/kernels/kernel_registry.h)
// are all KernelDefinitions.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/kernel_type.h"
#include "base/tensor.h"
#include "sim/engine/run_result.h"
#include "sim/kernels/resource_estimate.h"
#include "sim/simulator.h"

namespace npusim {

/// What running a kernel definition (KernelDefinition::run) produced, including whether its output
/// was right.
struct KernelOutcome {
    RunResult run;
    bool verified = false;
    std::string verification;  // "z matches x + y (1048576 elements)" or what went wrong
};

struct KernelParameter {
    std::string name;
    std::uint64_t default_value = 0;
    std::uint64_t min = 0;
    std::uint64_t max = 0;
    std::string description;
};

using KernelParams = std::map<std::string, std::uint64_t>;

/// A GM argument of a built-in kernel, for launches from a scenario's host program, which
/// binds it to a device buffer by name ("args": {"x": "x_buffer"}).
struct KernelArgument {
    std::string name;
    DType dtype = DType::F32;
    std::string description;
    /// Bytes the kernel reads or writes for these blocks and parameters (called only when
    /// the kernel's `check` found no problem): the bound buffer must hold at least this
    /// many. 0: the kernel does not use the argument with these parameters, and it may be
    /// left unbound.
    std::function<std::uint64_t(std::uint32_t blocks, const KernelParams& params)> bytes;
};

/// A device buffer bound to a kernel argument: its GM address and size in bytes.
struct BoundBuffer {
    std::uint64_t address = 0;
    std::uint64_t bytes = 0;
};
using KernelBindings = std::map<std::string, BoundBuffer>;

/// What a host program launches: the kernel's name and type for the LaunchSpec, and its body.
struct KernelInstance {
    std::string name;
    KernelType type = KernelType::AIV_ONLY;
    KernelBody body;
};

struct KernelDefinition {
    std::string name;
    std::string description;
    std::vector<KernelParameter> parameters;
    /// Problems with a parameter combination, as (JSON pointer under the scenario, message);
    /// the scenario loader reports them with the file name. Empty when fine.
    std::function<std::vector<std::pair<std::string, std::string>>(
        std::uint32_t blocks, const std::map<std::string, std::uint64_t>& params)>
        check;
    /// What the kernel needs from the chip and the host for these parameters (called only
    /// when `check` found no problem): checked against the chip before a run and used for the
    /// host memory estimate.
    std::function<KernelNeeds(std::uint32_t blocks,
                              const std::map<std::string, std::uint64_t>& params)>
        needs;
    /// Sets up GM, launches with `launch` (its blocks and timing skew; the kernel fills in
    /// its name and type), runs, and checks the output.
    std::function<KernelOutcome(Simulator&, const LaunchSpec& launch,
                                const std::map<std::string, std::uint64_t>& params)>
        run;
    /// GM arguments, in the order the kernel takes them.
    std::vector<KernelArgument> arguments;
    /// The kernel for `blocks` and `params` on the bound buffers (every argument whose
    /// `bytes` is non-zero is bound, to a buffer at least that large; `check` passed).
    std::function<KernelInstance(std::uint32_t blocks, const KernelParams& params,
                                 const KernelBindings& buffers)>
        make_instance;
};

}  // namespace npusim
