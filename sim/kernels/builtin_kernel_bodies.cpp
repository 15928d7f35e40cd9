#include "sim/kernels/builtin_kernel_bodies.h"

namespace npusim {

namespace kernels {

namespace {
struct BlockSlice {
    std::uint64_t offset;
    std::uint64_t tiles;
};
BlockSlice slice_of(const Block& b, const VectorAddArgs& args) {
    const std::uint64_t per_block = args.x.count / b.block_num();
    return {per_block * b.block_idx(), per_block / args.tile};
}
}  // namespace

void vector_add_single_buffered(Block& b, const VectorAddArgs& args) {
    const auto [offset, tiles] = slice_of(b, args);
    const std::uint64_t n = args.tile;
    auto xs = b.alloc<float>(MemSpace::UB, n);
    auto ys = b.alloc<float>(MemSpace::UB, n);
    auto zs = b.alloc<float>(MemSpace::UB, n);
    for (std::uint64_t t = 0; t < tiles; ++t) {
        const std::uint64_t at = offset + t * n;
        b.copy(xs, args.x.sub(at, n), n);
        b.copy(ys, args.y.sub(at, n), n);
        b.set_flag(Pipe::MTE2, Pipe::V, 0);
        b.wait_flag(Pipe::MTE2, Pipe::V, 0);
        b.add(zs, xs, ys, n);
        b.set_flag(Pipe::V, Pipe::MTE3, 0);
        b.wait_flag(Pipe::V, Pipe::MTE3, 0);
        b.copy(args.z.sub(at, n), zs, n);
        // The next loads overwrite xs/ys (read by V, done before MTE3 started) and the next
        // add overwrites zs (read by MTE3): wait for MTE3 before loading again.
        b.set_flag(Pipe::MTE3, Pipe::MTE2, 0);
        b.wait_flag(Pipe::MTE3, Pipe::MTE2, 0);
    }
}

void vector_add_double_buffered(Block& b, const VectorAddArgs& args) {
    const auto [offset, tiles] = slice_of(b, args);
    const std::uint64_t n = args.tile;
    LocalTensor<float> xs[2], ys[2], zs[2];
    for (int s = 0; s < 2; ++s) {
        xs[s] = b.alloc<float>(MemSpace::UB, n);
        ys[s] = b.alloc<float>(MemSpace::UB, n);
        zs[s] = b.alloc<float>(MemSpace::UB, n);
    }
    // Both buffers start free: pre-set the "free" flags that each stage waits for.
    for (std::uint32_t s = 0; s < 2; ++s) {
        b.set_flag(Pipe::V, Pipe::MTE2, s);
        b.set_flag(Pipe::MTE3, Pipe::V, s);
    }
    for (std::uint64_t t = 0; t < tiles; ++t) {
        const auto s = static_cast<std::uint32_t>(t % 2);
        const std::uint64_t at = offset + t * n;
        b.wait_flag(Pipe::V, Pipe::MTE2, s);  // V finished reading xs[s], ys[s]
        b.copy(xs[s], args.x.sub(at, n), n);
        b.copy(ys[s], args.y.sub(at, n), n);
        b.set_flag(Pipe::MTE2, Pipe::V, s);
        b.wait_flag(Pipe::MTE2, Pipe::V, s);
        b.wait_flag(Pipe::MTE3, Pipe::V, s);  // MTE3 finished reading zs[s]
        b.add(zs[s], xs[s], ys[s], n);
        b.set_flag(Pipe::V, Pipe::MTE2, s);
        b.set_flag(Pipe::V, Pipe::MTE3, s);
        b.wait_flag(Pipe::V, Pipe::MTE3, s);
        b.copy(args.z.sub(at, n), zs[s], n);
        b.set_flag(Pipe::MTE3, Pipe::V, s);
    }
    // Consume the trailing "free" flags so the core's flag state is clean for the next block.
    for (std::uint32_t s = 0; s < 2; ++s) {
        b.wait_flag(Pipe::V, Pipe::MTE2, s);
        b.wait_flag(Pipe::MTE3, Pipe::V, s);
    }
}

void syncall_reduction(Block& b, const ReductionArgs& args) {
    const std::uint64_t n = args.elements;
    const std::uint32_t blocks = b.block_num();
    const std::uint32_t me = b.block_idx();
    auto mine = b.alloc<float>(MemSpace::UB, n);
    auto other = b.alloc<float>(MemSpace::UB, n);
    b.copy(mine, args.input.sub(me * n, n), n);
    b.set_flag(Pipe::MTE2, Pipe::V, 0);
    b.wait_flag(Pipe::MTE2, Pipe::V, 0);
    b.muls(mine, mine, 2.0F, n);
    b.set_flag(Pipe::V, Pipe::MTE3, 0);
    b.wait_flag(Pipe::V, Pipe::MTE3, 0);
    b.copy(args.work.sub(me * n, n), mine, n);
    if (args.sync == 1) {
        b.sync_all();
    } else if (args.sync == 2) {
        auto ub_ws = b.alloc<std::int32_t>(MemSpace::UB, std::uint64_t{blocks} * 8);
        b.sync_all(args.sync_workspace, ub_ws, blocks);
    }
    b.set_flag(Pipe::V, Pipe::MTE2, 0);  // `other` starts free
    for (std::uint32_t k = 1; k < blocks; ++k) {
        const std::uint32_t from = (me + k) % blocks;
        b.wait_flag(Pipe::V, Pipe::MTE2, 0);
        b.copy(other, args.work.sub(from * n, n), n);
        b.set_flag(Pipe::MTE2, Pipe::V, 0);
        b.wait_flag(Pipe::MTE2, Pipe::V, 0);
        b.add(mine, mine, other, n);
        b.pipe_barrier(Pipe::V);  // the next add reads `mine`
        b.set_flag(Pipe::V, Pipe::MTE2, 0);
    }
    b.wait_flag(Pipe::V, Pipe::MTE2, 0);
    b.set_flag(Pipe::V, Pipe::MTE3, 0);
    b.wait_flag(Pipe::V, Pipe::MTE3, 0);
    b.copy(args.output.sub(me * n, n), mine, n);
}

void mix_matmul_postprocess(Block& b, const MixMatmulArgs& args) {
    const std::uint64_t m = args.m, n = args.n, k = args.k;
    if (b.core_type() == CoreType::Cube) {
        auto l1_a = b.alloc<half>(MemSpace::L1, m * k);
        auto l1_b = b.alloc<half>(MemSpace::L1, k * n);
        auto l0_a = b.alloc<half>(MemSpace::L0A, m * k);
        auto l0_b = b.alloc<half>(MemSpace::L0B, k * n);
        auto l0_c = b.alloc<float>(MemSpace::L0C, m * n);
        b.copy(l1_a, args.a, m * k);
        b.copy(l1_b, args.b, k * n);
        b.set_flag(Pipe::MTE2, Pipe::MTE1, 0);
        b.wait_flag(Pipe::MTE2, Pipe::MTE1, 0);
        b.copy(l0_a, l1_a, m * k);
        b.copy(l0_b, l1_b, k * n);
        b.set_flag(Pipe::MTE1, Pipe::M, 0);
        b.wait_flag(Pipe::MTE1, Pipe::M, 0);
        b.mmad(l0_c, l0_a, l0_b, args.m, args.n, args.k);
        b.set_flag(Pipe::M, Pipe::FIX, 0);
        b.wait_flag(Pipe::M, Pipe::FIX, 0);
        b.copy(args.c, l0_c, m * n);
        b.cross_core_set_flag(2, Pipe::FIX, 0);  // fires once C is in GM
        return;
    }
    const std::uint64_t rows = m / 2;
    const std::uint64_t count = rows * n;
    const std::uint64_t first = b.sub_block_idx() * count;
    auto tile = b.alloc<float>(MemSpace::UB, count);
    b.cross_core_wait_flag(0);
    b.copy(tile, args.c.sub(first, count), count);
    b.set_flag(Pipe::MTE2, Pipe::V, 0);
    b.wait_flag(Pipe::MTE2, Pipe::V, 0);
    b.relu(tile, tile, count);
    b.pipe_barrier(Pipe::V);
    b.muls(tile, tile, 0.5F, count);
    b.set_flag(Pipe::V, Pipe::MTE3, 0);
    b.wait_flag(Pipe::V, Pipe::MTE3, 0);
    b.copy(args.out.sub(first, count), tile, count);
}

void vector_chain(Block& b, const VectorChainArgs& args) {
    const std::uint64_t n = args.tile;
    const std::uint64_t per_block = args.x.count / b.block_num();
    auto in = b.alloc<float>(MemSpace::UB, n);
    auto tmp = b.alloc<float>(MemSpace::UB, n);
    for (std::uint64_t at = per_block * b.block_idx(); at < per_block * (b.block_idx() + 1);
         at += n) {
        b.copy(in, args.x.sub(at, n), n);
        b.set_flag(Pipe::MTE2, Pipe::V, 0);
        b.wait_flag(Pipe::MTE2, Pipe::V, 0);
        b.add(tmp, in, in, n);
        if (args.barrier) b.pipe_barrier(Pipe::V);
        b.muls(tmp, tmp, 2.0F, n);
        b.set_flag(Pipe::V, Pipe::MTE3, 0);
        b.wait_flag(Pipe::V, Pipe::MTE3, 0);
        b.copy(args.out.sub(at, n), tmp, n);
        b.set_flag(Pipe::MTE3, Pipe::MTE2, 0);  // next tile overwrites `in` and `tmp`
        b.wait_flag(Pipe::MTE3, Pipe::MTE2, 0);
    }
}

void busy(Block& b, const BusyArgs& args) {
    auto scratch = b.alloc<std::int32_t>(MemSpace::UB, 8);
    b.store(scratch, 0, std::int32_t{0});  // the loads below read initialized memory
    const Cycle start = b.now();
    while (b.now() - start < args.cycles) (void)b.load(scratch, 0);
    if (args.write) b.store(args.out, b.block_idx(), args.value);
}

float syncall_value(std::uint32_t round, std::uint32_t block) {
    return static_cast<float>(round % 256) * 65536.0F + static_cast<float>(block) + 1.0F;
}

void syncall(Block& b, const SyncAllArgs& args) {
    const std::uint32_t blocks = b.block_num();
    const std::uint32_t me = b.block_idx();
    const std::uint32_t next = (me + 1) % blocks;
    LocalTensor<std::int32_t> ub_workspace;
    if (args.soft) ub_workspace = b.alloc<std::int32_t>(MemSpace::UB, std::uint64_t{blocks} * 8);
    for (std::uint32_t round = 0; round < args.count; ++round) {
        const std::uint64_t half = std::uint64_t{8} * (round % 2);
        b.store(args.data, std::uint64_t{16} * me + half, syncall_value(round, me));
        if (args.soft) {
            b.sync_all(args.workspace, ub_workspace, blocks);
        } else {
            b.sync_all();
        }
        const float seen = b.load(args.data, std::uint64_t{16} * next + half);
        b.store(args.data, std::uint64_t{16} * me + half + 1, seen);
    }
}

}  // namespace kernels

}  // namespace npusim
