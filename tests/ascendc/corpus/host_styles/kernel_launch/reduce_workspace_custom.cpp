// A cross-block sum through the user workspace: every block reduces its tile, writes its
// partial (one 32-byte slot) to the workspace, and after a soft SyncAll (its GM flags also in
// the workspace, zeroed by the host) block 0 adds the partials up. The tiling is a plain
// struct read with GET_TILING_DATA_PTR_WITH_STRUCT.
#include "kernel_operator.h"

#ifndef HOST_STYLES_DROP_SYNC
#define HOST_STYLES_DROP_SYNC 0
#endif

struct ReduceTiling {
    uint32_t tileLength;
    uint32_t blocks;
};

extern "C" __global__ __aicore__ void reduce_workspace_custom(GM_ADDR x, GM_ADDR out,
                                                              GM_ADDR workspace, GM_ADDR tiling) {
    AscendC::SetSysWorkspace(workspace);
    if (AscendC::GetSysWorkSpacePtr() == nullptr) return;
    GET_TILING_DATA_PTR_WITH_STRUCT(ReduceTiling, t, tiling);
    GM_ADDR user = AscendC::GetUserWorkspace(workspace);
    AscendC::GlobalTensor<float> xGm, partialGm, outGm;
    AscendC::GlobalTensor<int32_t> syncGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + t->tileLength * AscendC::GetBlockIdx(), t->tileLength);
    partialGm.SetGlobalBuffer((__gm__ float*)user, t->blocks * 8);
    syncGm.SetGlobalBuffer((__gm__ int32_t*)(user + t->blocks * 32), t->blocks * 8);
    outGm.SetGlobalBuffer((__gm__ float*)out, 8);

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> inQueue;
    AscendC::TQue<AscendC::TPosition::VECOUT, 1> outQueue;
    AscendC::TBuf<AscendC::TPosition::VECCALC> work, syncBuf;
    pipe.InitBuffer(inQueue, 1, t->tileLength * sizeof(float));
    pipe.InitBuffer(outQueue, 1, 32);
    pipe.InitBuffer(work, t->tileLength * sizeof(float));
    pipe.InitBuffer(syncBuf, t->blocks * 32);

    AscendC::LocalTensor<float> in = inQueue.AllocTensor<float>();
    AscendC::DataCopy(in, xGm, t->tileLength);
    inQueue.EnQue(in);
    in = inQueue.DeQue<float>();
    AscendC::LocalTensor<float> partial = outQueue.AllocTensor<float>();
    AscendC::Duplicate(partial, 0.0f, 8);
    AscendC::ReduceSum(partial, in, work.Get<float>(), t->tileLength);
    outQueue.EnQue(partial);
    inQueue.FreeTensor(in);
    partial = outQueue.DeQue<float>();
    AscendC::DataCopy(partialGm[AscendC::GetBlockIdx() * 8], partial, 8);
    outQueue.FreeTensor(partial);

#if (HOST_STYLES_DROP_SYNC & 2) == 0
    AscendC::SyncAll(syncGm, syncBuf.Get<int32_t>());
#endif
    if (AscendC::GetBlockIdx() != 0) return;
    AscendC::LocalTensor<float> all = inQueue.AllocTensor<float>();
    AscendC::DataCopy(all, partialGm, t->blocks * 8);
    inQueue.EnQue(all);
    all = inQueue.DeQue<float>();
    AscendC::LocalTensor<float> total = outQueue.AllocTensor<float>();
    AscendC::Duplicate(total, 0.0f, 8);
    AscendC::ReduceSum(total, all, work.Get<float>(), t->blocks * 8);
    outQueue.EnQue(total);
    inQueue.FreeTensor(all);
    total = outQueue.DeQue<float>();
    AscendC::DataCopy(outGm, total, 8);
    outQueue.FreeTensor(total);
}
