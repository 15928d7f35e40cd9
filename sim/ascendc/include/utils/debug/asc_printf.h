// The newer header of the kernel-side printf (AscendC::printf / PRINTF): the same functions
// kernel_operator.h declares (npusim_ascendc/debug.h).
#pragma once

#include "kernel_operator.h"
