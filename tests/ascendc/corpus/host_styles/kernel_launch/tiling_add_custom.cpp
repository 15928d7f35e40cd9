// TPipe/TQue kernel driven by a tiling struct (GET_TILING_DATA) and the tiling key:
// key 2 computes c0 * x - c1 * y, any other key c0 * x + c1 * y (half data).
#include "add_tiling.h"
#include "kernel_operator.h"

constexpr int32_t BUFFER_NUM = 2;

class KernelTilingAdd {
public:
    __aicore__ inline KernelTilingAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength,
                                uint32_t tileNum, uint32_t tileLength, const float* c) {
        blockLength = totalLength / AscendC::GetBlockNum();
        this->tileNum = tileNum;
        this->tileLength = tileLength;
        c0 = static_cast<half>(c[0]);
        c1 = static_cast<half>(c[1]);
        xGm.SetGlobalBuffer((__gm__ half*)x + blockLength * AscendC::GetBlockIdx(), blockLength);
        yGm.SetGlobalBuffer((__gm__ half*)y + blockLength * AscendC::GetBlockIdx(), blockLength);
        zGm.SetGlobalBuffer((__gm__ half*)z + blockLength * AscendC::GetBlockIdx(), blockLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(half));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(half));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(half));
        pipe.InitBuffer(tmpBuf, tileLength * sizeof(half));
    }
    __aicore__ inline void Process(bool subtract) {
        for (uint32_t i = 0; i < tileNum; i++) {
            CopyIn(i);
            Compute(subtract);
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress) {
        AscendC::LocalTensor<half> xLocal = inQueueX.AllocTensor<half>();
        AscendC::LocalTensor<half> yLocal = inQueueY.AllocTensor<half>();
        AscendC::DataCopy(xLocal, xGm[progress * tileLength], tileLength);
        AscendC::DataCopy(yLocal, yGm[progress * tileLength], tileLength);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(bool subtract) {
        AscendC::LocalTensor<half> xLocal = inQueueX.DeQue<half>();
        AscendC::LocalTensor<half> yLocal = inQueueY.DeQue<half>();
        AscendC::LocalTensor<half> zLocal = outQueueZ.AllocTensor<half>();
        AscendC::LocalTensor<half> tmp = tmpBuf.Get<half>();
        AscendC::Muls(zLocal, xLocal, c0, tileLength);
        AscendC::Muls(tmp, yLocal, c1, tileLength);
        if (subtract) {
            AscendC::Sub(zLocal, zLocal, tmp, tileLength);
        } else {
            AscendC::Add(zLocal, zLocal, tmp, tileLength);
        }
        outQueueZ.EnQue<half>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint32_t progress) {
        AscendC::LocalTensor<half> zLocal = outQueueZ.DeQue<half>();
        AscendC::DataCopy(zGm[progress * tileLength], zLocal, tileLength);
        outQueueZ.FreeTensor(zLocal);
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    AscendC::TQue<AscendC::TPosition::VECOUT, BUFFER_NUM> outQueueZ;
    AscendC::TBuf<AscendC::TPosition::VECCALC> tmpBuf;
    AscendC::GlobalTensor<half> xGm, yGm, zGm;
    uint32_t blockLength = 0, tileNum = 0, tileLength = 0;
    half c0, c1;
};

extern "C" __global__ __aicore__ void tiling_add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                        GM_ADDR workspace, GM_ADDR tiling) {
    GET_TILING_DATA(tilingData, tiling);
    GET_TILING_DATA_MEMBER(optiling::AddTilingData, shape, shape, tiling);
    KernelTilingAdd op;
    op.Init(x, y, z, tilingData.totalLength, shape.tileNum, shape.tileLength,
            tilingData.coefficients);
    if (TILING_KEY_IS(2)) {
        op.Process(true);
    } else {
        op.Process(false);
    }
}
