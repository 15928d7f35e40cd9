// Kernels written in JSON (docs/json-kernels.md): a scenario's "kernels" section defines
// them by name next to the built-in C++ kernels, and host programs launch them the same way.
//
//   "kernels": {"double_it": {
//       "type": "AIV_ONLY",
//       "args": {"x": "float32"},
//       "params": {"n": 64},
//       "body": [
//         {"alloc": "ub", "space": "UB", "dtype": "float32", "count": "n"},
//         {"op": "copy", "dst": "ub", "src": {"buffer": "x", "offset": "block_idx * n"},
//          "count": "n"},
//         {"op": "set_flag", "src": "MTE2", "dst": "V", "id": 0},
//         {"op": "wait_flag", "src": "MTE2", "dst": "V", "id": 0},
//         {"op": "muls", "dst": "ub", "src": "ub", "scalar": 2, "count": "n"}, ...]}}
//
// The body is checked when the scenario is read (names, types, operand kinds, expressions);
// it runs through the same Block API as a C++ kernel, so timing, data and checking are the
// same. Each op runs with a synthetic source location (base/transaction.h) naming its JSON
// pointer, "file.json#/kernels/double_it/body/1": reports, traces and findings print it where
// they print a C++ kernel's line. Errors only known while running (a division by zero, an
// overflow, a negative count, a buffer used before its alloc ran) are KernelErrors naming the
// op's pointer.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/kernels/kernel_definition.h"

namespace npusim {

class Diagnostics;  // base/config_diagnostics.h

/// Reads the kernel `name` defined at `pointer` ("/kernels/double_it") of the scenario file
/// `origin`. Every problem goes into `diag` with its pointer; nullopt when the kernel is
/// unusable. The result has parameters (the "params" defaults, 0..2^63-1), arguments (every
/// argument must be bound), `check` (expressions that depend only on parameters and the
/// block count, evaluated for a launch: division by zero or overflow there is a config error
/// at the op's pointer) and `make_instance`; no `run` or `needs`.
std::optional<KernelDefinition> read_json_kernel(const nlohmann::json& value,
                                                 const std::string& name,
                                                 const std::string& pointer,
                                                 const std::string& origin, Diagnostics& diag);

}  // namespace npusim
