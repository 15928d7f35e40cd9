// A mixed cube + vector kernel with cross-core flags: the AIC computes C = A x B into a GM
// workspace and releases its AIVs (CrossCoreSetFlag mode 2 on PIPE_FIX); each AIV takes half
// the rows and writes max(C, 0) through Compare / Select and int32 row counts of the
// positive entries through Cast. `racy` != 0 drops the AIVs' wait.
#include "kernel_operator.h"

using namespace AscendC;

constexpr uint32_t kDim = 32;
constexpr uint32_t kFractalHalves = 512 / sizeof(half);

extern "C" __global__ __mix__(1, 2) void mix_relu_select(GM_ADDR a, GM_ADDR b, GM_ADDR work,
                                                         GM_ADDR out, uint32_t racy) {
    TPipe pipe;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> wGm, oGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, kDim * kDim);
    bGm.SetGlobalBuffer((__gm__ half*)b, kDim * kDim);
    wGm.SetGlobalBuffer((__gm__ float*)work, kDim * kDim);
    oGm.SetGlobalBuffer((__gm__ float*)out, kDim * kDim);
    if ASCEND_IS_AIC {
        TQue<TPosition::A1, 1> qa1;
        TQue<TPosition::B1, 1> qb1;
        TQue<TPosition::A2, 1> qa2;
        TQue<TPosition::B2, 1> qb2;
        TQue<TPosition::CO1, 1> qc;
        pipe.InitBuffer(qa1, 1, kDim * kDim * sizeof(half));
        pipe.InitBuffer(qb1, 1, kDim * kDim * sizeof(half));
        pipe.InitBuffer(qa2, 1, kDim * kDim * sizeof(half));
        pipe.InitBuffer(qb2, 1, kDim * kDim * sizeof(half));
        pipe.InitBuffer(qc, 1, kDim * kDim * sizeof(float));
        LocalTensor<half> a1 = qa1.AllocTensor<half>();
        LocalTensor<half> b1 = qb1.AllocTensor<half>();
        // A and B land in L1 as NZ; A goes to L0A as ZZ (one 16-row block a load), B to L0B
        // as ZN (one 16-row block of k a load, each fractal transposed).
        DataCopy(a1, aGm, Nd2NzParams{1, kDim, kDim, 0, kDim, kDim, 1, 0});
        DataCopy(b1, bGm, Nd2NzParams{1, kDim, kDim, 0, kDim, kDim, 1, 0});
        qa1.EnQue(a1);
        qb1.EnQue(b1);
        a1 = qa1.DeQue<half>();
        b1 = qb1.DeQue<half>();
        LocalTensor<half> a2 = qa2.AllocTensor<half>();
        LocalTensor<half> b2 = qb2.AllocTensor<half>();
        constexpr uint16_t blocks = kDim / 16;
        for (uint32_t i = 0; i < blocks; ++i) {
            LoadData(a2[i * kDim * 16], a1[i * kFractalHalves],
                     LoadData2DParams{0, blocks, blocks, 0, 0, false, 0});
            LoadData(b2[i * kDim * 16], b1[i * kFractalHalves],
                     LoadData2DParams{0, blocks, blocks, 0, 0, true, 0});
        }
        qa2.EnQue(a2);
        qb2.EnQue(b2);
        qa1.FreeTensor(a1);
        qb1.FreeTensor(b1);
        a2 = qa2.DeQue<half>();
        b2 = qb2.DeQue<half>();
        LocalTensor<float> c = qc.AllocTensor<float>();
        Mmad(c, a2, b2, MmadParams{kDim, kDim, kDim});
        qc.EnQue(c);
        qa2.FreeTensor(a2);
        qb2.FreeTensor(b2);
        c = qc.DeQue<float>();
        FixpipeParamsV220 fix;
        fix.nSize = kDim;
        fix.mSize = kDim;
        fix.srcStride = kDim;
        fix.dstStride = kDim;
        Fixpipe(wGm, c, fix);  // RACY(mix_relu_select) RAW first
        qc.FreeTensor(c);
        CrossCoreSetFlag<2, PIPE_FIX>(3);
    }
    if ASCEND_IS_AIV {
        constexpr uint32_t half_rows = kDim / 2 * kDim;
        TQue<TPosition::VECIN, 1> inQueue;
        TQue<TPosition::VECOUT, 1> outQueue;
        TBuf<TPosition::VECCALC> calc;
        pipe.InitBuffer(inQueue, 1, half_rows * sizeof(float));
        pipe.InitBuffer(outQueue, 1, half_rows * sizeof(float));
        pipe.InitBuffer(calc, half_rows * sizeof(float) + half_rows / 8);
        if (racy == 0) CrossCoreWaitFlag(3);
        const uint32_t first = GetSubBlockIdx() * half_rows;
        LocalTensor<float> in = inQueue.AllocTensor<float>();
        DataCopy(in, wGm[first], half_rows);  // RACY(mix_relu_select) RAW second
        inQueue.EnQue(in);
        in = inQueue.DeQue<float>();
        LocalTensor<float> zero = calc.Get<float>();
        LocalTensor<uint8_t> mask = calc.GetWithOffset<uint8_t>(half_rows / 8, half_rows * 4);
        Duplicate(zero, 0.0F, half_rows);
        CompareScalar(mask, in, 0.0F, CMPMODE::GT, half_rows);
        LocalTensor<float> result = outQueue.AllocTensor<float>();
        Select(result, mask, in, zero, SELMODE::VSEL_TENSOR_TENSOR_MODE, half_rows);
        outQueue.EnQue(result);
        inQueue.FreeTensor(in);
        result = outQueue.DeQue<float>();
        DataCopy(oGm[first], result, half_rows);
        outQueue.FreeTensor(result);
    }
}
