// Mask/repeat ("level 0") kernels in the explicit-flag style: a strided Copy and Duplicate on
// 16-bit integers, the unary math chain on half, and a bit-masked Max through the mask
// register (isSetMask = false). `racy` != 0 drops the flag pair marked RACY(<kernel>).
#include "kernel_operator.h"

using namespace AscendC;

// out(int16) = every other 32-byte block of x (Copy, src block stride 2); the blocks between
// them in `pad` = 7 (Duplicate with a block stride of 2 from block 1).
extern "C" __global__ __aicore__ void copy_dup_i16(GM_ADDR x, GM_ADDR out, GM_ADDR pad,
                                                   uint32_t racy) {
    constexpr uint32_t n = 256;  // int16: 2 repeats of 128
    TPipe pipe;
    TBuf<TPosition::VECCALC> calc;
    pipe.InitBuffer(calc, 4 * n * sizeof(int16_t));
    GlobalTensor<int16_t> xGm, oGm, pGm;
    xGm.SetGlobalBuffer((__gm__ int16_t*)x, 2 * n);
    oGm.SetGlobalBuffer((__gm__ int16_t*)out, n);
    pGm.SetGlobalBuffer((__gm__ int16_t*)pad, 2 * n);
    LocalTensor<int16_t> src = calc.Get<int16_t>();
    LocalTensor<int16_t> dst = src[2 * n];
    DataCopy(src, xGm, 2 * n);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    CopyRepeatParams params;
    params.srcStride = 2;
    params.srcRepeatSize = 16;
    Copy(dst, src, 128, 2, params);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(oGm, dst, n);
    SetFlag<HardEvent::MTE3_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE3_V>(EVENT_ID0);
    Duplicate(src[16], static_cast<int16_t>(7), 128, 2, 2, 16);  // RACY(copy_dup_i16) RAW first
    if (racy == 0) {
        SetFlag<HardEvent::V_MTE3>(EVENT_ID1);
        WaitFlag<HardEvent::V_MTE3>(EVENT_ID1);
    }
    DataCopy(pGm, src, 2 * n);  // RACY(copy_dup_i16) RAW second
}

// y(half) = LeakyRelu(Ln(Abs(x) + 1) * Rsqrt(Sqrt(x^2 + 4)) + Reciprocal(x^2 + 1), 0.1)
extern "C" __global__ __aicore__ void half_math(GM_ADDR x, GM_ADDR y, uint32_t racy) {
    constexpr uint32_t n = 128;
    TPipe pipe;
    TBuf<TPosition::VECCALC> calc;
    pipe.InitBuffer(calc, 4 * n * sizeof(half));
    GlobalTensor<half> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ half*)x, n);
    yGm.SetGlobalBuffer((__gm__ half*)y, n);
    LocalTensor<half> in = calc.Get<half>();
    LocalTensor<half> a = in[n];
    LocalTensor<half> b = in[2 * n];
    LocalTensor<half> c = in[3 * n];
    DataCopy(in, xGm, n);  // RACY(half_math) RAW first
    if (racy == 0) {
        SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    }
    Abs(a, in, n);  // RACY(half_math) RAW second
    Mul(b, a, a, n);
    Adds(a, a, half(1.0F), n);
    Ln(a, a, n);
    Adds(c, b, half(4.0F), n);
    Sqrt(c, c, n);
    Rsqrt(c, c, n);
    Mul(a, a, c, n);
    Adds(b, b, half(1.0F), n);
    Reciprocal(b, b, n);
    Add(a, a, b, n);
    LeakyRelu(a, a, half(0.1F), n);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(yGm, a, n);
}

// z = max(x, y) on the elements the mask register enables (bits 0-15 and 32-47 of each fp32
// repeat), z = -1 elsewhere.
extern "C" __global__ __aicore__ void masked_max(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t racy) {
    constexpr uint32_t n = 128;  // fp32: 2 repeats of 64
    TPipe pipe;
    TBuf<TPosition::VECCALC> calc;
    pipe.InitBuffer(calc, 3 * n * sizeof(float));
    GlobalTensor<float> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, n);
    yGm.SetGlobalBuffer((__gm__ float*)y, n);
    zGm.SetGlobalBuffer((__gm__ float*)z, n);
    LocalTensor<float> a = calc.Get<float>();
    LocalTensor<float> b = a[n];
    LocalTensor<float> r = a[2 * n];
    Duplicate(r, -1.0F, n);
    DataCopy(a, xGm, n);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    DataCopy(b, yGm, n);  // RACY(masked_max) RAW first
    if (racy == 0) {
        SetFlag<HardEvent::MTE2_V>(EVENT_ID1);
        WaitFlag<HardEvent::MTE2_V>(EVENT_ID1);
    }
    SetVectorMask<float>(0, 0x0000FFFF0000FFFFULL);
    BinaryRepeatParams params;
    Max<float, false>(r, a, b, MASK_PLACEHOLDER, 2, params);  // RACY(masked_max) RAW second
    ResetMask();
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(zGm, r, n);
}
