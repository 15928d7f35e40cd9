#include "sim/kernels/builtin_kernel_runs.h"

#include <algorithm>
#include <cmath>

#include "memory/global_memory.h"
#include "sim/simulator.h"

namespace npusim::builtin_kernel_runs {

namespace {

std::uint64_t param(const std::map<std::string, std::uint64_t>& params, const std::string& name) {
    return params.at(name);  // the scenario loader filled every parameter (defaults included)
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

}  // namespace

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

}  // namespace npusim::builtin_kernel_runs
