// The older sample style: the kernel file carries its own launch wrapper (scale_custom_do,
// with <<<>>>) for the ACL branch; half data through TPipe/TQue, y = x * 0.5 - 1.
#include "kernel_operator.h"

constexpr uint32_t SCALE_TILE = 256;

class KernelScale {
public:
    __aicore__ inline KernelScale() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t tiles) {
        this->tiles = tiles;
        const uint32_t blockLength = SCALE_TILE * tiles;
        xGm.SetGlobalBuffer((__gm__ half*)x + blockLength * AscendC::GetBlockIdx(), blockLength);
        yGm.SetGlobalBuffer((__gm__ half*)y + blockLength * AscendC::GetBlockIdx(), blockLength);
        pipe.InitBuffer(inQueue, 2, SCALE_TILE * sizeof(half));
        pipe.InitBuffer(outQueue, 2, SCALE_TILE * sizeof(half));
    }
    __aicore__ inline void Process() {
        for (uint32_t i = 0; i < tiles; i++) {
            AscendC::LocalTensor<half> in = inQueue.AllocTensor<half>();
            AscendC::DataCopy(in, xGm[i * SCALE_TILE], SCALE_TILE);
            inQueue.EnQue(in);
            in = inQueue.DeQue<half>();
            AscendC::LocalTensor<half> out = outQueue.AllocTensor<half>();
            AscendC::Muls(out, in, (half)0.5f, SCALE_TILE);
            AscendC::Adds(out, out, (half)-1.0f, SCALE_TILE);
            outQueue.EnQue<half>(out);
            inQueue.FreeTensor(in);
            out = outQueue.DeQue<half>();
            AscendC::DataCopy(yGm[i * SCALE_TILE], out, SCALE_TILE);
            outQueue.FreeTensor(out);
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 2> inQueue;
    AscendC::TQue<AscendC::TPosition::VECOUT, 2> outQueue;
    AscendC::GlobalTensor<half> xGm, yGm;
    uint32_t tiles = 0;
};

extern "C" __global__ __aicore__ void scale_custom(GM_ADDR x, GM_ADDR y, uint32_t tiles) {
    KernelScale op;
    op.Init(x, y, tiles);
    op.Process();
}

#ifndef ASCENDC_CPU_DEBUG
void scale_custom_do(uint32_t blockDim, void* stream, uint8_t* x, uint8_t* y, uint32_t tiles) {
    scale_custom<<<blockDim, nullptr, stream>>>(x, y, tiles);
}
#endif
