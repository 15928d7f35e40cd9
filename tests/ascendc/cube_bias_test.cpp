// Mmad with a bias row: the bias goes GM -> C1 (MTE2) -> C2 (the bias table, MTE1) through
// the queue framework, Mmad(c, a, b, bias, params) adds it to every row of A x B, and the
// C1 -> C2 queue's implicit flags order the copy before the Mmad (clean checker). The bias
// table is its own memory (MemSpace::BT): a static-tensor kernel in the vendor examples' style
// puts its C2 tensor at address 0 beside an A1 tensor at L1 address 0, copies C1 -> C2 with
// DataCopyParams in 64-byte units, and runs clean; without the MTE1 -> M flag before the Mmad
// the checker reports the bias table's RAW; a C2 tensor past the 1 KiB table is a KernelError.
#include <cstdint>
#include <string>
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

// Static tensors at literal addresses, explicit flags: A1 and C2 both at address 0 (L1 and the
// bias table are separate memories), the bias C1 -> C2 by DataCopyParams (blockLen in 64-byte
// units on A2). Variants: kBiasRace moves the C1 -> C2 copy after the MTE1 -> M flag (a RAW
// on the table); kNz copies the result out with NZ output (CFG_NZ: 16 x 16 column blocks,
// dstStride 32-byte units apart), kNzRace the same without the M -> FIX flag (a RAW on L0C);
// kTableBias runs Mmad without the bias argument and cmatrixSource set (C starts from the row
// at the table's address 0, asc-devkit's mmad scenario 1), kTableBiasRace with the late copy.
enum Variant : int { kClean, kBiasRace, kNz, kNzRace, kTableBias, kTableBiasRace };
constexpr bool late_bias_copy(int variant) {
    return variant == kBiasRace || variant == kTableBiasRace;
}
constexpr uint32_t kSk = 32;  // the static kernel's k (two fractals deep)
int g_bias_copy_line = 0;
int g_bias_mmad_line = 0;
int g_bias_range_line = 0;
int g_fix_line = 0;

template <int kVariant>
__global__ __cube__ void static_bias(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c) {
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> biasGm, cGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, kM * kSk);
    bGm.SetGlobalBuffer((__gm__ half*)b, kSk * kN);
    biasGm.SetGlobalBuffer((__gm__ float*)bias, kN);
    cGm.SetGlobalBuffer((__gm__ float*)c, kM * kN);
    constexpr uint32_t kA1 = 0, kB1 = kM * kSk * sizeof(half), kC1 = kB1 + kSk * kN * sizeof(half);
    LocalTensor<half> a1(TPosition::A1, kA1, kM * kSk);
    LocalTensor<half> b1(TPosition::B1, kB1, kSk * kN);
    LocalTensor<float> bias1(TPosition::C1, kC1, kN);
    LocalTensor<float> bias2(TPosition::C2, 0, kN);
    LocalTensor<half> a2(TPosition::A2, 0, kM * kSk);
    LocalTensor<half> b2(TPosition::B2, 0, kSk * kN);
    LocalTensor<float> c1(TPosition::CO1, 0, kM * kN);
    DataCopy(a1, aGm, Nd2NzParams{1, kM, kSk, 0, kSk, kM, 1, 0});
    DataCopy(b1, bGm, Nd2NzParams{1, kSk, kN, 0, kN, kSk, 1, 0});
    DataCopy(bias1, biasGm, Nd2NzParams{1, 1, kN, 0, kN, 1, 1, 0});
    SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    LoadData(a2, a1, LoadData2DParams{0, kSk / 16, kM / 16, 0, 0, false, 0});
    for (uint32_t i = 0; i < kSk / 16; ++i) {
        LoadData(b2[i * kN * 16], b1[i * kFractal],
                 LoadData2DParams{0, kN / 16, kSk / 16, 0, 0, true, 0});
    }
    const DataCopyParams toC2{1, static_cast<uint16_t>(kN * sizeof(float) / 64), 0, 0};
    if constexpr (!late_bias_copy(kVariant)) DataCopy(bias2, bias1, toC2);
    SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
    WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
    g_bias_copy_line = __LINE__ + 1;
    if constexpr (late_bias_copy(kVariant)) DataCopy(bias2, bias1, toC2);
    MmadParams mm{kM, kN, kSk};
    mm.cmatrixInitVal = false;
    mm.cmatrixSource = kVariant == kTableBias || kVariant == kTableBiasRace;
    const LocalTensor<float>* bias_argument = mm.cmatrixSource ? nullptr : &bias2;
    g_bias_mmad_line = __LINE__ + 1;
    bias_argument ? Mmad(c1, a2, b2, *bias_argument, mm) : Mmad(c1, a2, b2, mm);
    if constexpr (kVariant != kNzRace) {
        SetFlag<HardEvent::M_FIX>(EVENT_ID0);
        WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
    }
    FixpipeParamsV220<> fix;
    fix.nSize = kN;
    fix.mSize = kM;
    fix.srcStride = kM;
    fix.dstStride = kN;
    if constexpr (kVariant == kNz || kVariant == kNzRace) {
        fix.dstStride = kM * 16 * sizeof(float) / 32;
        g_fix_line = __LINE__ + 1;
        Fixpipe<float, float, CFG_NZ>(cGm, c1, fix);
    } else {
        Fixpipe(cGm, c1, fix);
        SetFixPipeConfig<float>(c1, true);  // clears L0C's unit flags: no effect in npusim
    }
}

// A C2 tensor whose copy ends past the 1 KiB bias table.
__global__ __cube__ void bias_out_of_range(GM_ADDR bias) {
    GlobalTensor<float> biasGm;
    biasGm.SetGlobalBuffer((__gm__ float*)bias, 64);
    LocalTensor<float> bias1(TPosition::C1, 0, 64);
    LocalTensor<float> bias2(TPosition::C2, 960, 64);
    DataCopy(bias1, biasGm, 64);
    SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    g_bias_range_line = __LINE__ + 1;
    DataCopy(bias2, bias1, DataCopyParams{1, 4, 0, 0});
}

struct BiasInputs {
    std::vector<half> a, b;
    std::vector<float> bias;
    std::vector<float> expected;
};

BiasInputs bias_inputs(uint32_t k) {
    BiasInputs in;
    in.a.resize(kM * k);
    in.b.resize(k * kN);
    in.bias.resize(kN);
    for (uint32_t i = 0; i < kM * k; ++i) in.a[i] = half(static_cast<float>(i % 7) - 3.0F);
    for (uint32_t i = 0; i < k * kN; ++i) in.b[i] = half(static_cast<float>(i % 5) - 2.0F);
    for (uint32_t i = 0; i < kN; ++i) in.bias[i] = 0.25F * static_cast<float>(i) - 3.0F;
    for (uint32_t row = 0; row < kM; ++row) {
        for (uint32_t col = 0; col < kN; ++col) {
            float acc = in.bias[col];
            for (uint32_t i = 0; i < k; ++i) {
                acc +=
                    static_cast<float>(in.a[row * k + i]) * static_cast<float>(in.b[i * kN + col]);
            }
            in.expected.push_back(acc);
        }
    }
    return in;
}

template <int kVariant>
std::vector<npusim::Finding> run_static_bias(std::vector<float>& out) {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    const BiasInputs in = bias_inputs(kSk);
    auto a = sim.allocate<half>(kM * kSk, "a");
    auto b = sim.allocate<half>(kSk * kN, "b");
    auto bias = sim.allocate<float>(kN, "bias");
    auto c = sim.allocate<float>(kM * kN, "c");
    sim.write(a, in.a);
    sim.write(b, in.b);
    sim.write(bias, in.bias);
    using npusim::ascendc::gm_addr;
    const npusim::RunResult r =
        sim.run({.name = "static_bias", .blocks = 1, .type = npusim::KernelType::AIC_ONLY},
                npusim::ascendc::bind_kernel(static_bias<kVariant>, gm_addr(a), gm_addr(b),
                                             gm_addr(bias), gm_addr(c)));
    REQUIRE(r.completed());
    out = sim.read(c);
    std::vector<float> expected = in.expected;
    if (kVariant == kNz || kVariant == kNzRace) {  // NZ: column block j / 16, then rows of 16
        for (uint32_t row = 0; row < kM; ++row) {
            for (uint32_t col = 0; col < kN; ++col) {
                expected[(col / 16) * kM * 16 + row * 16 + col % 16] = in.expected[row * kN + col];
            }
        }
    }
    if (kVariant == kClean || kVariant == kNz || kVariant == kTableBias) CHECK(out == expected);
    return checker.findings();
}

}  // namespace

TEST_CASE("Ascend C static tensors: C2 is the bias table, separate from L1", "[ascendc][cube]") {
    std::vector<float> out;
    const std::vector<npusim::Finding> findings = run_static_bias<kClean>(out);
    CHECK_THAT(findings, npusim::NoFindings());
    CHECK_THAT(run_static_bias<kNz>(out), npusim::NoFindings());
    CHECK_THAT(run_static_bias<kTableBias>(out), npusim::NoFindings());
}

TEST_CASE("Ascend C static tensors: the C1 -> C2 copy after the MTE1 -> M flag races the Mmad",
          "[ascendc][cube]") {
    std::vector<float> out;
    const std::vector<npusim::Finding> findings = run_static_bias<kBiasRace>(out);
    const npusim::Expected table_raw{.kind = npusim::FindingKind::RaceRAW,
                                     .space = npusim::MemSpace::BT,
                                     .first_pipe = npusim::Pipe::MTE1,
                                     .second_pipe = npusim::Pipe::M,
                                     .first_line = unsigned(g_bias_copy_line),
                                     .second_line = unsigned(g_bias_mmad_line)};
    CHECK_THAT(findings, npusim::ExactlyFindings({table_raw}));
    // The same without the bias argument: the Mmad still reads the table.
    CHECK_THAT(run_static_bias<kTableBiasRace>(out), npusim::ExactlyFindings({table_raw}));
}

TEST_CASE("Ascend C Fixpipe with NZ output without the M -> FIX flag races the Mmad",
          "[ascendc][cube]") {
    std::vector<float> out;
    const std::vector<npusim::Finding> findings = run_static_bias<kNzRace>(out);
    CHECK_THAT(findings, npusim::ExactlyFindings({{.kind = npusim::FindingKind::RaceRAW,
                                                   .space = npusim::MemSpace::L0C,
                                                   .first_pipe = npusim::Pipe::M,
                                                   .second_pipe = npusim::Pipe::FIX,
                                                   .first_line = unsigned(g_bias_mmad_line),
                                                   .second_line = unsigned(g_fix_line)}}));
}

TEST_CASE("Ascend C a C2 tensor past the bias table is a KernelError naming the line",
          "[ascendc][cube]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    auto bias = sim.allocate<float>(64, "bias");
    std::string message;
    try {
        (void)sim.run(
            {.name = "bias_out_of_range", .blocks = 1, .type = npusim::KernelType::AIC_ONLY},
            npusim::ascendc::bind_kernel(bias_out_of_range, npusim::ascendc::gm_addr(bias)));
    } catch (const npusim::KernelError& error) {
        message = error.what();
    }
    CHECK_THAT(message, Catch::Contains("cube_bias_test.cpp:" + std::to_string(g_bias_range_line)));
    CHECK_THAT(message, Catch::Contains("BT"));
}

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
