#include "sim/builtin_kernels.h"

#include <algorithm>
#include <cmath>

#include "memory/global_memory.h"
#include "sim/simulator.h"

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

namespace {

std::uint64_t param(const std::map<std::string, std::uint64_t>& params, const std::string& name) {
    return params.at(name);  // the scenario loader filled every parameter (defaults included)
}

KernelOutcome run_vector_add(Simulator& sim, const LaunchSpec& launch,
                             const std::map<std::string, std::uint64_t>& params) {
    const std::uint32_t blocks = launch.blocks;
    const std::uint64_t elements = param(params, "elements");
    const std::uint64_t tile = param(params, "tile");
    const std::uint64_t buffers = param(params, "buffers");
    if (elements % (static_cast<std::uint64_t>(blocks) * tile) != 0) {
        throw UsageError("vector_add: elements (" + std::to_string(elements) +
                         ") must be a multiple of blocks x tile (" +
                         std::to_string(static_cast<std::uint64_t>(blocks) * tile) + ")");
    }
    kernels::VectorAddArgs args;
    args.x = sim.allocate<float>(elements, "x");
    args.y = sim.allocate<float>(elements, "y");
    args.z = sim.allocate<float>(elements, "z");
    args.tile = tile;
    std::vector<float> x(elements), y(elements);
    for (std::uint64_t i = 0; i < elements; ++i) {
        x[i] = static_cast<float>(i % 1024);
        y[i] = static_cast<float>((i * 7) % 512) * 0.5F;
    }
    sim.write(args.x, x);
    sim.write(args.y, y);
    LaunchSpec spec = launch;
    spec.name = buffers == 2 ? "vector_add_double_buffered" : "vector_add_single_buffered";
    spec.type = KernelType::AIV_ONLY;
    KernelOutcome outcome;
    outcome.run = buffers == 2 ? sim.run(spec, kernels::vector_add_double_buffered, args)
                               : sim.run(spec, kernels::vector_add_single_buffered, args);
    if (!outcome.run.completed()) {
        outcome.verification = "not checked: the run did not complete";
        return outcome;
    }
    const std::vector<float> z = sim.read(args.z);
    std::uint64_t wrong = 0;
    std::uint64_t first_wrong = 0;
    for (std::uint64_t i = 0; i < elements; ++i) {
        if (z[i] != x[i] + y[i]) {
            if (wrong++ == 0) first_wrong = i;
        }
    }
    outcome.verified = wrong == 0;
    outcome.verification = wrong == 0
                               ? "z == x + y for all " + std::to_string(elements) + " elements"
                               : std::to_string(wrong) + " of " + std::to_string(elements) +
                                     " elements of z are wrong (first at index " +
                                     std::to_string(first_wrong) + ")";
    return outcome;
}

std::string count_wrong(const std::vector<float>& got, const std::vector<float>& want,
                        const std::string& what) {
    std::uint64_t wrong = 0, first = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (std::fabs(got[i] - want[i]) > 1e-3F * std::max(1.0F, std::fabs(want[i]))) {
            if (wrong++ == 0) first = i;
        }
    }
    if (wrong == 0) return "";
    return std::to_string(wrong) + " of " + std::to_string(got.size()) + " elements of " + what +
           " are wrong (first at index " + std::to_string(first) + ": got " +
           std::to_string(got[first]) + ", want " + std::to_string(want[first]) + ")";
}

// Runs the kernel and, if the run completed, checks `output` against `want`.
template <class Kernel, class Args>
KernelOutcome run_and_check(Simulator& sim, const LaunchSpec& spec, Kernel kernel, const Args& args,
                            GlobalTensor<float> output, const std::vector<float>& want,
                            const std::string& what_right) {
    KernelOutcome outcome;
    outcome.run = sim.run(spec, kernel, args);
    if (!outcome.run.completed()) {
        outcome.verification = "not checked: the run did not complete";
        return outcome;
    }
    const std::string wrong = count_wrong(sim.read(output), want, "the output");
    outcome.verified = wrong.empty();
    outcome.verification = wrong.empty() ? what_right : wrong;
    return outcome;
}

KernelOutcome run_syncall_reduction(Simulator& sim, const LaunchSpec& launch,
                                    const std::map<std::string, std::uint64_t>& params) {
    kernels::ReductionArgs args;
    const std::uint32_t blocks = launch.blocks;
    args.elements = param(params, "elements");
    args.sync = static_cast<std::uint32_t>(param(params, "sync"));
    if (args.elements % 8 != 0) {
        throw UsageError("syncall_reduction: elements (" + std::to_string(args.elements) +
                         ") must be a multiple of 8 (32-byte copies)");
    }
    const std::uint64_t total = args.elements * blocks;
    args.input = sim.allocate<float>(total, "input");
    args.work = sim.allocate<float>(total, "work");
    args.output = sim.allocate<float>(total, "output");
    args.sync_workspace = sim.allocate<std::int32_t>(std::uint64_t{blocks} * 8, "sync_workspace");
    sim.write(args.input, std::vector<float>(total, 1.0F));
    LaunchSpec spec = launch;
    spec.name = args.sync == 0
                    ? "syncall_reduction_nosync"
                    : (args.sync == 1 ? "syncall_reduction_hard" : "syncall_reduction_soft");
    spec.type = KernelType::AIV_ONLY;
    return run_and_check(sim, spec, kernels::syncall_reduction, args, args.output,
                         std::vector<float>(total, 2.0F * static_cast<float>(blocks)),
                         "every output element is " + std::to_string(2 * blocks) + ".0 (" +
                             std::to_string(total) + " elements)");
}

KernelOutcome run_mix_matmul(Simulator& sim, const LaunchSpec& launch,
                             const std::map<std::string, std::uint64_t>& params) {
    kernels::MixMatmulArgs args;
    args.m = static_cast<std::uint32_t>(param(params, "m"));
    args.n = static_cast<std::uint32_t>(param(params, "n"));
    args.k = static_cast<std::uint32_t>(param(params, "k"));
    if (args.m % 16 != 0 || args.n % 16 != 0 || args.k % 16 != 0) {
        throw UsageError("mix_matmul: m, n and k must be multiples of 16");
    }
    if (launch.blocks != 1) {
        throw UsageError("mix_matmul: runs one group (blocks = 1); got " +
                         std::to_string(launch.blocks));
    }
    const std::uint64_t m = args.m, n = args.n, k = args.k;
    std::vector<half> a(m * k), b(k * n);
    for (std::uint64_t i = 0; i < a.size(); ++i) a[i] = half(static_cast<float>(i % 7) - 3.0F);
    for (std::uint64_t i = 0; i < b.size(); ++i)
        b[i] = half(static_cast<float>(i % 5) * 0.25F - 0.5F);
    args.a = sim.allocate<half>(m * k, "a");
    args.b = sim.allocate<half>(k * n, "b");
    args.c = sim.allocate<float>(m * n, "c");
    args.out = sim.allocate<float>(m * n, "out");
    sim.write(args.a, a);
    sim.write(args.b, b);
    LaunchSpec spec = launch;
    spec.name = "mix_matmul_postprocess";
    spec.type = KernelType::MIX_AIC_1_2;
    std::vector<float> want(m * n);
    for (std::uint64_t r = 0; r < m; ++r) {
        for (std::uint64_t c = 0; c < n; ++c) {
            float acc = 0.0F;
            for (std::uint64_t i = 0; i < k; ++i) {
                acc += static_cast<float>(a[r * k + i]) * static_cast<float>(b[i * n + c]);
            }
            want[r * n + c] = std::max(acc, 0.0F) * 0.5F;
        }
    }
    return run_and_check(sim, spec, kernels::mix_matmul_postprocess, args, args.out, want,
                         "out == relu(A x B) * 0.5 (" + std::to_string(m) + "x" +
                             std::to_string(n) + ", fp16 in, fp32 out)");
}

KernelOutcome run_vector_chain(Simulator& sim, const LaunchSpec& launch,
                               const std::map<std::string, std::uint64_t>& params) {
    kernels::VectorChainArgs args;
    args.tile = param(params, "tile");
    args.barrier = param(params, "barrier") != 0;
    const std::uint64_t elements = param(params, "elements");
    if (elements % (std::uint64_t{launch.blocks} * args.tile) != 0) {
        throw UsageError("vector_chain: elements (" + std::to_string(elements) +
                         ") must be a multiple of blocks x tile");
    }
    args.x = sim.allocate<float>(elements, "x");
    args.out = sim.allocate<float>(elements, "out");
    std::vector<float> x(elements);
    for (std::uint64_t i = 0; i < elements; ++i) x[i] = static_cast<float>(i % 100);
    sim.write(args.x, x);
    LaunchSpec spec = launch;
    spec.name = args.barrier ? "vector_chain" : "vector_chain_no_barrier";
    spec.type = KernelType::AIV_ONLY;
    std::vector<float> want(elements);
    for (std::uint64_t i = 0; i < elements; ++i) want[i] = (x[i] + x[i]) * 2.0F;
    return run_and_check(sim, spec, kernels::vector_chain, args, args.out, want,
                         "out == (x + x) * 2 for all " + std::to_string(elements) + " elements");
}

KernelOutcome run_busy(Simulator& sim, const LaunchSpec& launch,
                       const std::map<std::string, std::uint64_t>& params) {
    kernels::BusyArgs args;
    args.cycles = param(params, "cycles");
    args.value = static_cast<std::int32_t>(param(params, "value"));
    args.write = param(params, "write") != 0;
    args.out = sim.allocate<std::int32_t>(launch.blocks, "out");
    sim.write(args.out, std::vector<std::int32_t>(launch.blocks, 0));
    LaunchSpec spec = launch;
    spec.name = "busy";
    spec.type = KernelType::AIV_ONLY;
    KernelOutcome outcome;
    outcome.run = sim.run(spec, kernels::busy, args);
    if (!outcome.run.completed()) {
        outcome.verification = "not checked: the run did not complete";
        return outcome;
    }
    const std::int32_t want = args.write ? args.value : 0;
    const std::vector<std::int32_t> out = sim.read(args.out);
    const auto wrong =
        std::count_if(out.begin(), out.end(), [want](std::int32_t v) { return v != want; });
    outcome.verified = wrong == 0;
    outcome.verification =
        wrong == 0 ? "out[b] == " + std::to_string(want) + " for all " +
                         std::to_string(launch.blocks) + " blocks"
                   : std::to_string(wrong) + " blocks of out are not " + std::to_string(want);
    return outcome;
}

KernelOutcome run_syncall(Simulator& sim, const LaunchSpec& launch,
                          const std::map<std::string, std::uint64_t>& params) {
    const std::uint32_t blocks = launch.blocks;
    kernels::SyncAllArgs args;
    args.count = static_cast<std::uint32_t>(param(params, "count"));
    args.soft = param(params, "soft") != 0;
    args.data = sim.allocate<float>(std::uint64_t{blocks} * 16, "data");
    args.workspace = sim.allocate<std::int32_t>(std::uint64_t{blocks} * 8, "workspace");
    sim.write(args.data, std::vector<float>(std::uint64_t{blocks} * 16, 0.0F));
    sim.write(args.workspace, std::vector<std::int32_t>(std::uint64_t{blocks} * 8, 0));
    LaunchSpec spec = launch;
    spec.name = args.soft ? "syncall_soft" : "syncall_hard";
    spec.type = KernelType::AIV_ONLY;
    // The last round's slots: each block's value and what it read from the next block.
    std::vector<float> want(std::uint64_t{blocks} * 16, 0.0F);
    for (std::uint32_t round = 0; round < args.count; ++round) {
        for (std::uint32_t b = 0; b < blocks; ++b) {
            const std::uint64_t at = std::uint64_t{16} * b + 8 * (round % 2);
            want[at] = kernels::syncall_value(round, b);
            want[at + 1] = kernels::syncall_value(round, (b + 1) % blocks);
        }
    }
    return run_and_check(sim, spec, kernels::syncall, args, args.data, want,
                         "every block read its neighbour's value after each of " +
                             std::to_string(args.count) + " SyncAlls");
}

}  // namespace

namespace {

using Problems = std::vector<std::pair<std::string, std::string>>;

// Ranges: what a real chip can hold (GM and UB are then checked against the chip at hand) and
// what a host can simulate in a sane budget; tighter per-chip limits come from each kernel's
// needs (check_kernel_needs).
constexpr std::uint64_t kMaxElements = std::uint64_t{1} << 28;  // 1 GiB per fp32 buffer
constexpr std::uint64_t kMaxTile = std::uint64_t{1} << 21;      // 8 MiB fp32: > any UB / 3
constexpr std::uint32_t kMaxReductionBlocks = 1024;

void multiple_of(Problems& out, const std::map<std::string, std::uint64_t>& params,
                 const std::string& name, std::uint64_t factor, const std::string& what) {
    if (params.at(name) % factor != 0) {
        out.push_back({"/params/" + name, "must be a multiple of " + what + " (" +
                                              std::to_string(factor) + "), got " +
                                              std::to_string(params.at(name))});
    }
}

Problems check_tiled(std::uint32_t blocks, const std::map<std::string, std::uint64_t>& params) {
    Problems out;
    multiple_of(out, params, "tile", 8, "8 (32-byte copies)");
    if (out.empty())
        multiple_of(out, params, "elements", blocks * params.at("tile"), "blocks x tile");
    return out;
}

Problems check_reduction(std::uint32_t blocks, const std::map<std::string, std::uint64_t>& params) {
    Problems out;
    multiple_of(out, params, "elements", 8, "8 (32-byte copies)");
    // Each block reads every other block's slice: the work grows as blocks^2.
    if (blocks > kMaxReductionBlocks) {
        out.push_back({"/blocks",
                       "syncall_reduction reads every block's slice in every block "
                       "(blocks^2 copies): expected 1.." +
                           std::to_string(kMaxReductionBlocks) + " blocks, got " +
                           std::to_string(blocks)});
    }
    return out;
}

Problems check_matmul(std::uint32_t blocks, const std::map<std::string, std::uint64_t>& params) {
    Problems out;
    for (const char* dim : {"m", "n", "k"}) multiple_of(out, params, dim, 16, "16 (cube fractal)");
    if (blocks != 1)
        out.push_back(
            {"/blocks", "mix_matmul runs one group: must be 1, got " + std::to_string(blocks)});
    return out;
}

// ---- what each kernel needs (sim/resource_estimate.h) ---------------------------------------

std::string num(std::uint64_t v) {
    return std::to_string(v);
}

std::uint64_t gm_rounded(std::uint64_t bytes) {
    constexpr std::uint64_t a = GlobalMemory::kAlignment;
    return (bytes + a - 1) / a * a;
}

// GM for `buffers` equal buffers of `bytes` each, after the allocator's first aligned slot.
std::uint64_t gm_total(std::initializer_list<std::uint64_t> buffer_bytes) {
    std::uint64_t total = GlobalMemory::kAlignment;
    for (std::uint64_t b : buffer_bytes) total += gm_rounded(b);
    return total;
}

KernelNeeds needs_vector_add(std::uint32_t blocks,
                             const std::map<std::string, std::uint64_t>& params) {
    const std::uint64_t elements = param(params, "elements");
    const std::uint64_t tile = param(params, "tile");
    const std::uint64_t buffers = param(params, "buffers");
    KernelNeeds n;
    n.kernel = "vector_add";
    n.type = KernelType::AIV_ONLY;
    n.ub = {tile * 4 * 3 * buffers, "/params/tile",
            "tile " + num(tile) + " x 4 bytes x 3 buffers (x, y, z) x " + num(buffers)};
    n.event_ids = {
        buffers, "/params/buffers",
        buffers == 2 ? "buffers 2 (ping-pong on event ids 0 and 1)" : "buffers 1 (event id 0)"};
    const std::uint64_t bytes = elements * 4;
    n.gm = {gm_total({bytes, bytes, bytes}), "/params/elements",
            "elements " + num(elements) + " x 4 bytes x 3 buffers (x, y, z), 512-byte aligned"};
    n.host_copies = {3 * bytes, "/params/elements",
                     "elements " + num(elements) + " x 4 bytes x 3 (x, y, z read back)"};
    const std::uint64_t tiles = elements / tile;
    const std::uint64_t per_tile = buffers == 2 ? 12 : 11;
    n.instructions = {tiles * per_tile + std::uint64_t{blocks} * 8, "/params/elements",
                      "elements " + num(elements) + " / tile " + num(tile) + " x " + num(per_tile)};
    return n;
}

KernelNeeds needs_reduction(std::uint32_t blocks,
                            const std::map<std::string, std::uint64_t>& params) {
    const std::uint64_t elements = param(params, "elements");
    const std::uint64_t sync = param(params, "sync");
    const std::uint64_t total = elements * blocks;
    KernelNeeds n;
    n.kernel = "syncall_reduction";
    n.type = KernelType::AIV_ONLY;
    const std::uint64_t workspace = sync == 2 ? std::uint64_t{blocks} * 8 * 4 : 0;
    n.ub = {elements * 4 * 2 + workspace, "/params/elements",
            "elements " + num(elements) + " x 4 bytes x 2 buffers" +
                (sync == 2 ? " + blocks " + num(blocks) + " x 32 bytes of SyncAll workspace"
                           : std::string())};
    n.event_ids = {1, "/kernel", "syncall_reduction (event id 0)"};
    n.gm = {gm_total({total * 4, total * 4, total * 4, std::uint64_t{blocks} * 32}),
            "/params/elements",
            "elements " + num(elements) + " x blocks " + num(blocks) +
                " x 4 bytes x 3 buffers + SyncAll workspace, 512-byte aligned"};
    n.host_copies = {total * 4 * 3, "/params/elements",
                     "elements " + num(elements) + " x blocks " + num(blocks) + " x 4 bytes x 3"};
    // Per block: 12 fixed instructions plus 7 per other block; soft SyncAll polls add more.
    const std::uint64_t per_block = 12 + 7 * std::uint64_t{blocks - 1} + (sync == 2 ? 40 : 0);
    n.instructions = {per_block * blocks, "/blocks",
                      "blocks " + num(blocks) + " x (12 + 7 x (blocks - 1))"};
    return n;
}

KernelNeeds needs_matmul(std::uint32_t, const std::map<std::string, std::uint64_t>& params) {
    const std::uint64_t m = param(params, "m"), n = param(params, "n"), k = param(params, "k");
    KernelNeeds r;
    r.kernel = "mix_matmul";
    r.type = KernelType::MIX_AIC_1_2;
    r.ub = {m / 2 * n * 4, "/params/m",
            "m " + num(m) + " / 2 rows x n " + num(n) + " x 4 bytes (fp32)"};
    r.l1 = {(m * k + k * n) * 2, "/params/k",
            "(m " + num(m) + " x k " + num(k) + " + k " + num(k) + " x n " + num(n) +
                ") x 2 bytes (fp16 A and B)"};
    r.l0a = {m * k * 2, "/params/k", "m " + num(m) + " x k " + num(k) + " x 2 bytes (fp16 A)"};
    r.l0b = {k * n * 2, "/params/k", "k " + num(k) + " x n " + num(n) + " x 2 bytes (fp16 B)"};
    r.l0c = {m * n * 4, "/params/n", "m " + num(m) + " x n " + num(n) + " x 4 bytes (fp32 C)"};
    r.event_ids = {1, "/kernel", "mix_matmul (event id 0)"};
    r.gm = {gm_total({m * k * 2, k * n * 2, m * n * 4, m * n * 4}), "/params/m",
            "A, B (fp16), C and out (fp32) for m " + num(m) + ", n " + num(n) + ", k " + num(k)};
    r.host_copies = {(m * k + k * n) * 2 + m * n * 4 * 2, "/params/m",
                     "A, B, expected and read-back output"};
    r.instructions = {40, "/kernel", "one group"};
    return r;
}

KernelNeeds needs_vector_chain(std::uint32_t blocks,
                               const std::map<std::string, std::uint64_t>& params) {
    const std::uint64_t elements = param(params, "elements");
    const std::uint64_t tile = param(params, "tile");
    KernelNeeds n;
    n.kernel = "vector_chain";
    n.type = KernelType::AIV_ONLY;
    n.ub = {tile * 4 * 2, "/params/tile", "tile " + num(tile) + " x 4 bytes x 2 buffers"};
    n.event_ids = {1, "/kernel", "vector_chain (event id 0)"};
    n.gm = {gm_total({elements * 4, elements * 4}), "/params/elements",
            "elements " + num(elements) + " x 4 bytes x 2 buffers (x, out), 512-byte aligned"};
    n.host_copies = {elements * 4 * 3, "/params/elements",
                     "elements " + num(elements) + " x 4 bytes x 3 (x, expected, out)"};
    n.instructions = {elements / tile * 11 + std::uint64_t{blocks}, "/params/elements",
                      "elements " + num(elements) + " / tile " + num(tile) + " x 11"};
    return n;
}

KernelNeeds needs_busy(std::uint32_t blocks, const std::map<std::string, std::uint64_t>& params) {
    const std::uint64_t cycles = param(params, "cycles");
    KernelNeeds n;
    n.kernel = "busy";
    n.type = KernelType::AIV_ONLY;
    n.ub = {32, "/kernel", "busy (one 32-byte scratch slot)"};
    n.gm = {gm_total({std::uint64_t{blocks} * 4}), "/blocks",
            "blocks " + num(blocks) + " x 4 bytes (out)"};
    n.host_copies = {std::uint64_t{blocks} * 4, "/blocks", "blocks " + num(blocks) + " x 4 bytes"};
    // A UB scalar load costs at least 4 cycles on the shipped chips.
    n.instructions = {std::uint64_t{blocks} * (cycles / 4 + 3), "/params/cycles",
                      "blocks " + num(blocks) + " x cycles " + num(cycles) + " / 4"};
    return n;
}

KernelNeeds needs_syncall(std::uint32_t blocks,
                          const std::map<std::string, std::uint64_t>& params) {
    const std::uint64_t count = param(params, "count");
    const bool soft = param(params, "soft") != 0;
    KernelNeeds n;
    n.kernel = "syncall";
    n.type = KernelType::AIV_ONLY;
    n.ub = {soft ? std::uint64_t{blocks} * 32 : 0, "/blocks",
            soft ? "blocks " + num(blocks) + " x 32 bytes of SyncAll workspace" : "none"};
    n.gm = {gm_total({std::uint64_t{blocks} * 64, std::uint64_t{blocks} * 32}), "/blocks",
            "blocks " + num(blocks) + " x (64 bytes of data + 32 bytes of workspace)"};
    n.host_copies = {std::uint64_t{blocks} * 64 * 2, "/blocks",
                     "blocks " + num(blocks) + " x 64 bytes x 2 (expected, read back)"};
    n.instructions = {
        std::uint64_t{blocks} * count * (soft ? 40 : 4), "/params/count",
        "blocks " + num(blocks) + " x count " + num(count) + " x " + (soft ? "40" : "4")};
    return n;
}

// ---- arguments and instances for host-program launches -----------------------------------

template <Element T>
GlobalTensor<T> bound(const KernelBindings& buffers, const std::string& name, std::uint64_t count) {
    const auto it = buffers.find(name);
    if (it == buffers.end()) return {};
    return {it->second.address, count};
}

using ByteRule = std::function<std::uint64_t(std::uint32_t, const KernelParams&)>;

ByteRule elements_bytes(std::uint64_t element_bytes) {
    return [element_bytes](std::uint32_t, const KernelParams& p) {
        return param(p, "elements") * element_bytes;
    };
}

KernelInstance instance_vector_add(std::uint32_t, const KernelParams& params,
                                   const KernelBindings& buffers) {
    const std::uint64_t elements = param(params, "elements");
    kernels::VectorAddArgs args;
    args.x = bound<float>(buffers, "x", elements);
    args.y = bound<float>(buffers, "y", elements);
    args.z = bound<float>(buffers, "z", elements);
    args.tile = param(params, "tile");
    if (param(params, "buffers") == 2) {
        return {"vector_add_double_buffered", KernelType::AIV_ONLY,
                [args](Block& b) { kernels::vector_add_double_buffered(b, args); }};
    }
    return {"vector_add_single_buffered", KernelType::AIV_ONLY,
            [args](Block& b) { kernels::vector_add_single_buffered(b, args); }};
}

KernelInstance instance_reduction(std::uint32_t blocks, const KernelParams& params,
                                  const KernelBindings& buffers) {
    kernels::ReductionArgs args;
    args.elements = param(params, "elements");
    args.sync = static_cast<std::uint32_t>(param(params, "sync"));
    const std::uint64_t total = args.elements * blocks;
    args.input = bound<float>(buffers, "input", total);
    args.work = bound<float>(buffers, "work", total);
    args.output = bound<float>(buffers, "output", total);
    args.sync_workspace = bound<std::int32_t>(buffers, "sync_workspace", std::uint64_t{blocks} * 8);
    const char* name = args.sync == 0   ? "syncall_reduction_nosync"
                       : args.sync == 1 ? "syncall_reduction_hard"
                                        : "syncall_reduction_soft";
    return {name, KernelType::AIV_ONLY, [args](Block& b) { kernels::syncall_reduction(b, args); }};
}

KernelInstance instance_matmul(std::uint32_t, const KernelParams& params,
                               const KernelBindings& buffers) {
    kernels::MixMatmulArgs args;
    args.m = static_cast<std::uint32_t>(param(params, "m"));
    args.n = static_cast<std::uint32_t>(param(params, "n"));
    args.k = static_cast<std::uint32_t>(param(params, "k"));
    const std::uint64_t m = args.m, n = args.n, k = args.k;
    args.a = bound<half>(buffers, "a", m * k);
    args.b = bound<half>(buffers, "b", k * n);
    args.c = bound<float>(buffers, "c", m * n);
    args.out = bound<float>(buffers, "out", m * n);
    return {"mix_matmul_postprocess", KernelType::MIX_AIC_1_2,
            [args](Block& b) { kernels::mix_matmul_postprocess(b, args); }};
}

KernelInstance instance_vector_chain(std::uint32_t, const KernelParams& params,
                                     const KernelBindings& buffers) {
    const std::uint64_t elements = param(params, "elements");
    kernels::VectorChainArgs args;
    args.tile = param(params, "tile");
    args.barrier = param(params, "barrier") != 0;
    args.x = bound<float>(buffers, "x", elements);
    args.out = bound<float>(buffers, "out", elements);
    return {args.barrier ? "vector_chain" : "vector_chain_no_barrier", KernelType::AIV_ONLY,
            [args](Block& b) { kernels::vector_chain(b, args); }};
}

KernelInstance instance_busy(std::uint32_t blocks, const KernelParams& params,
                             const KernelBindings& buffers) {
    kernels::BusyArgs args;
    args.cycles = param(params, "cycles");
    args.value = static_cast<std::int32_t>(param(params, "value"));
    args.write = param(params, "write") != 0;
    args.out = bound<std::int32_t>(buffers, "out", blocks);
    return {"busy", KernelType::AIV_ONLY, [args](Block& b) { kernels::busy(b, args); }};
}

KernelInstance instance_syncall(std::uint32_t blocks, const KernelParams& params,
                                const KernelBindings& buffers) {
    kernels::SyncAllArgs args;
    args.count = static_cast<std::uint32_t>(param(params, "count"));
    args.soft = param(params, "soft") != 0;
    args.data = bound<float>(buffers, "data", std::uint64_t{blocks} * 16);
    args.workspace = bound<std::int32_t>(buffers, "workspace", std::uint64_t{blocks} * 8);
    return {args.soft ? "syncall_soft" : "syncall_hard", KernelType::AIV_ONLY,
            [args](Block& b) { kernels::syncall(b, args); }};
}

std::vector<KernelArgument> arguments_vector_add() {
    return {{"x", DType::F32, "input, elements float32", elements_bytes(4)},
            {"y", DType::F32, "input, elements float32", elements_bytes(4)},
            {"z", DType::F32, "output z = x + y, elements float32", elements_bytes(4)}};
}

std::vector<KernelArgument> arguments_reduction() {
    const ByteRule per_block = [](std::uint32_t blocks, const KernelParams& p) {
        return param(p, "elements") * blocks * 4;
    };
    return {{"input", DType::F32, "input, elements x blocks float32", per_block},
            {"work", DType::F32, "workspace, elements x blocks float32", per_block},
            {"output", DType::F32, "output, elements x blocks float32", per_block},
            {"sync_workspace", DType::I32, "soft SyncAll workspace (sync 2): blocks x 8, zeroed",
             [](std::uint32_t blocks, const KernelParams& p) {
                 return param(p, "sync") == 2 ? std::uint64_t{blocks} * 32 : 0;
             }}};
}

std::vector<KernelArgument> arguments_matmul() {
    const auto dims = [](const char* rows, const char* cols, std::uint64_t bytes) -> ByteRule {
        return [rows, cols, bytes](std::uint32_t, const KernelParams& p) {
            return param(p, rows) * param(p, cols) * bytes;
        };
    };
    return {{"a", DType::F16, "A, m x k float16 row-major", dims("m", "k", 2)},
            {"b", DType::F16, "B, k x n float16 row-major", dims("k", "n", 2)},
            {"c", DType::F32, "C = A x B workspace, m x n float32", dims("m", "n", 4)},
            {"out", DType::F32, "output relu(C) * 0.5, m x n float32", dims("m", "n", 4)}};
}

std::vector<KernelArgument> arguments_vector_chain() {
    return {{"x", DType::F32, "input, elements float32", elements_bytes(4)},
            {"out", DType::F32, "output (x + x) * 2, elements float32", elements_bytes(4)}};
}

std::vector<KernelArgument> arguments_busy() {
    return {{"out", DType::I32, "write 1: value per block, blocks int32",
             [](std::uint32_t blocks, const KernelParams& p) {
                 return param(p, "write") != 0 ? std::uint64_t{blocks} * 4 : 0;
             }}};
}

std::vector<KernelArgument> arguments_syncall() {
    return {{"data", DType::F32, "slots, blocks x 16 float32",
             [](std::uint32_t blocks, const KernelParams&) { return std::uint64_t{blocks} * 64; }},
            {"workspace", DType::I32, "soft SyncAll workspace (soft 1): blocks x 8, zeroed",
             [](std::uint32_t blocks, const KernelParams& p) {
                 return param(p, "soft") != 0 ? std::uint64_t{blocks} * 32 : 0;
             }}};
}

Problems check_none(std::uint32_t, const KernelParams&) {
    return {};
}

}  // namespace

const std::vector<BuiltinKernel>& builtin_kernels() {
    static const std::vector<BuiltinKernel> kernels{
        {"vector_add",
         "z = x + y over fp32 vectors on vector cores; single- or double-buffered",
         {{"elements", 1u << 20, 8, kMaxElements, "elements per vector"},
          {"tile", 2048, 8, kMaxTile, "elements per UB tile (multiple of 8)"},
          {"buffers", 2, 1, 2, "1 = single-buffered, 2 = double-buffered (ping-pong)"}},
         check_tiled,
         needs_vector_add,
         run_vector_add,
         arguments_vector_add(),
         instance_vector_add},
        {"syncall_reduction",
         "each block doubles its slice, writes it to GM, SyncAlls, then sums all slices; "
         "every output element must be 2 x blocks",
         {{"elements", 32, 8, 16384, "fp32 elements per block (multiple of 8)"},
          {"sync", 1, 0, 2, "0 = no SyncAll (racy), 1 = hard SyncAll, 2 = soft SyncAll"}},
         check_reduction,
         needs_reduction,
         run_syncall_reduction,
         arguments_reduction(),
         instance_reduction},
        {"mix_matmul",
         "MIX_AIC_1_2: the cube core computes C = A x B, signals its two vector cores with a "
         "cross-core flag, each post-processes half: out = relu(C) * 0.5",
         {{"m", 32, 16, 128, "rows of A and C (multiple of 16)"},
          {"n", 32, 16, 128, "columns of B and C (multiple of 16)"},
          {"k", 32, 16, 128, "columns of A, rows of B (multiple of 16)"}},
         check_matmul,
         needs_matmul,
         run_mix_matmul,
         arguments_matmul(),
         instance_matmul},
        {"vector_chain",
         "out = (x + x) * 2 with both steps on PIPE_V; barrier = 0 drops the PipeBarrier<PIPE_V> "
         "between them (an intra-pipe RAW hazard)",
         {{"elements", 8192, 8, kMaxElements, "elements"},
          {"tile", 256, 8, kMaxTile, "elements per UB tile (multiple of 8)"},
          {"barrier", 1, 0, 1, "1 = PipeBarrier<PIPE_V> between the dependent ops, 0 = none"}},
         check_tiled,
         needs_vector_chain,
         run_vector_chain,
         arguments_vector_chain(),
         instance_vector_chain},
        {"busy",
         "scalar work: each block keeps its scalar unit busy for `cycles` cycles, then (write 1) "
         "stores `value` to out[block]; a long-running kernel for event queries",
         {{"cycles", 1000, 1, 100'000'000, "cycles of scalar work per block (at least)"},
          {"value", 1, 0, 2'147'483'647, "int32 each block stores to out[block]"},
          {"write", 1, 0, 1, "1 = store value to out, 0 = no GM access"}},
         check_none,
         needs_busy,
         run_busy,
         arguments_busy(),
         instance_busy},
        {"syncall",
         "count rounds of: write this block's slot, SyncAll (hard, or soft through a GM "
         "workspace), read the next block's slot; more blocks than cores deadlock",
         {{"count", 1, 1, 64, "SyncAll rounds"},
          {"soft", 0, 0, 1, "0 = hard SyncAll, 1 = soft SyncAll through the workspace buffer"}},
         check_none,
         needs_syncall,
         run_syncall,
         arguments_syncall(),
         instance_syncall},
    };
    return kernels;
}

const BuiltinKernel* find_builtin_kernel(std::string_view name) {
    for (const BuiltinKernel& k : builtin_kernels()) {
        if (k.name == name) return &k;
    }
    return nullptr;
}

}  // namespace npusim
