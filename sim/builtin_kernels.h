// Example kernels that ship with the library, by name. Scenario files pick one; tests and
// the benchmark call the kernel functions directly.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/block.h"
#include "core/tensor.h"
#include "sim/run_result.h"

namespace npusim {

class Simulator;

namespace kernels {

/// z = x + y over fp32 vectors split evenly across blocks, in tiles of `tile` elements.
struct VectorAddArgs {
    GlobalTensor<float> x;
    GlobalTensor<float> y;
    GlobalTensor<float> z;
    std::uint64_t tile = 0;
};
/// One UB tile per operand: load, add, store, strictly one after another.
void vector_add_single_buffered(Block& b, const VectorAddArgs& args);
/// Two UB tiles per operand, ping-pong: loads of tile t+1 overlap add/store of tile t.
void vector_add_double_buffered(Block& b, const VectorAddArgs& args);

}  // namespace kernels

/// What running a built-in kernel produced, including whether its output was right.
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

struct BuiltinKernel {
    std::string name;
    std::string description;
    std::vector<KernelParameter> parameters;
    /// Sets up GM, launches `blocks` blocks, runs, and checks the output.
    std::function<KernelOutcome(Simulator&, std::uint32_t blocks,
                                const std::map<std::string, std::uint64_t>& params)>
        run;
};

const std::vector<BuiltinKernel>& builtin_kernels();
/// nullptr if there is no such kernel.
const BuiltinKernel* find_builtin_kernel(std::string_view name);

}  // namespace npusim
