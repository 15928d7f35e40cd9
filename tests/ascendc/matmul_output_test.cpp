// The Matmul API's other outputs: C in CO1 (each tile computed into the kernel's own L0C
// tensor, taken out by the kernel's own Fixpipe, ordered by its CO1 queue), and
// isPartialOutput (each Iterate one K step of a tile, GetTensorC's sequential form, summed by
// the kernel, here with the operator form `acc = acc + part`), isEnableChannelSplit (an
// NZ float C of 16 x 8 fractals), and A in TSCM (the kernel's L1 copy read in place). Each against
// a CPU reference with a clean checker; a CO1 kernel that skips its queue's EnQue / DeQue is the
// RAW (M then FIX on L0C) the checker reports.
#include <cstdint>
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

constexpr int kM = 32, kN = 64, kK = 48;
constexpr int kBaseM = 16, kBaseN = 32, kBaseK = 16;

TCubeTiling g_out_tiling;
std::uint32_t g_out_racy_line = 0;

using HalfNd = MatmulType<TPosition::GM, CubeFormat::ND, half>;
using FloatNd = MatmulType<TPosition::GM, CubeFormat::ND, float>;
using L0cOf = GetMmDstType<half>::Type;
using FloatCo1 = MatmulType<TPosition::CO1, CubeFormat::NZ, L0cOf>;
static_assert(std::is_same_v<L0cOf, float>);
static_assert(std::is_same_v<GetMmDstType<std::int8_t>::Type, std::int32_t>);

enum Co1Case : std::uint32_t { kCo1Queued, kCo1NoQueue };

/// C in CO1: each tile into a buffer of the kernel's CO1 queue (two buffers), out by its
/// Fixpipe to the tile's place in C. kCo1NoQueue skips EnQue / DeQue (the race).
__global__ __aicore__ void co1_kernel(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, GM_ADDR,
                                      std::uint32_t mode) {
    const TCubeTiling tiling = g_out_tiling;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> biasGm, cGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, kM * kK);
    bGm.SetGlobalBuffer((__gm__ half*)b, kK * kN);
    biasGm.SetGlobalBuffer((__gm__ float*)bias, kN);
    cGm.SetGlobalBuffer((__gm__ float*)c, kM * kN);
    TPipe pipe;
    Matmul<HalfNd, HalfNd, FloatCo1, FloatNd> mm;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &tiling);
    TQue<TPosition::CO1, Impl::QUEUE_DEPTH> co1;
    pipe.InitBuffer(co1, 2, kBaseM * kBaseN * sizeof(float));
    mm.SetTensorA(aGm);
    mm.SetTensorB(bGm);
    mm.SetBias(biasGm);
    // Tiles along M first (iterateOrder 0): tile t is (t % 2, t / 2).
    for (int t = 0;; ++t) {
        LocalTensor<float> l0c = co1.AllocTensor<float>();
        if (!mm.Iterate(false, l0c)) {
            co1.FreeTensor(l0c);
            break;
        }
        if (mode == kCo1Queued) {
            co1.EnQue(l0c);
            l0c = co1.DeQue<float>();
        }
        FixpipeParamsV220<> fix;
        fix.mSize = kBaseM;
        fix.nSize = kBaseN;
        fix.srcStride = kBaseM;
        fix.dstStride = kN;
        if (mode == kCo1NoQueue) g_out_racy_line = __LINE__ + 1;
        Fixpipe<float, float, CFG_ROW_MAJOR>(cGm[(t % 2) * kBaseM * kN + (t / 2) * kBaseN], l0c,
                                             fix);
        co1.FreeTensor(l0c);
    }
    co1.FreeAllEvent();
    mm.End();
}

constexpr MatmulConfig PartialCfg() {
    MatmulConfig cfg = CFG_MDL;
    cfg.isPartialOutput = true;
    return cfg;
}
constexpr MatmulConfig kPartialCfg = PartialCfg();
constexpr int kTile = kBaseM * kBaseN, kSteps = kK / kBaseK;

/// isPartialOutput from the AIV of a 1:1 mixed kernel: each K step of each tile to `parts`
/// (packed, one after another), then summed per tile through UB (`acc = acc + part`) into C.
__global__ __mix__(1, 1) void partial_kernel(GM_ADDR a, GM_ADDR b, GM_ADDR parts, GM_ADDR c,
                                             GM_ADDR workspace, std::uint32_t) {
    SetSysWorkspace(workspace);
    const TCubeTiling tiling = g_out_tiling;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> partsGm, cGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, kM * kK);
    bGm.SetGlobalBuffer((__gm__ half*)b, kK * kN);
    partsGm.SetGlobalBuffer((__gm__ float*)parts, 4 * kSteps * kTile);
    cGm.SetGlobalBuffer((__gm__ float*)c, kM * kN);
    TPipe pipe;
    Matmul<HalfNd, HalfNd, FloatNd, FloatNd, kPartialCfg> mm;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
    mm.SetTensorA(aGm);
    mm.SetTensorB(bGm);
    int offset = 0;
    while (mm.Iterate()) {
        mm.GetTensorC(partsGm[offset], 0, true);
        offset += kTile;
    }
    mm.End();
    TQue<TPosition::VECIN, 1> inQ;
    TQue<TPosition::VECOUT, 1> outQ;
    pipe.InitBuffer(inQ, 1, kTile * sizeof(float));
    pipe.InitBuffer(outQ, 1, kTile * sizeof(float));
    for (int t = 0; t < 4; ++t) {
        LocalTensor<float> acc = outQ.AllocTensor<float>();
        for (int k = 0; k < kSteps; ++k) {
            LocalTensor<float> part = inQ.AllocTensor<float>();
            DataCopy(part, partsGm[(t * kSteps + k) * kTile], kTile);
            inQ.EnQue(part);
            part = inQ.DeQue<float>();
            if (k == 0) {
                Adds(acc, part, 0.0F, kTile);
            } else {
                acc = acc + part;
            }
            inQ.FreeTensor(part);
        }
        outQ.EnQue(acc);
        acc = outQ.DeQue<float>();
        // Tiles along M first: tile t is (t % 2, t / 2); rows of kBaseN floats, kN apart.
        DataCopyParams rows{kBaseM, kBaseN * 4 / 32, 0, (kN - kBaseN) * 4 / 32};
        DataCopy(cGm[(t % 2) * kBaseM * kN + (t / 2) * kBaseN], acc, rows);
        outQ.FreeTensor(acc);
    }
}

constexpr MatmulConfig SplitCfg() {
    MatmulConfig cfg = CFG_NORM;
    cfg.isEnableChannelSplit = true;
    return cfg;
}
constexpr MatmulConfig kSplitCfg = SplitCfg();
using FloatNz = MatmulType<TPosition::GM, CubeFormat::NZ, float>;

/// isEnableChannelSplit: all of C as NZ of 16 x 8 fractals (8-column blocks of kM rows).
__global__ __aicore__ void split_kernel(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, GM_ADDR,
                                        std::uint32_t) {
    const TCubeTiling tiling = g_out_tiling;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> biasGm, cGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, kM * kK);
    bGm.SetGlobalBuffer((__gm__ half*)b, kK * kN);
    biasGm.SetGlobalBuffer((__gm__ float*)bias, kN);
    cGm.SetGlobalBuffer((__gm__ float*)c, kM * kN);
    TPipe pipe;
    Matmul<HalfNd, HalfNd, FloatNz, FloatNd, kSplitCfg> mm;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &tiling);
    mm.SetTensorA(aGm);
    mm.SetTensorB(bGm);
    mm.SetBias(biasGm);
    mm.IterateAll(cGm);
    mm.End();
}

using HalfTscm = MatmulType<TPosition::TSCM, CubeFormat::NZ, half>;

/// A in TSCM: the kernel copies A (NZ in GM) into its L1 queue, the object reads it in place.
__global__ __aicore__ void tscm_kernel(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, GM_ADDR,
                                       std::uint32_t) {
    const TCubeTiling tiling = g_out_tiling;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> biasGm, cGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, kM * kK);
    bGm.SetGlobalBuffer((__gm__ half*)b, kK * kN);
    biasGm.SetGlobalBuffer((__gm__ float*)bias, kN);
    cGm.SetGlobalBuffer((__gm__ float*)c, kM * kN);
    TPipe pipe;
    Matmul<HalfTscm, HalfNd, FloatNd, FloatNd> mm;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &tiling);
    TSCM<TPosition::GM, 1> scm;
    pipe.InitBuffer(scm, 1, kM * kK * sizeof(half));
    LocalTensor<half> aL1 = scm.AllocTensor<half>();
    DataCopy(aL1, aGm, kM * kK);
    scm.EnQue(aL1);
    aL1 = scm.DeQue<half>();
    mm.SetTensorA(aL1);
    mm.SetTensorB(bGm);
    mm.SetBias(biasGm);
    mm.IterateAll(cGm);
    mm.End();
    scm.FreeTensor(aL1);
}

std::vector<half> ints(std::size_t n, int mul, int mod) {
    std::vector<half> v(n);
    for (std::size_t i = 0; i < n; ++i)
        v[i] = half(static_cast<float>(static_cast<int>(i) * mul % mod - mod / 2));
    return v;
}

std::vector<float> reference(const std::vector<half>& as, const std::vector<half>& bs,
                             const std::vector<float>* bias) {
    std::vector<float> c(kM * kN);
    for (int r = 0; r < kM; ++r) {
        for (int col = 0; col < kN; ++col) {
            float acc = bias != nullptr ? (*bias)[col] : 0.0F;
            for (int i = 0; i < kK; ++i)
                acc += static_cast<float>(as[r * kK + i]) * static_cast<float>(bs[i * kN + col]);
            c[r * kN + col] = acc;
        }
    }
    return c;
}

void host_tiling(bool bias) {
    matmul_tiling::MultiCoreMatmulTiling host;
    using matmul_tiling::CubeFormat;
    using matmul_tiling::DataType;
    host.SetDim(1);
    host.SetAType(matmul_tiling::TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    host.SetBType(matmul_tiling::TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    host.SetCType(matmul_tiling::TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    host.SetBiasType(matmul_tiling::TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    host.SetShape(kM, kN, kK);
    host.SetOrgShape(kM, kN, kK);
    host.EnableBias(bias);
    host.SetFixSplit(kBaseM, kBaseN, kBaseK);  // 2 x 2 tiles of 3 K steps
    REQUIRE(host.GetTiling(g_out_tiling) == 0);
    REQUIRE(g_out_tiling.baseK == kBaseK);
}

struct OutRun {
    bool completed = false;
    std::vector<float> c;
    std::vector<npusim::Finding> findings;
};

template <class Kernel>
OutRun run_out(Kernel kernel, npusim::KernelType type, std::uint32_t blocks,
               const std::vector<half>& as, const std::vector<half>& bs,
               const std::vector<float>& biases, std::size_t c_size, std::uint32_t mode) {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto a = sim.allocate<half>(as.size(), "a");
    auto b = sim.allocate<half>(bs.size(), "b");
    auto bias = sim.allocate<float>(biases.size(), "bias");
    auto c = sim.allocate<float>(c_size, "c");
    auto work = sim.allocate<std::uint8_t>(npusim::ascendc::kSysWorkspaceBytes, "workspace");
    sim.write(a, as);
    sim.write(b, bs);
    sim.write(bias, biases);
    using npusim::ascendc::gm_addr;
    OutRun run;
    run.completed =
        sim.run({.name = "matmul_output", .blocks = blocks, .type = type},
                npusim::ascendc::bind_kernel(kernel, gm_addr(a), gm_addr(b), gm_addr(bias),
                                             gm_addr(c), gm_addr(work), mode))
            .completed();
    run.c = sim.read(c);
    run.findings = checker.findings();
    return run;
}

}  // namespace

TEST_CASE("Matmul API: C in CO1, tiles into the kernel's L0C tensors, its Fixpipe out",
          "[ascendc][matmul][co1]") {
    host_tiling(true);
    const std::vector<half> as = ints(kM * kK, 7, 9), bs = ints(kK * kN, 5, 7);
    std::vector<float> biases(kN);
    for (int i = 0; i < kN; ++i) biases[i] = static_cast<float>(i % 11) - 5.0F;
    const OutRun run =
        run_out(co1_kernel, npusim::KernelType::AIC_ONLY, 1, as, bs, biases, kM * kN, kCo1Queued);
    REQUIRE(run.completed);
    CHECK(run.c == reference(as, bs, &biases));
    CHECK_THAT(run.findings, npusim::NoFindings());
}

TEST_CASE("Matmul API: isEnableChannelSplit, C as NZ of 16 x 8 fractals",
          "[ascendc][matmul][channelsplit]") {
    host_tiling(true);
    const std::vector<half> as = ints(kM * kK, 7, 9), bs = ints(kK * kN, 5, 7);
    std::vector<float> biases(kN);
    for (int i = 0; i < kN; ++i) biases[i] = static_cast<float>(i % 5);
    const OutRun run =
        run_out(split_kernel, npusim::KernelType::AIC_ONLY, 1, as, bs, biases, kM * kN, 0);
    REQUIRE(run.completed);
    const std::vector<float> nd = reference(as, bs, &biases);
    std::vector<float> nz(kM * kN);
    for (int r = 0; r < kM; ++r) {
        for (int col = 0; col < kN; ++col)
            nz[(col / 8) * kM * 8 + r * 8 + col % 8] = nd[r * kN + col];
    }
    CHECK(run.c == nz);
    CHECK_THAT(run.findings, npusim::NoFindings());
}

TEST_CASE("Matmul API: A in TSCM, the kernel's L1 copy read in place", "[ascendc][matmul][tscm]") {
    host_tiling(true);
    const std::vector<half> as = ints(kM * kK, 7, 9), bs = ints(kK * kN, 5, 7);
    std::vector<half> a_nz(kM * kK);  // column blocks of 16 of kM rows
    for (int r = 0; r < kM; ++r) {
        for (int i = 0; i < kK; ++i) a_nz[(i / 16) * kM * 16 + r * 16 + i % 16] = as[r * kK + i];
    }
    std::vector<float> biases(kN);
    for (int i = 0; i < kN; ++i) biases[i] = static_cast<float>(i % 3);
    const OutRun run =
        run_out(tscm_kernel, npusim::KernelType::AIC_ONLY, 1, a_nz, bs, biases, kM * kN, 0);
    REQUIRE(run.completed);
    CHECK(run.c == reference(as, bs, &biases));
    CHECK_THAT(run.findings, npusim::NoFindings());
}

TEST_CASE("Matmul API: isPartialOutput, one K step an Iterate, summed by the AIV",
          "[ascendc][matmul][partial]") {
    host_tiling(false);
    const std::vector<half> as = ints(kM * kK, 7, 9), bs = ints(kK * kN, 5, 7);
    const std::vector<float> parts(4 * kSteps * kTile, 0.0F);
    const OutRun run =
        run_out(partial_kernel, npusim::KernelType::MIX_AIC_1_1, 1, as, bs, parts, kM * kN, 0);
    REQUIRE(run.completed);
    CHECK(run.c == reference(as, bs, nullptr));
    CHECK_THAT(run.findings, npusim::NoFindings());
}

TEST_CASE("Matmul API: C in CO1 without the kernel's EnQue / DeQue is a race on L0C",
          "[ascendc][matmul][co1]") {
    host_tiling(true);
    const std::vector<half> as = ints(kM * kK, 7, 9), bs = ints(kK * kN, 5, 7);
    const std::vector<float> biases(kN, 1.0F);
    const OutRun run =
        run_out(co1_kernel, npusim::KernelType::AIC_ONLY, 1, as, bs, biases, kM * kN, kCo1NoQueue);
    REQUIRE(run.completed);
    REQUIRE_FALSE(run.findings.empty());
    const npusim::Finding& race = run.findings.front();
    CHECK(race.kind == npusim::FindingKind::RaceRAW);
    CHECK(race.scope == npusim::RaceScope::InterPipe);
    REQUIRE(race.sites.size() == 2);
    CHECK(race.sites[0].pipe == npusim::Pipe::M);
    CHECK(race.sites[1].pipe == npusim::Pipe::FIX);
    CHECK(race.sites[1].where.line() == g_out_racy_line);
}
