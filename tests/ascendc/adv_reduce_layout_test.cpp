// The advanced reduce and layout APIs (Sum, ReduceSum / ReduceMax / ReduceMin with a
// Pattern, Broadcast, Arange, Fill) through the Ascend C layer: outputs against plain loops
// (sums within 1e-5 relative, the rest exact), the host temp sizes the kernel side accepts,
// a temp buffer too small reported at the call, the checker clean, and a dropped flag pinned.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "kernel_operator.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"
#include "tiling/tiling_api.h"

using namespace AscendC;

namespace {

constexpr uint32_t kRows = 8, kCols = 80, kSumN = 70;
// Output segments (floats): Sum, ReduceMax AR, ReduceMax RA, ReduceSum AR {40, 16},
// Broadcast axis 1 {8, 16}, Broadcast axis 0 {4, 16}, Arange 104.
constexpr uint32_t kSum = 0, kMaxAr = 8, kMaxRa = 16, kSumAr = 96, kB1 = 136, kB0 = 264, kAr = 328,
                   kOut = 432;
uint32_t g_tmp_bytes = 0;
bool g_drop_flag = false;
unsigned g_load_line = 0, g_sum_line = 0;

extern "C" __global__ __aicore__ void adv_kernel(GM_ADDR x, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> in, res, tmp;
    pipe.InitBuffer(in, kRows * kCols * 4);
    pipe.InitBuffer(res, kOut * 4);
    pipe.InitBuffer(tmp, 64);
    GlobalTensor<float> xGm, oGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, kRows * kCols);
    oGm.SetGlobalBuffer((__gm__ float*)out, kOut);
    LocalTensor<float> s = in.Get<float>();
    LocalTensor<float> o = res.Get<float>();
    LocalTensor<uint8_t> t = tmp.Get<uint8_t>(g_tmp_bytes);
    DataCopy(s, xGm, kRows * kCols);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Sum(o[kSum], s, t, SumParams{kRows, kCols, kSumN});
    const uint32_t ar[2] = {kRows, kCols};
    ReduceMax<float, Pattern::Reduce::AR>(o[kMaxAr], s, t, ar, true);
    ReduceMax<float, Pattern::Reduce::RA>(o[kMaxRa], s, t, ar, true);
    const uint32_t narrow[2] = {40, 16};
    ReduceSum<float, Pattern::Reduce::AR>(o[kSumAr], s, t, narrow, false);
    const uint32_t b1Src[2] = {8, 1}, b1Dst[2] = {8, 16};
    Broadcast<float, 2, 1>(o[kB1], s, b1Dst, b1Src);
    const uint32_t b0Src[2] = {1, 16}, b0Dst[2] = {4, 16};
    Broadcast<float, 2, 0>(o[kB0], s, b0Dst, b0Src);
    Arange(o[kAr], 1.5F, 0.25F, 104);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(oGm, o, kOut);
}

// The racy variant: Sum alone, the MTE2 -> V flag droppable.
extern "C" __global__ __aicore__ void sum_kernel(GM_ADDR x, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> in, res, tmp;
    pipe.InitBuffer(in, kRows * 16 * 4);
    pipe.InitBuffer(res, 32);
    pipe.InitBuffer(tmp, 32);
    GlobalTensor<float> xGm, oGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, kRows * 16);
    oGm.SetGlobalBuffer((__gm__ float*)out, 8);
    LocalTensor<float> s = in.Get<float>();
    LocalTensor<float> o = res.Get<float>();
    g_load_line = __LINE__ + 1;
    DataCopy(s, xGm, kRows * 16);
    if (!g_drop_flag) {
        SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    }
    g_sum_line = __LINE__ + 1;
    Sum(o, s, tmp.Get<uint8_t>(), SumParams{kRows, 16, 16});
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(oGm, o, 8);
}

// RmsNorm over 4 rows of 96 (two-level row sums), gamma = the first 96 inputs / 4.
constexpr uint32_t kNormRows = 4, kNormH = 96;
extern "C" __global__ __aicore__ void rmsnorm_kernel(GM_ADDR x, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> in, g, res, tmp;
    pipe.InitBuffer(in, kNormRows * kNormH * 4);
    pipe.InitBuffer(g, kNormH * 4);
    pipe.InitBuffer(res, kNormRows * kNormH * 4);
    pipe.InitBuffer(tmp, (kNormH + 8) * 4);
    GlobalTensor<float> xGm, oGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, kNormRows * kNormH);
    oGm.SetGlobalBuffer((__gm__ float*)out, kNormRows * kNormH);
    LocalTensor<float> s = in.Get<float>(), gamma = g.Get<float>(), o = res.Get<float>();
    DataCopy(s, xGm, kNormRows * kNormH);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Muls(gamma, s, 0.25F, kNormH);
    RmsNormTiling tiling;
    tiling.bLength = 1;
    tiling.sLength = kNormRows;
    tiling.hLength = tiling.originalHLength = kNormH;
    tiling.reciprocalOfHLength = 1.0F / kNormH;
    RmsNorm<float>(o, s, gamma, tmp.Get<uint8_t>(), 1e-5F, tiling);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(oGm, o, kNormRows * kNormH);
}

std::vector<float> input(uint32_t n) {
    std::vector<float> x(n);
    for (uint32_t i = 0; i < n; ++i) x[i] = float((i * 37) % 101) * 0.125F - 6.0F;
    return x;
}

struct Run {
    std::vector<float> out;
    std::vector<npusim::Finding> findings;
};

template <class Kernel>
Run run(Kernel kernel, uint32_t in_count, uint32_t out_count) {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto x = sim.allocate<float>(in_count, "x");
    auto out = sim.allocate<float>(out_count, "out");
    sim.write(x, input(in_count));
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "adv"}, npusim::ascendc::bind_kernel(kernel, gm_addr(x), gm_addr(out)));
    REQUIRE(sim.run().completed());
    return {sim.read(out), checker.findings()};
}

}  // namespace

TEST_CASE("Advanced Sum, ReduceMax/ReduceSum (AR, RA), Broadcast, Arange against plain loops",
          "[ascendc][adv]") {
    uint32_t sumMax = 0, sumMin = 0, redMax = 0, redMin = 0;
    GetSumMaxMinTmpSize(kSumN, 4, false, sumMax, sumMin);
    GetReduceMaxMaxMinTmpSize(ge::Shape({kRows, kCols}), ge::DT_FLOAT, ReducePattern::AR, true,
                              false, redMax, redMin);
    CHECK(sumMin == 32);  // two partials per row, one block
    CHECK(redMin == 32);
    g_tmp_bytes = std::max(sumMin, redMin);
    const Run r = run(adv_kernel, kRows * kCols, kOut);
    const std::vector<float> x = input(kRows * kCols);
    for (uint32_t i = 0; i < kRows; ++i) {
        double sum = 0;
        float mx = x[i * kCols];
        for (uint32_t j = 0; j < kSumN; ++j) sum += x[i * kCols + j];
        for (uint32_t j = 0; j < kCols; ++j) mx = std::max(mx, x[i * kCols + j]);
        CHECK(r.out[kSum + i] == Approx(sum).epsilon(1e-5).margin(1e-5));
        CHECK(r.out[kMaxAr + i] == mx);
        CHECK(r.out[kB1 + i * 16] == x[i]);
        CHECK(r.out[kB1 + i * 16 + 15] == x[i]);
    }
    for (uint32_t j = 0; j < kCols; ++j) {
        float mx = x[j];
        for (uint32_t i = 0; i < kRows; ++i) mx = std::max(mx, x[i * kCols + j]);
        CHECK(r.out[kMaxRa + j] == mx);
    }
    for (uint32_t i = 0; i < 40; ++i) {
        double sum = 0;
        for (uint32_t j = 0; j < 16; ++j) sum += x[i * 16 + j];
        CHECK(r.out[kSumAr + i] == Approx(sum).epsilon(1e-5).margin(1e-5));
    }
    for (uint32_t i = 0; i < 64; ++i) CHECK(r.out[kB0 + i] == x[i % 16]);
    for (uint32_t i = 0; i < 104; ++i) CHECK(r.out[kAr + i] == 1.5F + float(i) * 0.25F);
    CHECK_THAT(r.findings, npusim::NoFindings());
}

TEST_CASE("Advanced Sum: a temp buffer below GetSumMaxMinTmpSize is a KernelError at the call",
          "[ascendc][adv]") {
    g_tmp_bytes = 16;  // the kernel's view of its temp TBuf
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    auto x = sim.allocate<float>(kRows * kCols, "x");
    auto out = sim.allocate<float>(kOut, "out");
    sim.write(x, input(kRows * kCols));
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "adv"}, npusim::ascendc::bind_kernel(adv_kernel, gm_addr(x), gm_addr(out)));
    CHECK_THROWS_WITH(sim.run(), Catch::Contains("Sum: the temp buffer holds 16 bytes, this call "
                                                 "needs 32") &&
                                     Catch::Contains("adv_reduce_layout_test.cpp"));
}

TEST_CASE("Advanced Sum: clean with its flag, a dropped MTE2 -> V flag is the RAW at both lines",
          "[ascendc][adv]") {
    g_drop_flag = false;
    const Run clean = run(sum_kernel, kRows * 16, 8);
    const std::vector<float> x = input(kRows * 16);
    for (uint32_t i = 0; i < kRows; ++i) {
        double sum = 0;
        for (uint32_t j = 0; j < 16; ++j) sum += x[i * 16 + j];
        CHECK(clean.out[i] == Approx(sum).epsilon(1e-5).margin(1e-5));
    }
    CHECK_THAT(clean.findings, npusim::NoFindings());
    g_drop_flag = true;
    const Run racy = run(sum_kernel, kRows * 16, 8);
    g_drop_flag = false;
    CHECK_THAT(racy.findings, npusim::ExactlyFindings({{.kind = npusim::FindingKind::RaceRAW,
                                                        .space = npusim::MemSpace::UB,
                                                        .scope = npusim::RaceScope::InterPipe,
                                                        .first_pipe = npusim::Pipe::MTE2,
                                                        .second_pipe = npusim::Pipe::V,
                                                        .first_line = g_load_line,
                                                        .second_line = g_sum_line}}));
}

TEST_CASE("Advanced RmsNorm (float, two-level row sums) against a plain loop, checker clean",
          "[ascendc][adv]") {
    const Run r = run(rmsnorm_kernel, kNormRows * kNormH, kNormRows * kNormH);
    const std::vector<float> x = input(kNormRows * kNormH);
    for (uint32_t i = 0; i < kNormRows; ++i) {
        double squares = 0;
        for (uint32_t j = 0; j < kNormH; ++j)
            squares += double(x[i * kNormH + j]) * x[i * kNormH + j];
        const double factor = 1.0 / std::sqrt(squares / kNormH + 1e-5);
        for (uint32_t j = 0; j < kNormH; ++j) {
            const double want = double(x[i * kNormH + j]) * (x[j] * 0.25) * factor;
            CHECK(r.out[i * kNormH + j] == Approx(want).epsilon(1e-5).margin(1e-6));
        }
    }
    CHECK_THAT(r.findings, npusim::NoFindings());
}
