// The advanced LayerNorm family and quantization APIs (npusim_ascendc/adv_layernorm.h,
// adv_quant.h): outputs against plain CPU references (LayerNorm family within 1e-4 relative;
// quantization exact, the reference rounding as the API states), the host temp sizes the
// kernel accepts, a temp buffer too small reported at the call, the checker clean, and one
// racy variant (a dropped MTE2 -> V flag) pinned.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
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

// LayerNorm: 3 rows of 80 (two-level row sums). Input: x, gamma, beta, dy; output segments.
constexpr uint32_t kR = 3, kH = 80;
constexpr uint32_t kX = 0, kGamma = kR * kH, kBeta = kGamma + kH, kDy = kBeta + kH,
                   kLnIn = kDy + kR * kH;
constexpr uint32_t kY = 0, kMean = kR * kH, kVar = kMean + 8, kPdx = kVar + 8,
                   kRes = kPdx + kR * kH, kPdg = kRes + kR * kH, kPdb = kPdg + kH,
                   kLnOut = kPdb + kH;
LayerNormTiling g_ln;
LayerNormGradTiling g_lng;
LayerNormGradBetaTiling g_lngb;
uint32_t g_tmp_bytes = 0;
bool g_drop_flag = false;
unsigned g_load_line = 0, g_call_line = 0, g_ln_line = 0;

extern "C" __global__ __aicore__ void layernorm_kernel(GM_ADDR in, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ib, ob, tb;
    pipe.InitBuffer(ib, kLnIn * 4);
    pipe.InitBuffer(ob, kLnOut * 4);
    pipe.InitBuffer(tb, 4096);
    GlobalTensor<float> inGm, outGm;
    inGm.SetGlobalBuffer((__gm__ float*)in, kLnIn);
    outGm.SetGlobalBuffer((__gm__ float*)out, kLnOut);
    LocalTensor<float> i = ib.Get<float>(), o = ob.Get<float>();
    DataCopy(i, inGm, kLnIn);
    Duplicate(o, 0.0F, kLnOut);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    g_ln_line = __LINE__ + 1;
    LayerNorm<float>(o[kY], o[kMean], o[kVar], i[kX], i[kGamma], i[kBeta],
                     tb.Get<uint8_t>(g_tmp_bytes), 1e-5F, g_ln);
    LayerNormGrad<float>(o[kPdx], o[kRes], i[kDy], i[kX], o[kVar], o[kMean], i[kGamma], 1e-5F,
                         g_lng);
    LayerNormGradBeta<float>(o[kPdg], o[kPdb], o[kRes], i[kDy], tb.Get<uint8_t>(), g_lngb);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(outGm, o, kLnOut);
}

// LayerNorm of half: 2 rows of 48.
constexpr uint32_t kHr = 2, kHh = 48;
extern "C" __global__ __aicore__ void layernorm_half_kernel(GM_ADDR in, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ib, ob;
    pipe.InitBuffer(ib, (kHr + 2) * kHh * 2);
    pipe.InitBuffer(ob, (kHr * kHh + 32) * 2);
    GlobalTensor<half> inGm, outGm;
    inGm.SetGlobalBuffer((__gm__ half*)in, (kHr + 2) * kHh);
    outGm.SetGlobalBuffer((__gm__ half*)out, kHr * kHh + 32);
    LocalTensor<half> i = ib.Get<half>(), o = ob.Get<half>();
    DataCopy(i, inGm, (kHr + 2) * kHh);
    Duplicate(o, half(0), kHr * kHh + 32);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    LayerNormTiling t;
    GetLayerNormNDTilingInfo(ge::Shape({1, kHr, kHh}), 0, 2, false, t);
    LayerNorm<half>(o, o[kHr * kHh], o[kHr * kHh + 16], i, i[kHr * kHh], i[(kHr + 1) * kHh],
                    half(1e-3F), t);  // the API's own temp (reserved UB)
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(outGm, o, kHr * kHh + 32);
}

// Quantization: 256 floats in. Output bytes: quant of float (256 int8), quant of half (256),
// dequant to float {4, 64, 48} (256 floats), dequant to half single row (256 halves),
// antiquant K 4 x N 64 in 2 groups (256 halves).
constexpr uint32_t kQ = 256;
constexpr uint32_t kOQf = 0, kOQh = 256, kODf = 512, kODh = 1536, kOAq = 2048, kOAb = 2560,
                   kQOut = 3072;
extern "C" __global__ __aicore__ void quant_kernel(GM_ADDR in, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ib, wb, ob, tb;
    pipe.InitBuffer(ib, kQ * 4);
    pipe.InitBuffer(wb, kQ * 4 + kQ * 2);
    pipe.InitBuffer(ob, kQOut);
    pipe.InitBuffer(tb, 2048);
    GlobalTensor<float> inGm;
    GlobalTensor<uint8_t> outGm;
    inGm.SetGlobalBuffer((__gm__ float*)in, kQ);
    outGm.SetGlobalBuffer((__gm__ uint8_t*)out, kQOut);
    LocalTensor<float> x = ib.Get<float>();
    LocalTensor<uint8_t> o = ob.Get<uint8_t>(), tmp = tb.Get<uint8_t>();
    LocalTensor<int32_t> x32 = wb.Get<int32_t>();
    LocalTensor<half> xh = wb.Get<uint8_t>()[kQ * 4].ReinterpretCast<half>();
    g_load_line = __LINE__ + 1;
    DataCopy(x, inGm, kQ);
    Duplicate(o.ReinterpretCast<int16_t>(), int16_t(0), kQOut / 2);
    if (!g_drop_flag) {
        SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    }
    LocalTensor<int8_t> qf = o[kOQf].ReinterpretCast<int8_t>(),
                        qh = o[kOQh].ReinterpretCast<int8_t>();
    g_call_line = __LINE__ + 1;
    AscendQuant<float>(qf, x, tmp, 2.0F, 0.9F, kQ);
    Cast(xh, x, RoundMode::CAST_NONE, kQ);
    Cast(x32, x, RoundMode::CAST_RINT, kQ);
    AscendQuant<half>(qh, xh, 1.5F, -0.25F);  // the API's own temp
    AscendDequant(o[kODf].ReinterpretCast<float>(), x32, x, tmp, DequantParams{4, 64, 48});
    AscendDequant<half, float>(o[kODh].ReinterpretCast<half>(), x32, 0.5F, {1, 256, 64});
    AscendAntiQuant<int8_t, half, false>(o[kOAq].ReinterpretCast<half>(), qf, xh, xh[128], tmp, 4,
                                         AntiQuantShapeInfo{2, 64, 2, 64});
    qf.SetSize(kQ);  // per tensor: K rows of the source's size / K
    AscendAntiQuant<int8_t, bfloat16_t, false>(o[kOAb].ReinterpretCast<bfloat16_t>(), qf,
                                               bfloat16_t(0.5F), bfloat16_t(-1.25F), tmp, 4);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(outGm, o, kQOut);
}

// Pad / UnPad of floats: Pad {5, 13} -> rows of 16 (leftPad 1, rightPad 2, padValue 7);
// Pad {4, 16} keeping 12 columns (padValue -3); UnPad {6, 16} without 2 + 3 columns.
constexpr uint32_t kPadIn = 96, kP1 = 0, kP2 = 80, kU = 144, kPadOut = 216;
unsigned g_pad_line = 0;
extern "C" __global__ __aicore__ void pad_kernel(GM_ADDR in, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ib, ob, tb;
    pipe.InitBuffer(ib, kPadIn * 4);
    pipe.InitBuffer(ob, kPadOut * 4);
    pipe.InitBuffer(tb, g_tmp_bytes);
    GlobalTensor<float> inGm, outGm;
    inGm.SetGlobalBuffer((__gm__ float*)in, kPadIn);
    outGm.SetGlobalBuffer((__gm__ float*)out, kPadOut);
    LocalTensor<float> i = ib.Get<float>(), o = ob.Get<float>();
    DataCopy(i, inGm, kPadIn);
    Duplicate(o, 0.0F, kPadOut);  // UnPad's 66 results end inside the last block
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    PadTiling pt;
    PadTilingFunc(ge::Shape({5, 13}), ge::Shape({5, 13}), 0, 4, pt);
    PadParams pp{1, 2, 7};
    g_pad_line = __LINE__ + 1;
    Pad(o[kP1], i, pp, tb.Get<uint8_t>(), pt);
    PadTilingFunc(ge::Shape({4, 16}), ge::Shape({4, 12}), 0, 4, pt);
    PadParams pp2{0, 4, -3};
    Pad(o[kP2], i, pp2, pt);  // the API's own temp
    UnPadTiling ut;
    UnPadTilingFunc(ge::Shape({6, 16}), 0, 4, ut);
    UnPadParams up{2, 3};
    UnPad(o[kU], i, up, tb.Get<uint8_t>(), ut);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(outGm, o, kPadOut);
}

using adv_test::input;
using adv_test::run;

template <class T>
T at(const std::vector<uint8_t>& bytes, uint32_t offset, uint32_t i) {
    T v;
    std::memcpy(&v, bytes.data() + offset + i * sizeof(T), sizeof(T));
    return v;
}

float rne_half(float v) {
    return float(half(v));
}
int8_t quant_ref(float x, float scale, float offset) {
    float h = rne_half(x);
    h = rne_half(h * rne_half(scale));
    h = rne_half(h + rne_half(offset));
    return int8_t(std::max(-128.0F, std::min(127.0F, std::nearbyint(h))));
}

void init_layernorm_tilings(uint32_t& min_tmp) {
    const ge::Shape shape({1, kR, kH, kH});
    uint32_t max = 0, min = 0;
    GetLayerNormMaxMinTmpSize(shape, 4, false, max, min);
    min_tmp = min;
    GetLayerNormNDTilingInfo(shape, min, 4, false, g_ln);
    GetLayerNormGradMaxMinTmpSize(shape, 4, false, max, min);
    GetLayerNormGradNDTilingInfo(shape, min, 4, false, g_lng);
    GetLayerNormGradBetaMaxMinTmpSize(shape, 4, false, max, min);
    GetLayerNormGradBetaNDTilingInfo(shape, min, 4, false, g_lngb);
}

}  // namespace

TEST_CASE("Advanced LayerNorm, LayerNormGrad, LayerNormGradBeta (float) against a plain loop",
          "[ascendc][adv]") {
    uint32_t min_tmp = 0;
    init_layernorm_tilings(min_tmp);
    CHECK(min_tmp == (2 * kH + 24) * 4);
    g_tmp_bytes = min_tmp;  // the host's minimum is what the kernel accepts
    std::vector<float> in = input(kLnIn, 0.25F);
    for (uint32_t j = 0; j < kH; ++j) in[kGamma + j] = 0.5F + 0.01F * float(j);
    const std::vector<float> o = run<float, float>(layernorm_kernel, in, kLnOut);
    std::vector<double> pdg(kH, 0), pdb(kH, 0);
    for (uint32_t r = 0; r < kR; ++r) {
        const float* x = &in[kX + r * kH];
        const float* dy = &in[kDy + r * kH];
        double mean = 0, var = 0;
        for (uint32_t j = 0; j < kH; ++j) mean += x[j];
        mean /= kH;
        for (uint32_t j = 0; j < kH; ++j) var += (x[j] - mean) * (x[j] - mean);
        var /= kH;
        CHECK(o[kMean + r] == Approx(mean).epsilon(1e-4).margin(1e-4));
        CHECK(o[kVar + r] == Approx(var).epsilon(1e-4));
        const double rstd = 1.0 / std::sqrt(var + 1e-5);
        double s1 = 0, s2 = 0, s3 = 0;
        for (uint32_t j = 0; j < kH; ++j) {
            const double pxl = dy[j] * double(in[kGamma + j]);
            s1 += pxl * (x[j] - mean);
            s2 += pxl;
            s3 += x[j] - mean;
        }
        const double pd_var = -0.5 * rstd * rstd * rstd * s1;
        const double pd_mean = -rstd * s2 - 2.0 * pd_var / kH * s3;
        for (uint32_t j = 0; j < kH; ++j) {
            const double res = (x[j] - mean) * rstd;
            const double y = in[kGamma + j] * res + in[kBeta + j];
            CHECK(o[kY + r * kH + j] == Approx(y).epsilon(1e-4).margin(1e-4));
            CHECK(o[kRes + r * kH + j] == Approx(res).epsilon(1e-4).margin(1e-4));
            const double pxl = dy[j] * double(in[kGamma + j]);
            const double pdx = pxl * rstd + 2.0 * pd_var / kH * (x[j] - mean) + pd_mean / kH;
            CHECK(o[kPdx + r * kH + j] == Approx(pdx).epsilon(1e-4).margin(1e-4));
            pdg[j] += dy[j] * res;
            pdb[j] += dy[j];
        }
    }
    for (uint32_t j = 0; j < kH; ++j) {
        CHECK(o[kPdg + j] == Approx(pdg[j]).epsilon(1e-4).margin(1e-4));
        CHECK(o[kPdb + j] == Approx(pdb[j]).epsilon(1e-4).margin(1e-4));
    }
}

TEST_CASE("Advanced LayerNorm: a temp buffer below GetLayerNormMaxMinTmpSize is a KernelError",
          "[ascendc][adv]") {
    uint32_t min_tmp = 0;
    init_layernorm_tilings(min_tmp);
    g_tmp_bytes = min_tmp - 32;
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    auto x = sim.allocate<float>(kLnIn, "in");
    auto out = sim.allocate<float>(kLnOut, "out");
    sim.write(x, input(kLnIn, 0.25F));
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "adv"},
               npusim::ascendc::bind_kernel(layernorm_kernel, gm_addr(x), gm_addr(out)));
    CHECK_THROWS_WITH(sim.run(),
                      Catch::Contains("LayerNorm: sharedTmpBuffer holds " +
                                      std::to_string(min_tmp - 32) + " bytes") &&
                          Catch::Contains("adv_norm_quant_test.cpp:" + std::to_string(g_ln_line)));
}

TEST_CASE("Advanced LayerNorm (half, reserved temp) within one half rounding of a plain loop",
          "[ascendc][adv]") {
    std::vector<half> in((kHr + 2) * kHh);
    const std::vector<float> f = input((kHr + 2) * kHh, 0.125F);
    for (size_t i = 0; i < in.size(); ++i) in[i] = half(f[i]);
    const std::vector<half> o = run<half, half>(layernorm_half_kernel, in, kHr * kHh + 32);
    for (uint32_t r = 0; r < kHr; ++r) {
        double mean = 0, var = 0;
        for (uint32_t j = 0; j < kHh; ++j) mean += float(in[r * kHh + j]);
        mean /= kHh;
        for (uint32_t j = 0; j < kHh; ++j) var += std::pow(float(in[r * kHh + j]) - mean, 2);
        var /= kHh;
        CHECK(float(o[kHr * kHh + r]) == Approx(mean).epsilon(1e-3).margin(1e-3));
        CHECK(float(o[kHr * kHh + 16 + r]) == Approx(var).epsilon(1e-3));
        for (uint32_t j = 0; j < kHh; ++j) {
            const double y = float(in[kHr * kHh + j]) * (float(in[r * kHh + j]) - mean) /
                                 std::sqrt(var + double(float(half(1e-3F)))) +
                             float(in[(kHr + 1) * kHh + j]);
            CHECK(float(o[r * kHh + j]) == Approx(y).epsilon(1e-3).margin(2e-3));
        }
    }
}

TEST_CASE("Advanced AscendQuant, AscendDequant, AscendAntiQuant exact against plain loops",
          "[ascendc][adv]") {
    g_drop_flag = false;
    const std::vector<float> x = input(kQ, 0.0625F);
    const std::vector<uint8_t> o = run<float, uint8_t>(quant_kernel, x, kQOut);
    for (uint32_t i = 0; i < kQ; ++i) {
        CHECK(int(at<int8_t>(o, kOQf, i)) == int(quant_ref(x[i], 2.0F, 0.9F)));
        CHECK(int(at<int8_t>(o, kOQh, i)) == int(quant_ref(x[i], 1.5F, -0.25F)));
        const float x32 = std::nearbyint(x[i]);
        const uint32_t col = i % 64;
        const float want_f = col < 48 ? x32 * x[col] : 0.0F;
        CHECK(at<float>(o, kODf, i) == want_f);
        CHECK(float(at<half>(o, kODh, i)) == rne_half(x32 * 0.5F));
        const uint32_t g = (i / 64) / 2;  // K 4 rows in 2 groups
        const float off = rne_half(x[g * 64 + col]), sc = rne_half(x[128 + g * 64 + col]);
        const float q = float(quant_ref(x[i], 2.0F, 0.9F));
        CHECK(float(at<half>(o, kOAq, i)) == rne_half(rne_half(q + off) * sc));  // in half
    }
    for (uint32_t i = 0; i < kQ; ++i) {  // bfloat16_t: in float, rounded once
        const float q = float(quant_ref(x[i], 2.0F, 0.9F));
        CHECK(float(at<bfloat16_t>(o, kOAb, i)) == float(bfloat16_t((q + 0.5F) * -1.25F)));
    }
    uint32_t max = 0, min = 0;
    GetAscendQuantMaxMinTmpSize(ge::Shape({kQ}), 4, max, min);
    CHECK((min == 256 && max == 512));
    GetAscendDequantMaxMinTmpSize(ge::Shape({4, 64}), 4, max, min);
    CHECK(min == 512);
}

TEST_CASE("Advanced AscendQuant: a dropped MTE2 -> V flag is the RAW at the load and the call",
          "[ascendc][adv]") {
    g_drop_flag = true;
    std::vector<npusim::Finding> findings;
    run<float, uint8_t>(quant_kernel, input(kQ, 0.0625F), kQOut, &findings);
    g_drop_flag = false;
    // The four readers of the loaded x: AscendQuant, the two Casts after it, AscendDequant's
    // scale (lines g_call_line, + 1, + 2, + 4 of quant_kernel).
    CHECK_THAT(findings, npusim::ExactlyFindings(
                             adv_test::load_races(g_load_line, g_call_line, {0U, 1U, 2U, 4U})));
}

TEST_CASE("Advanced Pad (unaligned and aligned rows) and UnPad against plain loops",
          "[ascendc][adv]") {
    uint32_t max = 0, min = 0;
    GetPadMaxMinTmpSize(ge::Shape({5, 13}), 4, max, min);
    CHECK(min == 4 * 80 * 4);
    uint32_t umax = 0, umin = 0;
    GetUnPadMaxMinTmpSize(*platform_ascendc::PlatformAscendCManager::GetInstance(),
                          ge::Shape({6, 16}), 4, umax, umin);
    g_tmp_bytes = std::max(min, umin);
    std::vector<float> in(kPadIn);
    for (uint32_t k = 0; k < kPadIn; ++k) in[k] = float(k) + 0.5F;
    const std::vector<float> o = run<float, float>(pad_kernel, in, kPadOut);
    for (uint32_t r = 0; r < 5; ++r) {
        for (uint32_t j = 0; j < 16; ++j) {
            const float want = j >= 1 && j < 14 ? in[r * 13 + j - 1] : 7.0F;
            CHECK(o[kP1 + r * 16 + j] == want);
        }
    }
    for (uint32_t r = 0; r < 4; ++r) {
        for (uint32_t j = 0; j < 16; ++j)
            CHECK(o[kP2 + r * 16 + j] == (j < 12 ? in[r * 16 + j] : -3.0F));
    }
    for (uint32_t r = 0; r < 6; ++r) {
        for (uint32_t j = 0; j < 11; ++j) CHECK(o[kU + r * 11 + j] == in[r * 16 + j + 2]);
    }
    g_tmp_bytes = min - 32;
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    auto x = sim.allocate<float>(kPadIn, "in");
    auto out = sim.allocate<float>(kPadOut, "out");
    sim.write(x, in);
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "adv"}, npusim::ascendc::bind_kernel(pad_kernel, gm_addr(x), gm_addr(out)));
    CHECK_THROWS_WITH(sim.run(),
                      Catch::Contains("Pad: sharedTmpBuffer holds") &&
                          Catch::Contains("adv_norm_quant_test.cpp:" + std::to_string(g_pad_line)));
}
