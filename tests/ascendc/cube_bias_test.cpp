// Mmad with a bias row: the bias goes GM -> C1 (MTE2) -> C2 (the bias table, MTE1) through
// the queue framework, Mmad(c, a, b, bias, params) adds it to every row of A x B, and the
// C1 -> C2 queue's implicit flags order the copy before the Mmad (clean checker).
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "kernel_operator.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"

using namespace AscendC;

namespace {

constexpr uint32_t kM = 16, kN = 32, kK = 48;
constexpr uint32_t kFractal = 512 / sizeof(half);

extern "C" __global__ __aicore__ void mmad_bias(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c) {
    TPipe pipe;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> biasGm, cGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, kM * kK);
    bGm.SetGlobalBuffer((__gm__ half*)b, kK * kN);
    biasGm.SetGlobalBuffer((__gm__ float*)bias, kN);
    cGm.SetGlobalBuffer((__gm__ float*)c, kM * kN);
    TQue<TPosition::A1, 1> inA1;
    TQue<TPosition::B1, 1> inB1;
    TQue<TPosition::C1, 1> inC1;
    TQue<TPosition::A2, 1> inA2;
    TQue<TPosition::B2, 1> inB2;
    TQue<TPosition::C2, 1> inC2;
    TQue<TPosition::CO1, 1> outCO1;
    pipe.InitBuffer(inA1, 1, kM * kK * sizeof(half));
    pipe.InitBuffer(inB1, 1, kK * kN * sizeof(half));
    pipe.InitBuffer(inC1, 1, kN * sizeof(float));
    pipe.InitBuffer(inA2, 1, kM * kK * sizeof(half));
    pipe.InitBuffer(inB2, 1, kK * kN * sizeof(half));
    pipe.InitBuffer(inC2, 1, kN * sizeof(float));
    pipe.InitBuffer(outCO1, 1, kM * kN * sizeof(float));

    LocalTensor<half> a1 = inA1.AllocTensor<half>();
    LocalTensor<half> b1 = inB1.AllocTensor<half>();
    LocalTensor<float> bias1 = inC1.AllocTensor<float>();
    // A and B land in L1 as NZ (16-row by C0 fractals, column block after column block).
    DataCopy(a1, aGm, Nd2NzParams{1, kM, kK, 0, kK, kM, 1, 0});
    DataCopy(b1, bGm, Nd2NzParams{1, kK, kN, 0, kN, kK, 1, 0});
    DataCopy(bias1, biasGm, kN);
    inA1.EnQue(a1);
    inB1.EnQue(b1);
    inC1.EnQue(bias1);
    a1 = inA1.DeQue<half>();
    b1 = inB1.DeQue<half>();
    bias1 = inC1.DeQue<float>();

    LocalTensor<half> a2 = inA2.AllocTensor<half>();
    LocalTensor<half> b2 = inB2.AllocTensor<half>();
    LocalTensor<float> bias2 = inC2.AllocTensor<float>();
    // A (one 16-row block) into L0A as ZZ; B per 16-row block of k, each fractal transposed,
    // into L0B as ZN (its NZ fractals kK / 16 apart).
    LoadData(a2, a1, LoadData2DParams{0, kK / 16, kM / 16, 0, 0, false, 0});
    for (uint32_t i = 0; i < kK / 16; ++i) {
        LoadData(b2[i * kN * 16], b1[i * kFractal],
                 LoadData2DParams{0, kN / 16, kK / 16, 0, 0, true, 0});
    }
    DataCopy(bias2, bias1, kN);
    inA2.EnQue(a2);
    inB2.EnQue(b2);
    inC2.EnQue(bias2);
    inA1.FreeTensor(a1);
    inB1.FreeTensor(b1);
    inC1.FreeTensor(bias1);
    a2 = inA2.DeQue<half>();
    b2 = inB2.DeQue<half>();
    bias2 = inC2.DeQue<float>();

    LocalTensor<float> c1 = outCO1.AllocTensor<float>();
    Mmad(c1, a2, b2, bias2, MmadParams{kM, kN, kK});
    outCO1.EnQue(c1);
    inA2.FreeTensor(a2);
    inB2.FreeTensor(b2);
    inC2.FreeTensor(bias2);
    c1 = outCO1.DeQue<float>();
    FixpipeParamsV220<> fix;
    fix.nSize = kN;
    fix.mSize = kM;
    fix.srcStride = kM;
    fix.dstStride = kN;
    Fixpipe(cGm, c1, fix);
    outCO1.FreeTensor(c1);
}

}  // namespace

TEST_CASE("Ascend C Mmad with a bias row from C2 (the bias table)", "[ascendc]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto a = sim.allocate<half>(kM * kK, "a");
    auto b = sim.allocate<half>(kK * kN, "b");
    auto bias = sim.allocate<float>(kN, "bias");
    auto c = sim.allocate<float>(kM * kN, "c");
    std::vector<half> as(kM * kK), bs(kK * kN);
    std::vector<float> biases(kN);
    for (uint32_t i = 0; i < kM * kK; ++i) as[i] = half(static_cast<float>(i % 7) - 3.0F);
    for (uint32_t i = 0; i < kK * kN; ++i) bs[i] = half(static_cast<float>(i % 5) - 2.0F);
    for (uint32_t i = 0; i < kN; ++i) biases[i] = 0.25F * static_cast<float>(i) - 3.0F;
    sim.write(a, as);
    sim.write(b, bs);
    sim.write(bias, biases);
    using npusim::ascendc::gm_addr;
    const npusim::RunResult r = sim.run(
        {.name = "mmad_bias", .blocks = 1, .type = npusim::KernelType::AIC_ONLY},
        npusim::ascendc::bind_kernel(mmad_bias, gm_addr(a), gm_addr(b), gm_addr(bias), gm_addr(c)));
    REQUIRE(r.completed());
    std::vector<float> expected;
    for (uint32_t row = 0; row < kM; ++row) {
        for (uint32_t col = 0; col < kN; ++col) {
            float acc = biases[col];
            for (uint32_t i = 0; i < kK; ++i) {
                acc += static_cast<float>(as[row * kK + i]) * static_cast<float>(bs[i * kN + col]);
            }
            expected.push_back(acc);
        }
    }
    CHECK(sim.read(c) == expected);
    CHECK_THAT(checker.findings(), npusim::NoFindings());
}
