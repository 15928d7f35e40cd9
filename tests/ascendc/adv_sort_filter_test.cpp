// The sort and filter advanced APIs (npusim_ascendc/adv_sort.h, adv_filter.h): outputs
// against plain CPU references (exact: sorting, selecting and scaling by 1 / keepProb round
// the same way on both sides), a TopK temp buffer below GetTopKMaxMinTmpSize reported at
// the call, the checker clean, and one racy variant (a dropped MTE2 -> V flag) pinned.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
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

template <class T>
T at(const std::vector<uint8_t>& bytes, uint32_t offset, uint32_t i) {
    T v;
    std::memcpy(&v, bytes.data() + offset + i * sizeof(T), sizeof(T));
    return v;
}
template <class T>
void put(std::vector<uint8_t>& bytes, uint32_t offset, uint32_t i, T v) {
    std::memcpy(bytes.data() + offset + i * sizeof(T), &v, sizeof(T));
}

using adv_test::run;

// Sort: 128 float scores (one merge of four runs) and 160 half scores (a merge pass of four
// runs plus a copied fifth, then a merge of two). Input: float scores, uint32 indices, half
// scores. Output: float values, uint32 indices, half values, uint32 indices.
constexpr uint32_t kSf = 128, kSh = 160;
constexpr uint32_t kInF = 0, kInI = kSf * 4, kInH = kInI + kSh * 4, kSortIn = kInH + kSh * 2;
constexpr uint32_t kOutF = 0, kOutFi = kSf * 4, kOutH = kOutFi + kSf * 4, kOutHi = kOutH + kSh * 2,
                   kSortOut = kOutHi + kSh * 4;

extern "C" __global__ __aicore__ void adv_sort_kernel(GM_ADDR in, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ib, sb, tb, ob;
    pipe.InitBuffer(ib, kSortIn);
    pipe.InitBuffer(sb, kSh * 8);
    pipe.InitBuffer(tb, kSh * 8);
    pipe.InitBuffer(ob, kSortOut);
    GlobalTensor<uint8_t> inGm, outGm;
    inGm.SetGlobalBuffer((__gm__ uint8_t*)in, kSortIn);
    outGm.SetGlobalBuffer((__gm__ uint8_t*)out, kSortOut);
    LocalTensor<uint8_t> i = ib.Get<uint8_t>(), o = ob.Get<uint8_t>();
    DataCopy(i, inGm, kSortIn);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    LocalTensor<uint32_t> index = i[kInI].ReinterpretCast<uint32_t>();
    LocalTensor<float> concat;
    Concat(concat, i[kInF].ReinterpretCast<float>(), tb.Get<float>(), kSf / 16);
    LocalTensor<float> sortedF = sb.Get<float>(GetSortLen<float>(kSf));
    Sort<float, true>(sortedF, concat, index, tb.Get<float>(), kSf / 32);
    Extract(o[kOutF].ReinterpretCast<float>(), o[kOutFi].ReinterpretCast<uint32_t>(), sortedF,
            kSf / 32);
    LocalTensor<half> concatH;
    Concat(concatH, i[kInH].ReinterpretCast<half>(), tb.Get<half>(), kSh / 16);
    LocalTensor<half> sortedH = sb.Get<half>();
    Sort<half, true>(sortedH, concatH, index, tb.Get<half>(), kSh / 32);
    Extract(o[kOutH].ReinterpretCast<half>(), o[kOutHi].ReinterpretCast<uint32_t>(), sortedH,
            kSh / 32);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(outGm, o, kSortOut);
}

// TopK: float rows 3 x 64 (n 61), k 5, largest, generated indices, row 1 finished; half rows
// 2 x 32, k 3, smallest, indices from a row of 100 + i (TOPK_NORMAL), the API's own temp.
constexpr uint32_t kTr = 3, kTi = 64, kTn = 61, kTk = 5, kHr = 2, kHi = 32, kHk = 3;
constexpr uint32_t kTinF = 0, kTinH = kTr * kTi * 4, kTinI = kTinH + kHr * kHi * 2,
                   kTinFin = kTinI + kHi * 4, kTopIn = kTinFin + 32;
constexpr uint32_t kToF = 0, kToFi = kTr * 8 * 4, kToH = kToFi + kTr * 8 * 4,
                   kToHi = kToH + kHr * 16 * 2, kTopOut = kToHi + kHr * 8 * 4;
uint32_t g_topk_tmp = 0;
unsigned g_topk_line = 0;

extern "C" __global__ __aicore__ void adv_topk_kernel(GM_ADDR in, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ib, tb, ob;
    pipe.InitBuffer(ib, kTopIn);
    pipe.InitBuffer(tb, 4096);
    pipe.InitBuffer(ob, kTopOut);
    GlobalTensor<uint8_t> inGm, outGm;
    inGm.SetGlobalBuffer((__gm__ uint8_t*)in, kTopIn);
    outGm.SetGlobalBuffer((__gm__ uint8_t*)out, kTopOut);
    LocalTensor<uint8_t> i = ib.Get<uint8_t>(), o = ob.Get<uint8_t>();
    DataCopy(i, inGm, kTopIn);
    Duplicate(o.ReinterpretCast<int32_t>(), int32_t(0), kTopOut / 4);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    TopkTiling tiling;
    LocalTensor<int32_t> noIndex;
    g_topk_line = __LINE__ + 1;
    TopK<float, false, true>(o[kToF].ReinterpretCast<float>(), o[kToFi].ReinterpretCast<int32_t>(),
                             i[kTinF].ReinterpretCast<float>(), noIndex,
                             i[kTinFin].ReinterpretCast<bool>(), tb.Get<uint8_t>(g_topk_tmp), kTk,
                             tiling, TopKInfo{kTr, kTi, kTn}, true);
    TopK<half, true>(o[kToH].ReinterpretCast<half>(), o[kToHi].ReinterpretCast<int32_t>(),
                     i[kTinH].ReinterpretCast<half>(), i[kTinI].ReinterpretCast<int32_t>(),
                     i[kTinFin].ReinterpretCast<bool>(), kHk, tiling, TopKInfo{kHr, kHi, kHi},
                     false);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(outGm, o, kTopOut);
}

// Filters. Select form 1: float 2 x 64, uint8 mask rows of 96, scalar 1.5; form 2: half
// 2 x 64 with an int16 mask of the same shape, scalar -2. DropOut: float 4 x 64 with a
// continuous bit mask (4 x 8 bytes), keepProb 0.5; float 2 x 32 with a byte mask 2 x 32,
// keepProb 0.8.
constexpr uint32_t kFa = 0, kFm = kFa + 128 * 4, kFh = kFm + 2 * 96, kFhm = kFh + 128 * 2,
                   kFd = kFhm + 128 * 2, kFdm = kFd + 256 * 4, kFb = kFdm + 32, kFbm = kFb + 64 * 4,
                   kFilterIn = kFbm + 64;
constexpr uint32_t kFoA = 0, kFoH = 512, kFoD = 768, kFoB = 1792, kFilterOut = 2048;
bool g_drop_flag = false;
unsigned g_load_line = 0, g_select_line = 0;

extern "C" __global__ __aicore__ void adv_filter_kernel(GM_ADDR in, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ib, tb, ob;
    pipe.InitBuffer(ib, kFilterIn);
    pipe.InitBuffer(tb, 2048);
    pipe.InitBuffer(ob, kFilterOut);
    GlobalTensor<uint8_t> inGm, outGm;
    inGm.SetGlobalBuffer((__gm__ uint8_t*)in, kFilterIn);
    outGm.SetGlobalBuffer((__gm__ uint8_t*)out, kFilterOut);
    LocalTensor<uint8_t> i = ib.Get<uint8_t>(), o = ob.Get<uint8_t>(), tmp = tb.Get<uint8_t>();
    g_load_line = __LINE__ + 1;
    DataCopy(i, inGm, kFilterIn);
    if (!g_drop_flag) {
        SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    }
    g_select_line = __LINE__ + 1;
    Select(o[kFoA].ReinterpretCast<float>(), i[kFa].ReinterpretCast<float>(), 1.5F, i[kFm], tmp,
           SelectWithBytesMaskShapeInfo{2, 64, 96});
    Select(o[kFoH].ReinterpretCast<half>(), half(-2.0F), i[kFh].ReinterpretCast<half>(),
           i[kFhm].ReinterpretCast<int16_t>(), tmp, SelectWithBytesMaskShapeInfo{2, 64, 64});
    DropOut(o[kFoD].ReinterpretCast<float>(), i[kFd].ReinterpretCast<float>(), i[kFdm], tmp, 0.5F,
            DropOutShapeInfo{4, 64, 8});
    DropOut(o[kFoB].ReinterpretCast<float>(), i[kFb].ReinterpretCast<float>(), i[kFbm], 0.8F,
            DropOutShapeInfo{2, 32, 32});
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(outGm, o, kFilterOut);
}

float score(uint32_t i, uint32_t salt) {
    return float(int((i * 7919 + salt * 104729) % 1009) - 504) * 0.25F;
}

std::vector<uint8_t> filter_input() {
    std::vector<uint8_t> in(kFilterIn, 0);
    for (uint32_t j = 0; j < 128; ++j) put(in, kFa, j, score(j, 1));
    for (uint32_t j = 0; j < 2 * 96; ++j) in[kFm + j] = uint8_t((j * 5) % 3 == 0 ? 0 : j % 7);
    for (uint32_t j = 0; j < 128; ++j) put(in, kFh, j, half(score(j, 2)));
    for (uint32_t j = 0; j < 128; ++j) put(in, kFhm, j, int16_t(j % 3 == 1 ? 0 : int(j) - 60));
    for (uint32_t j = 0; j < 256; ++j) put(in, kFd, j, score(j, 3));
    for (uint32_t j = 0; j < 32; ++j) in[kFdm + j] = uint8_t((j * 37 + 11) % 256);
    for (uint32_t j = 0; j < 64; ++j) put(in, kFb, j, score(j, 4));
    for (uint32_t j = 0; j < 64; ++j) in[kFbm + j] = uint8_t(j % 5 == 0 ? 0 : 1);
    return in;
}

}  // namespace

TEST_CASE("Advanced Sort (full, float and half) with Concat and Extract against std::sort",
          "[ascendc][adv]") {
    std::vector<uint8_t> in(kSortIn, 0);
    for (uint32_t j = 0; j < kSf; ++j) put(in, kInF, j, score(j, 5));
    for (uint32_t j = 0; j < kSh; ++j) put(in, kInI, j, j);
    for (uint32_t j = 0; j < kSh; ++j) put(in, kInH, j, half(score(j, 6)));
    const auto out = run(adv_sort_kernel, in, kSortOut);
    // Descending, equal scores in index order (a stable sort of -score).
    auto check = [&](uint32_t count, auto value_of, uint32_t values, uint32_t indices, auto tag) {
        using T = decltype(tag);
        std::vector<uint32_t> order(count);
        std::iota(order.begin(), order.end(), 0U);
        std::stable_sort(order.begin(), order.end(),
                         [&](uint32_t a, uint32_t b) { return value_of(a) > value_of(b); });
        for (uint32_t j = 0; j < count; ++j) {
            INFO("element " << j);
            CHECK(float(at<T>(out, values, j)) == value_of(order[j]));
            CHECK(at<uint32_t>(out, indices, j) == order[j]);
        }
    };
    check(
        kSf, [](uint32_t j) { return score(j, 5); }, kOutF, kOutFi, float{});
    check(
        kSh, [](uint32_t j) { return float(half(score(j, 6))); }, kOutH, kOutHi, half{});
}

TEST_CASE("Advanced TopK (largest with finish flags, smallest of half) against a plain loop",
          "[ascendc][adv]") {
    uint32_t max = 0, min = 0;
    const auto& platform = *platform_ascendc::PlatformAscendCManager::GetInstance();
    REQUIRE(GetTopKMaxMinTmpSize(platform, kTi, kTr, false, false, TopKMode::TOPK_NORMAL, true, 4,
                                 max, min));
    CHECK(min == max);
    g_topk_tmp = min;
    std::vector<uint8_t> in(kTopIn, 0);
    for (uint32_t j = 0; j < kTr * kTi; ++j) put(in, kTinF, j, score(j % 50, j / 50));
    for (uint32_t j = 0; j < kHr * kHi; ++j) put(in, kTinH, j, half(score(j % 20, 7)));
    for (uint32_t j = 0; j < kHi; ++j) put(in, kTinI, j, int32_t(100 + j));
    in[kTinFin + 1] = 1;
    const auto out = run(adv_topk_kernel, in, kTopOut);
    for (uint32_t r = 0; r < kTr; ++r) {
        std::vector<uint32_t> order(kTn);
        std::iota(order.begin(), order.end(), 0U);
        auto v = [&](uint32_t j) { return at<float>(in, kTinF, r * kTi + j); };
        std::stable_sort(order.begin(), order.end(),
                         [&](uint32_t a, uint32_t b) { return v(a) > v(b); });
        for (uint32_t j = 0; j < 8; ++j) {
            INFO("row " << r << " element " << j);
            CHECK(at<float>(out, kToF, r * 8 + j) == (j < kTk ? v(order[j]) : 0.0F));
            const int32_t want = j >= kTk ? 0 : r == 1 ? int32_t(kTn) : int32_t(order[j]);
            CHECK(at<int32_t>(out, kToFi, r * 8 + j) == want);
        }
    }
    for (uint32_t r = 0; r < kHr; ++r) {
        std::vector<uint32_t> order(kHi);
        std::iota(order.begin(), order.end(), 0U);
        auto v = [&](uint32_t j) { return float(at<half>(in, kTinH, r * kHi + j)); };
        std::stable_sort(order.begin(), order.end(),
                         [&](uint32_t a, uint32_t b) { return v(a) < v(b); });
        for (uint32_t j = 0; j < kHk; ++j) {
            INFO("half row " << r << " element " << j);
            CHECK(float(at<half>(out, kToH, r * 16 + j)) == v(order[j]));
            CHECK(at<int32_t>(out, kToHi, r * 8 + j) == int32_t(100 + order[j]));
        }
    }
}

TEST_CASE("Advanced TopK: a temp buffer below GetTopKMaxMinTmpSize is a KernelError",
          "[ascendc][adv]") {
    g_topk_tmp = npusim::ascendc::topk_tmp_bytes(kTi, 4) - 32;
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    auto x = sim.allocate<uint8_t>(kTopIn, "in");
    auto out = sim.allocate<uint8_t>(kTopOut, "out");
    sim.write(x, std::vector<uint8_t>(kTopIn, 0));
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "adv"},
               npusim::ascendc::bind_kernel(adv_topk_kernel, gm_addr(x), gm_addr(out)));
    CHECK_THROWS_WITH(
        sim.run(), Catch::Contains("TopK: tmpLocal holds " + std::to_string(g_topk_tmp)) &&
                       Catch::Contains("adv_sort_filter_test.cpp:" + std::to_string(g_topk_line)));
}

TEST_CASE("Advanced Select (byte masks, both forms) and DropOut (bit and byte masks) exact",
          "[ascendc][adv]") {
    uint32_t max = 0, min = 0;
    GetSelectMaxMinTmpSize(ge::Shape({2, 64}), ge::Shape({1}), 4, ge::Shape({2, 96}), 1, false, max,
                           min);
    CHECK(min == 160);  // a row of 64 as half (128 bytes) and its 8 bytes of bits
    GetDropOutMaxMinTmpSize(ge::Shape({4, 64, 8}), 4, false, max, min);
    CHECK(min == 32);
    const auto in = filter_input();
    const auto out = run(adv_filter_kernel, in, kFilterOut);
    for (uint32_t r = 0; r < 2; ++r) {
        for (uint32_t j = 0; j < 64; ++j) {
            INFO("row " << r << " column " << j);
            const bool set = in[kFm + r * 96 + j] != 0;
            CHECK(at<float>(out, kFoA, r * 64 + j) ==
                  (set ? 1.5F : at<float>(in, kFa, r * 64 + j)));
            const bool hset = at<int16_t>(in, kFhm, r * 64 + j) != 0;
            CHECK(float(at<half>(out, kFoH, r * 64 + j)) ==
                  (hset ? float(at<half>(in, kFh, r * 64 + j)) : -2.0F));
        }
    }
    for (uint32_t j = 0; j < 256; ++j) {
        INFO("bit-mask element " << j);
        const bool keep = (in[kFdm + j / 8] >> (j % 8)) & 1;
        CHECK(at<float>(out, kFoD, j) == (keep ? at<float>(in, kFd, j) * (1.0F / 0.5F) : 0.0F));
    }
    for (uint32_t j = 0; j < 64; ++j) {
        INFO("byte-mask element " << j);
        const bool keep = in[kFbm + j] != 0;
        CHECK(at<float>(out, kFoB, j) == (keep ? at<float>(in, kFb, j) * (1.0F / 0.8F) : 0.0F));
    }
}

TEST_CASE("Advanced Select, DropOut: a dropped MTE2 -> V flag is the RAW at the load and each call",
          "[ascendc][adv]") {
    g_drop_flag = true;
    std::vector<npusim::Finding> findings;
    run(adv_filter_kernel, filter_input(), kFilterOut, &findings);
    g_drop_flag = false;
    // The four APIs read the loaded bytes (lines g_select_line, + 2, + 4, + 6).
    CHECK_THAT(findings, npusim::ExactlyFindings(
                             adv_test::load_races(g_load_line, g_select_line, {0U, 2U, 4U, 6U})));
}

namespace {

// SoftmaxFlashV2 over 3 rows of 48 columns in two blocks of 24 (the first without, the second
// with the update, in place as the vendor's sample calls it); SoftmaxGrad and SoftmaxGradFront
// over 3 rows of 40. Input: x (3 x 48), grad (3 x 40), src (3 x 40). Output: max, sum, the
// second block's expMax (3 x 8 each), the second block's dst (3 x 24), grad (3 x 40), front
// (3 x 8).
constexpr uint32_t kMr = 3, kMk = 48, kMb = 24, kGk = 40;
constexpr uint32_t kMx = 0, kMg = kMr * kMk, kMs = kMg + kMr * kGk, kMIn = kMs + kMr * kGk;
constexpr uint32_t kMoMax = 0, kMoSum = 24, kMoExp = 48, kMoDst = 72, kMoGrad = kMoDst + kMr * kMb,
                   kMoFront = kMoGrad + kMr * kGk, kMOut = kMoFront + 24;

extern "C" __global__ __aicore__ void adv_flash_kernel(GM_ADDR in, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> xb, ib, tb, ob;
    pipe.InitBuffer(xb, kMr * kMb * 4);
    pipe.InitBuffer(ib, kMIn * 4);
    pipe.InitBuffer(tb, 1024);
    pipe.InitBuffer(ob, kMOut * 4);
    GlobalTensor<float> inGm, outGm;
    inGm.SetGlobalBuffer((__gm__ float*)in, kMIn);
    outGm.SetGlobalBuffer((__gm__ float*)out, kMOut);
    LocalTensor<float> x = xb.Get<float>(), i = ib.Get<float>(), o = ob.Get<float>();
    LocalTensor<uint8_t> tmp = tb.Get<uint8_t>();
    DataCopy(i, inGm, kMIn);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    SoftMaxTiling tiling;
    const SoftMaxShapeInfo block{kMr, kMb, kMr, kMb};
    LocalTensor<float> maxT = o[kMoMax], sumT = o[kMoSum], expT = o[kMoExp];
    for (uint32_t part = 0; part < 2; ++part) {
        for (uint32_t r = 0; r < kMr; ++r) {  // the rows' columns of this block
            Adds(x[r * kMb], i[kMx + r * kMk + part * kMb], 0.0F, kMb);
        }
        if (part == 0) {
            SoftmaxFlashV2<float, false>(x, sumT, maxT, x, expT, sumT, maxT, tmp, tiling, block);
        } else {
            SoftmaxFlashV2<float, true>(x, sumT, maxT, x, expT, sumT, maxT, tmp, tiling, block);
        }
    }
    Adds(o[kMoDst], x, 0.0F, kMr * kMb);
    SoftMaxTiling gradTiling;
    SoftMaxGradTilingFunc(ge::Shape({kMr, kGk}), 4,
                          GetSoftMaxGradMinTmpSize(ge::Shape({kMr, kGk}), 4, false, false),
                          gradTiling);
    SoftmaxGrad<float>(o[kMoGrad], i[kMg], i[kMs], tmp, gradTiling);
    SoftmaxGradFront<float>(o[kMoFront], i[kMg], i[kMs], gradTiling);  // the API's own temp
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(outGm, o, kMOut);
}

}  // namespace

TEST_CASE("Advanced SoftmaxFlashV2 (two blocks, the second updating) and SoftmaxGrad within 1e-5",
          "[ascendc][adv]") {
    CHECK(GetSoftMaxFlashV2MinTmpSize(ge::Shape({kMr, kMb}), 4, 4, true, false) == 128);
    std::vector<float> in(kMIn);
    for (uint32_t j = 0; j < kMIn; ++j) in[j] = score(j, 9) / 126.0F;
    std::vector<uint8_t> bytes(kMIn * 4);
    std::memcpy(bytes.data(), in.data(), bytes.size());
    const auto raw = run(adv_flash_kernel, bytes, kMOut * 4);
    std::vector<float> out(kMOut);
    std::memcpy(out.data(), raw.data(), raw.size());
    auto near = [](float got, double want) {
        return std::fabs(got - want) <= 1e-5 * std::max(1.0, std::fabs(want));
    };
    for (uint32_t r = 0; r < kMr; ++r) {
        const float* x = &in[kMx + r * kMk];
        const double max0 = *std::max_element(x, x + kMb);
        const double max1 = std::max(max0, double(*std::max_element(x + kMb, x + kMk)));
        double sum0 = 0, sum1 = 0;
        for (uint32_t j = 0; j < kMb; ++j) sum0 += std::exp(x[j] - max0);
        for (uint32_t j = kMb; j < kMk; ++j) sum1 += std::exp(x[j] - max1);
        const double exp_max = std::exp(max0 - max1);
        for (uint32_t j = 0; j < 8; ++j) {
            INFO("row " << r << " block element " << j);
            CHECK(near(out[kMoMax + r * 8 + j], max1));
            CHECK(near(out[kMoSum + r * 8 + j], exp_max * sum0 + sum1));
            CHECK(near(out[kMoExp + r * 8 + j], exp_max));
        }
        for (uint32_t j = 0; j < kMb; ++j) {
            CHECK(near(out[kMoDst + r * kMb + j], std::exp(x[kMb + j] - max1)));
        }
        const float* g = &in[kMg + r * kGk];
        const float* s = &in[kMs + r * kGk];
        double dot = 0;
        for (uint32_t j = 0; j < kGk; ++j) dot += double(g[j]) * s[j];
        for (uint32_t j = 0; j < kGk; ++j) {
            INFO("grad row " << r << " column " << j);
            CHECK(near(out[kMoGrad + r * kGk + j], (g[j] - dot) * s[j]));
        }
        for (uint32_t j = 0; j < 8; ++j) CHECK(near(out[kMoFront + r * 8 + j], dot));
    }
}
