// Bit shifts, index vectors and the newer reduction spellings: a hash of positions by
// CreateVecIndex + ShiftLeft / ShiftRight (count and mask/repeat forms), and a two-level sum by
// ReduceDataBlock + ReduceRepeat in counter mode timed with GetSystemCycle, in the static-tensor
// style with explicit flags. `racy` != 0 drops the synchronization marked RACY(<kernel>).
#include "kernel_operator.h"

using namespace AscendC;

// out[i] = ((i + 5) << 3) >> 1 as int32 (arithmetic) and, for the 128 uint16 elements,
// ((x[i] << 4) >> 6) logical; the int32 right shift is the mask/repeat form over 2 repeats.
extern "C" __global__ __aicore__ void shift_index(GM_ADDR x, GM_ADDR out, GM_ADDR bits,
                                                  uint32_t racy) {
    constexpr uint32_t n = 128;
    LocalMemAllocator<Hardware::UB> ub;
    LocalTensor<int32_t> index = ub.Alloc<int32_t>(n);
    LocalTensor<int32_t> shifted = ub.Alloc<int32_t>(n);
    LocalTensor<uint16_t> in = ub.Alloc<uint16_t>(n);
    LocalTensor<uint16_t> work = ub.Alloc<uint16_t>(n);
    GlobalTensor<uint16_t> xGm, bGm;
    GlobalTensor<int32_t> oGm;
    xGm.SetGlobalBuffer((__gm__ uint16_t*)x, n);
    oGm.SetGlobalBuffer((__gm__ int32_t*)out, n);
    bGm.SetGlobalBuffer((__gm__ uint16_t*)bits, n);
    DataCopy(in, xGm, n);
    CreateVecIndex(index, int32_t(-5), n);
    PipeBarrier<PIPE_V>();
    ShiftLeft(shifted, index, int32_t(3), n);
    PipeBarrier<PIPE_V>();
    ShiftRight(shifted, shifted, int32_t(1), uint64_t(64), 2, {1, 1, 8, 8});
    SetFlag<HardEvent::V_MTE3>(EVENT_ID1);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID1);
    DataCopy(oGm, shifted, n);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    ShiftLeft(work, in, uint16_t(4), n);
    PipeBarrier<PIPE_V>();
    // RACY(shift_index) RAW first
    ShiftRight(work, work, uint16_t(6), n);
    if (racy == 0) {
        SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
        WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    }
    DataCopy(bGm, work, n);  // RACY(shift_index) RAW second
}

// sum[0] = the sum of 1000 floats: ReduceDataBlock<SUM> per 32-byte block (125 partial sums),
// then ReduceRepeat<SUM> per repeat (2) and once more; cycles[0] = the GetSystemCycle span.
extern "C" __global__ __aicore__ void reduce_repeat(GM_ADDR x, GM_ADDR sum, GM_ADDR cycles,
                                                    uint32_t racy) {
    constexpr uint32_t n = 1000;
    LocalMemAllocator<Hardware::UB> ub;
    LocalTensor<float> in = ub.Alloc<float>(n);
    LocalTensor<float> blocks = ub.Alloc<float>(128);
    LocalTensor<float> repeats = ub.Alloc<float>(8);
    LocalTensor<int32_t> span = ub.Alloc<int32_t>(8);
    GlobalTensor<float> xGm, sGm;
    GlobalTensor<int32_t> cGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, n);
    sGm.SetGlobalBuffer((__gm__ float*)sum, 8);
    cGm.SetGlobalBuffer((__gm__ int32_t*)cycles, 8);
    DataCopy(in, xGm, n);  // RACY(reduce_repeat) RAW first
    if (racy == 0) {
        SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    }
    const int64_t start = GetSystemCycle();
    Duplicate(repeats, 0.0F, 8);
    SetMaskCount();
    SetVectorMask<float, MaskMode::COUNTER>(0, n);
    // RACY(reduce_repeat) RAW second
    ReduceDataBlock<ReduceType::SUM, float, float, false>(blocks, in, MASK_PLACEHOLDER, 1, 1, 1, 8);
    PipeBarrier<PIPE_V>();
    SetVectorMask<float, MaskMode::COUNTER>(0, DivCeil(n, 8));
    ReduceRepeat<ReduceType::SUM, float, float, false>(repeats, blocks, MASK_PLACEHOLDER, 1, 1, 1,
                                                       8);
    PipeBarrier<PIPE_V>();
    SetMaskNorm();
    ResetMask();
    ReduceRepeat<ReduceType::SUM, float>(repeats, repeats, 2, 1, 1, 1, 8);
    const int64_t stop = GetSystemCycle();
    Duplicate(span, static_cast<int32_t>(stop - start), 8);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(sGm, repeats, 8);
    DataCopy(cGm, span, 8);
}

// The compare register: Compare's register form (one repeat of 64 floats), GetCmpMask into
// bits, Select<VSEL_CMPMASK_SPR> over the register (min(a, b)), and the count-form Select with
// VSEL_CMPMASK_SPR over 128 floats (every 64 use the same first 64 bits of sel); the bits,
// x[2..6) and lo as 2 x 2 printed by DumpTensor / DumpAccChkPoint.
extern "C" __global__ __aicore__ void cmp_register(GM_ADDR x, GM_ADDR sel, GM_ADDR out,
                                                   uint32_t racy) {
    constexpr uint32_t n = 128;
    LocalMemAllocator<Hardware::UB> ub;
    LocalTensor<float> a = ub.Alloc<float>(n);
    LocalTensor<float> b = ub.Alloc<float>(n);
    LocalTensor<uint8_t> s = ub.Alloc<uint8_t>(32);
    LocalTensor<float> lo = ub.Alloc<float>(64);
    LocalTensor<float> picked = ub.Alloc<float>(n);
    LocalTensor<uint8_t> bits = ub.Alloc<uint8_t>(32);
    GlobalTensor<float> xGm, oGm;
    GlobalTensor<uint8_t> sGm, bGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 2 * n);
    bGm.SetGlobalBuffer((__gm__ uint8_t*)out + (64 + n) * sizeof(float), 32);
    sGm.SetGlobalBuffer((__gm__ uint8_t*)sel, 32);
    oGm.SetGlobalBuffer((__gm__ float*)out, 64 + n);
    DataCopy(a, xGm, n);
    DataCopy(b, xGm[n], n);
    DataCopy(s, sGm, 32);
    Duplicate(bits.ReinterpretCast<float>(), 0.0F, 8);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID1);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID1);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Compare(a, b, CMPMODE::LT, uint64_t(64), BinaryRepeatParams{});
    PipeBarrier<PIPE_V>();
    GetCmpMask(bits);  // RACY(cmp_register) RAW first
    Select<float, SELMODE::VSEL_CMPMASK_SPR>(lo, a, b, 1, BinaryRepeatParams{});
    PipeBarrier<PIPE_V>();
    Select(picked, s, a, b, SELMODE::VSEL_CMPMASK_SPR, n);
    if (racy == 0) {
        SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
        WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
        DataCopy(oGm, lo, 64);
        DataCopy(oGm[64], picked, n);
        // The dumps (each drains every pipe, so not in the racy variant).
        DumpTensor(bits, 7, 8);
        DumpAccChkPoint(xGm, 3, 2, 4);
        const uint32_t dims[] = {2, 2};
        DumpTensor(lo, 9, 4, ShapeInfo(2, dims));
    }
    DataCopy(bGm, bits, 32);  // RACY(cmp_register) RAW second
}

// The mask/repeat reductions over 512 halves and the reduction registers: out[0..1] =
// ReduceMax over 4 dense repeats with its index, out[16] = ReduceSum of the first 64 of each
// repeat (four runs: through work), out[3] = GetReduceRepeatSumSpr after a count-form
// ReduceSum of 256, out[4..5] = GetReduceRepeatMaxMinSpr after ReduceMin with its index,
// out[24..32) = ReducePairElem<SUM> of x[0..16).
extern "C" __global__ __aicore__ void reduce_spr(GM_ADDR x, GM_ADDR out, uint32_t racy) {
    constexpr uint32_t n = 512;
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQ;
    TQue<TPosition::VECOUT, 1> outQ;
    TBuf<TPosition::VECCALC> workBuf, resBuf;
    pipe.InitBuffer(inQ, 1, n * sizeof(half));
    pipe.InitBuffer(outQ, 1, 32 * sizeof(half));
    pipe.InitBuffer(workBuf, 64 * sizeof(half));
    pipe.InitBuffer(resBuf, 32 * sizeof(half));
    GlobalTensor<half> xGm, oGm;
    xGm.SetGlobalBuffer((__gm__ half*)x, n);
    oGm.SetGlobalBuffer((__gm__ half*)out, 32);
    LocalTensor<half> in = inQ.AllocTensor<half>();
    DataCopy(in, xGm, n);
    inQ.EnQue(in);
    in = inQ.DeQue<half>();
    LocalTensor<half> work = workBuf.Get<half>();
    LocalTensor<half> res = resBuf.Get<half>();
    LocalTensor<half> o = outQ.AllocTensor<half>();
    Duplicate(o, half(0), 32);
    ReducePairElem<ReduceType::SUM, half>(o[24], in, 16, 1, 1, 1, 8);
    ReduceMax<half>(o, in, work, 128, 4, 8, true);
    PipeBarrier<PIPE_V>();
    ReduceSum<half>(o[16], in, work, 64, 4, 8);
    PipeBarrier<PIPE_V>();
    ReduceSum<half>(res, in, work, 256);
    const half sum = GetReduceRepeatSumSpr<half>();
    ReduceMin<half>(res[16], in, work, 512, true);
    half value, index;
    GetReduceRepeatMaxMinSpr<half>(value, index);
    (void)racy;  // the automatic synchronization orders every access here: no racy variant
    o.SetValue(3, sum);
    o.SetValue(4, value);
    o.SetValue(5, index);
    outQ.EnQue(o);
    o = outQ.DeQue<half>();
    DataCopy(oGm, o, 32);
    outQ.FreeTensor(o);
    inQ.FreeTensor(in);
}

// DataCopy with SliceInfo: of a 4 x 40 float tensor, rows 1 and 3, of each the slices 8..15
// and 20..27 (one block each, 4 elements apart), packed into 2 x 16 in UB and copied out so.
extern "C" __global__ __aicore__ void slice_copy(GM_ADDR x, GM_ADDR out, uint32_t racy) {
    LocalTensor<float> packed(TPosition::VECIN, 0, 32);
    GlobalTensor<float> xGm, oGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 160);
    oGm.SetGlobalBuffer((__gm__ float*)out, 32);
    SliceInfo src[] = {{8, 27, 4, 1, 40}, {1, 3, 1, 1, 4}};
    SliceInfo dst[] = {{0, 15, 0, 1, 16}, {0, 1, 0, 1, 2}};
    DataCopy(packed, xGm, dst, src, 2);  // RACY(slice_copy) RAW first
    if (racy == 0) {
        SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    }
    DataCopy(oGm, packed, dst, dst, 2);  // RACY(slice_copy) RAW second
}
