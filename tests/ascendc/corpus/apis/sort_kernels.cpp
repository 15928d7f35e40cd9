// Sorting and gathering kernels: a top-k by Sort32 + MrgSort over 128 half scores, and a
// compaction by GatherMask (a pattern tensor from Compare) followed by a Gather through byte
// offsets. `racy` != 0 drops the synchronization marked RACY(<kernel>).
#include "kernel_operator.h"

using namespace AscendC;

// The 32 largest of 128 half scores with their positions, as (score, index) pairs: four
// Sort32 repeats, then one MrgSort of the four sorted queues; the first 32 pairs go out.
extern "C" __global__ __aicore__ void topk_sort(GM_ADDR scores, GM_ADDR top, uint32_t racy) {
    constexpr uint32_t n = 128, k = 32;
    constexpr uint32_t perPair = 8 / sizeof(half);  // halves per (score, index) pair
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TBuf<TPosition::VECCALC> calc;
    pipe.InitBuffer(inQueue, 1, n * sizeof(half));
    pipe.InitBuffer(calc, n * sizeof(uint32_t) + 2 * n * 8);
    GlobalTensor<half> sGm, tGm;
    sGm.SetGlobalBuffer((__gm__ half*)scores, n);
    tGm.SetGlobalBuffer((__gm__ half*)top, k * perPair);
    LocalTensor<half> s = inQueue.AllocTensor<half>();
    DataCopy(s, sGm, n);
    inQueue.EnQue(s);
    s = inQueue.DeQue<half>();
    LocalTensor<uint32_t> positions = calc.Get<uint32_t>(n);
    LocalTensor<half> sorted = calc.GetWithOffset<half>(n * perPair, n * sizeof(uint32_t));
    LocalTensor<half> merged = calc.GetWithOffset<half>(n * perPair, n * sizeof(uint32_t) + n * 8);
    for (uint32_t i = 0; i < n; ++i) positions.SetValue(i, i);
    Sort32<half>(sorted, s, positions, n / 32);
    MrgSort4Info params;
    params.elementLengths[0] = params.elementLengths[1] = 32;
    params.elementLengths[2] = params.elementLengths[3] = 32;
    params.validBit = 0b1111;
    params.repeatTimes = 1;
    MrgSortSrcList<half> queues(sorted[0], sorted[32 * perPair], sorted[64 * perPair],
                                sorted[96 * perPair]);
    // RACY(topk_sort) RAW first
    MrgSort<half>(merged, queues, params);
    if (racy == 0) {
        SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
        WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    }
    DataCopy(tGm, merged, k * perPair);  // RACY(topk_sort) RAW second
    inQueue.FreeTensor(s);
}

// out[0..kept) = the positive elements of x in order (GatherMask with the bits of a Compare),
// out[128 + i] = x[127 - i] (Gather through byte offsets); count[0..8) = kept.
extern "C" __global__ __aicore__ void gather_pick(GM_ADDR x, GM_ADDR out, GM_ADDR count,
                                                  uint32_t racy) {
    constexpr uint32_t n = 128;
    TPipe pipe;
    TBuf<TPosition::VECCALC> calc;
    pipe.InitBuffer(calc, 5 * n * sizeof(float) + n * sizeof(uint32_t) + 64);
    GlobalTensor<float> xGm, oGm;
    GlobalTensor<int32_t> cGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, n);
    oGm.SetGlobalBuffer((__gm__ float*)out, 2 * n);
    cGm.SetGlobalBuffer((__gm__ int32_t*)count, 8);
    LocalTensor<float> in = calc.Get<float>();
    LocalTensor<float> work = in[n];
    LocalTensor<float> zero = in[2 * n];
    LocalTensor<float> res = in[3 * n];
    LocalTensor<uint32_t> offsets = in[5 * n].ReinterpretCast<uint32_t>();
    LocalTensor<uint8_t> bits = calc.GetWithOffset<uint8_t>(64, 6 * n * sizeof(float));
    DataCopy(in, xGm, n);  // RACY(gather_pick) RAW first
    if (racy == 0) {
        SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    }
    Adds(work, in, 0.0F, n);  // RACY(gather_pick) RAW second
    Duplicate(zero, 0.0F, n);
    Duplicate(res, 0.0F, 2 * n);
    Compare(bits, work, zero, CMPMODE::GT, n);
    uint64_t kept = 0;
    GatherMask(res, work, bits.ReinterpretCast<uint32_t>(), true, n, {1, 1, 8, 0}, kept);
    for (uint32_t i = 0; i < n; ++i) offsets.SetValue(i, (n - 1 - i) * sizeof(float));
    Gather(res[n], work, offsets, uint32_t(0), n);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(oGm, res, 2 * n);
    LocalTensor<int32_t> c = zero.ReinterpretCast<int32_t>();
    Duplicate(c, static_cast<int32_t>(kept), 8);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(cGm, c, 8);
}

// Transposes and a suspended merge over x (864 halves), into out (1120 halves) and counts:
// out[0, 256) = x[0, 256) as a 16 x 16 matrix transposed (Transpose); out[256, 352) = x[256,
// 352) as [N 2, C 3, H 2, W 8] in [N, H, W, C] order (TransposeParamsExt); out[352, 864) =
// x[352, 864) as 16 channels of 32 values in [HW, C0] order (TransDataTo5HD, two repeats);
// out[864, 1120) = two Sort32 queues of x[352, 416) merged until one is used up (MrgSort with
// ifExhaustedSuspension), zeros after; counts[0, 2) = the pairs taken of each (GetMrgSortResult).
extern "C" __global__ __aicore__ void transpose_merge(GM_ADDR x, GM_ADDR out, GM_ADDR counts,
                                                      uint32_t racy) {
    constexpr uint32_t n = 864, total = 1120, tmpBytes = 2560, perPair = 8 / sizeof(half);
    TPipe pipe;
    TBuf<TPosition::VECCALC> calc;
    pipe.InitBuffer(calc, (n + total) * sizeof(half) + tmpBytes + 64 * 4 + 64 * 8 + 32);
    GlobalTensor<half> xGm, oGm;
    GlobalTensor<int32_t> cGm;
    xGm.SetGlobalBuffer((__gm__ half*)x, n);
    oGm.SetGlobalBuffer((__gm__ half*)out, total);
    cGm.SetGlobalBuffer((__gm__ int32_t*)counts, 8);
    LocalTensor<half> in = calc.Get<half>();
    LocalTensor<half> res = in[n];
    LocalTensor<uint8_t> tmp = calc.GetWithOffset<uint8_t>(tmpBytes, (n + total) * sizeof(half));
    const uint32_t posAt = (n + total) * sizeof(half) + tmpBytes;
    LocalTensor<uint32_t> positions = calc.GetWithOffset<uint32_t>(64, posAt);
    LocalTensor<half> sorted = calc.GetWithOffset<half>(64 * perPair, posAt + 64 * 4);
    LocalTensor<int32_t> taken = calc.GetWithOffset<int32_t>(8, posAt + 64 * 4 + 64 * 8);
    DataCopy(in[256], xGm[256], n - 256);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    DataCopy(in, xGm, 256);  // RACY(transpose_merge) RAW first
    if (racy == 0) {
        SetFlag<HardEvent::MTE2_V>(EVENT_ID1);
        WaitFlag<HardEvent::MTE2_V>(EVENT_ID1);
    }
    Transpose<half>(res, in);  // RACY(transpose_merge) RAW second
    TransposeParamsExt ext(2, 3, 2, 8, TransposeType::TRANSPOSE_NCHW2NHWC);
    Transpose(res[256], in[256], tmp, ext);
    TransDataTo5HDParams params(false, false, 2, 16, 1);
    uint64_t dstList[16], srcList[16];
    for (int i = 0; i < 16; ++i) {
        dstList[i] = (uint64_t)res[352 + 16 * i].GetPhyAddr();
        srcList[i] = (uint64_t)in[352 + 32 * i].GetPhyAddr();
    }
    TransDataTo5HD<half>(dstList, srcList, params);
    for (uint32_t i = 0; i < 64; ++i) positions.SetValue(i, i);
    Sort32<half>(sorted, in[352], positions, 2);
    Duplicate(res[864], half(0), 256);
    const uint16_t lengths[4] = {32, 32, 0, 0};
    MrgSort(res[864], MrgSortSrcList<half>(sorted, sorted[32 * perPair], sorted, sorted),
            MrgSort4Info(lengths, true, 3, 1));
    uint16_t first = 0, second = 0, third = 0, fourth = 0;
    GetMrgSortResult(first, second, third, fourth);
    Duplicate(taken, 0, 8);
    taken.SetValue(0, first);
    taken.SetValue(1, second);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(oGm, res, total);
    DataCopy(cGm, taken, 8);
}
