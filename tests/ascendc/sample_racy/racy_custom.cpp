// A sample-shaped kernel with a bug: x is staged through a TBuf, so nothing orders its MTE2
// load before the Add that reads it. The process must report the race at these lines and
// exit non-zero.
#include "kernel_operator.h"

constexpr uint32_t LENGTH = 256;

extern "C" __global__ __aicore__ void racy_custom(GM_ADDR x, GM_ADDR z) {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> xBuf;
    AscendC::TQue<AscendC::TPosition::VECOUT, 1> outQueue;
    pipe.InitBuffer(xBuf, LENGTH * sizeof(float));
    pipe.InitBuffer(outQueue, 1, LENGTH * sizeof(float));
    AscendC::GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, LENGTH);
    zGm.SetGlobalBuffer((__gm__ float*)z, LENGTH);
    AscendC::LocalTensor<float> xLocal = xBuf.Get<float>();
    AscendC::DataCopy(xLocal, xGm, LENGTH);  // RACE-LOAD
    AscendC::LocalTensor<float> zLocal = outQueue.AllocTensor<float>();
    AscendC::Add(zLocal, xLocal, xLocal, LENGTH);  // RACE-ADD
    outQueue.EnQue(zLocal);
    zLocal = outQueue.DeQue<float>();
    AscendC::DataCopy(zGm, zLocal, LENGTH);
    outQueue.FreeTensor(zLocal);
}
