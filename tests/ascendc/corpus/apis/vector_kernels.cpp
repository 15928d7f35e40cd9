// Vector and reduction kernels in the TPipe / TQue style with the mask registers and the
// mask/repeat forms: Compare / Select, WholeReduceSum in counter mode, BlockReduceMax and
// PairReduceSum, a strided partially masked Axpy, Cast with several round modes.
// `racy` != 0 drops the synchronization marked RACY(<kernel>).
#include "kernel_operator.h"

using namespace AscendC;

constexpr uint32_t kElems = 256;

// y = x > 0 ? x : 0 through a uint8 bit mask.
extern "C" __global__ __aicore__ void relu_select(GM_ADDR x, GM_ADDR y, uint32_t racy) {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TBuf<TPosition::VECCALC> calc;
    pipe.InitBuffer(inQueue, 1, kElems * sizeof(float));
    pipe.InitBuffer(calc, 2 * kElems * sizeof(float) + kElems / 8);
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * kElems, kElems);
    yGm.SetGlobalBuffer((__gm__ float*)y + GetBlockIdx() * kElems, kElems);
    LocalTensor<float> in = inQueue.AllocTensor<float>();
    DataCopy(in, xGm, kElems);
    inQueue.EnQue(in);
    in = inQueue.DeQue<float>();
    LocalTensor<float> zero = calc.Get<float>();
    LocalTensor<float> out = zero[kElems];
    LocalTensor<uint8_t> mask = calc.GetWithOffset<uint8_t>(kElems / 8, 2 * kElems * sizeof(float));
    Duplicate(zero, 0.0F, kElems);
    Compare(mask, in, zero, CMPMODE::GT, kElems);
    // RACY(relu_select) RAW first
    Select(out, mask, in, 0.0F, SELMODE::VSEL_TENSOR_SCALAR_MODE, kElems);
    if (racy == 0) {
        SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
        WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    }
    DataCopy(yGm, out, kElems);  // RACY(relu_select) RAW second
    inQueue.FreeTensor(in);
}

// sums[r] = sum of the first `valid` elements of row r (8 rows of 64), counter mode.
extern "C" __global__ __aicore__ void row_sums(GM_ADDR x, GM_ADDR sums, uint32_t valid,
                                               uint32_t racy) {
    constexpr uint32_t rows = 8, cols = 64;
    TPipe pipe;
    TBuf<TPosition::VECCALC> calc;
    pipe.InitBuffer(calc, rows * cols * sizeof(float) + 32);
    GlobalTensor<float> xGm, sGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, rows * cols);
    sGm.SetGlobalBuffer((__gm__ float*)sums, rows);
    LocalTensor<float> data = calc.Get<float>();
    LocalTensor<float> result = data[rows * cols];
    DataCopy(data, xGm, rows * cols);  // RACY(row_sums) RAW first
    if (racy == 0) {
        SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    }
    SetMaskCount();
    SetVectorMask<float, MaskMode::COUNTER>(valid);
    for (uint32_t r = 0; r < rows; ++r) {
        // RACY(row_sums) RAW second
        WholeReduceSum<float, false>(result[r], data[r * cols], MASK_PLACEHOLDER, 1, 1, 1, 8);
    }
    SetMaskNorm();
    ResetMask();
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(sGm, result, rows);
}

// out = [BlockReduceMax of 4 fp32 repeats (32 values), PairReduceSum of them (128 values)]
extern "C" __global__ __aicore__ void block_pair(GM_ADDR x, GM_ADDR out, uint32_t racy) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> calc;
    pipe.InitBuffer(calc, kElems * sizeof(float) + 160 * sizeof(float));
    GlobalTensor<float> xGm, oGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, kElems);
    oGm.SetGlobalBuffer((__gm__ float*)out, 160);
    LocalTensor<float> data = calc.Get<float>();
    LocalTensor<float> maxes = data[kElems];
    LocalTensor<float> pairs = maxes[32];
    DataCopy(data, xGm, kElems);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    BlockReduceMax<float>(maxes, data, 4, 64, 1, 1, 8);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(oGm, maxes, 32);
    PairReduceSum<float>(pairs, data, 4, 64, 1, 1, 8);  // RACY(block_pair) RAW first
    if (racy == 0) {
        SetFlag<HardEvent::V_MTE3>(EVENT_ID1);
        WaitFlag<HardEvent::V_MTE3>(EVENT_ID1);
    }
    DataCopy(oGm[32], pairs, 128);  // RACY(block_pair) RAW second
}

// acc = src * 3 + acc on the first 48 elements of each of 4 repeats; src repeats 16 blocks
// apart (every other 256 bytes), acc dense. Other elements of acc keep their value.
extern "C" __global__ __aicore__ void strided_axpy(GM_ADDR src, GM_ADDR acc, uint32_t racy) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> calc;
    pipe.InitBuffer(calc, 3 * kElems * sizeof(float));
    GlobalTensor<float> sGm, aGm;
    sGm.SetGlobalBuffer((__gm__ float*)src, 2 * kElems);
    aGm.SetGlobalBuffer((__gm__ float*)acc, kElems);
    LocalTensor<float> s = calc.Get<float>();
    LocalTensor<float> a = s[2 * kElems];
    DataCopy(a, aGm, kElems);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    DataCopy(s, sGm, 2 * kElems);  // RACY(strided_axpy) RAW first
    if (racy == 0) {
        SetFlag<HardEvent::MTE2_V>(EVENT_ID1);
        WaitFlag<HardEvent::MTE2_V>(EVENT_ID1);
    }
    UnaryRepeatParams params;
    params.srcRepStride = 16;
    Axpy(a, s, 3.0F, 48, 4, params);  // RACY(strided_axpy) RAW second
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(aGm, a, kElems);
}

// out(int32) = [floor, ceil, round, trunc](x); odd(half) = Cast<half, ODD>(x)
extern "C" __global__ __aicore__ void cast_modes(GM_ADDR x, GM_ADDR out, GM_ADDR odd,
                                                 uint32_t racy) {
    constexpr uint32_t n = 64;
    TPipe pipe;
    TBuf<TPosition::VECCALC> calc;
    pipe.InitBuffer(calc, n * sizeof(float) + 4 * n * sizeof(int32_t) + n * sizeof(half));
    GlobalTensor<float> xGm;
    GlobalTensor<int32_t> oGm;
    GlobalTensor<half> hGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, n);
    oGm.SetGlobalBuffer((__gm__ int32_t*)out, 4 * n);
    hGm.SetGlobalBuffer((__gm__ half*)odd, n);
    LocalTensor<float> in = calc.Get<float>();
    LocalTensor<int32_t> ints = calc.GetWithOffset<int32_t>(4 * n, n * sizeof(float));
    LocalTensor<half> halves =
        calc.GetWithOffset<half>(n, n * sizeof(float) + 4 * n * sizeof(int32_t));
    DataCopy(in, xGm, n);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Cast(ints, in, RoundMode::CAST_FLOOR, n);
    Cast(ints[n], in, RoundMode::CAST_CEIL, n);
    Cast(ints[2 * n], in, RoundMode::CAST_ROUND, n);
    Cast(ints[3 * n], in, RoundMode::CAST_TRUNC, n);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(oGm, ints, 4 * n);
    Cast(halves, in, RoundMode::CAST_ODD, n);  // RACY(cast_modes) RAW first
    if (racy == 0) {
        SetFlag<HardEvent::V_MTE3>(EVENT_ID1);
        WaitFlag<HardEvent::V_MTE3>(EVENT_ID1);
    }
    DataCopy(hGm, halves, n);  // RACY(cast_modes) RAW second
}
