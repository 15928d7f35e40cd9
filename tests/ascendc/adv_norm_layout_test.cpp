// The advanced APIs part E (npusim_ascendc/adv_norm_v2.h, adv_welford.h): LayerNorm's [A, R]
// form with rstd out, Normalize, DeepNorm, WelfordUpdate and WelfordFinalize against plain CPU
// loops in double (within 1e-4 relative, 1e-4 absolute), the host temp sizes the kernel
// accepts, a temp buffer too small reported at the call, the checker clean, and one racy
// variant (a dropped MTE2 -> V flag) pinned.
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "adv_run.h"
#include "kernel_operator.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"
#include "tiling/tiling_api.h"

using namespace AscendC;

namespace {

// Inputs (float offsets, each a multiple of 8).
constexpr uint32_t kA = 4, kR = 20, kRp = 24;                // LayerNorm / Normalize rows
constexpr uint32_t kDr = 3, kDh = 32;                        // DeepNorm rows
constexpr uint32_t kWr = 2, kWab = 40, kWn = 35, kFab = 16;  // Welford
constexpr uint32_t kX = 0, kGamma = kX + kA * kRp, kBeta = kGamma + kRp, kNMean = kBeta + kRp,
                   kNVar = kNMean + 8, kDx = kNVar + 8, kDgx = kDx + kDr * kDh,
                   kDgamma = kDgx + kDr * kDh, kDbeta = kDgamma + kDh, kWx = kDbeta + kDh,
                   kWm = kWx + kWr * kWab, kWv = kWm + kWr * kWab, kFm = kWv + kWr * kWab,
                   kFv = kFm + kFab, kFc = kFv + kFab, kIn = kFc + kFab;
// Outputs.
constexpr uint32_t kY = 0, kMean = kY + kA * kRp, kRstd = kMean + 8, kNy = kRstd + 8,
                   kNRstd = kNy + kA * kRp, kDy = kNRstd + 8, kDMean = kDy + kDr * kDh,
                   kDVar = kDMean + 8, kWmo = kDVar + 8, kWvo = kWmo + kWr * kWab,
                   kF1 = kWvo + kWr * kWab, kF2 = kF1 + 16, kF3 = kF2 + 16, kOut = kF3 + 16;
constexpr float kEps = 1e-5F, kAlpha = 0.75F, kNRec = 0.25F;

LayerNormSeparateTiling g_ln;
DeepNormTiling g_dn;
uint32_t g_tmp_bytes = 0;
bool g_drop_flag = false;
unsigned g_load_line = 0, g_call_line = 0, g_ln_line = 0;

extern "C" __global__ __aicore__ void norm_v2_kernel(GM_ADDR in, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ib, ob, tb, cb;
    pipe.InitBuffer(ib, kIn * 4);
    pipe.InitBuffer(ob, kOut * 4);
    pipe.InitBuffer(tb, 4096);
    pipe.InitBuffer(cb, kFab * 4);
    GlobalTensor<float> inGm, outGm;
    inGm.SetGlobalBuffer((__gm__ float*)in, kIn);
    outGm.SetGlobalBuffer((__gm__ float*)out, kOut);
    LocalTensor<float> i = ib.Get<float>(), o = ob.Get<float>();
    LocalTensor<uint8_t> tmp = tb.Get<uint8_t>();
    LocalTensor<int32_t> counts = cb.Get<int32_t>();
    DataCopy(i, inGm, kIn);
    Duplicate(o, 0.0F, kOut);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    static constexpr LayerNormConfig cfg = {false, false, false, true};
    g_ln_line = __LINE__ + 1;
    LayerNorm<float, float, false, cfg>(o[kY], o[kMean], o[kRstd], i[kX], i[kGamma], i[kBeta], kEps,
                                        tb.Get<uint8_t>(g_tmp_bytes), {kA, kR, kRp}, g_ln);
    Normalize<float, float>(o[kNy], o[kNRstd], i[kNMean], i[kNVar], i[kX], i[kGamma], i[kBeta], tmp,
                            kEps, NormalizePara{kA, kR, kRp});
    DeepNorm<float>(o[kDy], o[kDMean], o[kDVar], i[kDx], i[kDgx], i[kDbeta], i[kDgamma], kAlpha,
                    kEps, g_dn);  // the API's own temp (reserved UB)
    static constexpr WelfordUpdateConfig inplace = {true};
    WelfordUpdate<float, float, false, inplace>(o[kWmo], o[kWvo], i[kWm], i[kWv], i[kWx], tmp,
                                                {kWr, kWab, kWn, kNRec});
    Cast(counts, i[kFc], RoundMode::CAST_RINT, kFab);
    WelfordFinalizePara with_counts = {1, kFab, 0, 0, 0, 0, 1.0F / kFab, 1.0F / 40};
    WelfordFinalize<false>(o[kF1], o[kF1 + 8], i[kFm], i[kFv], counts, tmp, with_counts);
    WelfordFinalizePara head_tail = {4, kFab, 4, 8, 2, 8, 1.0F / kFab, 1.0F / 48};
    WelfordFinalize<false>(o[kF2], o[kF2 + 8], i[kFm], i[kFv], tmp, head_tail);
    WelfordFinalizePara uniform = {4, kFab, 4, kFab, 0, 0, 1.0F / kFab, 1.0F / 64};
    WelfordFinalize(o[kF3], o[kF3 + 8], i[kFm], i[kFv], uniform);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(outGm, o, kOut);
}

// The racy variant: WelfordUpdate of half input right after the load.
constexpr uint32_t kHn = 64;
extern "C" __global__ __aicore__ void welford_half_kernel(GM_ADDR in, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ib, ob;
    pipe.InitBuffer(ib, kHn * 2 + kHn * 8);
    pipe.InitBuffer(ob, kHn * 8);
    GlobalTensor<uint8_t> inGm;
    GlobalTensor<float> outGm;
    inGm.SetGlobalBuffer((__gm__ uint8_t*)in, kHn * 10);
    outGm.SetGlobalBuffer((__gm__ float*)out, kHn * 2);
    LocalTensor<uint8_t> i = ib.Get<uint8_t>();
    LocalTensor<float> o = ob.Get<float>();
    g_load_line = __LINE__ + 1;
    DataCopy(i, inGm, kHn * 10);
    if (!g_drop_flag) {
        SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    }
    LocalTensor<float> stats = i[kHn * 2].ReinterpretCast<float>();
    g_call_line = __LINE__ + 1;
    WelfordUpdate<half, float>(o, o[kHn], stats, stats[kHn], i.ReinterpretCast<half>(),
                               WelfordUpdateParam{1, kHn, kHn, 0.5F});
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(outGm, o, kHn * 2);
}

using adv_test::input;
using adv_test::run;

void init_tilings(uint32_t& min_tmp) {
    uint32_t max = 0, min = 0;
    GetLayerNormMaxMinTmpSize(ge::Shape({kA, kRp}), 4, false, true, false, max, min);
    min_tmp = min;
    GetLayerNormNDTilingInfo(ge::Shape({kA, kRp}), min, 4, false, true, g_ln);
    const ge::Shape dshape({1, kDr, kDh});
    CHECK(GetDeepNormMaxMinTmpSize(dshape, 4, false, false, max, min));
    CHECK(GetDeepNormTilingInfo(dshape, dshape, min, 4, false, false, g_dn));
}

// y = (x - mean) rstd gamma + beta of one row; returns {mean, var}.
std::pair<double, double> norm_ref(const float* x, uint32_t n, const float* gamma,
                                   const float* beta, double* y, const double* given = nullptr) {
    double mean = 0, var = 0;
    for (uint32_t j = 0; j < n; ++j) mean += x[j];
    mean /= n;
    for (uint32_t j = 0; j < n; ++j) var += (x[j] - mean) * (x[j] - mean);
    var /= n;
    if (given != nullptr) mean = given[0], var = given[1];
    const double rstd = 1.0 / std::sqrt(var + double(kEps));
    for (uint32_t j = 0; j < n; ++j) y[j] = (x[j] - mean) * rstd * gamma[j] + beta[j];
    return {mean, var};
}

#define NEAR(got, want) CHECK((got) == Approx(want).epsilon(1e-4).margin(1e-4))

}  // namespace

TEST_CASE("Advanced LayerNorm (A x R form), Normalize, DeepNorm, Welford against plain loops",
          "[ascendc][adv]") {
    uint32_t min_tmp = 0;
    init_tilings(min_tmp);
    CHECK(min_tmp == (2 * kRp + 24) * 4);
    g_tmp_bytes = min_tmp;  // the host's minimum is what the kernel accepts
    std::vector<float> in = input(kIn, 0.125F);
    for (uint32_t j = 0; j < kRp; ++j) in[kGamma + j] = 0.5F + 0.01F * float(j);
    for (uint32_t r = 0; r < kA; ++r) {
        in[kNMean + r] = 0.5F * float(r) - 1.0F;
        in[kNVar + r] = 1.0F + float(r);
    }
    for (uint32_t j = 0; j < kWr * kWab; ++j) in[kWv + j] = std::abs(in[kWv + j]);
    for (uint32_t j = 0; j < kFab; ++j) in[kFv + j] = std::abs(in[kFv + j]);
    for (uint32_t j = 0; j < kFab; ++j) in[kFc + j] = float(1 + j % 5);
    const std::vector<float> o = run<float, float>(norm_v2_kernel, in, kOut);
    double y[kDh];
    for (uint32_t r = 0; r < kA; ++r) {
        const auto [mean, var] = norm_ref(&in[kX + r * kRp], kR, &in[kGamma], &in[kBeta], y);
        NEAR(o[kMean + r], mean);
        NEAR(o[kRstd + r], 1.0 / std::sqrt(var + double(kEps)));
        for (uint32_t j = 0; j < kR; ++j) NEAR(o[kY + r * kRp + j], y[j]);
        const double given[2] = {in[kNMean + r], in[kNVar + r]};
        norm_ref(&in[kX + r * kRp], kR, &in[kGamma], &in[kBeta], y, given);
        NEAR(o[kNRstd + r], 1.0 / std::sqrt(given[1] + double(kEps)));
        for (uint32_t j = 0; j < kR; ++j) NEAR(o[kNy + r * kRp + j], y[j]);
    }
    for (uint32_t r = 0; r < kDr; ++r) {
        float x1[kDh];
        for (uint32_t j = 0; j < kDh; ++j) {
            x1[j] = kAlpha * in[kDx + r * kDh + j] + in[kDgx + r * kDh + j];
        }
        const auto [mean, var] = norm_ref(x1, kDh, &in[kDgamma], &in[kDbeta], y);
        NEAR(o[kDMean + r], mean);
        NEAR(o[kDVar + r], var);
        for (uint32_t j = 0; j < kDh; ++j) NEAR(o[kDy + r * kDh + j], y[j]);
    }
    for (uint32_t k = 0; k < kWr * kWab; ++k) {
        const double x = in[kWx + k], m0 = in[kWm + k], v0 = in[kWv + k];
        const bool computed = k % kWab < kWn;
        const double m1 = computed ? m0 + (x - m0) * kNRec : m0;
        NEAR(o[kWmo + k], m1);
        NEAR(o[kWvo + k], computed ? v0 + (x - m0) * (x - m1) : v0);
    }
    // Finalize: with counts, head 4 / tail 2, uniform 4.
    const auto finalize = [&](uint32_t at, auto count, bool uniform, double r_rec) {
        double mean = 0, var = 0;
        for (uint32_t j = 0; j < kFab; ++j) {
            mean += uniform ? in[kFm + j] / double(kFab) : count(j) * in[kFm + j] * r_rec;
        }
        for (uint32_t j = 0; j < kFab; ++j) {
            const double d = in[kFm + j] - mean;
            var += in[kFv + j] + count(j) * d * d;
        }
        NEAR(o[at], mean);
        NEAR(o[at + 8], var * r_rec);
        CHECK(o[at + 1] == 0.0F);  // one value written
    };
    finalize(
        kF1, [&](uint32_t j) { return double(in[kFc + j]); }, false, 1.0 / 40);
    finalize(
        kF2, [](uint32_t j) { return j < 8 ? 4.0 : 2.0; }, false, 1.0 / 48);
    finalize(
        kF3, [](uint32_t) { return 4.0; }, true, 1.0 / 64);
}

TEST_CASE(
    "Advanced LayerNorm (A x R form): a temp buffer below GetLayerNormMaxMinTmpSize is a "
    "KernelError at the call",
    "[ascendc][adv]") {
    uint32_t min_tmp = 0;
    init_tilings(min_tmp);
    g_tmp_bytes = min_tmp - 32;
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    auto x = sim.allocate<float>(kIn, "in");
    auto out = sim.allocate<float>(kOut, "out");
    sim.write(x, input(kIn, 0.25F));
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "adv"},
               npusim::ascendc::bind_kernel(norm_v2_kernel, gm_addr(x), gm_addr(out)));
    CHECK_THROWS_WITH(sim.run(),
                      Catch::Contains("LayerNorm: sharedTmpBuffer holds " +
                                      std::to_string(min_tmp - 32) + " bytes") &&
                          Catch::Contains("adv_norm_layout_test.cpp:" + std::to_string(g_ln_line)));
}

TEST_CASE(
    "Advanced WelfordUpdate (half input): clean, and a dropped MTE2 -> V flag is the RAW "
    "at the load and the call",
    "[ascendc][adv]") {
    std::vector<uint8_t> bytes(kHn * 10);
    const std::vector<float> f = input(kHn * 3, 0.25F);
    for (uint32_t k = 0; k < kHn; ++k) {
        const half h(f[k]);
        std::memcpy(&bytes[k * 2], &h, 2);
        const float m = f[kHn + k], v = std::abs(f[2 * kHn + k]);
        std::memcpy(&bytes[kHn * 2 + k * 4], &m, 4);
        std::memcpy(&bytes[kHn * 6 + k * 4], &v, 4);
    }
    const std::vector<float> o = run<uint8_t, float>(welford_half_kernel, bytes, kHn * 2);
    for (uint32_t k = 0; k < kHn; ++k) {
        const double x = float(half(f[k])), m0 = f[kHn + k], v0 = std::abs(f[2 * kHn + k]);
        const double m1 = m0 + (x - m0) * 0.5;
        NEAR(o[k], m1);
        NEAR(o[kHn + k], v0 + (x - m0) * (x - m1));
    }
    g_drop_flag = true;
    std::vector<npusim::Finding> findings;
    run<uint8_t, float>(welford_half_kernel, bytes, kHn * 2, &findings);
    g_drop_flag = false;
    CHECK_THAT(findings, npusim::ExactlyFindings({{.kind = npusim::FindingKind::RaceRAW,
                                                   .space = npusim::MemSpace::UB,
                                                   .scope = npusim::RaceScope::InterPipe,
                                                   .first_pipe = npusim::Pipe::MTE2,
                                                   .second_pipe = npusim::Pipe::V,
                                                   .first_line = g_load_line,
                                                   .second_line = g_call_line}}));
}

namespace {

// PhiloxRandom: stride mode {12, 3, 8} of floats (10 rounds), continuous 38 uint32 (7 rounds).
constexpr uint32_t kPs = 12, kPr = 3, kPc = 8, kPn = 38, kPOut = 24 + 40;
extern "C" __global__ __aicore__ void philox_kernel(GM_ADDR, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ob;
    pipe.InitBuffer(ob, kPOut * 4);
    GlobalTensor<uint32_t> outGm;
    outGm.SetGlobalBuffer((__gm__ uint32_t*)out, kPOut);
    LocalTensor<uint32_t> o = ob.Get<uint32_t>();
    Duplicate(o, 0U, kPOut);
    uint32_t k0 = 7, k1 = 0x12345678U;
    PhiloxRandom<10>(o.ReinterpretCast<float>(), {k0, k1}, {5, 1, 2, 3}, {kPs, kPr, kPc});
    PhiloxRandom(o[24], {k1, k0}, {0xFFFFFF00U, 9, 0, 0}, uint16_t(kPn));
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(outGm, o, kPOut);
}

// Philox4x32 of one counter, as the reference describes it.
std::array<uint32_t, 4> philox(std::array<uint32_t, 4> c, uint32_t k0, uint32_t k1, int rounds) {
    for (int r = 0; r < rounds; ++r) {
        const uint64_t p0 = uint64_t{0xD2511F53U} * c[0], p1 = uint64_t{0xCD9E8D57U} * c[2];
        c = {uint32_t(p1 >> 32) ^ c[1] ^ k0, uint32_t(p1), uint32_t(p0 >> 32) ^ c[3] ^ k1,
             uint32_t(p0)};
        k0 += 0x9E3779B9U;
        k1 += 0xBB67AE85U;
    }
    return c;
}

}  // namespace

TEST_CASE("Advanced PhiloxRandom (stride and continuous modes) bit for bit against Philox4x32",
          "[ascendc][adv]") {
    const std::vector<uint32_t> o = run<uint32_t, uint32_t>(philox_kernel, {0}, kPOut);
    for (uint32_t r = 0; r < kPr; ++r) {
        for (uint32_t g = 0; g < kPc / 4; ++g) {
            const auto v = philox({5 + r * kPs / 4 + g, 1, 2, 3}, 7, 0x12345678U, 10);
            for (uint32_t j = 0; j < 4; ++j) {
                const uint32_t bits = (v[j] & 0x7FFFFFU) | 0x3F800000U;
                float f;
                std::memcpy(&f, &bits, 4);
                CHECK(std::bit_cast<float>(o[r * kPc + g * 4 + j]) == f - 1.0F);
            }
        }
    }
    for (uint32_t e = 0; e < 40; ++e) {
        const auto v = philox({0xFFFFFF00U + e / 4, 9, 0, 0}, 0x12345678U, 7, 7);
        CHECK(o[24 + e] == (e < kPn ? v[e % 4] : 0U));
    }
}

namespace {

// ConfusionTranspose: scenario 1 of floats {B 2, N 2, S 16, H/N 32}, scenario 2 of uint16_t
// {B 1, N 16, S 16, H/N 16}; sources are their element indices.
constexpr uint32_t kT1 = 2 * 2 * 16 * 32, kT2 = 16 * 16 * 16;
ConfusionTransposeTiling g_t1, g_t2;
extern "C" __global__ __aicore__ void confusion_transpose_kernel(GM_ADDR in, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ib, ob, tb;
    pipe.InitBuffer(ib, kT1 * 4 + kT2 * 2);
    pipe.InitBuffer(ob, kT1 * 4 + kT2 * 2);
    pipe.InitBuffer(tb, 1024);
    GlobalTensor<uint8_t> inGm, outGm;
    inGm.SetGlobalBuffer((__gm__ uint8_t*)in, kT1 * 4 + kT2 * 2);
    outGm.SetGlobalBuffer((__gm__ uint8_t*)out, kT1 * 4 + kT2 * 2);
    LocalTensor<uint8_t> i = ib.Get<uint8_t>(), o = ob.Get<uint8_t>();
    DataCopy(i, inGm, kT1 * 4 + kT2 * 2);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Transpose(o.ReinterpretCast<float>(), i.ReinterpretCast<float>(),
              TransposeType::TRANSPOSE_NZ2ND_0213, g_t1);
    ConfusionTranspose(o[kT1 * 4].ReinterpretCast<uint16_t>(),
                       i[kT1 * 4].ReinterpretCast<uint16_t>(), tb.Get<uint8_t>(),
                       TransposeType::TRANSPOSE_NZ2NZ_0213, g_t2);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(outGm, o, kT1 * 4 + kT2 * 2);
}

}  // namespace

TEST_CASE("Advanced Transpose with a ConfusionTransposeTiling (NZ2ND_0213, NZ2NZ_0213) exact",
          "[ascendc][adv]") {
    uint32_t max = 0, min = 0;
    GetTransposeMaxMinTmpSize(ge::Shape({1, 16, 16, 16}), 2, 2, max, min);
    CHECK(min == 512);
    GetTransposeTilingInfo(ge::Shape({2, 2, 16, 32}), 0, 4, 1, g_t1);
    GetConfusionTransposeTilingInfo(ge::Shape({1, 16, 16, 16}), min, 2, 2, g_t2);
    std::vector<uint8_t> in(kT1 * 4 + kT2 * 2);
    for (uint32_t k = 0; k < kT1; ++k) {
        const float f = float(k);
        std::memcpy(&in[k * 4], &f, 4);
    }
    for (uint32_t k = 0; k < kT2; ++k) {
        const uint16_t u = uint16_t(k * 7 + 1);
        std::memcpy(&in[kT1 * 4 + k * 2], &u, 2);
    }
    const std::vector<uint8_t> o =
        run<uint8_t, uint8_t>(confusion_transpose_kernel, in, kT1 * 4 + kT2 * 2);
    // Scenario 1: dst[b][s][n][h] = src NZ [b][n][h / 16][s / 16][s % 16][h % 16].
    for (uint32_t b = 0; b < 2; ++b)
        for (uint32_t s = 0; s < 16; ++s)
            for (uint32_t n = 0; n < 2; ++n)
                for (uint32_t h = 0; h < 32; ++h) {
                    const uint32_t from = (((b * 2 + n) * 2 + h / 16) * 16 + s) * 16 + h % 16;
                    float got;
                    std::memcpy(&got, &o[(((b * 16 + s) * 2 + n) * 32 + h) * 4], 4);
                    CHECK(got == float(from));
                }
    // Scenario 2: dst NZ [s][h / 16][n / 16][n % 16][h % 16] (B 1).
    for (uint32_t s = 0; s < 16; ++s)
        for (uint32_t n = 0; n < 16; ++n)
            for (uint32_t h = 0; h < 16; ++h) {
                const uint32_t from = (n * 16 + s) * 16 + h;
                uint16_t got;
                std::memcpy(&got, &o[kT1 * 4 + ((s * 16 + n) * 16 + h) * 2], 2);
                CHECK(got == uint16_t(from * 7 + 1));
            }
}

namespace {

// half: LayerNorm<float, half> [2, 32] (float gamma / beta), DeepNorm<half> {1, 2, 32}; and
// WelfordFinalize on the reference's worked example (means and M 0..31, counts 4).
constexpr uint32_t kHa = 2, kHr2 = 32;
constexpr uint32_t kHx = 0, kHgx = 64, kHg = 128, kHb = 160, kHIn = 192;  // halves
constexpr uint32_t kHy = 0, kHdy = 64, kHdm = 128, kHdv = 144, kHOut = 160;
extern "C" __global__ __aicore__ void norm_v2_half_kernel(GM_ADDR in, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ib, fb, ob, sb, wb;
    pipe.InitBuffer(ib, kHIn * 2);
    pipe.InitBuffer(fb, 2 * kHr2 * 4);
    pipe.InitBuffer(ob, kHOut * 2);
    pipe.InitBuffer(sb, 64 * 4);
    pipe.InitBuffer(wb, 3 * 32 * 4 + 64);
    GlobalTensor<half> inGm, outGm;
    GlobalTensor<float> statGm;
    inGm.SetGlobalBuffer((__gm__ half*)in, kHIn);
    outGm.SetGlobalBuffer((__gm__ half*)out, kHOut);
    statGm.SetGlobalBuffer((__gm__ float*)out + kHOut / 2, 64);
    LocalTensor<half> i = ib.Get<half>(), o = ob.Get<half>();
    LocalTensor<float> gb = fb.Get<float>(), st = sb.Get<float>(), w = wb.Get<float>();
    DataCopy(i, inGm, kHIn);
    Duplicate(o, half(0), kHOut);
    Duplicate(st, 0.0F, 64);
    CreateVecIndex(w, 0.0F, 32);
    CreateVecIndex(w[32], 0.0F, 32);
    Duplicate(w[64].ReinterpretCast<int32_t>(), 4, 32);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Cast(gb, i[kHg], RoundMode::CAST_NONE, 2 * kHr2);
    LayerNorm<float, half>(o[kHy], st, st[8], i[kHx], gb, gb[kHr2], kEps, {kHa, kHr2, kHr2},
                           LayerNormSeparateTiling{});
    DeepNormTiling t;
    GetDeepNormTilingInfo(ge::Shape({1, kHa, kHr2}), ge::Shape({1, kHa, kHr2}), 0, 2, false, false,
                          t);
    DeepNorm<half>(o[kHdy], o[kHdm], o[kHdv], i[kHx], i[kHgx], i[kHb], i[kHg], half(kAlpha),
                   half(1e-3F), t);
    WelfordFinalizePara example = {1, 32, 0, 0, 0, 0, 1.0F / 32, 1.0F / 4096};
    WelfordFinalize(st[16], st[24], w, w[32], w[64].ReinterpretCast<int32_t>(), example);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(outGm, o, kHOut);
    DataCopy(statGm, st, 64);
}

}  // namespace

TEST_CASE(
    "Advanced LayerNorm (A x R, half x with float gamma), DeepNorm (half), and "
    "WelfordFinalize on the reference's example",
    "[ascendc][adv]") {
    std::vector<half> in(kHIn);
    const std::vector<float> f = input(kHIn, 0.125F);
    for (uint32_t k = 0; k < kHIn; ++k) in[k] = half(f[k]);
    for (uint32_t j = 0; j < kHr2; ++j) in[kHg + j] = half(0.5F + 0.03125F * float(j));
    const std::vector<half> o = run<half, half>(norm_v2_half_kernel, in, kHOut + 128);
    const auto stat = [&](uint32_t k) {
        float v;
        std::memcpy(&v, &o[kHOut + 2 * k], 4);
        return v;
    };
    float x[kHr2], g[kHr2], b[kHr2];
    double y[kHr2];
    for (uint32_t j = 0; j < kHr2; ++j) g[j] = float(in[kHg + j]), b[j] = float(in[kHb + j]);
    // Within two half roundings (inputs are exact halves; the result is rounded once).
    const auto half_near = [](float got, double want) {
        CHECK(got == Approx(want).epsilon(2e-3).margin(2e-3));
    };
    for (uint32_t r = 0; r < kHa; ++r) {
        for (uint32_t j = 0; j < kHr2; ++j) x[j] = float(in[kHx + r * kHr2 + j]);
        const auto [mean, var] = norm_ref(x, kHr2, g, b, y);
        NEAR(stat(r), mean);
        NEAR(stat(8 + r), 1.0 / std::sqrt(var + double(kEps)));
        for (uint32_t j = 0; j < kHr2; ++j) half_near(float(o[kHy + r * kHr2 + j]), y[j]);
        for (uint32_t j = 0; j < kHr2; ++j) {
            x[j] = kAlpha * float(in[kHx + r * kHr2 + j]) + float(in[kHgx + r * kHr2 + j]);
        }
        double mean2 = 0, var2 = 0;
        for (uint32_t j = 0; j < kHr2; ++j) mean2 += x[j];
        mean2 /= kHr2;
        for (uint32_t j = 0; j < kHr2; ++j) var2 += (x[j] - mean2) * (x[j] - mean2);
        var2 /= kHr2;
        half_near(float(o[kHdm + r]), mean2);
        half_near(float(o[kHdv + r]), var2);
        for (uint32_t j = 0; j < kHr2; ++j) {
            const double want = (x[j] - mean2) / std::sqrt(var2 + 1e-3) * g[j] + b[j];
            half_near(float(o[kHdy + r * kHr2 + j]), want);
        }
    }
    CHECK(stat(16) == Approx(0.484375).epsilon(1e-6));
    CHECK(stat(24) == Approx(9.831062).epsilon(1e-5));
}

namespace {

// Sin, Cos, Tan, Atan of x in [-10, 10], Asin, Acos of x in [-1, 1] (floats), Sin of half.
constexpr uint32_t kTn = 200;
extern "C" __global__ __aicore__ void trig_kernel(GM_ADDR in, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ib, ob, tb, hb;
    pipe.InitBuffer(ib, 2 * kTn * 4);
    pipe.InitBuffer(ob, 7 * kTn * 4);
    pipe.InitBuffer(tb, 16 * 1024);
    pipe.InitBuffer(hb, (2 * kTn + 16) * 2);
    GlobalTensor<float> inGm, outGm;
    inGm.SetGlobalBuffer((__gm__ float*)in, 2 * kTn);
    outGm.SetGlobalBuffer((__gm__ float*)out, 7 * kTn);
    LocalTensor<float> x = ib.Get<float>(kTn), u = ib.Get<float>()[kTn], o = ob.Get<float>();
    LocalTensor<uint8_t> tmp = tb.Get<uint8_t>();
    LocalTensor<half> h = hb.Get<half>();
    DataCopy(x, inGm, 2 * kTn);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Sin(o, x, tmp, kTn);
    Cos(o[kTn], x, kTn);  // the API's own temp
    Tan(o[2 * kTn], x, tmp, kTn);
    Atan(o[3 * kTn], x, tmp);
    Asin(o[4 * kTn], u, tmp, kTn);
    Acos(o[5 * kTn], u, kTn);
    Cast(h, x, RoundMode::CAST_NONE, kTn);
    Sin(h[kTn + 8], h, tmp, kTn);  // a 32-byte aligned destination
    Cast(o[6 * kTn], h[kTn + 8], RoundMode::CAST_NONE, kTn);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(outGm, o, 7 * kTn);
}

}  // namespace

TEST_CASE(
    "Advanced Sin, Cos, Tan, Asin, Acos, Atan against std:: within 1e-5 relative, 2e-6 "
    "absolute",
    "[ascendc][adv]") {
    uint32_t max = 0, min = 0;
    GetSinMaxMinTmpSize(ge::Shape({kTn}), 4, false, max, min);
    CHECK(min <= 16 * 1024);
    std::vector<float> in(2 * kTn);
    for (uint32_t k = 0; k < kTn; ++k) {
        in[k] = -10.0F + 20.0F * float(k) / float(kTn - 1);
        in[kTn + k] = -1.0F + 2.0F * float(k) / float(kTn - 1);
    }
    const std::vector<float> o = run<float, float>(trig_kernel, in, 7 * kTn);
    const auto near = [](float got, double want) {
        CHECK(got == Approx(want).epsilon(1e-5).margin(2e-6));
    };
    for (uint32_t k = 0; k < kTn; ++k) {
        const double x = in[k], u = in[kTn + k];
        near(o[k], std::sin(x));
        near(o[kTn + k], std::cos(x));
        if (std::abs(std::cos(x)) > 0.05) near(o[2 * kTn + k], std::tan(x));
        near(o[3 * kTn + k], std::atan(x));
        near(o[4 * kTn + k], std::asin(u));
        near(o[5 * kTn + k], std::acos(u));
        const double xh = float(half(in[k]));
        CHECK(o[6 * kTn + k] == Approx(std::sin(xh)).epsilon(2e-3).margin(1e-3));
    }
}
