// ReduceSumCustom's kernel: a partial sum per core into the user workspace, SyncAll, and the
// total from core 0 (one 4-byte element, written by the scalar unit and flushed from its
// data cache).
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void reduce_sum_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                        GM_ADDR tiling) {
    GET_TILING_DATA(tilingData, tiling);
    constexpr uint32_t SLOT = 8;  // floats per workspace slot (32 bytes)
    const uint32_t blockLength = tilingData.blockLength;
    const uint32_t blockNum = GetBlockNum();
    GM_ADDR usrWorkspace = GetUserWorkspace(workspace);

    GlobalTensor<float> xGm, partGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + blockLength * GetBlockIdx(), blockLength);
    partGm.SetGlobalBuffer((__gm__ float*)usrWorkspace, blockNum * SLOT);
    yGm.SetGlobalBuffer((__gm__ float*)y, 1);

    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    TBuf<TPosition::VECCALC> workBuf;
    pipe.InitBuffer(inQueue, 1, blockLength * sizeof(float));
    pipe.InitBuffer(outQueue, 1, SLOT * sizeof(float));
    pipe.InitBuffer(workBuf, blockLength * sizeof(float));

    LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
    DataCopy(xLocal, xGm, blockLength);
    inQueue.EnQue(xLocal);
    xLocal = inQueue.DeQue<float>();
    LocalTensor<float> sum = outQueue.AllocTensor<float>();
    LocalTensor<float> work = workBuf.Get<float>();
    Duplicate(sum, 0.0f, SLOT);
    ReduceSum(sum, xLocal, work, blockLength);
    outQueue.EnQue(sum);
    inQueue.FreeTensor(xLocal);
    sum = outQueue.DeQue<float>();
    DataCopy(partGm[GetBlockIdx() * SLOT], sum, SLOT);
    outQueue.FreeTensor(sum);

    SyncAll();

    if (GetBlockIdx() == 0) {
        LocalTensor<float> parts = inQueue.AllocTensor<float>();
        DataCopy(parts, partGm, blockNum * SLOT);
        inQueue.EnQue(parts);
        parts = inQueue.DeQue<float>();
        LocalTensor<float> total = outQueue.AllocTensor<float>();
        ReduceSum(total, parts, work, blockNum * SLOT);
        outQueue.EnQue(total);
        inQueue.FreeTensor(parts);
        total = outQueue.DeQue<float>();
        yGm.SetValue(0, total.GetValue(0));
        DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(yGm);
        outQueue.FreeTensor(total);
    }
}
