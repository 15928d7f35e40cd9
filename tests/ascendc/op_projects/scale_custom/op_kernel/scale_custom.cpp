// ScaleCustom's kernel: one branch per tiling key, each a double-buffered vector loop.
#include "kernel_operator.h"
using namespace AscendC;

enum class ScaleMode { MUL, ADD, RELU };

class KernelScale {
public:
    __aicore__ inline KernelScale() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, float alpha, uint32_t blockLength,
                                uint32_t tileLength) {
        this->alpha = alpha;
        this->tileLength = tileLength;
        this->tiles = blockLength / tileLength;
        xGm.SetGlobalBuffer((__gm__ float*)x + blockLength * GetBlockIdx(), blockLength);
        yGm.SetGlobalBuffer((__gm__ float*)y + blockLength * GetBlockIdx(), blockLength);
        pipe.InitBuffer(inQueue, 2, tileLength * sizeof(float));
        pipe.InitBuffer(outQueue, 2, tileLength * sizeof(float));
    }
    template <ScaleMode mode>
    __aicore__ inline void Process() {
        for (uint32_t i = 0; i < tiles; i++) {
            LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
            DataCopy(xLocal, xGm[i * tileLength], tileLength);
            inQueue.EnQue(xLocal);
            xLocal = inQueue.DeQue<float>();
            LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
            if constexpr (mode == ScaleMode::MUL) {
                Muls(yLocal, xLocal, alpha, tileLength);
            } else if constexpr (mode == ScaleMode::ADD) {
                Adds(yLocal, xLocal, alpha, tileLength);
            } else {
                Relu(yLocal, xLocal, tileLength);
            }
            outQueue.EnQue(yLocal);
            inQueue.FreeTensor(xLocal);
            yLocal = outQueue.DeQue<float>();
            DataCopy(yGm[i * tileLength], yLocal, tileLength);
            outQueue.FreeTensor(yLocal);
        }
    }

private:
    TPipe pipe;
    TQue<TPosition::VECIN, 2> inQueue;
    TQue<TPosition::VECOUT, 2> outQueue;
    GlobalTensor<float> xGm, yGm;
    float alpha = 0.0f;
    uint32_t tileLength = 0;
    uint32_t tiles = 0;
};

extern "C" __global__ __aicore__ void scale_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                   GM_ADDR tiling) {
    KERNEL_TASK_TYPE(1, KERNEL_TYPE_AIV_ONLY);
    KERNEL_TASK_TYPE(2, KERNEL_TYPE_AIV_ONLY);
    KERNEL_TASK_TYPE(3, KERNEL_TYPE_MIX_AIV_1_0);
    GET_TILING_DATA(tilingData, tiling);
    KernelScale op;
    op.Init(x, y, tilingData.alpha, tilingData.shape.blockLength, tilingData.shape.tileLength);
    if (TILING_KEY_IS(1)) {
        op.Process<ScaleMode::MUL>();
    } else if (TILING_KEY_IS(2)) {
        op.Process<ScaleMode::ADD>();
    } else if (TILING_KEY_IS(3)) {
        op.Process<ScaleMode::RELU>();
    }
}
