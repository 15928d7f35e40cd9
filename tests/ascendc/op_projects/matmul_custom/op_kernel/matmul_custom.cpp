// MatmulCustom's kernel on the cube core: its baseM rows of a and all of b into L1 (ND to NZ),
// a into L0A as ZZ (one 16-row block a load), b into L0B as ZN (one 16-row block of k a load,
// each fractal transposed), Mmad into L0C (NZ) and Fixpipe out to GM (NZ to ND). DTYPE_A/B/C are
// the element types the build defines from the op's declared data types (half, half, float).
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void matmul_custom(GM_ADDR a, GM_ADDR b, GM_ADDR c,
                                                    GM_ADDR workspace, GM_ADDR tiling) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
    GET_TILING_DATA(t, tiling);
    constexpr uint32_t FRACTAL = 512 / sizeof(DTYPE_A);
    const uint32_t row = GetBlockIdx() * t.baseM;
    GlobalTensor<DTYPE_A> aGm;
    GlobalTensor<DTYPE_B> bGm;
    GlobalTensor<DTYPE_C> cGm;
    aGm.SetGlobalBuffer((__gm__ DTYPE_A*)a + row * t.k, t.baseM * t.k);
    bGm.SetGlobalBuffer((__gm__ DTYPE_B*)b, t.k * t.n);
    cGm.SetGlobalBuffer((__gm__ DTYPE_C*)c + row * t.n, t.baseM * t.n);

    TPipe pipe;
    TQue<TPosition::A1, 1> inA1;
    TQue<TPosition::B1, 1> inB1;
    TQue<TPosition::A2, 1> inA2;
    TQue<TPosition::B2, 1> inB2;
    TQue<TPosition::CO1, 1> outCO1;
    pipe.InitBuffer(inA1, 1, t.baseM * t.k * sizeof(DTYPE_A));
    pipe.InitBuffer(inB1, 1, t.k * t.n * sizeof(DTYPE_B));
    pipe.InitBuffer(inA2, 1, t.baseM * t.k * sizeof(DTYPE_A));
    pipe.InitBuffer(inB2, 1, t.k * t.n * sizeof(DTYPE_B));
    pipe.InitBuffer(outCO1, 1, t.baseM * t.n * sizeof(DTYPE_C));

    LocalTensor<DTYPE_A> a1 = inA1.AllocTensor<DTYPE_A>();
    LocalTensor<DTYPE_B> b1 = inB1.AllocTensor<DTYPE_B>();
    Nd2NzParams nd2nz;
    nd2nz.ndNum = 1;
    nd2nz.nValue = t.baseM;
    nd2nz.dValue = t.k;
    nd2nz.srcNdMatrixStride = 0;
    nd2nz.srcDValue = t.k;
    nd2nz.dstNzC0Stride = t.baseM;
    nd2nz.dstNzNStride = 1;
    nd2nz.dstNzMatrixStride = 0;
    DataCopy(a1, aGm, nd2nz);
    nd2nz.nValue = t.k;
    nd2nz.dValue = t.n;
    nd2nz.srcDValue = t.n;
    nd2nz.dstNzC0Stride = t.k;
    DataCopy(b1, bGm, nd2nz);
    inA1.EnQue(a1);
    inB1.EnQue(b1);
    a1 = inA1.DeQue<DTYPE_A>();
    b1 = inB1.DeQue<DTYPE_B>();

    LocalTensor<DTYPE_A> a2 = inA2.AllocTensor<DTYPE_A>();
    LocalTensor<DTYPE_B> b2 = inB2.AllocTensor<DTYPE_B>();
    const uint16_t mBlocks = t.baseM / 16, kBlocks = t.k / 16, nBlocks = t.n / 16;
    for (uint32_t i = 0; i < mBlocks; ++i)
        LoadData(a2[i * t.k * 16], a1[i * FRACTAL],
                 LoadData2DParams{0, static_cast<uint8_t>(kBlocks), mBlocks, 0, 0, false, 0});
    for (uint32_t i = 0; i < kBlocks; ++i)
        LoadData(b2[i * t.n * 16], b1[i * FRACTAL],
                 LoadData2DParams{0, static_cast<uint8_t>(nBlocks), kBlocks, 0, 0, true, 0});
    inA2.EnQue(a2);
    inB2.EnQue(b2);
    inA1.FreeTensor(a1);
    inB1.FreeTensor(b1);
    a2 = inA2.DeQue<DTYPE_A>();
    b2 = inB2.DeQue<DTYPE_B>();

    LocalTensor<DTYPE_C> c1 = outCO1.AllocTensor<DTYPE_C>();
    Mmad(c1, a2, b2,
         MmadParams{static_cast<uint16_t>(t.baseM), static_cast<uint16_t>(t.n),
                    static_cast<uint16_t>(t.k)});
    outCO1.EnQue(c1);
    inA2.FreeTensor(a2);
    inB2.FreeTensor(b2);
    c1 = outCO1.DeQue<DTYPE_C>();
    FixpipeParamsV220<> fix;
    fix.nSize = t.n;
    fix.mSize = t.baseM;
    fix.srcStride = t.baseM;
    fix.dstStride = t.n;
    Fixpipe(cGm, c1, fix);
    outCO1.FreeTensor(c1);
}
