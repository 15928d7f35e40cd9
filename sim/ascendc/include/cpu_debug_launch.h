// cpu_debug_launch.h: the CPU-debug entry of the single-source .asc examples, which include it
// under ASCENDC_CPU_DEBUG. On npusim a .asc program is an ACL host program in both forms
// (npusim_add_ascendc_kernel compiles it as C++, rewrites its <<<>>> launches and runs its
// main as the simulated host program), so this header only brings what such a program uses:
// the kernel API (block_idx, block_num included) and the ACL runtime.
#pragma once

#include "acl/acl.h"
#include "kernel_operator.h"
