// TPipe/TQue double buffering over a per-block range the tiling data gives (blocks get
// different amounts of work); the scale is read alone with GET_TILING_DATA_MEMBER.
#include "kernel_operator.h"
#include "uneven_tiling.h"

class KernelUneven {
public:
    __aicore__ inline KernelUneven() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t offset, uint32_t length,
                                uint32_t tileLength, float scale) {
        this->length = length;
        this->tileLength = tileLength;
        this->scale = scale;
        xGm.SetGlobalBuffer((__gm__ float*)x + offset, length);
        yGm.SetGlobalBuffer((__gm__ float*)y + offset, length);
        pipe.InitBuffer(inQueue, 2, tileLength * sizeof(float));
        pipe.InitBuffer(outQueue, 2, tileLength * sizeof(float));
    }
    __aicore__ inline void Process() {
        for (uint32_t done = 0; done < length; done += tileLength) {
            AscendC::LocalTensor<float> in = inQueue.AllocTensor<float>();
            AscendC::DataCopy(in, xGm[done], tileLength);
            inQueue.EnQue(in);
            in = inQueue.DeQue<float>();
            AscendC::LocalTensor<float> out = outQueue.AllocTensor<float>();
            AscendC::Muls(out, in, scale, tileLength);
            outQueue.EnQue(out);
            inQueue.FreeTensor(in);
            out = outQueue.DeQue<float>();
            AscendC::DataCopy(yGm[done], out, tileLength);
            outQueue.FreeTensor(out);
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 2> inQueue;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 2> outQueue;
    AscendC::GlobalTensor<float> xGm, yGm;
    uint32_t length = 0, tileLength = 0;
    float scale = 0;
};

extern "C" __global__ __aicore__ void uneven_tiles_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                          GM_ADDR tiling) {
    AscendC::SetSysWorkspace(workspace);  // launched without a workspace: null
    ASSERT(AscendC::GetSysWorkSpacePtr() == nullptr);
    GET_TILING_DATA(tilingData, tiling);
    GET_TILING_DATA_MEMBER(UnevenTilingData, scale, scale, tiling);
    const uint32_t block = AscendC::GetBlockIdx();
    KernelUneven op;
    op.Init(x, y, tilingData.offsets[block], tilingData.lengths[block], tilingData.tileLength,
            scale);
    op.Process();
}
