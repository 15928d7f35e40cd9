// The bodies of the example kernels that ship with the library (sim/kernels/builtin_kernels.h runs
// them by name): plain Block API code, called directly by tests and the benchmark. Checker
// tests and docs/checker.md name lines of builtin_kernel_bodies.cpp; they find them by text.
#pragma once

#include <cstdint>

#include "base/tensor.h"
#include "core/block.h"

namespace npusim {

namespace kernels {

/// z = x + y over fp32 vectors split evenly across blocks, in tiles of `tile` elements.
struct VectorAddArgs {
    GlobalTensor<float> x;
    GlobalTensor<float> y;
    GlobalTensor<float> z;
    std::uint64_t tile = 0;
};
/// One UB tile per operand: load, add, store, strictly one after another.
void vector_add_single_buffered(Block& b, const VectorAddArgs& args);
/// Two UB tiles per operand, ping-pong: loads of tile t+1 overlap add/store of tile t.
void vector_add_double_buffered(Block& b, const VectorAddArgs& args);

/// The classic SyncAll reduction: each block doubles its slice, writes it to GM, waits at a
/// barrier, then adds every other block's slice from GM into its own result. With inputs all
/// 1.0 every output element is 2 x blocks. sync: 0 none (racy), 1 hard, 2 soft SyncAll.
struct ReductionArgs {
    GlobalTensor<float> input;                  // blocks x elements
    GlobalTensor<float> work;                   // blocks x elements
    GlobalTensor<float> output;                 // blocks x elements
    GlobalTensor<std::int32_t> sync_workspace;  // soft SyncAll: blocks x 8, zeroed
    std::uint64_t elements = 32;                // per block, multiple of 8
    std::uint32_t sync = 1;
};
void syncall_reduction(Block& b, const ReductionArgs& args);

/// MIX_AIC_1_2: the cube core computes C = A x B (fp16 in, fp32 out) into GM and signals its
/// two vector cores with a mode-2 cross-core flag; each post-processes half the rows:
/// out = relu(C) * 0.5.
struct MixMatmulArgs {
    GlobalTensor<half> a;     // m x k, row-major
    GlobalTensor<half> b;     // k x n
    GlobalTensor<float> c;    // m x n (workspace)
    GlobalTensor<float> out;  // m x n
    std::uint32_t m = 32, n = 32, k = 32;
};
void mix_matmul_postprocess(Block& b, const MixMatmulArgs& args);

/// out = (x + x) * 2 per tile, both steps on PIPE_V. The second op reads what the first
/// wrote: without PipeBarrier<PIPE_V> between them (barrier = false) it reads stale data.
struct VectorChainArgs {
    GlobalTensor<float> x;
    GlobalTensor<float> out;
    std::uint64_t tile = 256;
    bool barrier = true;
};
void vector_chain(Block& b, const VectorChainArgs& args);

/// Scalar work: each block keeps its scalar unit busy for at least `cycles` cycles (UB
/// scalar loads, so it touches no GM), then, if `write`, stores `value` to out[block_idx].
/// A long-running kernel for event-query scenarios.
struct BusyArgs {
    GlobalTensor<std::int32_t> out;  // blocks elements; unused when !write
    std::uint64_t cycles = 1000;
    std::int32_t value = 1;
    bool write = true;
};
void busy(Block& b, const BusyArgs& args);

/// `count` rounds of: store a value to this block's slot of `data`, SyncAll (hard, or soft
/// through `workspace`), load the next block's slot and keep what it read in this block's
/// slot. Slots alternate between two halves per round, so a round's writes never meet the
/// previous round's reads. More blocks than cores make the hard form wait forever.
/// data[16 * b + 8 * (r % 2)] = syncall_value(r, b); data[... + 1] = the neighbour's value.
struct SyncAllArgs {
    GlobalTensor<float> data;              // blocks x 16
    GlobalTensor<std::int32_t> workspace;  // soft: blocks x 8, zeroed
    std::uint32_t count = 1;
    bool soft = false;
};
void syncall(Block& b, const SyncAllArgs& args);
float syncall_value(std::uint32_t round, std::uint32_t block);

}  // namespace kernels

}  // namespace npusim
