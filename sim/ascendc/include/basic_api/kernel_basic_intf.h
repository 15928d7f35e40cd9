// The vendor's header of this name (included by public samples): npusim declares its APIs in
// kernel_operator.h.
#pragma once

#include "kernel_operator.h"
