// Element-type kernels in the explicit-flag style (TBuf scratch, SetFlag / WaitFlag written by
// hand): uint8, int16, uint16, uint32, int64 and bf16 through copies, casts and vector ops.
// `racy` != 0 drops the flag pair marked RACY(<kernel>) so the checker must find the hazard.
#include "kernel_operator.h"

using namespace AscendC;

constexpr uint32_t kLen = 256;

// z(int16) = Cast<int16, RINT>(Cast<half>(x(uint8)) * 0.5 - 3)
extern "C" __global__ __aicore__ void u8_scale_i16(GM_ADDR x, GM_ADDR z, uint32_t racy) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, kLen * (sizeof(uint8_t) + sizeof(half) + sizeof(int16_t)));
    GlobalTensor<uint8_t> xGm;
    GlobalTensor<int16_t> zGm;
    xGm.SetGlobalBuffer((__gm__ uint8_t*)x, kLen);
    zGm.SetGlobalBuffer((__gm__ int16_t*)z, kLen);
    LocalTensor<uint8_t> in = buf.Get<uint8_t>();
    LocalTensor<half> wide = buf.GetWithOffset<half>(kLen, kLen);
    LocalTensor<int16_t> out = buf.GetWithOffset<int16_t>(kLen, kLen * 3);
    DataCopy(in, xGm, kLen);  // RACY(u8_scale_i16) RAW first
    if (racy == 0) {
        SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    }
    Cast(wide, in, RoundMode::CAST_NONE, kLen);  // RACY(u8_scale_i16) RAW second
    Muls(wide, wide, half(0.5F), kLen);
    Adds(wide, wide, half(-3.0F), kLen);
    Cast(out, wide, RoundMode::CAST_RINT, kLen);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(zGm, out, kLen);
}

// r = [x & y, x | y, ~x] on uint16
extern "C" __global__ __aicore__ void u16_bits(GM_ADDR x, GM_ADDR y, GM_ADDR r, uint32_t racy) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 5 * kLen * sizeof(uint16_t));
    GlobalTensor<uint16_t> xGm, yGm, rGm;
    xGm.SetGlobalBuffer((__gm__ uint16_t*)x, kLen);
    yGm.SetGlobalBuffer((__gm__ uint16_t*)y, kLen);
    rGm.SetGlobalBuffer((__gm__ uint16_t*)r, 3 * kLen);
    LocalTensor<uint16_t> a = buf.Get<uint16_t>();
    LocalTensor<uint16_t> b = a[kLen];
    LocalTensor<uint16_t> res = a[2 * kLen];
    DataCopy(a, xGm, kLen);
    DataCopy(b, yGm, kLen);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    And(res, a, b, kLen);
    Or(res[kLen], a, b, kLen);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(rGm, res, 2 * kLen);
    Not(res[2 * kLen], a, kLen);  // RACY(u16_bits) RAW first
    if (racy == 0) {
        SetFlag<HardEvent::V_MTE3>(EVENT_ID1);
        WaitFlag<HardEvent::V_MTE3>(EVENT_ID1);
    }
    DataCopy(rGm[2 * kLen], res[2 * kLen], kLen);  // RACY(u16_bits) RAW second
}

// z(int64) = x(int64) + Cast<int64>(y(int32)); m(uint32) = Maxs(u(uint32), 1000)
extern "C" __global__ __aicore__ void i64_u32(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR u, GM_ADDR m,
                                              uint32_t racy) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, kLen * (3 * sizeof(int64_t) + sizeof(int32_t) + 2 * sizeof(uint32_t)));
    GlobalTensor<int64_t> xGm, zGm;
    GlobalTensor<int32_t> yGm;
    GlobalTensor<uint32_t> uGm, mGm;
    xGm.SetGlobalBuffer((__gm__ int64_t*)x, kLen);
    yGm.SetGlobalBuffer((__gm__ int32_t*)y, kLen);
    zGm.SetGlobalBuffer((__gm__ int64_t*)z, kLen);
    uGm.SetGlobalBuffer((__gm__ uint32_t*)u, kLen);
    mGm.SetGlobalBuffer((__gm__ uint32_t*)m, kLen);
    LocalTensor<int64_t> a = buf.Get<int64_t>();
    LocalTensor<int64_t> wide = a[kLen];
    LocalTensor<int64_t> sum = a[2 * kLen];
    LocalTensor<int32_t> narrow = buf.GetWithOffset<int32_t>(kLen, 3 * kLen * sizeof(int64_t));
    LocalTensor<uint32_t> uu =
        buf.GetWithOffset<uint32_t>(2 * kLen, 3 * kLen * sizeof(int64_t) + kLen * sizeof(int32_t));
    DataCopy(a, xGm, kLen);
    DataCopy(narrow, yGm, kLen);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Cast(wide, narrow, RoundMode::CAST_NONE, kLen);
    Add(sum, a, wide, kLen);
    DataCopy(uu, uGm, kLen);  // RACY(i64_u32) RAW first
    if (racy == 0) {
        SetFlag<HardEvent::MTE2_V>(EVENT_ID1);
        WaitFlag<HardEvent::MTE2_V>(EVENT_ID1);
    }
    Maxs(uu[kLen], uu, 1000U, kLen);  // RACY(i64_u32) RAW second
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(zGm, sum, kLen);
    DataCopy(mGm, uu[kLen], kLen);
}

// z(bf16) = Cast<bf16, RINT>(Exp(Cast<float>(x(bf16))))
extern "C" __global__ __aicore__ void bf16_exp(GM_ADDR x, GM_ADDR z, uint32_t racy) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, kLen * (2 * sizeof(bfloat16_t) + sizeof(float)));
    GlobalTensor<bfloat16_t> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ bfloat16_t*)x, kLen);
    zGm.SetGlobalBuffer((__gm__ bfloat16_t*)z, kLen);
    LocalTensor<bfloat16_t> in = buf.Get<bfloat16_t>();
    LocalTensor<bfloat16_t> out = in[kLen];
    LocalTensor<float> f = buf.GetWithOffset<float>(kLen, 2 * kLen * sizeof(bfloat16_t));
    DataCopy(in, xGm, kLen);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Cast(f, in, RoundMode::CAST_NONE, kLen);
    Exp(f, f, kLen);
    Cast(out, f, RoundMode::CAST_RINT, kLen);  // RACY(bf16_exp) RAW first
    if (racy == 0) {
        SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
        WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    }
    DataCopy(zGm, out, kLen);  // RACY(bf16_exp) RAW second
}

// 4-bit integers: q (int4b_t, 512 packed in 256 bytes) = Cast<CEIL>(x(half)) in the mask /
// repeat form (mask 128, 4 repeats, dst repeats 2 blocks apart, as the vendor's cast sample);
// z(half) = Cast(q) back in the count form, so z = clamp(ceil(x), -8, 7).
extern "C" __global__ __aicore__ void int4_cast(GM_ADDR x, GM_ADDR q, GM_ADDR z, uint32_t racy) {
    constexpr uint32_t n = 512;
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, n * sizeof(half) * 2 + n / 2);
    GlobalTensor<half> xGm, zGm;
    GlobalTensor<int4b_t> qGm;
    xGm.SetGlobalBuffer((__gm__ half*)x, n);
    qGm.SetGlobalBuffer((__gm__ int4b_t*)q, n);
    zGm.SetGlobalBuffer((__gm__ half*)z, n);
    LocalTensor<half> in = buf.Get<half>(n);
    LocalTensor<half> back = buf.GetWithOffset<half>(n, n * sizeof(half));
    LocalTensor<int4b_t> packed =
        buf.GetWithOffset<int8_t>(n / 2, n * sizeof(half) * 2).ReinterpretCast<int4b_t>();
    DataCopy(in, xGm, n);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Cast<int4b_t, half>(packed, in, RoundMode::CAST_CEIL, 128, 4, {1, 1, 2, 8});
    Cast(back, packed, RoundMode::CAST_NONE, n);  // RACY(int4_cast) RAW first
    if (racy == 0) {
        SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
        WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    }
    DataCopy(zGm, back, n);  // RACY(int4_cast) RAW second
    SetFlag<HardEvent::V_MTE3>(EVENT_ID1);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID1);
    DataCopy(qGm, packed, n);
}
