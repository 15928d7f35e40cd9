// Atomic copy-out from every block into one row (the op-package style: each block adds its
// partial result into GM). `racy` != 0 drops the atomic mode, so the plain writes of the
// blocks race each other.
#include "kernel_operator.h"

using namespace AscendC;

constexpr uint32_t kRow = 128;

// acc(int16)[i] += blockIdx + 1 from every block.
extern "C" __global__ __aicore__ void atomic_add_i16(GM_ADDR acc, uint32_t racy) {
    TPipe pipe;
    TQue<TPosition::VECOUT, 1> outQueue;
    pipe.InitBuffer(outQueue, 1, kRow * sizeof(int16_t));
    GlobalTensor<int16_t> accGm;
    accGm.SetGlobalBuffer((__gm__ int16_t*)acc, kRow);
    LocalTensor<int16_t> part = outQueue.AllocTensor<int16_t>();
    Duplicate(part, static_cast<int16_t>(GetBlockIdx() + 1), kRow);
    outQueue.EnQue(part);
    part = outQueue.DeQue<int16_t>();
    if (racy == 0) SetAtomicAdd<int16_t>();
    DataCopy(accGm, part, kRow);  // RACY(atomic_add_i16) WAW first second
    DisableDmaAtomic();
    outQueue.FreeTensor(part);
}

// acc(bf16)[i] = max(acc[i], x[i] * (blockIdx + 1)) from every block.
extern "C" __global__ __aicore__ void atomic_max_bf16(GM_ADDR x, GM_ADDR acc, uint32_t racy) {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    TBuf<TPosition::VECCALC> calc;
    pipe.InitBuffer(inQueue, 1, kRow * sizeof(bfloat16_t));
    pipe.InitBuffer(outQueue, 1, kRow * sizeof(bfloat16_t));
    pipe.InitBuffer(calc, kRow * sizeof(float));
    GlobalTensor<bfloat16_t> xGm, accGm;
    xGm.SetGlobalBuffer((__gm__ bfloat16_t*)x, kRow);
    accGm.SetGlobalBuffer((__gm__ bfloat16_t*)acc, kRow);
    LocalTensor<bfloat16_t> in = inQueue.AllocTensor<bfloat16_t>();
    DataCopy(in, xGm, kRow);
    inQueue.EnQue(in);
    in = inQueue.DeQue<bfloat16_t>();
    LocalTensor<float> f = calc.Get<float>();
    Cast(f, in, RoundMode::CAST_NONE, kRow);
    Muls(f, f, static_cast<float>(GetBlockIdx() + 1), kRow);
    LocalTensor<bfloat16_t> out = outQueue.AllocTensor<bfloat16_t>();
    Cast(out, f, RoundMode::CAST_RINT, kRow);
    outQueue.EnQue(out);
    inQueue.FreeTensor(in);
    out = outQueue.DeQue<bfloat16_t>();
    if (racy == 0) SetAtomicMax<bfloat16_t>();
    DataCopy(accGm, out, kRow);  // RACY(atomic_max_bf16) WAW first second
    DisableDmaAtomic();
    outQueue.FreeTensor(out);
}
