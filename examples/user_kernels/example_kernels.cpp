// Two user kernels in a shared library that npusim loads at run time
// (docs/json-kernels.md). Build: the CMake target npusim_example_kernels
// (build/lib/libnpusim_example_kernels.so); run: npusim run examples/user_kernels/scenario.json.
#include <npusim/sim/kernels/kernel_registry.h>

using namespace npusim;

// y = x * factor over n elements per block, in one UB tile.
void example_scale(Block& b, GlobalTensor<float> x, GlobalTensor<float> y, std::uint64_t n,
                   std::uint32_t factor) {
    auto ub = b.alloc<float>(MemSpace::UB, n);
    b.copy(ub, x.sub(b.block_idx() * n, n), n);
    b.set_flag(Pipe::MTE2, Pipe::V, 0);
    b.wait_flag(Pipe::MTE2, Pipe::V, 0);
    b.muls(ub, ub, static_cast<float>(factor), n);
    b.set_flag(Pipe::V, Pipe::MTE3, 0);
    b.wait_flag(Pipe::V, Pipe::MTE3, 0);
    b.copy(y.sub(b.block_idx() * n, n), ub, n);
}
NPUSIM_REGISTER_KERNEL(example_scale, AIV_ONLY, example_scale,
                       kernel_arg("x", "input, blocks x n float32"),
                       kernel_arg("y", "output x * factor, blocks x n float32"),
                       kernel_param("n", 256, 8, 16384, "elements per block (multiple of 8)"),
                       kernel_param("factor", 2, 0, 1000, "the integer factor"));

// z = x + y, but the add does not wait for the loads: the checker reports the RAW hazard on
// UB between the copies and the add at this file's lines.
void example_racy_add(Block& b, GlobalTensor<float> x, GlobalTensor<float> y, GlobalTensor<float> z,
                      std::uint64_t n) {
    auto xs = b.alloc<float>(MemSpace::UB, n);
    auto ys = b.alloc<float>(MemSpace::UB, n);
    b.copy(xs, x.sub(b.block_idx() * n, n), n);
    b.copy(ys, y.sub(b.block_idx() * n, n), n);
    b.add(xs, xs, ys, n);  // missing SetFlag/WaitFlag<MTE2_V> before this line
    b.set_flag(Pipe::V, Pipe::MTE3, 0);
    b.wait_flag(Pipe::V, Pipe::MTE3, 0);
    b.copy(z.sub(b.block_idx() * n, n), xs, n);
}
NPUSIM_REGISTER_KERNEL(example_racy_add, AIV_ONLY, example_racy_add, kernel_arg("x"),
                       kernel_arg("y"), kernel_arg("z"),
                       kernel_param("n", 256, 8, 16384, "elements per block"));
