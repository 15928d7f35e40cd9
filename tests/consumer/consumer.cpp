// Uses every public header of an installed npusim and runs one kernel through the library.
#include <cstdio>
#include <npusim/base/chip_config.h>
#include <npusim/base/copy_routes.h>
#include <npusim/base/errors.h>
#include <npusim/base/kernel_type.h>
#include <npusim/base/memory_spaces.h>
#include <npusim/base/pipe_table.h>
#include <npusim/base/tensor.h>
#include <npusim/base/transaction.h>
#include <npusim/base/types.h>
#include <npusim/core/block.h>
#include <npusim/core/request.h>
#include <npusim/memory/global_memory.h>
#include <npusim/sim/engine/run_result.h>
#include <npusim/sim/host/runtime.h>
#include <npusim/sim/kernels/builtin_kernels.h>
#include <npusim/sim/report/report.h>
#include <npusim/sim/report/trace_writer.h>
#include <npusim/sim/scenario/scenario.h>
#include <npusim/sim/simulator.h>
#include <npusim/sync/check/check_report.h>
#include <npusim/sync/check/checker.h>
#include <npusim/sync/check/finding_match.h>
#include <npusim/sync/check/findings.h>
#include <npusim/sync/check/vector_clock.h>
#include <vector>

namespace {

void scale(npusim::Block& b, npusim::GlobalTensor<float> x, npusim::GlobalTensor<float> y) {
    using npusim::MemSpace;
    using npusim::Pipe;
    auto ub = b.alloc<float>(MemSpace::UB, 64);
    const auto mine = b.block_idx() * 64;
    b.copy(ub, x.sub(mine, 64), 64);
    b.set_flag(Pipe::MTE2, Pipe::V, 0);
    b.wait_flag(Pipe::MTE2, Pipe::V, 0);
    b.muls(ub, ub, 2.0F, 64);
    b.set_flag(Pipe::V, Pipe::MTE3, 0);
    b.wait_flag(Pipe::V, Pipe::MTE3, 0);
    b.copy(y.sub(mine, 64), ub, 64);
}

}  // namespace

int main() {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto x = sim.allocate<float>(256, "x");
    auto y = sim.allocate<float>(256, "y");
    std::vector<float> input(256);
    for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(i);
    sim.write(x, input);
    const npusim::RunResult result = sim.run({.name = "scale", .blocks = 4}, scale, x, y);
    const std::vector<float> out = sim.read(y);
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (out[i] != 2.0F * input[i]) {
            std::printf("wrong output at %zu\n", i);
            return 1;
        }
    }
    if (!result.completed() || checker.has_errors()) {
        std::printf("run did not complete cleanly\n");
        return 1;
    }
    // The host runtime through the installed header: a copy round trip on a stream.
    std::vector<float> back;
    const npusim::RunResult host_run = sim.run_host([&](npusim::Runtime& rt) {
        const npusim::Stream stream = rt.create_stream();
        const npusim::HostBuffer h = rt.malloc_host(1024, npusim::HostMemoryKind::Pinned);
        const npusim::DeviceBuffer d = rt.malloc(1024);
        rt.memcpy_async(d, h, 1024, stream);
        rt.memcpy_async(h, d, 1024, stream);
        rt.synchronize_stream(stream);
        const std::span<float> values = rt.host_span<float>(h);
        back.assign(values.begin(), values.end());
        rt.free(d);
    });
    if (!host_run.completed() || back.size() != 256) {
        std::printf("host runtime run did not complete\n");
        return 1;
    }
    std::printf("consumer: %llu cycles, output correct, no findings\n",
                static_cast<unsigned long long>(result.cycles()));
    return 0;
}
