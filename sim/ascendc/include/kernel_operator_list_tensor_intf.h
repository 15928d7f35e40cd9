// The vendor's header of ListTensorDesc / TensorDesc (npusim_ascendc/list_tensor.h).
#pragma once

#include "kernel_operator.h"
