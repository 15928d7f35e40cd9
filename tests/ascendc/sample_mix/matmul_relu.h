// The mixed sample's kernel body: the AIC computes C = A x B (GM -> L1 as NZ -> L0A as ZZ /
// L0B as ZN, Mmad, Fixpipe NZ -> ND) and releases its two AIVs with a mode-2 cross-core flag; each
// AIV writes relu(C) * 0.5 for half the rows. Without the flag pair (crossCoreFlag 0) the AIVs'
// loads race the Fixpipe.
#pragma once

#include "kernel_operator.h"

using namespace AscendC;

constexpr uint32_t kM = 32, kN = 32, kK = 32;
constexpr uint32_t kFractal = 512 / sizeof(half);

__aicore__ inline void MatmulRelu(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR out,
                                  uint32_t crossCoreFlag = 1) {
    TPipe pipe;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> cGm, outGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, kM * kK);
    bGm.SetGlobalBuffer((__gm__ half*)b, kK * kN);
    cGm.SetGlobalBuffer((__gm__ float*)c, kM * kN);
    outGm.SetGlobalBuffer((__gm__ float*)out, kM * kN);
    if ASCEND_IS_AIC {
        TQue<TPosition::A1, 1> inA1;
        TQue<TPosition::B1, 1> inB1;
        TQue<TPosition::A2, 1> inA2;
        TQue<TPosition::B2, 1> inB2;
        TQue<TPosition::CO1, 1> outCO1;
        pipe.InitBuffer(inA1, 1, kM * kK * sizeof(half));
        pipe.InitBuffer(inB1, 1, kK * kN * sizeof(half));
        pipe.InitBuffer(inA2, 1, kM * kK * sizeof(half));
        pipe.InitBuffer(inB2, 1, kK * kN * sizeof(half));
        pipe.InitBuffer(outCO1, 1, kM * kN * sizeof(float));
        LocalTensor<half> a1 = inA1.AllocTensor<half>();
        LocalTensor<half> b1 = inB1.AllocTensor<half>();
        DataCopy(a1, aGm, Nd2NzParams{1, kM, kK, 0, kK, kM, 1, 0});
        DataCopy(b1, bGm, Nd2NzParams{1, kK, kN, 0, kN, kK, 1, 0});
        inA1.EnQue(a1);
        inB1.EnQue(b1);
        a1 = inA1.DeQue<half>();
        b1 = inB1.DeQue<half>();
        LocalTensor<half> a2 = inA2.AllocTensor<half>();
        LocalTensor<half> b2 = inB2.AllocTensor<half>();
        // A one 16-row block at a time (ZZ), B one 16-row block of k at a time, each fractal
        // transposed (ZN).
        for (uint32_t i = 0; i < kM / 16; ++i)
            LoadData(a2[i * kK * 16], a1[i * kFractal],
                     LoadData2DParams{0, kK / 16, kM / 16, 0, 0, false, 0});
        for (uint32_t i = 0; i < kK / 16; ++i)
            LoadData(b2[i * kN * 16], b1[i * kFractal],
                     LoadData2DParams{0, kN / 16, kK / 16, 0, 0, true, 0});
        inA2.EnQue(a2);
        inB2.EnQue(b2);
        inA1.FreeTensor(a1);
        inB1.FreeTensor(b1);
        a2 = inA2.DeQue<half>();
        b2 = inB2.DeQue<half>();
        LocalTensor<float> c1 = outCO1.AllocTensor<float>();
        Mmad(c1, a2, b2, MmadParams{kM, kN, kK});
        outCO1.EnQue(c1);
        inA2.FreeTensor(a2);
        inB2.FreeTensor(b2);
        c1 = outCO1.DeQue<float>();
        FixpipeParamsV220<> fix;
        fix.nSize = kN;
        fix.mSize = kM;
        fix.srcStride = kM;
        fix.dstStride = kN;
        Fixpipe(cGm, c1, fix);
        outCO1.FreeTensor(c1);
        if (crossCoreFlag != 0) CrossCoreSetFlag<2, PIPE_FIX>(0);
    }
    if ASCEND_IS_AIV {
        constexpr uint32_t rows = kM / 2;
        TQue<TPosition::VECIN, 1> inQueue;
        TQue<TPosition::VECOUT, 1> outQueue;
        pipe.InitBuffer(inQueue, 1, rows * kN * sizeof(float));
        pipe.InitBuffer(outQueue, 1, rows * kN * sizeof(float));
        if (crossCoreFlag != 0) CrossCoreWaitFlag(0);
        const uint64_t first = GetSubBlockIdx() * rows * kN;
        LocalTensor<float> in = inQueue.AllocTensor<float>();
        DataCopy(in, cGm[first], rows * kN);
        inQueue.EnQue(in);
        in = inQueue.DeQue<float>();
        LocalTensor<float> result = outQueue.AllocTensor<float>();
        Relu(result, in, rows * kN);
        Muls(result, result, 0.5F, rows * kN);
        outQueue.EnQue(result);
        inQueue.FreeTensor(in);
        result = outQueue.DeQue<float>();
        DataCopy(outGm[first], result, rows * kN);
        outQueue.FreeTensor(result);
    }
}
