// The cube's img2col and square-transposing loads, written as for hardware with static tensors
// and explicit flags, each checked against a CPU reference with the checker attached:
//   - a 3 x 3 convolution (stride 2, padding 1 holding the value 1) through LoadData 3D v2
//     into L0A, its registers set by SetFmatrix / SetLoadDataPaddingValue, in both the
//     unpacked and the packed (LoadData3DParamsV2Pro) form;
//   - fp32 A held transposed (k x m) and B (k x n), both through LoadData 3D v2 (enTranspose
//     into L0A, always transposing into L0B), Mmad with kDirectionAlign;
//   - int8 A^T and B through LoadDataWithTranspose (32 x 32 squares), int32 results;
//   - fp32 A^T and B laid out in L1 as ZZ (Nd2NzParams with ndNum > 1) through
//     LoadDataWithTranspose (16 x 16 squares of two 16 x 8 fractals).
//   - InitConstValue (Fill) of L0A and L0B before an Mmad, and of L1 rows with gaps;
// Racy variants load into L0 after the MTE1 -> M flag: the checker reports L0's RAW.
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "kernel_operator.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"

using namespace AscendC;
using npusim::ascendc::gm_addr;

namespace {

constexpr uint32_t Align(uint32_t v, uint32_t a) {
    return (v + a - 1) / a * a;
}
constexpr uint32_t Div(uint32_t v, uint32_t a) {
    return (v + a - 1) / a;
}

int g_load_line = 0;
int g_mmad_line = 0;

// ---- convolution: feature map 5 x 6 x 16 (half, NC1HWC0 with C1 = 1), 16 filters 3 x 3 ----
constexpr uint32_t kH = 5, kW = 6, kC = 16, kF = 16, kKh = 3, kKw = 3, kStride = 2, kPad = 1;
constexpr uint32_t kOh = (kH + 2 * kPad - kKh) / kStride + 1;  // 3
constexpr uint32_t kOw = (kW + 2 * kPad - kKw) / kStride + 1;  // 3
constexpr uint32_t kConvK = kC * kKh * kKw;                    // 144
constexpr uint32_t kConvM = Align(kOh * kOw, 16);              // 16

template <bool kRace, bool kPacked = false, uint32_t kBoundary = 0>
__global__ __cube__ void conv_load3d(GM_ADDR x, GM_ADDR w, GM_ADDR y) {
    GlobalTensor<half> xGm, wGm;
    GlobalTensor<float> yGm;
    xGm.SetGlobalBuffer((__gm__ half*)x, kH * kW * kC);
    wGm.SetGlobalBuffer((__gm__ half*)w, kF * kConvK);
    yGm.SetGlobalBuffer((__gm__ float*)y, kOh * kOw * kF);
    LocalTensor<half> x1(TPosition::A1, 0, kH * kW * kC);
    LocalTensor<half> w1(TPosition::B1, 4096, kF * kConvK);
    LocalTensor<half> a2(TPosition::A2, 0, kConvM * kConvK);
    LocalTensor<half> b2(TPosition::B2, 0, kF * kConvK);
    LocalTensor<float> c1(TPosition::CO1, 0, kConvM * kF);
    DataCopy(x1, xGm, kH * kW * kC);
    // The filters held as n x k in GM land in L1 as ZN for b (one 16-row block).
    DataCopy(w1, wGm, Nd2NzParams{1, kF, kConvK, 0, kConvK, kF, 1, 0});
    const uint8_t pads[4] = {kPad, kPad, kPad, kPad};
    SetFmatrix(kH, kW, pads, FmatrixMode::FMATRIX_LEFT);
    SetLoadDataPaddingValue(half(1.0F));
    SetLoadDataBoundary(kBoundary);
    SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    LoadData3DParamsV2<half> p;
    p.channelSize = kC;
    p.kExtension = kConvK;
    p.mExtension = kConvM;
    p.strideW = kStride;
    p.strideH = kStride;
    p.filterW = kKw;
    p.filterH = kKh;
    static constexpr IsResetLoad3dConfig kRegisters = {false, false};
    // The packed form: extConfig kExtension | mExtension << 16; filterConfig a byte each for
    // strideW, strideH, filterW, filterH, dilationW, dilationH.
    const LoadData3DParamsV2Pro packed(kC, false, false, false, false, false,
                                       uint64_t{kConvK} | (uint64_t{kConvM} << 16),
                                       0x010103030202ULL);
    if constexpr (!kRace && kPacked) LoadData(a2, x1, packed);
    if constexpr (!kRace && !kPacked) LoadData<half, kRegisters>(a2, x1, p);
    LoadData(b2, w1, LoadData2DParams{0, kConvK / 16, 1, 0, 0, false, 0});
    SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
    WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
    g_load_line = __LINE__ + 1;
    if constexpr (kRace) LoadData<half, kRegisters>(a2, x1, p);
    g_mmad_line = __LINE__ + 1;
    Mmad(c1, a2, b2, MmadParams{kOh * kOw, kF, kConvK});
    SetFlag<HardEvent::M_FIX>(EVENT_ID0);
    WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
    FixpipeParamsV220<> fix;
    fix.nSize = kF;
    fix.mSize = kOh * kOw;
    fix.srcStride = kConvM;
    fix.dstStride = kF;
    Fixpipe(yGm, c1, fix);
}

template <bool kRace, bool kPacked = false, uint32_t kBoundary = 0>
std::vector<npusim::Finding> run_conv() {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    std::vector<half> xs(kH * kW * kC), ws(kF * kConvK);
    for (uint32_t i = 0; i < xs.size(); ++i) xs[i] = half(static_cast<float>(i % 7) - 3.0F);
    for (uint32_t i = 0; i < ws.size(); ++i) ws[i] = half(static_cast<float>(i % 5) - 2.0F);
    auto x = sim.allocate<half>(xs.size(), "x");
    auto w = sim.allocate<half>(ws.size(), "w");
    auto y = sim.allocate<float>(kOh * kOw * kF, "y");
    sim.write(x, xs);
    sim.write(w, ws);
    const npusim::RunResult r =
        sim.run({.name = "conv_load3d", .blocks = 1, .type = npusim::KernelType::AIC_ONLY},
                npusim::ascendc::bind_kernel(conv_load3d<kRace, kPacked, kBoundary>, gm_addr(x),
                                             gm_addr(w), gm_addr(y)));
    REQUIRE(r.completed());
    if (!kRace) {
        // y[p][f] = sum over (c, kh, kw) of x at the window (1 outside the map) x w[f][k],
        // k = (kh * 3 + kw) * 16 + c (the img2col column order, C1 = 1).
        const std::vector<float> out = sim.read(y);
        for (uint32_t oh = 0; oh < kOh; ++oh) {
            for (uint32_t ow = 0; ow < kOw; ++ow) {
                for (uint32_t f = 0; f < kF; ++f) {
                    float acc = 0.0F;
                    for (uint32_t kh = 0; kh < kKh; ++kh) {
                        for (uint32_t kw = 0; kw < kKw; ++kw) {
                            const int h = static_cast<int>(oh * kStride + kh) - int{kPad};
                            const int wi = static_cast<int>(ow * kStride + kw) - int{kPad};
                            const bool in = h >= 0 && wi >= 0 && h < int{kH} && wi < int{kW};
                            for (uint32_t c = 0; c < kC; ++c) {
                                // Past SetLoadDataBoundary's bound (the map lies at L1 byte
                                // 0): the element that far from L1's start.
                                uint32_t e = in ? (h * kW + wi) * kC + c : 0;
                                if (kBoundary != 0 && e * 2 >= kBoundary) e -= kBoundary / 2;
                                const float v = in ? static_cast<float>(xs[e]) : 1.0F;
                                acc +=
                                    v * static_cast<float>(ws[f * kConvK + (kh * 3 + kw) * kC + c]);
                            }
                        }
                    }
                    CHECK(out[(oh * kOw + ow) * kF + f] == acc);
                }
            }
        }
    }
    return checker.findings();
}

// ---- A (k x m) and B (k x n) in GM, m, n, k = 40, 50, 70 (partial fractals) ----
constexpr uint32_t kM = 40, kN = 50, kK = 70;

template <class T, class U>
std::vector<U> reference(const std::vector<T>& at, const std::vector<T>& b) {
    std::vector<U> c(kM * kN);
    for (uint32_t i = 0; i < kM; ++i) {
        for (uint32_t j = 0; j < kN; ++j) {
            U acc = 0;
            for (uint32_t k = 0; k < kK; ++k) acc += U(at[k * kM + i]) * U(b[k * kN + j]);
            c[i * kN + j] = acc;
        }
    }
    return c;
}

template <class T, class U>
std::vector<npusim::Finding> run_matmul(void (*kernel)(GM_ADDR, GM_ADDR, GM_ADDR), uint32_t gm_rows,
                                        bool check_output = true) {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    // gm_rows >= kK: rows past k are zeros the ZZ layouts copy in whole 16-row matrices.
    std::vector<T> at(gm_rows * kM, T(0)), bs(gm_rows * kN, T(0));
    for (uint32_t i = 0; i < kK * kM; ++i) at[i] = T(static_cast<float>(i % 7) - 3.0F);
    for (uint32_t i = 0; i < kK * kN; ++i) bs[i] = T(static_cast<float>(i % 5) - 2.0F);
    auto a = sim.allocate<T>(at.size(), "a");
    auto b = sim.allocate<T>(bs.size(), "b");
    auto c = sim.allocate<U>(kM * kN, "c");
    sim.write(a, at);
    sim.write(b, bs);
    const npusim::RunResult r =
        sim.run({.name = "cube_load", .blocks = 1, .type = npusim::KernelType::AIC_ONLY},
                npusim::ascendc::bind_kernel(kernel, gm_addr(a), gm_addr(b), gm_addr(c)));
    REQUIRE(r.completed());
    if (check_output) CHECK(sim.read(c) == reference<T, U>(at, bs));
    return checker.findings();
}

template <class U>
void fixpipe_out(GlobalTensor<U>& cGm, const LocalTensor<U>& c1) {
    FixpipeParamsV220<> fix;
    fix.nSize = kN;
    fix.mSize = kM;
    fix.srcStride = Align(kM, 16);
    fix.dstStride = kN;
    Fixpipe(cGm, c1, fix);
}

// fp32 through LoadData 3D: A^T (k x m) and B (k x n) as NZ in L1 (k rows padded to 16), A
// transposed into L0A (k padded to 16: kDirectionAlign), B transposed into L0B.
__global__ __cube__ void fp32_load3d(GM_ADDR a, GM_ADDR b, GM_ADDR c) {
    constexpr uint32_t kK16 = Align(kK, 16), kM8 = Align(kM, 8), kN8 = Align(kN, 8);
    GlobalTensor<float> aGm, bGm, cGm;
    aGm.SetGlobalBuffer((__gm__ float*)a, kK * kM);
    bGm.SetGlobalBuffer((__gm__ float*)b, kK * kN);
    cGm.SetGlobalBuffer((__gm__ float*)c, kM * kN);
    LocalTensor<float> a1(TPosition::A1, 0, kK16 * kM8);
    LocalTensor<float> b1(TPosition::B1, 65536, kK16 * kN8);
    LocalTensor<float> a2(TPosition::A2, 0, Align(kM, 16) * kK16);
    LocalTensor<float> b2(TPosition::B2, 0, kK16 * Align(kN, 16));
    LocalTensor<float> c1(TPosition::CO1, 0, Align(kM, 16) * Align(kN, 16));
    DataCopy(a1, aGm, Nd2NzParams{1, kK, kM, 0, kM, kK16, 1, 0});
    DataCopy(b1, bGm, Nd2NzParams{1, kK, kN, 0, kN, kK16, 1, 0});
    SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    LoadData3DParamsV2<float> p;
    p.l1H = 1;
    p.l1W = kK16;
    p.channelSize = kM8;
    p.kExtension = kM8;
    p.mExtension = kK16;
    p.enTranspose = true;
    LoadData(a2, a1, p);
    p.channelSize = kN8;
    p.kExtension = kN8;
    LoadData(b2, b1, p);
    SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
    WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
    MmadParams mm{kM, kN, kK};
    mm.kDirectionAlign = true;
    Mmad(c1, a2, b2, mm);
    SetFlag<HardEvent::M_FIX>(EVENT_ID0);
    WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
    fixpipe_out(cGm, c1);
}

// int8 through LoadDataWithTranspose: A^T and B as NZ in L1 with k rows padded to 32, each
// 32 x 32 square transposed into two fractals (A's dstFracGap apart, B's side by side).
template <bool kRace>
__global__ __cube__ void int8_transpose(GM_ADDR a, GM_ADDR b, GM_ADDR c) {
    constexpr uint32_t kK32 = Align(kK, 32), kM32 = Align(kM, 32), kN32 = Align(kN, 32);
    GlobalTensor<int8_t> aGm, bGm;
    GlobalTensor<int32_t> cGm;
    aGm.SetGlobalBuffer((__gm__ int8_t*)a, kK * kM);
    bGm.SetGlobalBuffer((__gm__ int8_t*)b, kK * kN);
    cGm.SetGlobalBuffer((__gm__ int32_t*)c, kM * kN);
    LocalTensor<int8_t> a1(TPosition::A1, 0, kK32 * kM32);
    LocalTensor<int8_t> b1(TPosition::B1, 65536, kK32 * kN32);
    LocalTensor<int8_t> a2(TPosition::A2, 0, kM32 * kK32);
    LocalTensor<int8_t> b2(TPosition::B2, 0, kK32 * kN32);
    LocalTensor<int32_t> c1(TPosition::CO1, 0, Align(kM, 16) * kN32);
    DataCopy(a1, aGm, Nd2NzParams{1, kK, kM, 0, kM, kK32, 1, 0});
    DataCopy(b1, bGm, Nd2NzParams{1, kK, kN, 0, kN, kK32, 1, 0});
    SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    for (uint32_t i = 0; i < Div(kM, 32); ++i) {
        LoadDataWithTranspose(a2[i * Div(kK, 32) * 1024], a1[i * kK32 * 32],
                              LoadData2dTransposeParams{0, Div(kK, 32), 1, 0, Div(kK, 32) - 1});
    }
    const auto load_b = [&] {
        for (uint32_t i = 0; i < Div(kK, 32); ++i) {
            g_load_line = __LINE__ + 1;
            LoadDataWithTranspose(b2[i * Div(kN, 32) * 1024], b1[i * 1024],
                                  LoadData2dTransposeParams{0, Div(kN, 32), Div(kK, 32), 1, 0});
        }
    };
    if constexpr (!kRace) load_b();
    SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
    WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
    if constexpr (kRace) load_b();
    g_mmad_line = __LINE__ + 1;
    Mmad(c1, a2, b2, MmadParams{kM, kN32, kK});
    SetFlag<HardEvent::M_FIX>(EVENT_ID0);
    WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
    fixpipe_out(cGm, c1);
}

// fp32 through LoadDataWithTranspose: A^T and B land in L1 as ZZ (one 16-row ND matrix each
// NZ block, ndNum of them), so two fractals side by side make each 16 x 16 square.
__global__ __cube__ void fp32_transpose(GM_ADDR a, GM_ADDR b, GM_ADDR c) {
    constexpr uint32_t kK16 = Align(kK, 16), kM16 = Align(kM, 16), kN16 = Align(kN, 16);
    GlobalTensor<float> aGm, bGm, cGm;
    aGm.SetGlobalBuffer((__gm__ float*)a, kK16 * kM);
    bGm.SetGlobalBuffer((__gm__ float*)b, kK16 * kN);
    cGm.SetGlobalBuffer((__gm__ float*)c, kM * kN);
    LocalTensor<float> a1(TPosition::A1, 0, kK16 * kM16);
    LocalTensor<float> b1(TPosition::B1, 65536, kK16 * kN16);
    LocalTensor<float> a2(TPosition::A2, 0, kM16 * kK16);
    LocalTensor<float> b2(TPosition::B2, 0, kK16 * kN16);
    LocalTensor<float> c1(TPosition::CO1, 0, kM16 * kN16);
    DataCopy(a1, aGm, Nd2NzParams{Div(kK, 16), 16, kM, 16 * kM, kM, 16, 1, 16 * kM16});
    DataCopy(b1, bGm, Nd2NzParams{Div(kK, 16), 16, kN, 16 * kN, kN, 16, 1, 16 * kN16});
    SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    for (uint32_t i = 0; i < Div(kM, 16); ++i) {
        LoadDataWithTranspose(a2[i * Div(kK, 16) * 256], a1[i * 256],
                              LoadData2dTransposeParams{0, Div(kK, 16), Div(kM, 16), 1, 0});
    }
    for (uint32_t i = 0; i < Div(kK, 16); ++i) {
        LoadDataWithTranspose(b2[i * Div(kN, 16) * 256], b1[i * Div(kN, 16) * 256],
                              LoadData2dTransposeParams{0, Div(kN, 16), 1, 0, Div(kN, 16) - 1});
    }
    SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
    WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
    MmadParams mm{kM, kN, kK};
    mm.kDirectionAlign = true;
    Mmad(c1, a2, b2, mm);
    SetFlag<HardEvent::M_FIX>(EVENT_ID0);
    WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
    fixpipe_out(cGm, c1);
}

// ---- InitConstValue: L0A filled with 2, L0B with 3 (k = 48), C = 2 * 3 * 48 everywhere ----
constexpr uint32_t kFillM = 32, kFillN = 32, kFillK = 48;
int g_fill_line = 0;

template <bool kRace>
__global__ __cube__ void fill_mmad(GM_ADDR c) {
    GlobalTensor<float> cGm;
    cGm.SetGlobalBuffer((__gm__ float*)c, kFillM * kFillN);
    LocalTensor<half> a2(TPosition::A2, 0, kFillM * kFillK);
    LocalTensor<half> b2(TPosition::B2, 0, kFillK * kFillN);
    LocalTensor<float> c1(TPosition::CO1, 0, kFillM * kFillN);
    InitConstValue(a2, InitConstValueParams<half>(1, kFillM * kFillK * 2 / 512, 0, half(2.0F)));
    if constexpr (!kRace) Fill(b2, {1, static_cast<uint16_t>(kFillK * kFillN * 2 / 512), 0, 3});
    SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
    WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
    g_fill_line = __LINE__ + 1;
    if constexpr (kRace) Fill(b2, {1, static_cast<uint16_t>(kFillK * kFillN * 2 / 512), 0, 3});
    g_mmad_line = __LINE__ + 1;
    Mmad(c1, a2, b2, MmadParams{kFillM, kFillN, kFillK});
    SetFlag<HardEvent::M_FIX>(EVENT_ID0);
    WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
    FixpipeParamsV220<> fix;
    fix.nSize = kFillN;
    fix.mSize = kFillM;
    fix.srcStride = kFillM;
    fix.dstStride = kFillN;
    Fixpipe(cGm, c1, fix);
}

// L1 rows with gaps: 3 rows of 2 blocks (32 bytes) of 7, 1 block apart, over data from GM;
// copied back out of L1 on the AIC's MTE3.
constexpr uint32_t kFillL1 = 9 * 16;  // 9 blocks of 16 halves
__global__ __cube__ void fill_l1_rows(GM_ADDR x, GM_ADDR y) {
    GlobalTensor<half> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ half*)x, kFillL1);
    yGm.SetGlobalBuffer((__gm__ half*)y, kFillL1);
    LocalTensor<half> a1(TPosition::A1, 0, kFillL1);
    DataCopy(a1, xGm, kFillL1);
    PipeBarrier<PIPE_MTE2>();  // two MTE2 writes of the same bytes complete in any order
    InitConstValue(a1, InitConstValueParams<half>(3, 2, 1, half(7.0F)));
    SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    DataCopy(yGm, a1, kFillL1);
}

npusim::Expected l0_raw(npusim::MemSpace space) {
    return {.kind = npusim::FindingKind::RaceRAW,
            .space = space,
            .first_pipe = npusim::Pipe::MTE1,
            .second_pipe = npusim::Pipe::M,
            .first_line = unsigned(g_load_line),
            .second_line = unsigned(g_mmad_line)};
}

}  // namespace

TEST_CASE("Ascend C LoadData 3D: a padded, strided 3 x 3 convolution through img2col",
          "[ascendc][cube]") {
    CHECK_THAT(run_conv<false>(), npusim::NoFindings());
    CHECK_THAT(run_conv<true>(), npusim::ExactlyFindings({l0_raw(npusim::MemSpace::L0A)}));
}

TEST_CASE("Ascend C LoadData 3D: fp32 A transposed into L0A and B into L0B, kDirectionAlign",
          "[ascendc][cube]") {
    CHECK_THAT((run_matmul<float, float>(fp32_load3d, kK)), npusim::NoFindings());
}

TEST_CASE("Ascend C LoadDataWithTranspose: int8 32 x 32 squares", "[ascendc][cube]") {
    CHECK_THAT((run_matmul<int8_t, int32_t>(int8_transpose<false>, kK)), npusim::NoFindings());
    CHECK_THAT((run_matmul<int8_t, int32_t>(int8_transpose<true>, kK, false)),
               npusim::ExactlyFindings({l0_raw(npusim::MemSpace::L0B)}));
}

TEST_CASE("Ascend C LoadDataWithTranspose: fp32 16 x 16 squares from ZZ in L1", "[ascendc][cube]") {
    CHECK_THAT((run_matmul<float, float>(fp32_transpose, Align(kK, 16))), npusim::NoFindings());
}

TEST_CASE("Ascend C LoadData 3D: the packed form (LoadData3DParamsV2Pro) loads the same window",
          "[ascendc][cube]") {
    CHECK_THAT((run_conv<false, true>()), npusim::NoFindings());
}

TEST_CASE("Ascend C LoadData 3D: reads past SetLoadDataBoundary continue at L1's start",
          "[ascendc][cube]") {
    // The 960-byte feature map at L1 byte 0 with a bound at 512: its last 448 bytes read
    // again from L1's start.
    CHECK_THAT((run_conv<false, false, 512>()), npusim::NoFindings());
}

TEST_CASE("Ascend C InitConstValue: L0A and L0B filled before an Mmad, L1 rows with gaps",
          "[ascendc][cube]") {
    const auto run_fill = [](auto kernel) {
        npusim::Simulator sim(npusim::builtin_chip_config("small"));
        npusim::Checker checker(sim.global_memory());
        sim.attach(checker);
        auto c = sim.allocate<float>(kFillM * kFillN, "c");
        const npusim::RunResult r =
            sim.run({.name = "fill_mmad", .blocks = 1, .type = npusim::KernelType::AIC_ONLY},
                    npusim::ascendc::bind_kernel(kernel, gm_addr(c)));
        REQUIRE(r.completed());
        return std::pair{sim.read(c), checker.findings()};
    };
    const auto [out, findings] = run_fill(fill_mmad<false>);
    CHECK(out == std::vector<float>(kFillM * kFillN, 2.0F * 3.0F * kFillK));
    CHECK_THAT(findings, npusim::NoFindings());
    CHECK_THAT(run_fill(fill_mmad<true>).second,
               npusim::ExactlyFindings({{.kind = npusim::FindingKind::RaceRAW,
                                         .space = npusim::MemSpace::L0B,
                                         .first_pipe = npusim::Pipe::MTE1,
                                         .second_pipe = npusim::Pipe::M,
                                         .first_line = unsigned(g_fill_line),
                                         .second_line = unsigned(g_mmad_line)}}));

    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    std::vector<half> xs(kFillL1);
    for (uint32_t i = 0; i < kFillL1; ++i) xs[i] = half(static_cast<float>(i % 50));
    auto x = sim.allocate<half>(kFillL1, "x");
    auto y = sim.allocate<half>(kFillL1, "y");
    sim.write(x, xs);
    REQUIRE(sim.run({.name = "fill_l1_rows", .blocks = 1, .type = npusim::KernelType::AIC_ONLY},
                    npusim::ascendc::bind_kernel(fill_l1_rows, gm_addr(x), gm_addr(y)))
                .completed());
    const std::vector<half> ys = sim.read(y);
    for (uint32_t i = 0; i < kFillL1; ++i) {
        const uint32_t block = i / 16;  // rows of blocks 0-1, 3-4, 6-7; 2, 5, 8 untouched
        const float expected = block % 3 == 2 ? static_cast<float>(xs[i]) : 7.0F;
        CHECK(static_cast<float>(ys[i]) == expected);
    }
    CHECK_THAT(checker.findings(), npusim::NoFindings());
}
