// Example kernels that ship with the library, by name. Scenario files pick one; tests and
// the benchmark call the kernel functions directly.
#pragma once

#include <string_view>
#include <vector>

#include "sim/kernels/builtin_kernel_bodies.h"
#include "sim/kernels/kernel_definition.h"

namespace npusim {

const std::vector<KernelDefinition>& builtin_kernels();
/// nullptr if there is no such kernel.
const KernelDefinition* find_builtin_kernel(std::string_view name);

}  // namespace npusim
