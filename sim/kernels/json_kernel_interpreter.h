// Runs a JSON kernel's checked body (sim/kernels/json_kernel_program.h) on a Block: every op goes
// through the same Block API as a C++ kernel, under a source location naming its JSON pointer.
// Errors that depend on values known only while running (a division by zero, a negative count,
// a buffer used before its alloc ran) are KernelErrors naming the op's pointer.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/block.h"
#include "sim/kernels/json_kernel_program.h"

namespace npusim::json_kernel_detail {

/// A buffer as the interpreter sees it.
struct RuntimeBuffer {
    std::uint64_t address = 0;  // bytes (GM address or offset in the local space)
    std::uint64_t count = 0;    // elements
    bool ready = false;         // GM: bound; local: its alloc ran
};

/// Runs `program.body` on `block`. `arguments`: the program's GM arguments in order (unbound
/// ones not ready); `params`: the parameters' values in order.
void run_json_kernel_body(const Program& program, Block& block,
                          const std::vector<RuntimeBuffer>& arguments,
                          const std::vector<std::int64_t>& params);

/// Evaluates, for a launch, every expression of `body` that reads only `slots` (parameters,
/// and block_num where `block_num_known`): their errors become (pointer, message) pairs in
/// `out`, the scenario's errors rather than the run's.
void check_static(const std::vector<Node>& body, const std::vector<std::int64_t>& slots,
                  bool block_num_known, std::vector<std::pair<std::string, std::string>>& out);

}  // namespace npusim::json_kernel_detail
