// The high-level Matmul API as kernels include it: Matmul<A, B, C, Bias[, CFG]>,
// MatmulType, REGIST_MATMUL_OBJ and TCubeTiling (npusim_ascendc/matmul.h; docs/ascendc.md,
// "The Matmul API", lists what is supported).
#pragma once

#include "kernel_operator.h"
#include "npusim_ascendc/matmul.h"
