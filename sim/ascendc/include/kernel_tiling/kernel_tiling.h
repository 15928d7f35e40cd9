// kernel_tiling/kernel_tiling.h as kernels include it: the tiling-data macros and
// GET_TILING_DATA (npusim_ascendc/tiling.h). npusim has no generated tiling structs of the
// library APIs (TCubeTiling etc.): a kernel declares its own.
#pragma once

#include "npusim_ascendc/tiling.h"
