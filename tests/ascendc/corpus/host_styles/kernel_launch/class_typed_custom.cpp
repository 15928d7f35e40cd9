// y = -x by a kernel class whose Init declares the type (KERNEL_TYPE_MIX_AIV_1_0) in a header;
// no extern "C", and main.cpp includes aclrtlaunch_class_typed_custom.h although the CMake
// lines do not name it in KERNELS (every plain kernel gets its header).
#include "class_typed_kernel.h"

__global__ __aicore__ void class_typed_custom(GM_ADDR x, GM_ADDR y, uint32_t tileLength) {
    KernelNegate op;
    op.Init(x, y, tileLength);
    op.Process();
}
