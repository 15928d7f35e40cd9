// The cube's input types (the vendor's Mmad data-type table for the A2/A3 generation):
// int8 x int8 -> int32, fp16 / bf16 x same -> fp32 and fp32 x fp32 -> fp32, each with and
// without a bias row of the result type, through the queue framework (GM -> A1/B1/C1 -> A2/B2/
// C2 -> Mmad -> CO1 -> Fixpipe -> GM). Each result is checked against a CPU loop written
// here, the checker is clean, and the cube pipe's busy time follows the type's rate.
// Then Fixpipe's conversions out of L0C (quantPre, reluEn, deqScalar, per-column words from
// the cbufWorkspace tensor, ND rows wider than the result) against a CPU model of the vendor's
// documented conversion written here.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <source_location>
#include <string>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include "kernel_operator.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"

using namespace AscendC;

namespace {

constexpr uint32_t kM = 16, kN = 32, kK = 64;

template <class In, class Out, bool kBias>
__global__ __aicore__ void cube_typed(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c) {
    constexpr uint32_t kFractal = 512 / sizeof(In);
    TPipe pipe;
    GlobalTensor<In> aGm, bGm;
    GlobalTensor<Out> biasGm, cGm;
    aGm.SetGlobalBuffer((__gm__ In*)a, kM * kK);
    bGm.SetGlobalBuffer((__gm__ In*)b, kK * kN);
    biasGm.SetGlobalBuffer((__gm__ Out*)bias, kN);
    cGm.SetGlobalBuffer((__gm__ Out*)c, kM * kN);
    TQue<TPosition::A1, 1> inA1;
    TQue<TPosition::B1, 1> inB1;
    TQue<TPosition::C1, 1> inC1;
    TQue<TPosition::A2, 1> inA2;
    TQue<TPosition::B2, 1> inB2;
    TQue<TPosition::C2, 1> inC2;
    TQue<TPosition::CO1, 1> outCO1;
    pipe.InitBuffer(inA1, 1, kM * kK * sizeof(In));
    pipe.InitBuffer(inB1, 1, kK * kN * sizeof(In));
    pipe.InitBuffer(inC1, 1, kN * sizeof(Out));
    pipe.InitBuffer(inA2, 1, kM * kK * sizeof(In));
    pipe.InitBuffer(inB2, 1, kK * kN * sizeof(In));
    pipe.InitBuffer(inC2, 1, kN * sizeof(Out));
    pipe.InitBuffer(outCO1, 1, kM * kN * sizeof(Out));

    LocalTensor<In> a1 = inA1.AllocTensor<In>();
    LocalTensor<In> b1 = inB1.AllocTensor<In>();
    // A (m x k) and B held transposed in GM (n x k) land in L1 as NZ. With one 16-row block
    // A's NZ is already L0A's ZZ, and B^T's NZ is L0B's ZN (each fractal 16 n-rows of C0 k):
    // both are whole-fractal loads, for every type (no ifTranspose needed).
    DataCopy(a1, aGm, Nd2NzParams{1, kM, kK, 0, kK, kM, 1, 0});
    DataCopy(b1, bGm, Nd2NzParams{1, kN, kK, 0, kK, kN, 1, 0});
    inA1.EnQue(a1);
    inB1.EnQue(b1);
    a1 = inA1.DeQue<In>();
    b1 = inB1.DeQue<In>();
    LocalTensor<In> a2 = inA2.AllocTensor<In>();
    LocalTensor<In> b2 = inB2.AllocTensor<In>();
    LoadData2DParams load;
    load.repeatTimes = kM * kK / kFractal;
    load.srcStride = 1;
    LoadData(a2, a1, load);
    load.repeatTimes = kK * kN / kFractal;
    LoadData(b2, b1, load);
    inA2.EnQue(a2);
    inB2.EnQue(b2);
    inA1.FreeTensor(a1);
    inB1.FreeTensor(b1);
    a2 = inA2.DeQue<In>();
    b2 = inB2.DeQue<In>();

    LocalTensor<Out> c1 = outCO1.AllocTensor<Out>();
    if constexpr (kBias) {
        LocalTensor<Out> bias1 = inC1.AllocTensor<Out>();
        DataCopy(bias1, biasGm, kN);
        inC1.EnQue(bias1);
        bias1 = inC1.DeQue<Out>();
        LocalTensor<Out> bias2 = inC2.AllocTensor<Out>();
        DataCopy(bias2, bias1, kN);
        inC2.EnQue(bias2);
        inC1.FreeTensor(bias1);
        bias2 = inC2.DeQue<Out>();
        Mmad(c1, a2, b2, bias2, MmadParams{kM, kN, kK});
        inC2.FreeTensor(bias2);
    } else {
        Mmad(c1, a2, b2, MmadParams{kM, kN, kK});
    }
    outCO1.EnQue(c1);
    inA2.FreeTensor(a2);
    inB2.FreeTensor(b2);
    c1 = outCO1.DeQue<Out>();
    FixpipeParamsV220<> fix;
    fix.nSize = kN;
    fix.mSize = kM;
    fix.srcStride = kM;
    fix.dstStride = kN;
    Fixpipe(cGm, c1, fix);
    outCO1.FreeTensor(c1);
}

/// The n x n identity (n a multiple of 16) in ZZ or ZN fractals (the same for it): fractal
/// (i, j) of 16 x 16 at (i x n / 16 + j) x 256, the diagonal ones the 16 x 16 identity.
std::vector<half> fractal_identity(uint32_t n) {
    std::vector<half> out(n * n, half(0.0F));
    for (uint32_t f = 0; f < n / 16; ++f)
        for (uint32_t r = 0; r < 16; ++r) out[(f * (n / 16) + f) * 256 + r * 16 + r] = half(1.0F);
    return out;
}

/// `values` (rows x cols, row-major) transposed: how the kernels keep B in GM (n x k).
template <class T>
std::vector<T> transposed(const std::vector<T>& values, uint32_t rows, uint32_t cols) {
    std::vector<T> out(values.size());
    for (uint32_t r = 0; r < rows; ++r)
        for (uint32_t c = 0; c < cols; ++c) out[c * rows + r] = values[r * cols + c];
    return out;
}

/// Input element i of a matrix: small integers for int8, bf16 and fp16 (exact products), and
/// non-integers for fp32 (a product rounded to a narrower type would differ).
template <class In>
In input_value(uint32_t i, uint32_t salt) {
    if constexpr (std::is_same_v<In, int8_t>) {
        return static_cast<int8_t>(static_cast<int>((i * 37 + salt) % 255) - 127);
    } else if constexpr (std::is_same_v<In, float>) {
        return 0.013F * static_cast<float>((i * 7 + salt) % 41) - 0.2F;
    } else {
        return In(static_cast<float>((i + salt) % 9) - 4.0F);
    }
}

struct TypedRun {
    npusim::Cycle cube_busy = 0;
};

template <class In, class Out, bool kBias>
TypedRun run_typed() {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto a = sim.allocate<In>(kM * kK, "a");
    auto b = sim.allocate<In>(kK * kN, "b");
    auto bias = sim.allocate<Out>(kN, "bias");
    auto c = sim.allocate<Out>(kM * kN, "c");
    std::vector<In> as(kM * kK), bs(kK * kN);
    std::vector<Out> biases(kN);
    for (uint32_t i = 0; i < kM * kK; ++i) as[i] = input_value<In>(i, 3);
    for (uint32_t i = 0; i < kK * kN; ++i) bs[i] = input_value<In>(i, 11);
    for (uint32_t i = 0; i < kN; ++i) biases[i] = static_cast<Out>(i * 3) - static_cast<Out>(40);
    sim.write(a, as);
    sim.write(b, transposed(bs, kK, kN));
    sim.write(bias, biases);
    using npusim::ascendc::gm_addr;
    const npusim::RunResult r =
        sim.run({.name = "cube_typed", .blocks = 1, .type = npusim::KernelType::AIC_ONLY},
                npusim::ascendc::bind_kernel(cube_typed<In, Out, kBias>, gm_addr(a), gm_addr(b),
                                             gm_addr(bias), gm_addr(c)));
    REQUIRE(r.completed());
    std::vector<Out> expected;
    for (uint32_t row = 0; row < kM; ++row) {
        for (uint32_t col = 0; col < kN; ++col) {
            Out acc = kBias ? biases[col] : Out{};
            for (uint32_t i = 0; i < kK; ++i) {
                if constexpr (std::is_same_v<Out, int32_t>) {
                    acc += int32_t{as[row * kK + i]} * int32_t{bs[i * kN + col]};
                } else {
                    acc +=
                        static_cast<float>(as[row * kK + i]) * static_cast<float>(bs[i * kN + col]);
                }
            }
            expected.push_back(acc);
        }
    }
    CHECK(sim.read(c) == expected);
    CHECK_THAT(checker.findings(), npusim::NoFindings());
    REQUIRE(r.cores.size() == 1);
    TypedRun out;
    for (const npusim::PipeUsage& u : r.cores[0].pipes)
        if (u.pipe == npusim::Pipe::M) out.cube_busy = u.busy_cycles;
    return out;
}

}  // namespace

TEST_CASE("Ascend C Mmad for each cube input type, with and without a bias row",
          "[ascendc][cube]") {
    // 16 x 32 x 64: one cycle per 16 x 16 output fractal and k0 of depth, k0 = 32 bytes of
    // the input type: fp16 / bf16 2 x 4 = 8 cycles, int8 2 x 2 = 4, fp32 2 x 8 = 16.
    const TypedRun f16 = run_typed<half, float, false>();
    const TypedRun bf16 = run_typed<bfloat16_t, float, false>();
    const TypedRun i8 = run_typed<int8_t, int32_t, false>();
    const TypedRun f32 = run_typed<float, float, false>();
    CHECK(bf16.cube_busy == f16.cube_busy);
    CHECK(f16.cube_busy - i8.cube_busy == 4);
    CHECK(f32.cube_busy - f16.cube_busy == 8);
    run_typed<half, float, true>();
    run_typed<bfloat16_t, float, true>();
    run_typed<int8_t, int32_t, true>();
    run_typed<float, float, true>();
}

namespace {

constexpr uint32_t kWideN = kN + 16;  // GM rows of the converted result: 16 elements of gap

/// A quantisation word: the scale (bits 31..13 used), the offset (45..37), signed (46).
constexpr uint64_t word_of(float scale, uint32_t offset, bool is_signed) {
    return uint64_t{std::bit_cast<uint32_t>(scale)} | (uint64_t{offset} << 37) |
           (uint64_t{is_signed} << 46);
}

// kNz: 0 ND output; 1 NZ output (CFG_NZ, column blocks of C0 = 32 bytes of Out, 16 for float);
// 2 NZ output of float with isChannelSplit (C0 = 8).
template <class Out>
constexpr uint32_t nz_c0(int nz) {
    return std::is_same_v<Out, float> ? (nz == 2 ? 8 : 16) : 32 / sizeof(Out);
}

// kViaL1: 0 Fixpipe into GM; 1 into L1 (a C1 tensor, NZ; with per-column words the words
// sit where the results go, as in asc-devkit fixpipe_l0c2l1), then MTE3 copies L1 -> GM after
// a FIX -> MTE3 flag; 2 the same without that flag (racy).
template <class In, class Acc, class Out, QuantMode_t kMode, bool kRelu, uint64_t kWord,
          int kNz = 0, int kViaL1 = 0>
__global__ __aicore__ void cube_quant(GM_ADDR a, GM_ADDR b, GM_ADDR words, GM_ADDR c) {
    constexpr uint32_t kFractal = 512 / sizeof(In);
    constexpr bool kPerChannel = kMode == QuantMode_t::VDEQF16 ||
                                 kMode == QuantMode_t::VQF322B8_PRE || kMode == QuantMode_t::VREQ8;
    TPipe pipe;
    GlobalTensor<In> aGm, bGm;
    GlobalTensor<uint64_t> wordsGm;
    GlobalTensor<Out> cGm;
    aGm.SetGlobalBuffer((__gm__ In*)a, kM * kK);
    bGm.SetGlobalBuffer((__gm__ In*)b, kK * kN);
    wordsGm.SetGlobalBuffer((__gm__ uint64_t*)words, kN);
    cGm.SetGlobalBuffer((__gm__ Out*)c, kM * kWideN);
    TQue<TPosition::A1, 1> inA1;
    TQue<TPosition::B1, 1> inB1;
    TQue<TPosition::C1, 1> inWords;
    TQue<TPosition::A2, 1> inA2;
    TQue<TPosition::B2, 1> inB2;
    TQue<TPosition::CO1, 1> outCO1;
    pipe.InitBuffer(inA1, 1, kM * kK * sizeof(In));
    pipe.InitBuffer(inB1, 1, kK * kN * sizeof(In));
    pipe.InitBuffer(inWords, 1, kN * sizeof(uint64_t));
    pipe.InitBuffer(inA2, 1, kM * kK * sizeof(In));
    pipe.InitBuffer(inB2, 1, kK * kN * sizeof(In));
    pipe.InitBuffer(outCO1, 1, kM * kN * sizeof(Acc));
    TQue<TPosition::C1, 1> outL1;
    if constexpr (kViaL1 != 0) pipe.InitBuffer(outL1, 1, kM * kN * sizeof(Out) + kN * 8);

    LocalTensor<In> a1 = inA1.AllocTensor<In>();
    LocalTensor<In> b1 = inB1.AllocTensor<In>();
    // A (m x k) and B held transposed in GM (n x k) land in L1 as NZ. With one 16-row block
    // A's NZ is already L0A's ZZ, and B^T's NZ is L0B's ZN (each fractal 16 n-rows of C0 k):
    // both are whole-fractal loads, for every type (no ifTranspose needed).
    DataCopy(a1, aGm, Nd2NzParams{1, kM, kK, 0, kK, kM, 1, 0});
    DataCopy(b1, bGm, Nd2NzParams{1, kN, kK, 0, kK, kN, 1, 0});
    inA1.EnQue(a1);
    inB1.EnQue(b1);
    a1 = inA1.DeQue<In>();
    b1 = inB1.DeQue<In>();
    LocalTensor<In> a2 = inA2.AllocTensor<In>();
    LocalTensor<In> b2 = inB2.AllocTensor<In>();
    LoadData2DParams load;
    load.repeatTimes = kM * kK / kFractal;
    load.srcStride = 1;
    LoadData(a2, a1, load);
    load.repeatTimes = kK * kN / kFractal;
    LoadData(b2, b1, load);
    inA2.EnQue(a2);
    inB2.EnQue(b2);
    inA1.FreeTensor(a1);
    inB1.FreeTensor(b1);
    a2 = inA2.DeQue<In>();
    b2 = inB2.DeQue<In>();
    LocalTensor<Acc> c1 = outCO1.AllocTensor<Acc>();
    Mmad(c1, a2, b2, MmadParams{kM, kN, kK});
    outCO1.EnQue(c1);
    inA2.FreeTensor(a2);
    inB2.FreeTensor(b2);
    c1 = outCO1.DeQue<Acc>();

    FixpipeParamsV220 fix;
    fix.nSize = kN;
    fix.mSize = kM;
    fix.srcStride = kM;
    fix.dstStride = kWideN;
    if constexpr (kNz != 0) {
        fix.dstStride = kM * nz_c0<Out>(kNz) * sizeof(Out) / 32;  // 32-byte units per block
        fix.isChannelSplit = kNz == 2;
    }
    fix.quantPre = kMode;
    fix.reluEn = kRelu;
    fix.deqScalar = kWord;
    if constexpr (kViaL1 != 0) {
        static_assert(kNz == 1, "into L1 as NZ: the results are dense");
        LocalTensor<Out> o1 = outL1.AllocTensor<Out>();
        LocalTensor<uint64_t> w1 = o1.template ReinterpretCast<uint64_t>();
        if constexpr (kPerChannel) {
            DataCopy(w1, wordsGm, kN);
            SetFlag<HardEvent::MTE2_FIX>(EVENT_ID0);
            WaitFlag<HardEvent::MTE2_FIX>(EVENT_ID0);
            Fixpipe<Out, Acc, CFG_NZ>(o1, c1, w1, fix);
        } else {
            Fixpipe<Out, Acc, CFG_NZ>(o1, c1, fix);
        }
        if constexpr (kViaL1 == 1) {
            SetFlag<HardEvent::FIX_MTE3>(EVENT_ID0);
            WaitFlag<HardEvent::FIX_MTE3>(EVENT_ID0);
        }
        DataCopy(cGm, o1, kM * kN);
        outL1.FreeTensor(o1);
    } else if constexpr (kPerChannel) {
        LocalTensor<uint64_t> w1 = inWords.AllocTensor<uint64_t>();
        DataCopy(w1, wordsGm, kN);
        inWords.EnQue(w1);
        w1 = inWords.DeQue<uint64_t>();
        // The C1 queue orders MTE2 before MTE1; the fixpipe reads the words, so the kernel
        // orders MTE2 -> FIX itself (as on hardware).
        SetFlag<HardEvent::MTE2_FIX>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_FIX>(EVENT_ID0);
        if constexpr (kNz != 0) {
            Fixpipe<Out, Acc, CFG_NZ>(cGm, c1, w1, fix);
        } else {
            Fixpipe<Out, Acc, CFG_ROW_MAJOR>(cGm, c1, w1, fix);
        }
        inWords.FreeTensor(w1);
    } else if constexpr (kNz != 0) {
        Fixpipe<Out, Acc, CFG_NZ>(cGm, c1, fix);
    } else {
        Fixpipe<Out, Acc, CFG_ROW_MAJOR>(cGm, c1, fix);
    }
    outCO1.FreeTensor(c1);
}

/// The vendor's documented conversion of one L0C value (CPU model, written independently of
/// the simulator's compute).
template <class Out>
Out convert(double v, QuantMode_t mode, bool relu, uint64_t word) {
    const float scale = std::bit_cast<float>(static_cast<uint32_t>(word) & ~uint32_t{0x1fff});
    if (mode == QuantMode_t::NoQuant) return static_cast<Out>(relu && v < 0 ? 0 : v);
    if (mode == QuantMode_t::F322F16 || mode == QuantMode_t::F322BF16) {
        return Out(static_cast<float>(relu && v < 0 ? 0 : v));
    }
    const float x = static_cast<float>(v);
    const float scaled = x >= 0 ? x * scale : (relu ? 0.0F : x * scale);
    if constexpr (std::is_same_v<Out, half>) {
        return half(std::min(65504.0F, std::max(-65504.0F, scaled)));
    } else {
        const double rounded = std::nearbyint(std::min(255.0F, std::max(-256.0F, scaled)));
        const double shifted = rounded + static_cast<double>((word >> 37) & 0x1ff);
        const bool is_signed = ((word >> 46) & 1) != 0;
        return static_cast<Out>(is_signed ? std::clamp(shifted, -128.0, 127.0)
                                          : std::clamp(shifted, 0.0, 255.0));
    }
}

template <class In, class Acc, class Out, QuantMode_t kMode, bool kRelu, uint64_t kWord,
          int kNz = 0, int kViaL1 = 0>
void run_quant() {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto a = sim.allocate<In>(kM * kK, "a");
    auto b = sim.allocate<In>(kK * kN, "b");
    auto words = sim.allocate<uint64_t>(kN, "words");
    auto c = sim.allocate<Out>(kM * kWideN, "c");
    std::vector<In> as(kM * kK), bs(kK * kN);
    std::vector<uint64_t> ws(kN);
    for (uint32_t i = 0; i < kM * kK; ++i) as[i] = input_value<In>(i, 5);
    for (uint32_t i = 0; i < kK * kN; ++i) bs[i] = input_value<In>(i, 2);
    for (uint32_t i = 0; i < kN; ++i) {
        ws[i] = word_of(std::ldexp(1.0F, -static_cast<int>(i % 9)) * (i % 3 == 0 ? -1.0F : 1.5F),
                        i % 4, std::is_same_v<Out, int8_t>);
    }
    const Out sentinel = static_cast<Out>(99);
    std::vector<Out> initial(kM * kWideN, sentinel);
    sim.write(a, as);
    sim.write(b, transposed(bs, kK, kN));
    sim.write(words, ws);
    sim.write(c, initial);
    using npusim::ascendc::gm_addr;
    const npusim::RunResult r = sim.run(
        {.name = "cube_quant", .blocks = 1, .type = npusim::KernelType::AIC_ONLY},
        npusim::ascendc::bind_kernel(cube_quant<In, Acc, Out, kMode, kRelu, kWord, kNz, kViaL1>,
                                     gm_addr(a), gm_addr(b), gm_addr(words), gm_addr(c)));
    REQUIRE(r.completed());
    const bool per_channel = kMode == QuantMode_t::VDEQF16 || kMode == QuantMode_t::VQF322B8_PRE ||
                             kMode == QuantMode_t::VREQ8;
    std::vector<Out> expected = initial;
    for (uint32_t row = 0; row < kM; ++row) {
        for (uint32_t col = 0; col < kN; ++col) {
            Acc acc{};
            for (uint32_t i = 0; i < kK; ++i) {
                if constexpr (std::is_same_v<Acc, int32_t>) {
                    acc += int32_t{as[row * kK + i]} * int32_t{bs[i * kN + col]};
                } else {
                    acc +=
                        static_cast<float>(as[row * kK + i]) * static_cast<float>(bs[i * kN + col]);
                }
            }
            const uint32_t c0 = nz_c0<Out>(kNz);
            const uint32_t at =
                kNz != 0 ? (col / c0) * kM * c0 + row * c0 + col % c0 : row * kWideN + col;
            expected[at] =
                convert<Out>(static_cast<double>(acc), kMode, kRelu, per_channel ? ws[col] : kWord);
        }
    }
    if (kViaL1 == 2) {  // the copy-out raced the fixpipe: its RAW at L1, pipe to pipe
        REQUIRE_FALSE(checker.findings().empty());
        const npusim::Finding& race = checker.findings().front();
        INFO(race.message);
        CHECK(race.kind == npusim::FindingKind::RaceRAW);
        CHECK(race.space == npusim::MemSpace::L1);
        CHECK(race.scope == npusim::RaceScope::InterPipe);
        return;
    }
    CHECK(sim.read(c) == expected);
    CHECK_THAT(checker.findings(), npusim::NoFindings());
}

}  // namespace

TEST_CASE("Ascend C Fixpipe converts out of L0C: casts, quantisation, ReLU, wide ND rows",
          "[ascendc][cube]") {
    // fp32 results: ReLU alone, cast to half / bfloat16 (with and without ReLU), quantised to
    // int8 with a scalar and per column.
    run_quant<half, float, float, QuantMode_t::NoQuant, true, 0>();
    run_quant<half, float, half, QuantMode_t::F322F16, false, 0>();
    run_quant<float, float, half, QuantMode_t::F322F16, true, 0>();
    run_quant<bfloat16_t, float, bfloat16_t, QuantMode_t::F322BF16, true, 0>();
    run_quant<half, float, int8_t, QuantMode_t::QF322B8_PRE, false, word_of(0.125F, 3, true)>();
    run_quant<half, float, int8_t, QuantMode_t::VQF322B8_PRE, true, 0>();
    // int32 results (int8 inputs): dequantised to half, requantised to int8 / uint8.
    run_quant<int8_t, int32_t, half, QuantMode_t::DEQF16, false, word_of(0.001F, 0, false)>();
    run_quant<int8_t, int32_t, half, QuantMode_t::VDEQF16, true, 0>();
    run_quant<int8_t, int32_t, int8_t, QuantMode_t::REQ8, false, word_of(0.01F, 5, true)>();
    run_quant<int8_t, int32_t, uint8_t, QuantMode_t::REQ8, true, word_of(0.02F, 7, false)>();
    run_quant<int8_t, int32_t, int8_t, QuantMode_t::VREQ8, false, 0>();
}

TEST_CASE("Ascend C Fixpipe with NZ output (CFG_NZ): column blocks of C0 with conversions",
          "[ascendc][cube]") {
    run_quant<half, float, float, QuantMode_t::NoQuant, false, 0, 1>();     // 16 x 16 blocks
    run_quant<half, float, float, QuantMode_t::NoQuant, true, 0, 1>();      // with ReLU
    run_quant<half, float, half, QuantMode_t::F322F16, false, 0, 1>();      // 16 x 16 half
    run_quant<int8_t, int32_t, int8_t, QuantMode_t::VREQ8, false, 0, 1>();  // 16 x 32 int8
}

TEST_CASE(
    "Ascend C Fixpipe into L1 (a C1 tensor), copied out by MTE3; the scale words may sit "
    "under the results; without FIX -> MTE3 the copy-out races",
    "[ascendc][cube]") {
    run_quant<half, float, half, QuantMode_t::F322F16, true, 0, 1, 1>();
    run_quant<half, float, int8_t, QuantMode_t::VQF322B8_PRE, false, 0, 1, 1>();
    run_quant<int8_t, int32_t, int8_t, QuantMode_t::VREQ8, false, 0, 1, 1>();
    run_quant<int8_t, int32_t, half, QuantMode_t::VDEQF16, true, 0, 1, 1>();  // 2 blocks
    run_quant<half, float, half, QuantMode_t::F322F16, false, 0, 1, 2>();
}

namespace {

// LoadData 2D with srcStride and dstGap: L0A (16 x 64 fp16, 4 fractals) is first filled from
// a block of -1s, then fractals 1 and 4 of an 8-fractal L1 source land in its fractals 0 and
// 2 (srcStride 3, dstGap 1). Mmad against a 64 x 64 identity (kept in GM already in L0B's ZN
// fractals) and Fixpipe read L0A back as the ZZ matrix it holds.
constexpr uint32_t kLdK = 64, kLdSrc = 8 * 256;

__global__ __aicore__ void load_strided(GM_ADDR src, GM_ADDR eye, GM_ADDR out) {
    TPipe pipe;
    GlobalTensor<half> srcGm, eyeGm;
    GlobalTensor<float> outGm;
    srcGm.SetGlobalBuffer((__gm__ half*)src, kLdSrc + kM * kLdK);
    eyeGm.SetGlobalBuffer((__gm__ half*)eye, kLdK * kLdK);
    outGm.SetGlobalBuffer((__gm__ float*)out, kM * kLdK);
    TQue<TPosition::A1, 1> inA1;
    TQue<TPosition::B1, 1> inB1;
    TQue<TPosition::A2, 1> inA2;
    TQue<TPosition::B2, 1> inB2;
    TQue<TPosition::CO1, 1> outCO1;
    pipe.InitBuffer(inA1, 1, (kLdSrc + kM * kLdK) * sizeof(half));
    pipe.InitBuffer(inB1, 1, kLdK * kLdK * sizeof(half));
    pipe.InitBuffer(inA2, 1, kM * kLdK * sizeof(half));
    pipe.InitBuffer(inB2, 1, kLdK * kLdK * sizeof(half));
    pipe.InitBuffer(outCO1, 1, kM * kLdK * sizeof(float));
    LocalTensor<half> a1 = inA1.AllocTensor<half>();
    LocalTensor<half> b1 = inB1.AllocTensor<half>();
    DataCopy(a1, srcGm, kLdSrc + kM * kLdK);  // the 8 source fractals, then the -1 block
    DataCopy(b1, eyeGm, kLdK * kLdK);
    inA1.EnQue(a1);
    inB1.EnQue(b1);
    a1 = inA1.DeQue<half>();
    b1 = inB1.DeQue<half>();
    LocalTensor<half> a2 = inA2.AllocTensor<half>();
    LocalTensor<half> b2 = inB2.AllocTensor<half>();
    LoadData2DParams fill;
    fill.startIndex = 8;
    fill.repeatTimes = 4;
    fill.srcStride = 1;
    LoadData(a2, a1, fill);
    PipeBarrier<PIPE_MTE1>();
    LoadData2DParams strided;
    strided.startIndex = 1;
    strided.repeatTimes = 2;
    strided.srcStride = 3;
    strided.dstGap = 1;
    LoadData(a2, a1, strided);
    LoadData2DParams dense;
    dense.repeatTimes = kLdK * kLdK / 256;
    dense.srcStride = 1;
    LoadData(b2, b1, dense);
    inA2.EnQue(a2);
    inB2.EnQue(b2);
    inA1.FreeTensor(a1);
    inB1.FreeTensor(b1);
    a2 = inA2.DeQue<half>();
    b2 = inB2.DeQue<half>();
    LocalTensor<float> c1 = outCO1.AllocTensor<float>();
    Mmad(c1, a2, b2, MmadParams{kM, kLdK, kLdK});
    outCO1.EnQue(c1);
    inA2.FreeTensor(a2);
    inB2.FreeTensor(b2);
    c1 = outCO1.DeQue<float>();
    FixpipeParamsV220 fix;
    fix.nSize = kLdK;
    fix.mSize = kM;
    fix.srcStride = kM;
    fix.dstStride = kLdK;
    Fixpipe(outGm, c1, fix);
    outCO1.FreeTensor(c1);
}

}  // namespace

TEST_CASE("Ascend C LoadData 2D with srcStride and dstGap moves whole 512-byte fractals",
          "[ascendc][cube]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto src = sim.allocate<half>(kLdSrc + kM * kLdK, "src");
    auto eye = sim.allocate<half>(kLdK * kLdK, "eye");
    auto out = sim.allocate<float>(kM * kLdK, "out");
    std::vector<half> srcs(kLdSrc + kM * kLdK, half(-1.0F));
    for (uint32_t i = 0; i < kLdSrc; ++i) srcs[i] = half(static_cast<float>(i % 1024));
    const std::vector<half> eyes = fractal_identity(kLdK);
    sim.write(src, srcs);
    sim.write(eye, eyes);
    using npusim::ascendc::gm_addr;
    const npusim::RunResult r = sim.run(
        {.name = "load_strided", .blocks = 1, .type = npusim::KernelType::AIC_ONLY},
        npusim::ascendc::bind_kernel(load_strided, gm_addr(src), gm_addr(eye), gm_addr(out)));
    REQUIRE(r.completed());
    // L0A as 4 fractals of 256 halves: 0 <- source fractal 1, 2 <- source fractal 4, 1 and 3
    // keep the -1s. As ZZ (one 16-row block) element (i, j) is in fractal j / 16 at
    // (i, j % 16); the output is that matrix, row-major.
    std::vector<float> l0a(kM * kLdK, -1.0F);
    for (uint32_t i = 0; i < 256; ++i) {
        l0a[i] = static_cast<float>(srcs[256 + i]);
        l0a[512 + i] = static_cast<float>(srcs[4 * 256 + i]);
    }
    std::vector<float> expected(kM * kLdK);
    for (uint32_t i = 0; i < kM; ++i)
        for (uint32_t j = 0; j < kLdK; ++j)
            expected[i * kLdK + j] = l0a[(j / 16) * 256 + i * 16 + j % 16];
    CHECK(sim.read(out) == expected);
    CHECK_THAT(checker.findings(), npusim::NoFindings());
}

namespace {

// LoadData 2D with ifTranspose and srcStride 0 in the static-tensor style with explicit
// flags: L0B (32 x 64 fp16, 8 fractals) gets source fractals 1, 3, 5 transposed (srcStride
// 2), fractal 7 transposed twice (srcStride 0, dstGap 1: L0B fractals 3 and 5), fractal 0
// twice untransposed (L0B 4 and 6) and fractal 2 as it is (L0B 7). Mmad with a 32 x 32
// identity in L0A (kept in GM already in ZZ fractals) and Fixpipe read L0B back as the ZN
// matrix it holds. kDropFlag leaves out the MTE1 -> M flag: the
// checker must report Mmad reading L0A and L0B while the loads write them.
constexpr uint32_t kTrK = 32, kTrN = 64, kTrSrc = 8 * 256;
unsigned g_tr_load_line = 0, g_tr_mmad_line = 0;

template <bool kDropFlag>
__global__ __aicore__ void load_transposed(GM_ADDR eye, GM_ADDR src, GM_ADDR out) {
    GlobalTensor<half> eyeGm, srcGm;
    GlobalTensor<float> outGm;
    eyeGm.SetGlobalBuffer((__gm__ half*)eye, kTrK * kTrK);
    srcGm.SetGlobalBuffer((__gm__ half*)src, kTrSrc);
    outGm.SetGlobalBuffer((__gm__ float*)out, kTrK * kTrN);
    LocalMemAllocator<Hardware::L1> l1;
    LocalMemAllocator<Hardware::L0A> l0a;
    LocalMemAllocator<Hardware::L0B> l0b;
    LocalMemAllocator<Hardware::L0C> l0c;
    LocalTensor<half> a1 = l1.Alloc<TPosition::A1, half>(kTrK * kTrK);
    LocalTensor<half> b1 = l1.Alloc<TPosition::B1, half>(kTrSrc);
    LocalTensor<half> a2 = l0a.Alloc<TPosition::A2, half>(kTrK * kTrK);
    LocalTensor<half> b2 = l0b.Alloc<TPosition::B2, half>(kTrK * kTrN);
    LocalTensor<float> c1 = l0c.Alloc<TPosition::CO1, float>(kTrK * kTrN);
    DataCopy(a1, eyeGm, kTrK * kTrK);
    DataCopy(b1, srcGm, kTrSrc);
    SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    g_tr_load_line = std::source_location::current().line() + 1;
    LoadData(a2, a1, LoadData2DParams{0, kTrK * kTrK / 256, 1, 0, 0, false, 0});
    LoadData(b2, b1, LoadData2DParams{1, 3, 2, 0, 0, true, 0});
    LoadData(b2[3 * 256], b1, LoadData2DParams{7, 2, 0, 0, 1, true, 0});
    LoadData(b2[4 * 256], b1, LoadData2DParams{0, 2, 0, 0, 1, false, 0});
    LoadData(b2[7 * 256], b1, LoadData2DParams{2, 1, 0, 0, 0, false, 0});
    if constexpr (!kDropFlag) {
        SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
        WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
    }
    g_tr_mmad_line = std::source_location::current().line() + 1;
    Mmad(c1, a2, b2, MmadParams{kTrK, kTrN, kTrK, 0, false, true});  // the vendor's 6-field form
    SetFlag<HardEvent::M_FIX>(EVENT_ID0);
    WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
    Fixpipe(outGm, c1, FixpipeParamsV220{kTrN, kTrK, kTrK, kTrN, false, QuantMode_t::NoQuant});
}

struct TransposedRun {
    std::vector<float> out, expected;
    std::vector<npusim::Finding> findings;
};

template <bool kDropFlag>
TransposedRun run_transposed() {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto eye = sim.allocate<half>(kTrK * kTrK, "eye");
    auto src = sim.allocate<half>(kTrSrc, "src");
    auto out = sim.allocate<float>(kTrK * kTrN, "out");
    const std::vector<half> eyes = fractal_identity(kTrK);
    std::vector<half> srcs(kTrSrc);
    for (uint32_t i = 0; i < kTrSrc; ++i) srcs[i] = half(static_cast<float>(i % 2048));
    sim.write(eye, eyes);
    sim.write(src, srcs);
    using npusim::ascendc::gm_addr;
    const npusim::RunResult r =
        sim.run({.name = "load_transposed", .blocks = 1, .type = npusim::KernelType::AIC_ONLY},
                npusim::ascendc::bind_kernel(load_transposed<kDropFlag>, gm_addr(eye), gm_addr(src),
                                             gm_addr(out)));
    REQUIRE(r.completed());
    // The CPU model: L0B fractal f from source fractal from[f], transposed when flipped[f];
    // the identity product reads L0B back as ZN: b(k, n) is in fractal (k / 16) x 4 + n / 16
    // at (n % 16, k % 16).
    const uint32_t from[8] = {1, 3, 5, 7, 0, 7, 0, 2};
    const bool flipped[8] = {true, true, true, true, false, true, false, false};
    std::vector<float> l0b(kTrK * kTrN);
    for (uint32_t f = 0; f < 8; ++f) {
        for (uint32_t i = 0; i < 16; ++i) {
            for (uint32_t j = 0; j < 16; ++j) {
                const uint32_t at = flipped[f] ? j * 16 + i : i * 16 + j;
                l0b[f * 256 + i * 16 + j] = static_cast<float>(srcs[from[f] * 256 + at]);
            }
        }
    }
    TransposedRun run;
    run.expected.resize(kTrK * kTrN);
    for (uint32_t k = 0; k < kTrK; ++k)
        for (uint32_t n = 0; n < kTrN; ++n)
            run.expected[k * kTrN + n] =
                l0b[((k / 16) * (kTrN / 16) + n / 16) * 256 + (n % 16) * 16 + k % 16];
    run.out = sim.read(out);
    run.findings = checker.findings();
    return run;
}

}  // namespace

TEST_CASE("Ascend C LoadData 2D with ifTranspose transposes each 16 x 16 fractal",
          "[ascendc][cube]") {
    const TransposedRun clean = run_transposed<false>();
    CHECK(clean.out == clean.expected);
    CHECK_THAT(clean.findings, npusim::NoFindings());
    // Without the MTE1 -> M flag Mmad reads L0A and L0B while the five loads write them.
    const TransposedRun racy = run_transposed<true>();
    std::vector<npusim::Expected> expected;
    for (unsigned i = 0; i < 5; ++i) {
        expected.push_back({.kind = npusim::FindingKind::RaceRAW,
                            .space = i == 0 ? npusim::MemSpace::L0A : npusim::MemSpace::L0B,
                            .first_pipe = npusim::Pipe::MTE1,
                            .second_pipe = npusim::Pipe::M,
                            .first_line = g_tr_load_line + i,
                            .second_line = g_tr_mmad_line});
    }
    CHECK_THAT(racy.findings, npusim::ExactlyFindings(expected));
}

namespace {

unsigned g_int8_line = 0;

__global__ __aicore__ void load_transposed_int8(GM_ADDR src) {
    GlobalTensor<int8_t> srcGm;
    srcGm.SetGlobalBuffer((__gm__ int8_t*)src, 512);
    LocalMemAllocator<Hardware::L1> l1;
    LocalMemAllocator<Hardware::L0B> l0b;
    LocalTensor<int8_t> b1 = l1.Alloc<TPosition::B1, int8_t>(512);
    LocalTensor<int8_t> b2 = l0b.Alloc<TPosition::B2, int8_t>(512);
    DataCopy(b1, srcGm, 512);
    SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    g_int8_line = std::source_location::current().line() + 1;
    LoadData(b2, b1, LoadData2DParams{0, 1, 1, 0, 0, true, 0});
}

}  // namespace

TEST_CASE("Ascend C LoadData with ifTranspose of int8 is a KernelError naming the line",
          "[ascendc][cube]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    auto src = sim.allocate<int8_t>(512, "src");
    std::string message;
    try {
        (void)sim.run(
            {.name = "load_transposed_int8", .blocks = 1, .type = npusim::KernelType::AIC_ONLY},
            npusim::ascendc::bind_kernel(load_transposed_int8, npusim::ascendc::gm_addr(src)));
    } catch (const npusim::KernelError& error) {
        message = error.what();
    }
    CHECK_THAT(message, Catch::Contains("cube_types_test.cpp:" + std::to_string(g_int8_line)));
    CHECK_THAT(message, Catch::Contains("transposes 16-bit elements only on A2"));
}
