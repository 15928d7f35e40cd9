// WeightedSumCustom's kernel: the tensors of the lists x and parts come through ListTensorDesc
// (x by GetDataPtr, parts by GetDesc, which also gives each part's shape); the weights and the
// scale are read from GM by the scalar unit. Each core handles its slice in one tile.
#include "kernel_operator.h"

class KernelWeightedSum {
public:
    __aicore__ inline KernelWeightedSum() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR scale, GM_ADDR weights, GM_ADDR y, GM_ADDR parts,
                                uint32_t blockLength, uint32_t count) {
        this->blockLength = blockLength;
        this->count = count;
        this->offset = blockLength * AscendC::GetBlockIdx();
        xList.Init((__gm__ void*)x);
        partList.Init((__gm__ void*)parts);
        scaleGm.SetGlobalBuffer((__gm__ float*)scale, 1);
        weightGm.SetGlobalBuffer((__gm__ int64_t*)weights, count);
        yGm.SetGlobalBuffer((__gm__ float*)y + offset, blockLength);
        pipe.InitBuffer(inQueue, 2, blockLength * sizeof(float));
        pipe.InitBuffer(outQueue, 2, blockLength * sizeof(float));
        pipe.InitBuffer(accBuf, blockLength * sizeof(float));
    }
    __aicore__ inline void Process(bool weighted) {
        AscendC::LocalTensor<float> acc = accBuf.Get<float>();
        for (uint32_t i = 0; i < count; ++i) {
            AscendC::GlobalTensor<float> xGm;
            xGm.SetGlobalBuffer(xList.GetDataPtr<float>(i) + offset, blockLength);
            AscendC::LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
            AscendC::DataCopy(xLocal, xGm, blockLength);
            inQueue.EnQue(xLocal);
            xLocal = inQueue.DeQue<float>();
            AscendC::LocalTensor<float> part = outQueue.AllocTensor<float>();
            if (weighted) {
                const float w = static_cast<float>(weightGm.GetValue(i));
                AscendC::Muls(part, xLocal, w, blockLength);
            } else {
                AscendC::Adds(part, xLocal, 0.0f, blockLength);
            }
            if (i == 0) {
                AscendC::Adds(acc, part, 0.0f, blockLength);
            } else {
                AscendC::Add(acc, acc, part, blockLength);
            }
            inQueue.FreeTensor(xLocal);
            outQueue.EnQue(part);
            part = outQueue.DeQue<float>();
            uint64_t shape[4] = {0};
            AscendC::TensorDesc<float> desc;
            desc.SetShapeAddr(shape);
            partList.GetDesc(desc, i);
            AscendC::GlobalTensor<float> partGm;
            partGm.SetGlobalBuffer(desc.GetDataPtr() + offset, blockLength);
            AscendC::DataCopy(partGm, part, blockLength);
            outQueue.FreeTensor(part);
        }
        AscendC::LocalTensor<float> out = outQueue.AllocTensor<float>();
        AscendC::Muls(out, acc, scaleGm.GetValue(0), blockLength);
        outQueue.EnQue(out);
        out = outQueue.DeQue<float>();
        AscendC::DataCopy(yGm, out, blockLength);
        outQueue.FreeTensor(out);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 2> inQueue;
    AscendC::TQue<AscendC::TPosition::VECOUT, 2> outQueue;
    AscendC::TBuf<AscendC::TPosition::VECCALC> accBuf;
    AscendC::ListTensorDesc xList;
    AscendC::ListTensorDesc partList;
    AscendC::GlobalTensor<float> scaleGm;
    AscendC::GlobalTensor<int64_t> weightGm;
    AscendC::GlobalTensor<float> yGm;
    uint32_t blockLength;
    uint32_t count;
    uint32_t offset;
};

extern "C" __global__ __aicore__ void weighted_sum_custom(GM_ADDR x, GM_ADDR scale, GM_ADDR weights,
                                                          GM_ADDR y, GM_ADDR parts,
                                                          GM_ADDR workspace, GM_ADDR tiling) {
    GET_TILING_DATA(tilingData, tiling);
    KernelWeightedSum op;
    op.Init(x, scale, weights, y, parts, tilingData.blockLength, tilingData.count);
    op.Process(TILING_KEY_IS(2));
}
