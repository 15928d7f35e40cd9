// A mixed cube/vector kernel (MIX_AIC_1_2) in Ascend C style: the AIC computes C = A x B
// through the cube queues (GM -> L1 -> L0A/L0B, Mmad, Fixpipe to GM) and releases its two
// AIVs with a mode-2 cross-core flag; each AIV post-processes half the rows,
// out = relu(C) * 0.5. Right output, no findings; without the cross-core flag pair the AIVs'
// loads race the Fixpipe at the kernel's lines. The body is the mixed sample's
// (sample_mix/matmul_relu.h), launched here through the native API.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "kernel_operator.h"
#include "sample_mix/matmul_relu.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"

using namespace AscendC;

namespace {

// The source lines the race report names, found in the kernel body's header.
int line_in_kernel(const std::string& text) {
    std::ifstream in(std::filesystem::path(__FILE__).parent_path() / "sample_mix/matmul_relu.h");
    std::string line;
    for (int number = 1; std::getline(in, line); ++number)
        if (line.find(text) != std::string::npos) return number;
    FAIL("no line containing " << text << " in sample_mix/matmul_relu.h");
    return 0;
}

extern "C" __global__ __mix__(1, 2) void matmul_relu(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR out,
                                                     uint32_t withFlag) {
    MatmulRelu(a, b, c, out, withFlag);
}

struct MixRun {
    std::vector<float> out, expected;
    std::vector<npusim::Finding> findings;
    bool completed = false;
};

MixRun run_mix(uint32_t with_flag) {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto a = sim.allocate<half>(kM * kK, "a");
    auto b = sim.allocate<half>(kK * kN, "b");
    auto c = sim.allocate<float>(kM * kN, "c");
    auto out = sim.allocate<float>(kM * kN, "out");
    std::vector<half> as(kM * kK), bs(kK * kN);
    for (uint32_t i = 0; i < kM * kK; ++i) as[i] = half(static_cast<float>(i % 5) - 2.0F);
    for (uint32_t i = 0; i < kK * kN; ++i) bs[i] = half(static_cast<float>(i % 3) - 1.0F);
    sim.write(a, as);
    sim.write(b, bs);
    sim.write(c, std::vector<float>(kM * kN, 0.0F));
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "matmul_relu", .blocks = 1, .type = npusim::KernelType::MIX_AIC_1_2},
               npusim::ascendc::bind_kernel(matmul_relu, gm_addr(a), gm_addr(b), gm_addr(c),
                                            gm_addr(out), with_flag));
    MixRun run;
    run.completed = sim.run().completed();
    run.out = sim.read(out);
    run.findings = checker.findings();
    for (uint32_t r = 0; r < kM; ++r) {
        for (uint32_t col = 0; col < kN; ++col) {
            float acc = 0.0F;
            for (uint32_t i = 0; i < kK; ++i) {
                acc += static_cast<float>(as[r * kK + i]) * static_cast<float>(bs[i * kN + col]);
            }
            run.expected.push_back((acc > 0.0F ? acc : 0.0F) * 0.5F);
        }
    }
    return run;
}

}  // namespace

TEST_CASE("Ascend C mixed kernel: Mmad then a vector epilogue on two AIVs", "[ascendc]") {
    const MixRun run = run_mix(1);
    REQUIRE(run.completed);
    CHECK(run.out == run.expected);
    CHECK_THAT(run.findings, npusim::NoFindings());
}

TEST_CASE("Ascend C mixed kernel without its cross-core flag: the AIV loads race the Fixpipe",
          "[ascendc]") {
    const MixRun run = run_mix(0);
    REQUIRE(run.completed);
    CHECK_THAT(run.findings,
               npusim::ExactlyFindings(
                   {{.kind = npusim::FindingKind::RaceRAW,
                     .space = npusim::MemSpace::GM,
                     .scope = npusim::RaceScope::InterCore,
                     .first_pipe = npusim::Pipe::FIX,
                     .second_pipe = npusim::Pipe::MTE2,
                     .first_line = unsigned(line_in_kernel("Fixpipe(cGm, c1, fix);")),
                     .second_line = unsigned(line_in_kernel("DataCopy(in, cGm[first]"))}}));
}
