// Reads the body of a JSON kernel (docs/json-kernels.md) into its checked form
// (sim/kernels/json_kernel_program.h): names, types, operand kinds and expressions are checked
// here, when the scenario is read, so that the interpreter only meets errors that depend on values.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/kernels/json_kernel_program.h"

namespace npusim {
class Diagnostics;  // base/config_diagnostics.h
}

namespace npusim::json_kernel_detail {

/// Reads the ops of `body` (at `pointer`, "/kernels/k/body") into `program.body`. The
/// program's arguments (`buffers`) and `params` are set before: expressions and operands may
/// name them. Local allocations join `buffers`, loop variables take slots. Every problem goes
/// into `diag` with its pointer.
void read_json_kernel_body(const nlohmann::json& body, const std::string& pointer, Program& program,
                           Diagnostics& diag);

}  // namespace npusim::json_kernel_detail
