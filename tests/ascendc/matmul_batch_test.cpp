// The Matmul API's batch calls (IterateBatch, IterateNBatch) on the cube pipes: NORMAL batches
// with a broadcast B and a bias per batch on the AIC alone; BSNGD / SBNGD inputs with BSNGD /
// BNGS1S2 C from the AIVs of a mixed kernel (the message mode); IterateNBatch into the
// SetWorkspace GM; each against a CPU reference with a clean checker. Reading C after an
// IterateBatch<false> without WaitIterateBatch is the race the checker reports. Last, int8
// inputs with half C through the fixpipe's dequantisation (SetQuantScalar / SetQuantVector).
#include <cstdint>
#include <cstring>
#include <vector>

#include <catch2/catch.hpp>

#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"
#include "tiling/tiling_api.h"

using namespace AscendC;

namespace {

TCubeTiling g_batch_tiling;
std::uint32_t g_batch_racy_line = 0;

// ---- NORMAL batches on the AIC: C[i] = A[i] x B[i / 2] + bias[i], 4 batches of A, 2 of B.

constexpr int kM = 32, kN = 48, kK = 32;
constexpr int kBatchA = 4, kBatchB = 2;

using HalfNormal = MatmulType<TPosition::GM, CubeFormat::ND, half, false, LayoutMode::NORMAL>;
using FloatNormal = MatmulType<TPosition::GM, CubeFormat::ND, float, false, LayoutMode::NORMAL>;
using BiasType = MatmulType<TPosition::GM, CubeFormat::ND, float>;

__global__ __aicore__ void batch_normal(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c) {
    const TCubeTiling tiling = g_batch_tiling;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> biasGm, cGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, kBatchA * kM * kK);
    bGm.SetGlobalBuffer((__gm__ half*)b, kBatchB * kK * kN);
    biasGm.SetGlobalBuffer((__gm__ float*)bias, kBatchA * kN);
    cGm.SetGlobalBuffer((__gm__ float*)c, kBatchA * kM * kN);
    Matmul<HalfNormal, HalfNormal, FloatNormal, BiasType> mm;
    TPipe pipe;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &tiling);
    mm.SetTensorA(aGm);
    mm.SetTensorB(bGm);
    mm.SetBias(biasGm);
    mm.IterateBatch(cGm, kBatchA, kBatchB, false);
    mm.End();
}

half small_int(int i, int mod) {
    return half(static_cast<float>(i % mod) - static_cast<float>(mod / 2));
}

}  // namespace

TEST_CASE("Matmul API: IterateBatch of NORMAL batches, B broadcast, a bias per batch",
          "[ascendc][matmul][batch]") {
    matmul_tiling::BatchMatmulTiling host;
    using matmul_tiling::CubeFormat;
    using matmul_tiling::DataType;
    host.SetAType(matmul_tiling::TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    host.SetBType(matmul_tiling::TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    host.SetCType(matmul_tiling::TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    host.SetBiasType(matmul_tiling::TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    host.SetShape(kM, kN, kK);
    host.SetOrgShape(kM, kN, kK);
    host.EnableBias(true);
    host.SetFixSplit(16, 16, 16);  // 2 x 3 tiles of 2 K steps a batch
    host.SetBatchInfoForNormal(kBatchA, kBatchB, kM, kN, kK);
    REQUIRE(host.GetTiling(g_batch_tiling) == 0);
    CHECK(g_batch_tiling.BatchNum == kBatchA);
    CHECK(g_batch_tiling.ALayoutInfoB == kBatchA);
    CHECK(g_batch_tiling.CLayoutInfoS2 == kN);

    std::vector<half> as(kBatchA * kM * kK), bs(kBatchB * kK * kN);
    std::vector<float> biases(kBatchA * kN), expected(kBatchA * kM * kN);
    for (std::size_t i = 0; i < as.size(); ++i) as[i] = small_int(static_cast<int>(i) * 7, 9);
    for (std::size_t i = 0; i < bs.size(); ++i) bs[i] = small_int(static_cast<int>(i) * 5, 7);
    for (std::size_t i = 0; i < biases.size(); ++i) biases[i] = static_cast<float>(i % 11) - 5.0F;
    for (int bt = 0; bt < kBatchA; ++bt) {
        const int bb = bt / (kBatchA / kBatchB);
        for (int r = 0; r < kM; ++r) {
            for (int col = 0; col < kN; ++col) {
                float acc = biases[bt * kN + col];
                for (int i = 0; i < kK; ++i) {
                    acc += static_cast<float>(as[(bt * kM + r) * kK + i]) *
                           static_cast<float>(bs[(bb * kK + i) * kN + col]);
                }
                expected[(bt * kM + r) * kN + col] = acc;
            }
        }
    }
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto a = sim.allocate<half>(as.size(), "a");
    auto b = sim.allocate<half>(bs.size(), "b");
    auto bias = sim.allocate<float>(biases.size(), "bias");
    auto c = sim.allocate<float>(expected.size(), "c");
    sim.write(a, as);
    sim.write(b, bs);
    sim.write(bias, biases);
    using npusim::ascendc::gm_addr;
    REQUIRE(sim.run({.name = "batch_normal", .blocks = 1, .type = npusim::KernelType::AIC_ONLY},
                    npusim::ascendc::bind_kernel(batch_normal, gm_addr(a), gm_addr(b),
                                                 gm_addr(bias), gm_addr(c)))
                .completed());
    CHECK(sim.read(c) == expected);
    CHECK_THAT(checker.findings(), npusim::NoFindings());
}

// ---- Layouts from the AIVs: each AIV (batch axis index b = its block index) multiplies its
// G = 2 heads: A [B, S = M, N = 1, G, D = K] (BSNGD or SBNGD), B transposed [B, S = N, 1, G,
// D = K] in the same layout, C BSNGD [B, M, 1, G, N] or BNGS1S2 [B, 1, G, M, N].

namespace {

constexpr int kHeads = 2, kAivs = 2;

enum BatchCase : uint32_t {
    kLayoutSync,    // IterateBatch, C read back after it returns
    kLayoutAsync,   // IterateBatch<false>, WaitIterateBatch, then C read back
    kLayoutRacy,    // IterateBatch<false>, C read back before WaitIterateBatch
    kNBatchToWork,  // IterateNBatch (2 loops of 1 head) into the SetWorkspace GM, then copied
};

/// Element offsets of (b, head, row, col) in the 5-D layouts, matrices rows x cols.
int place(LayoutMode layout, int b, int g, int r, int col, int rows, int cols) {
    switch (layout) {
        case LayoutMode::BSNGD:
            return ((b * rows + r) * kHeads + g) * cols + col;
        case LayoutMode::SBNGD:
            return ((r * kAivs + b) * kHeads + g) * cols + col;
        default:  // BNGS1S2
            return ((b * kHeads + g) * rows + r) * cols + col;
    }
}

template <LayoutMode kIn, LayoutMode kOut>
__global__ __mix__(1, 2) void batch_layouts(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR out,
                                            GM_ADDR work, GM_ADDR workspace, uint32_t mode) {
    SetSysWorkspace(workspace);
    const TCubeTiling tiling = g_batch_tiling;
    using AType = MatmulType<TPosition::GM, CubeFormat::ND, half, false, kIn>;
    using BType = MatmulType<TPosition::GM, CubeFormat::ND, half, true, kIn>;
    using CType = MatmulType<TPosition::GM, CubeFormat::ND, float, false, kOut>;
    static constexpr MatmulConfig kCfg = GetNormalConfig(false, true);  // isNBatch
    Matmul<AType, BType, CType, BiasType, kCfg> mm;
    TPipe pipe;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
    const int idx = static_cast<int>(GetBlockIdx());
    const int total = kAivs * kHeads * kM * kN;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> cGm, outGm, workGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, kAivs * kHeads * kM * kK);
    bGm.SetGlobalBuffer((__gm__ half*)b, kAivs * kHeads * kN * kK);
    cGm.SetGlobalBuffer((__gm__ float*)c, total);
    outGm.SetGlobalBuffer((__gm__ float*)out, total);
    workGm.SetGlobalBuffer((__gm__ float*)work, total);
    mm.SetTensorA(aGm[place(kIn, idx, 0, 0, 0, kM, kK)]);
    mm.SetTensorB(bGm[place(kIn, idx, 0, 0, 0, kN, kK)], true);
    const int first = place(kOut, idx, 0, 0, 0, kM, kN);
    if (mode == kNBatchToWork) {
        mm.SetWorkspace(workGm[first]);
        mm.IterateNBatch(kHeads, 1, 1, false);
    } else if (mode == kLayoutSync) {
        mm.IterateBatch(cGm[first], kHeads, kHeads, false);
    } else {
        mm.template IterateBatch<false>(cGm[first], kHeads, kHeads, false);
        if (mode == kLayoutAsync) mm.WaitIterateBatch();
    }
    // This AIV's part of C (contiguous in both C layouts tried) through UB into `out`.
    constexpr int part = kHeads * kM * kN;
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, part * sizeof(float));
    LocalTensor<float> t = q.AllocTensor<float>();
    if (mode == kLayoutRacy) g_batch_racy_line = __LINE__ + 1;
    DataCopy(t, mode == kNBatchToWork ? workGm[first] : cGm[first], part);
    SetFlag<HardEvent::MTE2_MTE3>(0);
    WaitFlag<HardEvent::MTE2_MTE3>(0);
    DataCopy(outGm[first], t, part);
    q.FreeTensor(t);
    if (mode == kLayoutRacy) mm.WaitIterateBatch();
}

struct LayoutRun {
    bool completed = false;
    std::vector<float> out, expected;
    std::vector<npusim::Finding> findings;
};

template <LayoutMode kIn, LayoutMode kOut>
LayoutRun run_layouts(BatchCase mode) {
    TCubeTiling t;
    t.M = kM;
    t.N = kN;
    t.Ka = t.Kb = kK;
    t.singleCoreM = kM;
    t.singleCoreN = kN;
    t.singleCoreK = kK;
    t.baseM = 16;
    t.baseN = 16;
    t.baseK = 16;
    t.usedCoreNum = 1;
    t.ALayoutInfoB = t.BLayoutInfoB = t.CLayoutInfoB = kAivs;
    t.ALayoutInfoN = t.BLayoutInfoN = t.CLayoutInfoN = 1;
    t.ALayoutInfoG = t.BLayoutInfoG = t.CLayoutInfoG = kHeads;
    t.ALayoutInfoS = kM;
    t.ALayoutInfoD = kK;
    t.BLayoutInfoS = kN;
    t.BLayoutInfoD = kK;
    t.CLayoutInfoS1 = kM;
    t.CLayoutInfoS2 = kN;
    t.BatchNum = kHeads;
    g_batch_tiling = t;

    const int total = kAivs * kHeads * kM * kN;
    std::vector<half> as(kAivs * kHeads * kM * kK), bs(kAivs * kHeads * kN * kK);
    for (std::size_t i = 0; i < as.size(); ++i) as[i] = small_int(static_cast<int>(i) * 5, 7);
    for (std::size_t i = 0; i < bs.size(); ++i) bs[i] = small_int(static_cast<int>(i) * 3, 5);
    LayoutRun run;
    run.expected.assign(total, 0.0F);
    for (int bb = 0; bb < kAivs; ++bb) {
        for (int g = 0; g < kHeads; ++g) {
            for (int r = 0; r < kM; ++r) {
                for (int col = 0; col < kN; ++col) {
                    float acc = 0.0F;
                    for (int i = 0; i < kK; ++i) {  // B held transposed: N x K
                        acc += static_cast<float>(as[place(kIn, bb, g, r, i, kM, kK)]) *
                               static_cast<float>(bs[place(kIn, bb, g, col, i, kN, kK)]);
                    }
                    run.expected[place(kOut, bb, g, r, col, kM, kN)] = acc;
                }
            }
        }
    }
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto a = sim.allocate<half>(as.size(), "a");
    auto b = sim.allocate<half>(bs.size(), "b");
    auto c = sim.allocate<float>(total, "c");
    auto out = sim.allocate<float>(total, "out");
    auto work = sim.allocate<float>(total, "work");
    auto workspace = sim.allocate<std::uint8_t>(npusim::ascendc::kSysWorkspaceBytes, "workspace");
    sim.write(a, as);
    sim.write(b, bs);
    sim.write(c, std::vector<float>(total, 0.0F));
    using npusim::ascendc::gm_addr;
    run.completed =
        sim.run({.name = "batch_layouts", .blocks = 1, .type = npusim::KernelType::MIX_AIC_1_2},
                npusim::ascendc::bind_kernel(batch_layouts<kIn, kOut>, gm_addr(a), gm_addr(b),
                                             gm_addr(c), gm_addr(out), gm_addr(work),
                                             gm_addr(workspace), static_cast<uint32_t>(mode)))
            .completed();
    run.out = sim.read(out);
    run.findings = checker.findings();
    return run;
}

}  // namespace

TEST_CASE("Matmul API: IterateBatch from the AIVs, BSNGD in and out, SBNGD in and BNGS1S2 out",
          "[ascendc][matmul][batch]") {
    for (const BatchCase mode : {kLayoutSync, kLayoutAsync}) {
        CAPTURE(mode);
        const LayoutRun bsngd = run_layouts<LayoutMode::BSNGD, LayoutMode::BSNGD>(mode);
        REQUIRE(bsngd.completed);
        CHECK(bsngd.out == bsngd.expected);
        CHECK_THAT(bsngd.findings, npusim::NoFindings());
    }
    const LayoutRun sbngd = run_layouts<LayoutMode::SBNGD, LayoutMode::BNGS1S2>(kLayoutSync);
    REQUIRE(sbngd.completed);
    CHECK(sbngd.out == sbngd.expected);
    CHECK_THAT(sbngd.findings, npusim::NoFindings());
}

TEST_CASE("Matmul API: IterateNBatch writes each loop's batches into the SetWorkspace GM",
          "[ascendc][matmul][batch]") {
    const LayoutRun run = run_layouts<LayoutMode::BSNGD, LayoutMode::BNGS1S2>(kNBatchToWork);
    REQUIRE(run.completed);
    CHECK(run.out == run.expected);
    CHECK_THAT(run.findings, npusim::NoFindings());
}

TEST_CASE("Matmul API: C read before WaitIterateBatch is a reported race",
          "[ascendc][matmul][batch]") {
    const LayoutRun run = run_layouts<LayoutMode::BSNGD, LayoutMode::BSNGD>(kLayoutRacy);
    REQUIRE(run.completed);
    REQUIRE_FALSE(run.findings.empty());
    const npusim::Finding& race = run.findings.front();
    INFO(race.message);
    CHECK(race.kind == npusim::FindingKind::RaceRAW);
    CHECK(race.scope == npusim::RaceScope::InterCore);
    REQUIRE(race.sites.size() == 2);
    CHECK(race.sites[0].pipe == npusim::Pipe::FIX);
    CHECK(race.sites[1].pipe == npusim::Pipe::MTE2);
    CHECK(race.sites[1].where.line() == g_batch_racy_line);
}

// ---- int8 x int8 + int32 bias -> half C, scaled by SetQuantScalar (DEQF16) or per column by
// SetQuantVector (VDEQF16); B row-major (int8 tiles moved row-major) or transposed (fractal).

namespace {

constexpr int kQm = 32, kQn = 64, kQk = 64;

enum QuantCase : uint32_t { kQuantScalar, kQuantVector, kQuantNone };

template <bool kTransB>
__global__ __aicore__ void quant_matmul(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR quant,
                                        GM_ADDR c, uint32_t mode) {
    const TCubeTiling tiling = g_batch_tiling;
    using I8 = MatmulType<TPosition::GM, CubeFormat::ND, int8_t>;
    GlobalTensor<int8_t> aGm, bGm;
    GlobalTensor<int32_t> biasGm;
    GlobalTensor<uint64_t> quantGm;
    GlobalTensor<half> cGm;
    aGm.SetGlobalBuffer((__gm__ int8_t*)a, kQm * kQk);
    bGm.SetGlobalBuffer((__gm__ int8_t*)b, kQk * kQn);
    biasGm.SetGlobalBuffer((__gm__ int32_t*)bias, kQn);
    quantGm.SetGlobalBuffer((__gm__ uint64_t*)quant, kQn);
    cGm.SetGlobalBuffer((__gm__ half*)c, kQm * kQn);
    Matmul<I8, I8, MatmulType<TPosition::GM, CubeFormat::ND, half>,
           MatmulType<TPosition::GM, CubeFormat::ND, int32_t>, CFG_MDL>
        mm;
    TPipe pipe;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &tiling);
    if (mode == kQuantVector) {
        mm.SetQuantVector(quantGm);
    } else if (mode == kQuantScalar) {
        float scale = 0.5F;
        uint32_t bits = 0;
        std::memcpy(&bits, &scale, sizeof(bits));
        mm.SetQuantScalar(bits);
    }
    mm.SetTensorA(aGm);
    mm.SetTensorB(bGm, kTransB);
    mm.SetBias(biasGm);
    mm.IterateAll(cGm);
    mm.End();
}

float column_scale(int col) {
    return 0.25F * static_cast<float>(col % 4 + 1);
}

template <bool kTransB>
std::pair<std::vector<half>, std::vector<npusim::Finding>> run_quant(QuantCase mode,
                                                                     std::vector<half>& expected) {
    TCubeTiling t;
    t.M = kQm;
    t.N = kQn;
    t.Ka = t.Kb = kQk;
    t.singleCoreM = kQm;
    t.singleCoreN = kQn;
    t.singleCoreK = kQk;
    t.baseM = 32;
    t.baseN = 32;
    t.baseK = 32;
    t.isBias = 1;
    t.usedCoreNum = 1;
    g_batch_tiling = t;
    std::vector<int8_t> as(kQm * kQk), bs(kQk * kQn);
    std::vector<int32_t> biases(kQn);
    std::vector<uint64_t> scales(kQn);
    for (int i = 0; i < kQm * kQk; ++i) as[i] = static_cast<int8_t>((i * 3 + i / 7) % 7 - 3);
    for (int i = 0; i < kQk * kQn; ++i) bs[i] = static_cast<int8_t>(i * 5 % 7 - 3);
    for (int i = 0; i < kQn; ++i) {
        biases[i] = i % 9 - 4;
        const float s = column_scale(i);
        uint32_t bits = 0;
        std::memcpy(&bits, &s, sizeof(bits));
        scales[i] = bits;
    }
    expected.assign(kQm * kQn, half(0.0F));
    for (int r = 0; r < kQm; ++r) {
        for (int col = 0; col < kQn; ++col) {
            int32_t acc = biases[col];
            for (int i = 0; i < kQk; ++i) acc += as[r * kQk + i] * bs[i * kQn + col];
            const float s = mode == kQuantVector ? column_scale(col) : 0.5F;
            expected[r * kQn + col] = half(static_cast<float>(acc) * s);
        }
    }
    std::vector<int8_t> b_in = bs;
    if (kTransB) {
        for (int i = 0; i < kQk; ++i)
            for (int col = 0; col < kQn; ++col) b_in[col * kQk + i] = bs[i * kQn + col];
    }
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto a = sim.allocate<int8_t>(as.size(), "a");
    auto b = sim.allocate<int8_t>(b_in.size(), "b");
    auto bias = sim.allocate<int32_t>(kQn, "bias");
    auto quant = sim.allocate<uint64_t>(kQn, "quant");
    auto c = sim.allocate<half>(kQm * kQn, "c");
    sim.write(a, as);
    sim.write(b, b_in);
    sim.write(bias, biases);
    sim.write(quant, scales);
    using npusim::ascendc::gm_addr;
    const npusim::RunResult r = sim.run(
        {.name = "quant_matmul", .blocks = 1, .type = npusim::KernelType::AIC_ONLY},
        npusim::ascendc::bind_kernel(quant_matmul<kTransB>, gm_addr(a), gm_addr(b), gm_addr(bias),
                                     gm_addr(quant), gm_addr(c), static_cast<uint32_t>(mode)));
    REQUIRE(r.completed());
    return {sim.read(c), checker.findings()};
}

}  // namespace

TEST_CASE("Matmul API: int8 in, half out through SetQuantScalar and SetQuantVector",
          "[ascendc][matmul][quant]") {
    std::vector<half> expected;
    for (const QuantCase mode : {kQuantScalar, kQuantVector}) {
        CAPTURE(mode);
        auto [rowmajor, findings] = run_quant<false>(mode, expected);
        CHECK(rowmajor == expected);
        CHECK_THAT(findings, npusim::NoFindings());
        auto [fractal, fractal_findings] = run_quant<true>(mode, expected);
        CHECK(fractal == expected);
        CHECK_THAT(fractal_findings, npusim::NoFindings());
    }
    std::vector<half> unused;
    CHECK_THROWS_WITH(run_quant<false>(kQuantNone, unused),
                      Catch::Contains("matmul_batch_test.cpp:") &&
                          Catch::Contains("need SetQuantScalar or SetQuantVector first"));
}
