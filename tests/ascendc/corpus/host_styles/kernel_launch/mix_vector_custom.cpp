// A vector kernel declared as an AIV-only mix through KERNEL_TASK_TYPE_DEFAULT, without
// extern "C": the type comes from its body (npusim checks that the launch agrees).
#include "kernel_operator.h"

__global__ __aicore__ void mix_vector_custom(GM_ADDR x, GM_ADDR y, uint32_t tileLength) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
    AscendC::GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + tileLength * AscendC::GetBlockIdx(), tileLength);
    yGm.SetGlobalBuffer((__gm__ float*)y + tileLength * AscendC::GetBlockIdx(), tileLength);
    AscendC::TPipe pipe;
    AscendC::TQueBind<AscendC::TPosition::VECIN, AscendC::TPosition::VECOUT, 1> queue;
    pipe.InitBuffer(queue, 1, tileLength * sizeof(float));
    AscendC::LocalTensor<float> t = queue.AllocTensor<float>();
    AscendC::DataCopy(t, xGm, tileLength);
    queue.EnQue(t);
    t = queue.DeQue<float>();
    AscendC::DataCopy(yGm, t, tileLength);
    queue.FreeTensor(t);
}
