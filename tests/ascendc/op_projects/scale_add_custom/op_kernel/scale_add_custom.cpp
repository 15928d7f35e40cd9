// ScaleAddCustom's kernel, written for one element type DTYPE_X (the build per data type
// combination defines it): a plain class using DTYPE_X directly, as many public kernels are.
#include "kernel_operator.h"
using namespace AscendC;

class KernelScaleAdd {
public:
    __aicore__ inline KernelScaleAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                const ScaleAddCustomTilingData& t) {
        xScale = static_cast<DTYPE_X>(t.xScale);
        yScale = static_cast<DTYPE_X>(t.yScale);
        relu = t.relu != 0;
        tileLength = t.tileLength;
        tiles = t.blockLength / t.tileLength;
        const uint32_t offset = t.blockLength * GetBlockIdx();
        xGm.SetGlobalBuffer((__gm__ DTYPE_X*)x + offset, t.blockLength);
        if (y != nullptr) yGm.SetGlobalBuffer((__gm__ DTYPE_X*)y + offset, t.blockLength);
        zGm.SetGlobalBuffer((__gm__ DTYPE_X*)z + offset, t.blockLength);
        pipe.InitBuffer(inQueue, 2, 2 * tileLength * sizeof(DTYPE_X));
        pipe.InitBuffer(outQueue, 2, tileLength * sizeof(DTYPE_X));
    }
    template <bool withY>
    __aicore__ inline void Process() {
        for (uint32_t i = 0; i < tiles; i++) {
            LocalTensor<DTYPE_X> in = inQueue.AllocTensor<DTYPE_X>();
            DataCopy(in, xGm[i * tileLength], tileLength);
            if constexpr (withY) DataCopy(in[tileLength], yGm[i * tileLength], tileLength);
            inQueue.EnQue(in);
            in = inQueue.DeQue<DTYPE_X>();
            LocalTensor<DTYPE_X> out = outQueue.AllocTensor<DTYPE_X>();
            Muls(out, in, xScale, tileLength);
            if constexpr (withY) {
                Muls(in[tileLength], in[tileLength], yScale, tileLength);
                Add(out, out, in[tileLength], tileLength);
            }
            if (relu) Relu(out, out, tileLength);
            outQueue.EnQue(out);
            inQueue.FreeTensor(in);
            out = outQueue.DeQue<DTYPE_X>();
            DataCopy(zGm[i * tileLength], out, tileLength);
            outQueue.FreeTensor(out);
        }
    }

private:
    TPipe pipe;
    TQue<TPosition::VECIN, 2> inQueue;
    TQue<TPosition::VECOUT, 2> outQueue;
    GlobalTensor<DTYPE_X> xGm, yGm, zGm;
    DTYPE_X xScale = 0;
    DTYPE_X yScale = 0;
    bool relu = false;
    uint32_t tileLength = 0;
    uint32_t tiles = 0;
};

extern "C" __global__ __aicore__ void scale_add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                       GM_ADDR workspace, GM_ADDR tiling) {
    GET_TILING_DATA(tilingData, tiling);
    KernelScaleAdd op;
    op.Init(x, y, z, tilingData);
    if (TILING_KEY_IS(1)) {
        op.Process<true>();
    } else if (TILING_KEY_IS(2)) {
        op.Process<false>();
    }
}
