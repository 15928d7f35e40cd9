// kernel_tiling/kernel_tiling.h as kernels include it: the tiling-data macros and
// GET_TILING_DATA (npusim_ascendc/tiling.h), and the Matmul API's TCubeTiling
// (npusim_ascendc/cube_tiling.h).
#pragma once

#include "npusim_ascendc/cube_tiling.h"
#include "npusim_ascendc/tiling.h"
