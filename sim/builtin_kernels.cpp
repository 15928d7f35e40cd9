#include "sim/builtin_kernels.h"

#include <algorithm>
#include <cmath>

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

}  // namespace kernels

namespace {

std::uint64_t param(const std::map<std::string, std::uint64_t>& params, const std::string& name) {
    return params.at(name);  // the scenario loader filled every parameter (defaults included)
}

KernelOutcome run_vector_add(Simulator& sim, std::uint32_t blocks,
                             const std::map<std::string, std::uint64_t>& params) {
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
    const LaunchSpec spec{buffers == 2 ? "vector_add_double_buffered" : "vector_add_single_buffered",
                          blocks, CoreType::Vector};
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
    outcome.verification =
        wrong == 0 ? "z == x + y for all " + std::to_string(elements) + " elements"
                   : std::to_string(wrong) + " of " + std::to_string(elements) +
                         " elements of z are wrong (first at index " +
                         std::to_string(first_wrong) + ")";
    return outcome;
}

}  // namespace

const std::vector<BuiltinKernel>& builtin_kernels() {
    static const std::vector<BuiltinKernel> kernels{
        {"vector_add",
         "z = x + y over fp32 vectors on vector cores; single- or double-buffered",
         {{"elements", 1u << 20, 1, std::uint64_t{1} << 34, "elements per vector"},
          {"tile", 2048, 8, 16384, "elements per UB tile (multiple of 8)"},
          {"buffers", 2, 1, 2, "1 = single-buffered, 2 = double-buffered (ping-pong)"}},
         run_vector_add},
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
