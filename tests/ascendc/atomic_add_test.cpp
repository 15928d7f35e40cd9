// Atomic copy-out in Ascend C style: every block adds its slice into one GM range with
// SetAtomicAdd<float> and DataCopy, then DisableDmaAtomic (or the older SetAtomicNone). The
// sum is right and the checker reports nothing (two atomic writes never race); without the
// atomic mode the same kernel is an inter-core WAW at the copy-out line.
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "kernel_operator.h"
#include "sim/catch_matchers.h"
#include "sim/simulator.h"
#include "sync/checker.h"

using namespace AscendC;

namespace {

constexpr uint32_t kBlocks = 4;
constexpr uint32_t kElements = 64;
enum AtomicSpelling : uint32_t { kPlain = 0, kDisableDmaAtomic = 1, kSetAtomicNone = 2 };

int g_copy_out_line = 0;

extern "C" __global__ __aicore__ void accumulate_rows(GM_ADDR input, GM_ADDR output,
                                                      uint32_t spelling) {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    pipe.InitBuffer(inQueue, 1, kElements * sizeof(float));
    pipe.InitBuffer(outQueue, 1, kElements * sizeof(float));
    GlobalTensor<float> inGm, outGm;
    inGm.SetGlobalBuffer((__gm__ float*)input + GetBlockIdx() * kElements, kElements);
    outGm.SetGlobalBuffer((__gm__ float*)output, kElements);

    LocalTensor<float> x = inQueue.AllocTensor<float>();
    DataCopy(x, inGm, kElements);
    inQueue.EnQue(x);
    x = inQueue.DeQue<float>();
    LocalTensor<float> y = outQueue.AllocTensor<float>();
    Muls(y, x, 2.0F, kElements);
    outQueue.EnQue(y);
    inQueue.FreeTensor(x);
    y = outQueue.DeQue<float>();
    if (spelling != kPlain) SetAtomicAdd<float>();
    g_copy_out_line = __LINE__ + 1;
    DataCopy(outGm, y, kElements);
    if (spelling == kDisableDmaAtomic) DisableDmaAtomic();
    if (spelling == kSetAtomicNone) SetAtomicNone();
    outQueue.FreeTensor(y);
}

struct Result {
    npusim::RunResult run;
    std::vector<float> output;
    std::vector<npusim::Finding> findings;
};

Result run_accumulate(uint32_t spelling) {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto input = sim.allocate<float>(kBlocks * kElements, "input");
    auto output = sim.allocate<float>(kElements, "output");
    std::vector<float> values(kBlocks * kElements);
    for (uint32_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i / kElements + 1);
    sim.write(input, values);
    sim.write(output, std::vector<float>(kElements, 0.5F));  // GM is not cleared by the mode
    using npusim::ascendc::gm_addr;
    sim.launch(
        {.name = "accumulate_rows", .blocks = kBlocks},
        npusim::ascendc::bind_kernel(accumulate_rows, gm_addr(input), gm_addr(output), spelling));
    Result r;
    r.run = sim.run();
    r.output = sim.read(output);
    r.findings = checker.findings();
    return r;
}

}  // namespace

TEST_CASE("Ascend C SetAtomicAdd: blocks accumulate into one GM range, no findings",
          "[ascendc][atomic]") {
    const uint32_t spelling = GENERATE(kDisableDmaAtomic, kSetAtomicNone);
    CAPTURE(spelling);
    const Result r = run_accumulate(spelling);
    REQUIRE(r.run.completed());
    // 0.5 + 2 * (1 + 2 + 3 + 4)
    for (float v : r.output) CHECK(v == 20.5F);
    CHECK_THAT(r.findings, npusim::NoFindings());
}

TEST_CASE("Ascend C copy-out without SetAtomicAdd: the inter-core WAW at the DataCopy line",
          "[ascendc][atomic]") {
    const Result r = run_accumulate(kPlain);
    REQUIRE(r.run.completed());
    const auto line = static_cast<unsigned>(g_copy_out_line);
    CHECK_THAT(r.findings, npusim::ExactlyFindings({{.kind = npusim::FindingKind::RaceWAW,
                                                     .space = npusim::MemSpace::GM,
                                                     .scope = npusim::RaceScope::InterCore,
                                                     .first_line = line,
                                                     .second_line = line}}));
}
