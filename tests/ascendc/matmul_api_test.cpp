// The high-level Matmul API (lib/matmul_intf.h) on the cube pipes: plain, with bias,
// transposed, NZ inputs, Iterate/GetTensorC, multi-core with tails, and a mixed kernel with a
// LeakyReLU epilogue on the AIVs; each against a CPU reference with a clean checker. Last,
// a large GEMM through the API against the same GEMM written with basic APIs at the same
// tiling, data-free: the API's cycles stay within 1.25x.
// The kernels here call the Matmul on the AIC itself (the mixed one too, handing C to its AIVs
// with a cross-core flag): the vendor's cube-only mode, ASCENDC_CUBE_ONLY. The AIV -> AIC
// message mode is in matmul_mix_test.cpp.
#define ASCENDC_CUBE_ONLY
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "lib/matmul_intf.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"
#include "tiling/tiling_api.h"

using namespace AscendC;

namespace {

// The host's tiling, as the kernels' tiling argument would carry it.
TCubeTiling g_tiling;

enum Flags : uint32_t {
    kBias = 1,
    kTransA = 2,
    kTransB = 4,
    kIterate = 8,
    kAsync = 16,
    kPartialSum = 32,
};

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

template <CubeFormat kFormat, CubeFormat kCFormat = CubeFormat::ND>
__global__ __aicore__ void matmul_custom(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c,
                                         uint32_t flags) {
    using AType = MatmulType<TPosition::GM, kFormat, half>;
    using BType = MatmulType<TPosition::GM, kFormat, half>;
    using CType = MatmulType<TPosition::GM, kCFormat, float>;
    using BiasType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
    const TCubeTiling tiling = g_tiling;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> biasGm, cGm;
    const auto al16 = [](int v) { return (v + 15) / 16 * 16; };
    const bool nz = kFormat == CubeFormat::NZ;  // NZ: both extents padded to 16
    aGm.SetGlobalBuffer((__gm__ half*)a,
                        nz ? al16(tiling.M) * al16(tiling.Ka) : tiling.M * tiling.Ka);
    bGm.SetGlobalBuffer((__gm__ half*)b,
                        nz ? al16(tiling.Kb) * al16(tiling.N) : tiling.Kb * tiling.N);
    biasGm.SetGlobalBuffer((__gm__ float*)bias, tiling.N);
    const int paddedM = al16(tiling.M);  // C in NZ: 16-column blocks of paddedM rows
    cGm.SetGlobalBuffer((__gm__ float*)c, kCFormat == CubeFormat::NZ ? paddedM * al16(tiling.N)
                                                                     : tiling.M * tiling.N);
    Matmul<AType, BType, CType, BiasType> mm;  // before the TPipe, as the vendor samples
    TPipe pipe;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &tiling);

    // This core's block of C: along M first.
    const int mBlocks = (tiling.M + tiling.singleCoreM - 1) / tiling.singleCoreM;
    const int mIdx = static_cast<int>(GetBlockIdx()) % mBlocks;
    const int nIdx = static_cast<int>(GetBlockIdx()) / mBlocks;
    const int m0 = mIdx * tiling.singleCoreM, n0 = nIdx * tiling.singleCoreN;
    const bool transA = (flags & kTransA) != 0, transB = (flags & kTransB) != 0;
    if (nz) {  // (r, c) of a rows x cols NZ matrix: column block c / 16 of al16(rows) rows
        mm.SetTensorA(aGm[transA ? m0 * al16(tiling.Ka) : m0 * 16], transA);
        mm.SetTensorB(bGm[transB ? n0 * 16 : n0 * al16(tiling.Kb)], transB);
    } else {
        mm.SetTensorA(aGm[transA ? m0 : m0 * tiling.Ka], transA);
        mm.SetTensorB(bGm[transB ? n0 * tiling.Kb : n0], transB);
    }
    if ((flags & kBias) != 0) mm.SetBias(biasGm[n0]);
    mm.SetTail(std::min(tiling.singleCoreM, tiling.M - m0),
               std::min(tiling.singleCoreN, tiling.N - n0));
    const int cAt = kCFormat == CubeFormat::NZ ? n0 * paddedM + m0 * 16 : m0 * tiling.N + n0;
    if ((flags & kPartialSum) != 0) {
        // One tile, K in two halves: the second Iterate(enPartialSum) adds onto L0C.
        const int half = tiling.Ka / 2;
        mm.SetSingleShape(tiling.singleCoreM, tiling.singleCoreN, half);
        mm.Iterate();
        mm.SetTensorA(aGm[m0 * tiling.Ka + half]);
        mm.SetTensorB(bGm[half * tiling.N + n0]);
        mm.SetBias(biasGm[n0]);
        mm.Iterate(true);
        mm.GetTensorC(cGm[cAt]);
    } else if ((flags & kAsync) != 0) {
        // The vendor's async form: one Iterate<false>, then GetTensorC<false> once per tile.
        mm.template Iterate<false>();
        const int tiles =
            ((std::min(tiling.singleCoreM, tiling.M - m0) + tiling.baseM - 1) / tiling.baseM) *
            ((std::min(tiling.singleCoreN, tiling.N - n0) + tiling.baseN - 1) / tiling.baseN);
        for (int i = 0; i < tiles; ++i) mm.template GetTensorC<false>(cGm[cAt]);
    } else if ((flags & kIterate) != 0) {
        while (mm.template Iterate<false>()) {
            mm.template GetTensorC<false>(cGm[cAt]);
        }
    } else {
        mm.IterateAll(cGm[cAt]);
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

// ND rows x cols -> NZ: 16-column blocks, each of the rows padded to 16, 16 elements a row
// (half: C0 = 32 bytes; float C in NZ keeps L0C's 16 x 16 fractals).
template <class T>
std::vector<T> to_nz(const std::vector<T>& x, int rows, int cols) {
    const int padded = (rows + 15) / 16 * 16;
    std::vector<T> nz(static_cast<std::size_t>(padded) * ((cols + 15) / 16 * 16), T(0.0F));
    for (int r = 0; r < rows; ++r)
        for (int col = 0; col < cols; ++col)
            nz[(col / 16 * padded + r) * 16 + col % 16] = x[r * cols + col];
    return nz;
}
template <class T>
std::vector<T> from_nz(const std::vector<T>& nz, int rows, int cols) {
    const int padded = (rows + 15) / 16 * 16;
    std::vector<T> x(static_cast<std::size_t>(rows) * cols);
    for (int r = 0; r < rows; ++r)
        for (int col = 0; col < cols; ++col)
            x[r * cols + col] = nz[(col / 16 * padded + r) * 16 + col % 16];
    return x;
}

struct Result {
    std::vector<float> c;
    std::vector<npusim::Finding> findings;
};

template <CubeFormat kFormat, CubeFormat kCFormat = CubeFormat::ND>
Result run_matmul(const Problem& p, const TCubeTiling& tiling, uint32_t flags) {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    std::vector<half> a = (flags & kTransA) != 0 ? transposed(p.a, p.m, p.k) : p.a;
    std::vector<half> b = (flags & kTransB) != 0 ? transposed(p.b, p.k, p.n) : p.b;
    if constexpr (kFormat == CubeFormat::NZ) {
        const bool ta = (flags & kTransA) != 0, tb = (flags & kTransB) != 0;
        a = to_nz(a, ta ? p.k : p.m, ta ? p.m : p.k);
        b = to_nz(b, tb ? p.n : p.k, tb ? p.k : p.n);
    }
    auto a_gm = sim.allocate<half>(a.size(), "a");
    auto b_gm = sim.allocate<half>(b.size(), "b");
    auto bias_gm = sim.allocate<float>(p.n, "bias");
    const bool c_nz = kCFormat == CubeFormat::NZ;
    auto c_gm =
        sim.allocate<float>(c_nz ? (p.m + 15) / 16 * 16 * ((p.n + 15) / 16 * 16) : p.m * p.n, "c");
    sim.write(a_gm, a);
    sim.write(b_gm, b);
    sim.write(bias_gm, p.bias);
    g_tiling = tiling;
    using npusim::ascendc::gm_addr;
    const npusim::RunResult r = sim.run(
        {.name = "matmul_custom",
         .blocks = static_cast<uint32_t>(tiling.usedCoreNum),
         .type = npusim::KernelType::AIC_ONLY},
        npusim::ascendc::bind_kernel(matmul_custom<kFormat, kCFormat>, gm_addr(a_gm), gm_addr(b_gm),
                                     gm_addr(bias_gm), gm_addr(c_gm), flags));
    REQUIRE(r.completed());
    std::vector<float> c = sim.read(c_gm);
    if constexpr (kCFormat == CubeFormat::NZ) {
        c = from_nz(c, p.m, p.n);
    }
    return {c, checker.findings()};
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

TEST_CASE("Matmul API: NZ inputs transposed, C in NZ, over 2 x 2 cores with tails",
          "[ascendc][matmul]") {
    // A held K x M and B N x K, both NZ in GM (the hardware's format, packed by to_nz); C
    // written NZ (16-column blocks of the rows padded to 16). M 72 = 48 + 24, N 64 = 32 + 32.
    const Problem p = make_problem(72, 64, 48);
    const Result r = run_matmul<CubeFormat::NZ, CubeFormat::NZ>(
        p, tiling_for(72, 64, 48, 48, 32, 32, 32, 32, true), kBias | kTransA | kTransB | kIterate);
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

// ---- Element types: bf16 and int8 inputs, C converted to fp16 / bf16 by the fixpipe ------

namespace {

using npusim::ascendc::MatmulL0cT;

// C (DstT) = A x B (+ bias) with the host's tiling for these types, one core.
template <class SrcT, class DstT>
__global__ __aicore__ void matmul_typed(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c) {
    using L0cT = MatmulL0cT<SrcT>;
    using AType = MatmulType<TPosition::GM, CubeFormat::ND, SrcT>;
    using CType = MatmulType<TPosition::GM, CubeFormat::ND, DstT>;
    using BiasType = MatmulType<TPosition::GM, CubeFormat::ND, L0cT>;
    const TCubeTiling tiling = g_tiling;
    GlobalTensor<SrcT> aGm, bGm;
    GlobalTensor<L0cT> biasGm;
    GlobalTensor<DstT> cGm;
    aGm.SetGlobalBuffer((__gm__ SrcT*)a, tiling.M * tiling.Ka);
    bGm.SetGlobalBuffer((__gm__ SrcT*)b, tiling.Kb * tiling.N);
    biasGm.SetGlobalBuffer((__gm__ L0cT*)bias, tiling.N);
    cGm.SetGlobalBuffer((__gm__ DstT*)c, tiling.M * tiling.N);
    Matmul<AType, AType, CType, BiasType> mm;
    TPipe pipe;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &tiling);
    mm.SetTensorA(aGm);
    mm.SetTensorB(bGm);
    if (tiling.isBias != 0) mm.SetBias(biasGm);
    mm.IterateAll(cGm);
    mm.End();
}

template <class T>
matmul_tiling::DataType data_type() {
    using matmul_tiling::DataType;
    if constexpr (std::is_same_v<T, half>) return DataType::DT_FLOAT16;
    if constexpr (std::is_same_v<T, bfloat16_t>) return DataType::DT_BF16;
    if constexpr (std::is_same_v<T, int8_t>) return DataType::DT_INT8;
    if constexpr (std::is_same_v<T, int32_t>) return DataType::DT_INT32;
    return DataType::DT_FLOAT;
}

/// Runs C = A x B + bias for SrcT inputs and DstT output with small integer values (exact in
/// every type) and the host tiling's choice; returns C as float and the reference.
template <class SrcT, class DstT>
std::pair<std::vector<float>, std::vector<float>> run_typed(int m, int n, int k,
                                                            TCubeTiling* chosen = nullptr) {
    using L0cT = MatmulL0cT<SrcT>;
    using matmul_tiling::CubeFormat;
    using matmul_tiling::TPosition;
    const npusim::ChipConfig chip = npusim::builtin_chip_config("small");
    matmul_tiling::MatmulApiTiling host(platform_ascendc::PlatformAscendC{chip});
    host.SetAType(TPosition::GM, CubeFormat::ND, data_type<SrcT>());
    host.SetBType(TPosition::GM, CubeFormat::ND, data_type<SrcT>());
    host.SetCType(TPosition::GM, CubeFormat::ND, data_type<DstT>());
    host.SetBiasType(TPosition::GM, CubeFormat::ND, data_type<L0cT>());
    host.SetShape(m, n, k);
    host.SetBias(true);
    host.SetFixSplit(32, 32, -1);  // several tiles
    TCubeTiling tiling;
    REQUIRE(host.GetTiling(tiling) == 0);
    if (chosen != nullptr) *chosen = tiling;
    std::vector<SrcT> a(m * k), b(k * n);
    std::vector<L0cT> bias(n);
    for (int i = 0; i < m * k; ++i) a[i] = static_cast<SrcT>(static_cast<float>(i * 7 % 11) - 5.0F);
    for (int i = 0; i < k * n; ++i) b[i] = static_cast<SrcT>(static_cast<float>(i * 5 % 9) - 4.0F);
    for (int i = 0; i < n; ++i) bias[i] = static_cast<L0cT>(i % 13 - 6);
    std::vector<float> expected(m * n);
    for (int r = 0; r < m; ++r) {
        for (int col = 0; col < n; ++col) {
            float acc = static_cast<float>(bias[col]);
            for (int i = 0; i < k; ++i)
                acc += static_cast<float>(a[r * k + i]) * static_cast<float>(b[i * n + col]);
            expected[r * n + col] = static_cast<float>(static_cast<DstT>(acc));
        }
    }
    npusim::Simulator sim(chip);
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto a_gm = sim.allocate<SrcT>(a.size(), "a");
    auto b_gm = sim.allocate<SrcT>(b.size(), "b");
    auto bias_gm = sim.allocate<L0cT>(n, "bias");
    auto c_gm = sim.allocate<DstT>(m * n, "c");
    sim.write(a_gm, a);
    sim.write(b_gm, b);
    sim.write(bias_gm, bias);
    g_tiling = tiling;
    using npusim::ascendc::gm_addr;
    const npusim::RunResult r =
        sim.run({.name = "matmul_typed", .blocks = 1, .type = npusim::KernelType::AIC_ONLY},
                npusim::ascendc::bind_kernel(matmul_typed<SrcT, DstT>, gm_addr(a_gm), gm_addr(b_gm),
                                             gm_addr(bias_gm), gm_addr(c_gm)));
    REQUIRE(r.completed());
    CHECK_THAT(checker.findings(), npusim::NoFindings());
    std::vector<float> c;
    for (const DstT& x : sim.read(c_gm)) c.push_back(static_cast<float>(x));
    return {c, expected};
}

}  // namespace

TEST_CASE("Matmul API: bf16, fp32 and int8 inputs (int32 C), C in fp16 and bf16",
          "[ascendc][matmul][types]") {
    SECTION("bf16 x bf16 -> fp32") {
        const auto [c, expected] = run_typed<bfloat16_t, float>(48, 64, 96);
        CHECK(c == expected);
    }
    SECTION("int8 x int8 -> int32 (K steps of 32 int8 elements)") {
        TCubeTiling tiling;
        const auto [c, expected] = run_typed<int8_t, int32_t>(48, 64, 128, &tiling);
        CHECK(tiling.baseK % 32 == 0);
        CHECK(c == expected);
    }
    SECTION("fp16 x fp16 -> fp16 (the fixpipe's F322F16)") {
        const auto [c, expected] = run_typed<half, half>(40, 48, 64);
        CHECK(c == expected);
    }
    SECTION("fp32 x fp32 -> fp32 (K steps of 8 fp32 elements)") {
        const auto [c, expected] = run_typed<float, float>(40, 32, 72);
        CHECK(c == expected);
    }
    SECTION("bf16 x bf16 -> bf16 (F322BF16)") {
        const auto [c, expected] = run_typed<bfloat16_t, bfloat16_t>(32, 32, 64);
        CHECK(c == expected);
    }
}

namespace {

// Matmul<A, B, C> with C half: the bias type defaults to C's; SetBias then is an error.
__global__ __aicore__ void matmul_half_bias(GM_ADDR a, GM_ADDR bias, GM_ADDR c) {
    using HType = MatmulType<TPosition::GM, CubeFormat::ND, half>;
    const TCubeTiling tiling = g_tiling;
    GlobalTensor<half> aGm, biasGm, cGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, 32 * 32);
    biasGm.SetGlobalBuffer((__gm__ half*)bias, 32);
    cGm.SetGlobalBuffer((__gm__ half*)c, 32 * 32);
    Matmul<HType, HType, HType> mm;
    TPipe pipe;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &tiling);
    mm.SetTensorA(aGm);
    mm.SetTensorB(aGm);
    mm.SetBias(biasGm);
    mm.IterateAll(cGm);
}

}  // namespace

TEST_CASE("Matmul API: a bias of C's type (the default) other than L0C's is an error at SetBias",
          "[ascendc][matmul][types]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    auto a = sim.allocate<half>(32 * 32, "a");
    auto bias = sim.allocate<half>(32, "bias");
    auto c = sim.allocate<half>(32 * 32, "c");
    g_tiling = tiling_for(32, 32, 32, 32, 32, 32, 32, 32, true);
    using npusim::ascendc::gm_addr;
    CHECK_THROWS_WITH(
        sim.run(
            {.name = "matmul_half_bias", .blocks = 1, .type = npusim::KernelType::AIC_ONLY},
            npusim::ascendc::bind_kernel(matmul_half_bias, gm_addr(a), gm_addr(bias), gm_addr(c))),
        Catch::Contains("matmul_api_test.cpp:") &&
            Catch::Contains("SetBias with a bias of another type than L0C's (float)"));
}

TEST_CASE("Matmul API: host tiling refuses the types npusim's Matmul cannot take",
          "[ascendc][matmul][types]") {
    using matmul_tiling::CubeFormat;
    using matmul_tiling::DataType;
    using matmul_tiling::TPosition;
    matmul_tiling::MatmulApiTiling host;
    host.SetShape(64, 64, 64);
    TCubeTiling tiling;
    host.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_INT8);
    host.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_INT8);
    host.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_BF16);  // no int32 -> bf16 mode
    CHECK(host.GetTiling(tiling) == -1);
    host.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_INT32);
    CHECK(host.GetTiling(tiling) == 0);
    host.SetShape(64, 48, 64);  // 48 int8 columns: not whole 32-byte rows
    CHECK(host.GetTiling(tiling) == -1);
    host.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);  // mixed inputs
    host.SetShape(64, 64, 64);
    CHECK(host.GetTiling(tiling) == -1);
}

// ---- Matmul + a vector epilogue: the AIC writes C through the API, its two AIVs apply
// LeakyReLU to half the rows each after a cross-core flag.

namespace {

constexpr int kMixM = 64, kMixN = 64, kMixK = 64;
constexpr float kSlope = 0.125F;

__global__ __mix__(1, 2) void matmul_leakyrelu(GM_ADDR a, GM_ADDR b, GM_ADDR work, GM_ADDR out) {
    using AType = MatmulType<TPosition::GM, CubeFormat::ND, half>;
    using CType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
    const TCubeTiling tiling = g_tiling;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> workGm, outGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, kMixM * kMixK);
    bGm.SetGlobalBuffer((__gm__ half*)b, kMixK * kMixN);
    workGm.SetGlobalBuffer((__gm__ float*)work, kMixM * kMixN);
    outGm.SetGlobalBuffer((__gm__ float*)out, kMixM * kMixN);
    TPipe pipe;
    if ASCEND_IS_AIC {
        Matmul<AType, AType, CType> mm;
        REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &tiling);
        mm.SetTensorA(aGm);
        mm.SetTensorB(bGm);
        mm.IterateAll(workGm);
        mm.End();
        CrossCoreSetFlag<2, PIPE_FIX>(0);
    }
    if ASCEND_IS_AIV {
        constexpr int rows = kMixM / 2;
        TQue<TPosition::VECIN, 1> inQueue;
        TQue<TPosition::VECOUT, 1> outQueue;
        pipe.InitBuffer(inQueue, 1, rows * kMixN * sizeof(float));
        pipe.InitBuffer(outQueue, 1, rows * kMixN * sizeof(float));
        CrossCoreWaitFlag(0);
        const uint64_t first = GetSubBlockIdx() * rows * kMixN;
        LocalTensor<float> in = inQueue.AllocTensor<float>();
        DataCopy(in, workGm[first], rows * kMixN);
        inQueue.EnQue(in);
        in = inQueue.DeQue<float>();
        LocalTensor<float> result = outQueue.AllocTensor<float>();
        LeakyRelu(result, in, kSlope, rows * kMixN);
        outQueue.EnQue(result);
        inQueue.FreeTensor(in);
        result = outQueue.DeQue<float>();
        DataCopy(outGm[first], result, rows * kMixN);
        outQueue.FreeTensor(result);
    }
}

}  // namespace

TEST_CASE("Matmul API: matmul + LeakyReLU epilogue on the AIVs", "[ascendc][matmul]") {
    const Problem p = make_problem(kMixM, kMixN, kMixK);
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto a_gm = sim.allocate<half>(p.a.size(), "a");
    auto b_gm = sim.allocate<half>(p.b.size(), "b");
    auto work_gm = sim.allocate<float>(kMixM * kMixN, "work");
    auto out_gm = sim.allocate<float>(kMixM * kMixN, "out");
    sim.write(a_gm, p.a);
    sim.write(b_gm, p.b);
    g_tiling = tiling_for(kMixM, kMixN, kMixK, kMixM, kMixN, 32, 32, 32, false);
    using npusim::ascendc::gm_addr;
    const npusim::RunResult r =
        sim.run({.name = "matmul_leakyrelu", .blocks = 1, .type = npusim::KernelType::MIX_AIC_1_2},
                npusim::ascendc::bind_kernel(matmul_leakyrelu, gm_addr(a_gm), gm_addr(b_gm),
                                             gm_addr(work_gm), gm_addr(out_gm)));
    REQUIRE(r.completed());
    std::vector<float> expected = reference(p, false);
    for (float& x : expected) x = x > 0.0F ? x : x * kSlope;
    CHECK(sim.read(out_gm) == expected);
    CHECK_THAT(checker.findings(), npusim::NoFindings());
}

// ---- The API against basic APIs at the same tiling (data-free timing) -------------------

namespace {

// C = A x B with the Matmul schedule written by hand in the hardware's layouts: per output
// tile (along M first), per K step: GM -> A1/B1 (DataCopy with Nd2NzParams: NZ), LoadData to
// A2 (ZZ) and B2 (ZN, ifTranspose) one k block at a time (here 4 k blocks against 8 row and
// column blocks: the fewer loads, as the API chooses), Mmad; Fixpipe NZ -> ND to GM. Shapes
// are whole multiples of the tiles; run data-free to compare the two schedules' timing.
__global__ __aicore__ void basic_gemm(GM_ADDR a, GM_ADDR b, GM_ADDR c) {
    const TCubeTiling t = g_tiling;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> cGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, t.M * t.Ka);
    bGm.SetGlobalBuffer((__gm__ half*)b, t.Kb * t.N);
    cGm.SetGlobalBuffer((__gm__ float*)c, t.M * t.N);
    TPipe pipe;
    TQue<TPosition::A1, 2> a1q;
    TQue<TPosition::B1, 2> b1q;
    TQue<TPosition::A2, 2> a2q;
    TQue<TPosition::B2, 2> b2q;
    TQue<TPosition::CO1, 1> co1q;
    const uint32_t bm = t.baseM, bn = t.baseN, bk = t.baseK;
    pipe.InitBuffer(a1q, 2, bm * bk * sizeof(half));
    pipe.InitBuffer(b1q, 2, bk * bn * sizeof(half));
    pipe.InitBuffer(a2q, 2, bm * bk * sizeof(half));
    pipe.InitBuffer(b2q, 2, bk * bn * sizeof(half));
    pipe.InitBuffer(co1q, 1, bm * bn * sizeof(float));
    const int mBlocks = t.M / t.singleCoreM;
    const int m0 = static_cast<int>(GetBlockIdx()) % mBlocks * t.singleCoreM;
    const int n0 = static_cast<int>(GetBlockIdx()) / mBlocks * t.singleCoreN;
    for (int nt = 0; nt < t.singleCoreN / t.baseN; ++nt) {
        for (int mt = 0; mt < t.singleCoreM / t.baseM; ++mt) {
            const int row = m0 + mt * t.baseM, col = n0 + nt * t.baseN;
            LocalTensor<float> c1 = co1q.AllocTensor<float>();
            for (int k0 = 0; k0 < t.Ka; k0 += t.baseK) {
                LocalTensor<half> a1 = a1q.AllocTensor<half>();
                LocalTensor<half> b1 = b1q.AllocTensor<half>();
                Nd2NzParams nd2nz;
                nd2nz.ndNum = 1;
                nd2nz.nValue = static_cast<uint16_t>(bm);
                nd2nz.dValue = static_cast<uint16_t>(bk);
                nd2nz.srcDValue = static_cast<uint16_t>(t.Ka);
                nd2nz.dstNzC0Stride = static_cast<uint16_t>(bm);
                nd2nz.dstNzNStride = 1;
                DataCopy(a1, aGm[row * t.Ka + k0], nd2nz);
                nd2nz.nValue = static_cast<uint16_t>(bk);
                nd2nz.dValue = static_cast<uint16_t>(bn);
                nd2nz.srcDValue = static_cast<uint16_t>(t.N);
                nd2nz.dstNzC0Stride = static_cast<uint16_t>(bk);
                DataCopy(b1, bGm[k0 * t.N + col], nd2nz);
                a1q.EnQue(a1);
                b1q.EnQue(b1);
                a1 = a1q.DeQue<half>();
                b1 = b1q.DeQue<half>();
                LocalTensor<half> a2 = a2q.AllocTensor<half>();
                LocalTensor<half> b2 = b2q.AllocTensor<half>();
                const uint32_t m1 = bm / 16, k1 = bk / 16, n1 = bn / 16;
                for (uint32_t kb = 0; kb < k1; ++kb) {
                    LoadData2DParams load;  // A's k block kb: m1 fractals, k1 apart in ZZ
                    load.repeatTimes = static_cast<uint8_t>(m1);
                    load.srcStride = 1;
                    load.dstGap = static_cast<uint16_t>(k1 - 1);
                    LoadData(a2[kb * 256], a1[kb * bm * 16], load);
                }
                for (uint32_t kb = 0; kb < k1; ++kb) {
                    LoadData2DParams load;  // B's k block kb: n1 fractals, k1 apart in NZ
                    load.repeatTimes = static_cast<uint8_t>(n1);
                    load.srcStride = static_cast<uint16_t>(k1);
                    load.ifTranspose = true;
                    LoadData(b2[kb * n1 * 256], b1[kb * 256], load);
                }
                a2q.EnQue(a2);
                b2q.EnQue(b2);
                a1q.FreeTensor(a1);
                b1q.FreeTensor(b1);
                a2 = a2q.DeQue<half>();
                b2 = b2q.DeQue<half>();
                if (k0 > 0) PipeBarrier<PIPE_M>();
                MmadParams mmad;
                mmad.m = static_cast<uint16_t>(bm);
                mmad.n = static_cast<uint16_t>(bn);
                mmad.k = static_cast<uint16_t>(bk);
                mmad.cmatrixInitVal = k0 == 0;
                Mmad(c1, a2, b2, mmad);
                a2q.FreeTensor(a2);
                b2q.FreeTensor(b2);
            }
            co1q.EnQue(c1);
            c1 = co1q.DeQue<float>();
            FixpipeParamsV220<> fix;
            fix.nSize = static_cast<uint16_t>(bn);
            fix.mSize = static_cast<uint16_t>(bm);
            fix.srcStride = static_cast<uint16_t>(bm);
            fix.dstStride = static_cast<uint32_t>(t.N);
            Fixpipe(cGm[row * t.N + col], c1, fix);
            co1q.FreeTensor(c1);
        }
    }
}

npusim::RunResult gemm_run(bool api, const TCubeTiling& tiling) {
    npusim::SimOptions options;
    options.model_data = false;
    npusim::Simulator sim(npusim::builtin_chip_config("a2"), options);
    auto a_gm = sim.allocate<half>(static_cast<uint64_t>(tiling.M) * tiling.Ka, "a");
    auto b_gm = sim.allocate<half>(static_cast<uint64_t>(tiling.Kb) * tiling.N, "b");
    auto bias_gm = sim.allocate<float>(tiling.N, "bias");
    auto c_gm = sim.allocate<float>(static_cast<uint64_t>(tiling.M) * tiling.N, "c");
    g_tiling = tiling;
    using npusim::ascendc::gm_addr;
    const npusim::LaunchSpec spec{.name = api ? "matmul_custom" : "basic_gemm",
                                  .blocks = static_cast<uint32_t>(tiling.usedCoreNum),
                                  .type = npusim::KernelType::AIC_ONLY};
    const npusim::RunResult r =
        api ? sim.run(spec, npusim::ascendc::bind_kernel(matmul_custom<CubeFormat::ND>,
                                                         gm_addr(a_gm), gm_addr(b_gm),
                                                         gm_addr(bias_gm), gm_addr(c_gm), 0u))
            : sim.run(spec, npusim::ascendc::bind_kernel(basic_gemm, gm_addr(a_gm), gm_addr(b_gm),
                                                         gm_addr(c_gm)));
    REQUIRE(r.completed());
    return r;
}

const npusim::PipeUsage& usage(const npusim::CoreUsage& core, npusim::Pipe pipe) {
    for (const npusim::PipeUsage& u : core.pipes)
        if (u.pipe == pipe) return u;
    FAIL("no usage of pipe " << npusim::to_string(pipe));
    return core.pipes.front();
}

}  // namespace

TEST_CASE("Matmul API: a large GEMM within 1.25x of basic APIs at the same tiling",
          "[ascendc][matmul]") {
    // 512 x 512 x 512 over 4 cube cores of 256 x 256, base tiles 128 x 128 x 64.
    const TCubeTiling tiling = tiling_for(512, 512, 512, 256, 256, 128, 128, 64, false);
    const npusim::RunResult api_run = gemm_run(true, tiling);
    const npusim::RunResult basic_run = gemm_run(false, tiling);
    const npusim::Cycle api = api_run.cycles(), basic = basic_run.cycles();
    INFO("Matmul API " << api << " cycles, basic APIs " << basic << " cycles");
    CHECK(static_cast<double>(api) <= 1.25 * static_cast<double>(basic));
    // The cube pipes run what the schedule implies: on each of the 4 cores every cube pipe
    // works, each with the same instructions (data moves, Mmads and the queues' flags) and
    // busy time as the hand-written schedule's.
    REQUIRE(api_run.cores.size() == 4);
    REQUIRE(basic_run.cores.size() == 4);
    for (std::size_t c = 0; c < 4; ++c) {
        for (npusim::Pipe pipe :
             {npusim::Pipe::MTE2, npusim::Pipe::MTE1, npusim::Pipe::M, npusim::Pipe::FIX}) {
            const npusim::PipeUsage& mine = usage(api_run.cores[c], pipe);
            const npusim::PipeUsage& hand = usage(basic_run.cores[c], pipe);
            CAPTURE(c, npusim::to_string(pipe), mine.utilization);
            CHECK(mine.busy_cycles > 0);
            CHECK(mine.instructions == hand.instructions);
            CHECK(mine.busy_cycles == hand.busy_cycles);
        }
    }
    CHECK(api_run.instructions == basic_run.instructions);
    CHECK(static_cast<double>(basic) <= 1.25 * static_cast<double>(api));
}

// ---- Host tiling: MultiCoreMatmulTiling from the chip's memory sizes --------------------

TEST_CASE("Matmul API: host tiling (MultiCoreMatmulTiling) fits the chip and runs",
          "[ascendc][matmul]") {
    const npusim::ChipConfig chip = npusim::builtin_chip_config("small");
    const platform_ascendc::PlatformAscendC platform(chip);
    uint64_t l0c = 0, l1 = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, l0c);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L1, l1);
    CHECK(l0c == chip.l0c_bytes);
    CHECK(l1 == chip.l1_bytes);
    CHECK(platform.GetCoreNumAic() == chip.cube_cores);

    using matmul_tiling::CubeFormat;
    using matmul_tiling::DataType;
    using matmul_tiling::TPosition;
    matmul_tiling::MultiCoreMatmulTiling host(platform);
    host.SetDim(2);
    host.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    host.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    host.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    host.SetBiasType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    host.SetShape(100, 80, 64);
    host.SetOrgShape(100, 80, 64);
    host.SetBias(true);
    host.SetBufferSpace(-1, -1, -1);
    TCubeTiling tiling;
    REQUIRE(host.GetTiling(tiling) == 0);
    CHECK(tiling.usedCoreNum <= 2);
    CHECK(tiling.usedCoreNum == ((100 + tiling.singleCoreM - 1) / tiling.singleCoreM) *
                                    ((80 + tiling.singleCoreN - 1) / tiling.singleCoreN));
    // The buffers npusim's Matmul allocates fit the chip's L1 and L0.
    CHECK(uint64_t(tiling.baseM) * tiling.baseN * 4 <= chip.l0c_bytes);
    CHECK(2 * uint64_t(tiling.baseM) * tiling.baseK * 2 <= chip.l0a_bytes);
    CHECK(2 * uint64_t(tiling.baseK) * tiling.baseN * 2 <= chip.l0b_bytes);
    CHECK(uint64_t(tiling.shareL1Size) <= chip.l1_bytes);

    const Problem p = make_problem(100, 80, 64);
    const Result r = run_matmul<AscendC::CubeFormat::ND>(p, tiling, kBias);
    CHECK(r.c == reference(p, true));
    CHECK_THAT(r.findings, npusim::NoFindings());

    // The accessors and serialization of the vendor's tiling-data struct.
    tiling.set_stepM(2);
    CHECK(tiling.get_stepM() == 2);
    CHECK(tiling.get_usedCoreNum() == tiling.usedCoreNum);
    CHECK(tiling.GetDataSize() == sizeof(TCubeTiling));
    std::vector<uint8_t> bytes(tiling.GetDataSize());
    tiling.SaveToBuffer(bytes.data(), bytes.size());
    CHECK(std::memcmp(bytes.data(), &tiling, bytes.size()) == 0);
    CHECK_THROWS(tiling.SaveToBuffer(bytes.data(), bytes.size() - 1));

    // fp16 tiles move in the fractal layouts and take any N; fp32 ones with B not transposed
    // move row-major in whole 32-byte rows, so an N of 70 floats gets no tiling.
    host.SetShape(100, 70, 64);
    CHECK(host.GetTiling(tiling) == 0);
    host.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    host.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    CHECK(host.GetTiling(tiling) == -1);
}

TEST_CASE("Matmul API: unaligned M, N, K with a bias, async Iterate<false> + GetTensorC<false>",
          "[ascendc][matmul]") {
    // 100 x 72 x 40 over 2 x 2 cores of 64 x 48 (tails 36 x 24), K 40 (a partial k block):
    // Nd2Nz pads the partial column blocks, the bias row of 24 floats comes in as DataCopyPad.
    const Problem p = make_problem(100, 72, 40);
    const Result r = run_matmul<CubeFormat::ND>(
        p, tiling_for(100, 72, 40, 64, 48, 32, 32, 32, true), kBias | kAsync);
    CHECK(r.c == reference(p, true));
    CHECK_THAT(r.findings, npusim::NoFindings());
}

TEST_CASE("Matmul API: Iterate(enPartialSum) adds a second K half onto the tile in L0C",
          "[ascendc][matmul]") {
    const Problem p = make_problem(32, 32, 64);
    const Result r = run_matmul<CubeFormat::ND>(p, tiling_for(32, 32, 64, 32, 32, 32, 32, 32, true),
                                                kBias | kPartialSum);
    CHECK(r.c == reference(p, true));
    CHECK_THAT(r.findings, npusim::NoFindings());
}

TEST_CASE("Matmul API: an N tail of half a fractal (8 fp16 columns) runs", "[ascendc][matmul]") {
    // N 40 on cores of 32: the second core's tail of 8 columns lands in L1 through Nd2Nz
    // (its column block padded with zeros) and leaves L0C through Fixpipe's 8-column rows.
    const Problem p = make_problem(32, 40, 32);
    const Result r =
        run_matmul<CubeFormat::ND>(p, tiling_for(32, 40, 32, 32, 32, 32, 32, 32, false), 0);
    CHECK(r.c == reference(p, false));
    CHECK_THAT(r.findings, npusim::NoFindings());
}

// ---- Compile-time options: configuration hints, policies, a constant tiling; split K ----

namespace {

// A constant tiling (GetMMConfig with the shapes, then GetMatmulApiTiling): the object takes
// its tiling from MM_CFG (REGIST_MATMUL_OBJ without one) and the real shape from SetOrgShape
// and SetTail; schedule hints (A2/B2 sharing, K reorder, unit flag) and the NBuffer33 policy
// leave the product unchanged.
constexpr MatmulShapeParams kConstShape = {64, 64, 64, 32, 32, 32};
constexpr MatmulFuncParams kConstHints = {false,
                                          false,
                                          false,
                                          false,
                                          0,
                                          IterateOrder::ORDER_N,
                                          ScheduleType::INNER_PRODUCT,
                                          true,
                                          false,
                                          false,
                                          true,
                                          false,
                                          true,
                                          false,
                                          false,
                                          DecompressionMode::DECOMP_NONE};
template <class A, class B, class C, class Bias>
constexpr MatmulApiStaticTiling constant_cfg() {
    MatmulConfig cfg = GetMMConfig<MatmulConfigMode::CONFIG_MDL>(kConstShape, kConstHints);
    cfg.enUnitFlag = true;
    return GetMatmulApiTiling<A, B, C, Bias>(cfg);
}
using ConstA = MatmulType<TPosition::GM, CubeFormat::ND, half>;
using ConstC = MatmulType<TPosition::GM, CubeFormat::ND, float>;
constexpr MatmulApiStaticTiling kConstCfg = constant_cfg<ConstA, ConstA, ConstC, ConstC>();

__global__ __aicore__ void matmul_constant(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, int m,
                                           int n, int k) {
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> biasGm, cGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, m * k);
    bGm.SetGlobalBuffer((__gm__ half*)b, k * n);
    biasGm.SetGlobalBuffer((__gm__ float*)bias, n);
    cGm.SetGlobalBuffer((__gm__ float*)c, m * n);
    Matmul<ConstA, ConstA, ConstC, ConstC, kConstCfg, MatmulCallBackFunc<nullptr, nullptr, nullptr>,
           Impl::Detail::NBuffer33MatmulPolicy>
        mm;
    TPipe pipe;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, (TCubeTiling*)nullptr);
    mm.SetOrgShape(m, n, k);
    mm.SetTail(m, n, k);
    mm.SetTensorA(aGm);
    mm.SetTensorB(bGm);
    mm.SetBias(biasGm);
    mm.IterateAll(cGm);
    mm.End();
}

// Split K: each core multiplies its K slice and adds it into C (IterateAll with enAtomic).
// Fill on the AIC does nothing (the vendor's A2 Fill), so C starts as the host left it.
__global__ __aicore__ void matmul_split_k(GM_ADDR a, GM_ADDR b, GM_ADDR c) {
    const TCubeTiling tiling = g_tiling;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> cGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, tiling.M * tiling.Ka);
    bGm.SetGlobalBuffer((__gm__ half*)b, tiling.Kb * tiling.N);
    cGm.SetGlobalBuffer((__gm__ float*)c, tiling.M * tiling.N);
    Fill(cGm, tiling.M * tiling.N, 0.0F);
    Matmul<ConstA, ConstA, ConstC> mm;
    TPipe pipe;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &tiling);
    const int k0 = static_cast<int>(GetBlockIdx()) * tiling.singleCoreK;
    mm.SetTensorA(aGm[k0]);
    mm.SetTensorB(bGm[k0 * tiling.N]);
    mm.IterateAll(cGm, 1);
    mm.End();
}

}  // namespace

TEST_CASE("Matmul API: a constant tiling with schedule hints and the NBuffer33 policy",
          "[ascendc][matmul]") {
    static_assert(kConstCfg.baseM == 32 && kConstCfg.singleCoreK == 64 && kConstCfg.dbL0A == 2);
    static_assert(kConstCfg.cfg.isA2B2Shared && kConstCfg.cfg.enableKdimReorderLoad);
    const Problem p = make_problem(48, 40, 64);  // within the constant 64 x 64 x 64
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto a_gm = sim.allocate<half>(p.a.size(), "a");
    auto b_gm = sim.allocate<half>(p.b.size(), "b");
    auto bias_gm = sim.allocate<float>(p.n, "bias");
    auto c_gm = sim.allocate<float>(p.m * p.n, "c");
    sim.write(a_gm, p.a);
    sim.write(b_gm, p.b);
    sim.write(bias_gm, p.bias);
    using npusim::ascendc::gm_addr;
    const npusim::RunResult r =
        sim.run({.name = "matmul_constant", .blocks = 1, .type = npusim::KernelType::AIC_ONLY},
                npusim::ascendc::bind_kernel(matmul_constant, gm_addr(a_gm), gm_addr(b_gm),
                                             gm_addr(bias_gm), gm_addr(c_gm), p.m, p.n, p.k));
    REQUIRE(r.completed());
    CHECK(sim.read(c_gm) == reference(p, true));
    CHECK_THAT(checker.findings(), npusim::NoFindings());
}

TEST_CASE("Matmul API: split K over cores (EnableMultiCoreSplitK, atomic add)",
          "[ascendc][matmul]") {
    using matmul_tiling::CubeFormat;
    using matmul_tiling::DataType;
    using matmul_tiling::TPosition;
    const npusim::ChipConfig chip = npusim::builtin_chip_config("small");
    matmul_tiling::MultiCoreMatmulTiling host(platform_ascendc::PlatformAscendC{chip});
    host.SetDim(4);
    host.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    host.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
    host.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
    host.SetShape(16, 16, 256);
    host.EnableMultiCoreSplitK(true);
    TCubeTiling tiling;
    REQUIRE(host.GetTiling(tiling) == 0);
    CHECK(tiling.usedCoreNum == 4);  // 1 x 1 blocks of M x N, 4 K slices of 64
    CHECK(tiling.singleCoreK == 64);
    const Problem p = make_problem(16, 16, 256);
    npusim::Simulator sim(chip);
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto a_gm = sim.allocate<half>(p.a.size(), "a");
    auto b_gm = sim.allocate<half>(p.b.size(), "b");
    auto c_gm = sim.allocate<float>(p.m * p.n, "c");
    sim.write(a_gm, p.a);
    sim.write(b_gm, p.b);
    sim.write(c_gm, std::vector<float>(p.m * p.n, 0.0F));
    g_tiling = tiling;
    using npusim::ascendc::gm_addr;
    const npusim::RunResult r = sim.run(
        {.name = "matmul_split_k", .blocks = 4, .type = npusim::KernelType::AIC_ONLY},
        npusim::ascendc::bind_kernel(matmul_split_k, gm_addr(a_gm), gm_addr(b_gm), gm_addr(c_gm)));
    REQUIRE(r.completed());
    CHECK(sim.read(c_gm) == reference(p, false));
    CHECK_THAT(checker.findings(), npusim::NoFindings());
}

// ---- isA2B2Shared: two objects on one TPipe share L0A, L0B, L0C and the bias table -------

namespace {

constexpr MatmulConfig shared_cfg() {
    MatmulConfig cfg = CFG_NORM;
    cfg.isA2B2Shared = true;
    return cfg;
}
constexpr MatmulConfig kSharedCfg = shared_cfg();

// c1 = a1 x b1 + bias, then c2 = a2 x b2 + bias, each object's tiles filling L0C (128 x 256
// fp32) and the bias table (256 floats): only a shared set fits. `overlap`: the second object
// iterates while the first one's tile waits in L0C (an error).
__global__ __aicore__ void matmul_shared_l0(GM_ADDR a1, GM_ADDR b1, GM_ADDR a2, GM_ADDR b2,
                                            GM_ADDR bias, GM_ADDR c1, GM_ADDR c2, bool overlap) {
    const TCubeTiling tiling = g_tiling;
    GlobalTensor<half> a1Gm, b1Gm, a2Gm, b2Gm;
    GlobalTensor<float> biasGm, c1Gm, c2Gm;
    a1Gm.SetGlobalBuffer((__gm__ half*)a1, tiling.M * tiling.Ka);
    b1Gm.SetGlobalBuffer((__gm__ half*)b1, tiling.Kb * tiling.N);
    a2Gm.SetGlobalBuffer((__gm__ half*)a2, tiling.M * tiling.Ka);
    b2Gm.SetGlobalBuffer((__gm__ half*)b2, tiling.Kb * tiling.N);
    biasGm.SetGlobalBuffer((__gm__ float*)bias, tiling.N);
    c1Gm.SetGlobalBuffer((__gm__ float*)c1, tiling.M * tiling.N);
    c2Gm.SetGlobalBuffer((__gm__ float*)c2, tiling.M * tiling.N);
    Matmul<ConstA, ConstA, ConstC, ConstC, kSharedCfg> mm1, mm2;
    TPipe pipe;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm1, &tiling, mm2, &tiling);
    mm1.SetTensorA(a1Gm);
    mm1.SetTensorB(b1Gm);
    mm1.SetBias(biasGm);
    mm2.SetTensorA(a2Gm);
    mm2.SetTensorB(b2Gm);
    mm2.SetBias(biasGm);
    if (overlap) {
        mm1.Iterate();
        mm2.Iterate();
    }
    mm1.IterateAll(c1Gm);
    mm1.End();
    mm2.IterateAll(c2Gm);
    mm2.End();
}

}  // namespace

TEST_CASE("Matmul API: isA2B2Shared objects share L0A, L0B, L0C and the bias table",
          "[ascendc][matmul]") {
    const Problem p1 = make_problem(32, 256, 32);
    Problem p2 = make_problem(32, 256, 32);
    std::reverse(p2.a.begin(), p2.a.end());
    std::reverse(p2.b.begin(), p2.b.end());
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto a1 = sim.allocate<half>(p1.a.size(), "a1");
    auto b1 = sim.allocate<half>(p1.b.size(), "b1");
    auto a2 = sim.allocate<half>(p2.a.size(), "a2");
    auto b2 = sim.allocate<half>(p2.b.size(), "b2");
    auto bias = sim.allocate<float>(p1.n, "bias");
    auto c1 = sim.allocate<float>(p1.m * p1.n, "c1");
    auto c2 = sim.allocate<float>(p1.m * p1.n, "c2");
    sim.write(a1, p1.a);
    sim.write(b1, p1.b);
    sim.write(a2, p2.a);
    sim.write(b2, p2.b);
    sim.write(bias, p1.bias);
    g_tiling = tiling_for(32, 256, 32, 32, 256, 128, 256, 32, true);
    using npusim::ascendc::gm_addr;
    const auto run = [&](bool overlap) {
        return sim.run(
            {.name = "matmul_shared_l0", .blocks = 1, .type = npusim::KernelType::AIC_ONLY},
            npusim::ascendc::bind_kernel(matmul_shared_l0, gm_addr(a1), gm_addr(b1), gm_addr(a2),
                                         gm_addr(b2), gm_addr(bias), gm_addr(c1), gm_addr(c2),
                                         overlap));
    };
    REQUIRE(run(false).completed());
    CHECK(sim.read(c1) == reference(p1, true));
    CHECK(sim.read(c2) == reference(p2, true));
    CHECK_THAT(checker.findings(), npusim::NoFindings());
    CHECK_THROWS_WITH(run(true), Catch::Contains("matmul_api_test.cpp:") &&
                                     Catch::Contains("another isA2B2Shared object's tile is in "
                                                     "the shared L0C"));
}

TEST_CASE("Matmul API: host tiling splits as the samples' kernels assume", "[ascendc][matmul]") {
    using matmul_tiling::CubeFormat;
    using matmul_tiling::DataType;
    using matmul_tiling::TPosition;
    const auto split = [](int m, int n, int k, int dim, bool nbuffer33) {
        matmul_tiling::MultiCoreMatmulTiling host;
        host.SetDim(dim);
        host.SetAType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
        host.SetBType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT16);
        host.SetCType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
        host.SetBiasType(TPosition::GM, CubeFormat::ND, DataType::DT_FLOAT);
        host.SetShape(m, n, k);
        host.EnableBias(true);
        if (nbuffer33) {
            host.SetMatmulConfigParams(1, false, matmul_tiling::ScheduleType::N_BUFFER_33);
        }
        TCubeTiling t;
        REQUIRE(host.GetTiling(t) == 0);
        return std::pair{t.singleCoreM, t.singleCoreN};
    };
    // The squarest block among equal ones: 128 x 7679 over 24 keeps M whole (asc-devkit
    // matmul_format_nd_align's C offsets assume it).
    CHECK(split(128, 7679, 128, 24, false) == std::pair{128, 320});
    // N_BUFFER_33: no tails (matmul_nbuffer33 never calls SetTail), 16 cores of 64 x 128.
    CHECK(split(256, 512, 192, 24, true) == std::pair{64, 128});
    CHECK(split(256, 512, 192, 24, false) != std::pair{64, 128});
    // Unchanged: 640 x 1024 over 48 (matmul_async_iterate), 512 x 512 over 2 splits M.
    CHECK(split(640, 1024, 512, 48, false) == std::pair{112, 128});
    CHECK(split(512, 512, 128, 2, false) == std::pair{256, 512});
}

TEST_CASE("Kernel utilities: the integer Ceil, the Std tuple subset, ToFloat / ToBfloat16",
          "[ascendc][matmul]") {
    static_assert(AscendC::Ceil(int64_t{30720}, int64_t{128}) == 240);
    static_assert(AscendC::Ceil(7, 2) == 4);
    const AscendC::Std::tuple<int64_t, int64_t, int64_t> shape = AscendC::Std::make_tuple(1, 2, 3);
    CHECK(AscendC::Std::get<2>(shape) == 3);
    CHECK(AscendC::Std::tuple_size<decltype(shape)>::value == 3);
    CHECK(AscendC::ToFloat(AscendC::ToBfloat16(3.0F)) == 3.0F);
    CHECK(AscendC::ToFloat(AscendC::ToBfloat16(1.0F + 1.0F / 512.0F)) == 1.0F);  // to even
}

namespace {

constexpr MatmulConfig outer_cfg() {
    MatmulConfig cfg = CFG_MDL;
    cfg.iterateOrder = IterateOrder::ORDER_M;
    cfg.scheduleType = ScheduleType::OUTER_PRODUCT;
    return cfg;
}
constexpr MatmulConfig kOuterCfg = outer_cfg();

// ScheduleType::OUTER_PRODUCT: IterateAll gives the same C (npusim runs its own schedule);
// a user's Iterate (two tiles an Iterate on the vendor's) is not supported yet.
__global__ __aicore__ void matmul_outer(GM_ADDR a, GM_ADDR b, GM_ADDR c, bool iterate) {
    const TCubeTiling tiling = g_tiling;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> cGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, tiling.M * tiling.Ka);
    bGm.SetGlobalBuffer((__gm__ half*)b, tiling.Kb * tiling.N);
    cGm.SetGlobalBuffer((__gm__ float*)c, tiling.M * tiling.N);
    Matmul<ConstA, ConstA, ConstC, ConstC, kOuterCfg> mm;
    TPipe pipe;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &tiling);
    mm.SetTensorA(aGm);
    mm.SetTensorB(bGm);
    if (iterate) {
        while (mm.Iterate()) mm.GetTensorC(cGm);
    } else {
        mm.IterateAll(cGm);
    }
    mm.End();
}

}  // namespace

TEST_CASE("Matmul API: ScheduleType::OUTER_PRODUCT runs IterateAll, refuses Iterate",
          "[ascendc][matmul]") {
    const Problem p = make_problem(32, 96, 32);
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto a = sim.allocate<half>(p.a.size(), "a");
    auto b = sim.allocate<half>(p.b.size(), "b");
    auto c = sim.allocate<float>(p.m * p.n, "c");
    sim.write(a, p.a);
    sim.write(b, p.b);
    g_tiling = tiling_for(32, 96, 32, 32, 96, 16, 32, 32, false);
    using npusim::ascendc::gm_addr;
    const auto run = [&](bool iterate) {
        return sim.run({.name = "matmul_outer", .blocks = 1, .type = npusim::KernelType::AIC_ONLY},
                       npusim::ascendc::bind_kernel(matmul_outer, gm_addr(a), gm_addr(b),
                                                    gm_addr(c), iterate));
    };
    REQUIRE(run(false).completed());
    CHECK(sim.read(c) == reference(p, false));
    CHECK_THAT(checker.findings(), npusim::NoFindings());
    CHECK_THROWS_WITH(run(true), Catch::Contains("matmul_api_test.cpp:") &&
                                     Catch::Contains("ScheduleType::OUTER_PRODUCT"));
}

namespace {

// MatmulCallBackFunc's CopyA1: the user copies each A tile into L1 (NZ, rows padded to 16) from
// the GM address it gets; tilingPtr carries K, dataPtr the base tile's M and K (32, 32).
__aicore__ inline void user_copy_a(const LocalTensor<int8_t>& aMatrix, const __gm__ void* gm,
                                   int row, int col, int useM, int useK, const uint64_t tilingPtr,
                                   const uint64_t dataPtr) {
    const int k = static_cast<int>(tilingPtr), base = static_cast<int>(dataPtr);
    GlobalTensor<half> src;
    src.SetGlobalBuffer((__gm__ half*)gm);
    Nd2NzParams p;
    p.ndNum = 1;
    p.nValue = useM;
    p.dValue = useK;
    p.srcNdMatrixStride = 0;
    p.srcDValue = k;
    p.dstNzC0Stride = (useM + 15) / 16 * 16;
    p.dstNzNStride = 1;
    p.dstNzMatrixStride = 0;
    DataCopy(aMatrix.ReinterpretCast<half>(), src[row * base * k + col * base], p);
}

__global__ __aicore__ void matmul_copy_callback(GM_ADDR a, GM_ADDR b, GM_ADDR c) {
    const TCubeTiling tiling = g_tiling;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> cGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, tiling.M * tiling.Ka);
    bGm.SetGlobalBuffer((__gm__ half*)b, tiling.Kb * tiling.N);
    cGm.SetGlobalBuffer((__gm__ float*)c, tiling.M * tiling.N);
    Matmul<ConstA, ConstA, ConstC, ConstC, CFG_NORM,
           MatmulCallBackFunc<nullptr, user_copy_a, nullptr>>
        mm;
    TPipe pipe;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &tiling);
    mm.SetUserDefInfo(tiling.Ka);
    mm.SetSelfDefineData(32);
    mm.SetTensorA(aGm);
    mm.SetTensorB(bGm);
    mm.IterateAll(cGm);
    mm.End();
}

}  // namespace

TEST_CASE("Matmul API: a MatmulCallBackFunc CopyA1 copies A's tiles", "[ascendc][matmul]") {
    // 64 x 48 x 64 in 32 x 32 x 32 tiles (an N tail of 16): the callback runs for each A tile
    // (row, col in base tiles); B takes the Matmul's own copy.
    const Problem p = make_problem(64, 48, 64);
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto a = sim.allocate<half>(p.a.size(), "a");
    auto b = sim.allocate<half>(p.b.size(), "b");
    auto c = sim.allocate<float>(p.m * p.n, "c");
    sim.write(a, p.a);
    sim.write(b, p.b);
    g_tiling = tiling_for(64, 48, 64, 64, 48, 32, 32, 32, false);
    using npusim::ascendc::gm_addr;
    const npusim::RunResult r = sim.run(
        {.name = "matmul_copy_callback", .blocks = 1, .type = npusim::KernelType::AIC_ONLY},
        npusim::ascendc::bind_kernel(matmul_copy_callback, gm_addr(a), gm_addr(b), gm_addr(c)));
    REQUIRE(r.completed());
    CHECK(sim.read(c) == reference(p, false));
    CHECK_THAT(checker.findings(), npusim::NoFindings());
}
