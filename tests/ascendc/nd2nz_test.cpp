// DataCopy with Nd2NzParams on the cube chain (GM -> L1 -> L0A/L0B, Mmad, Fixpipe) written as
// for hardware: A is the left half of a wider GM matrix (srcDValue > dValue), B a whole one;
// both land in L1 as NZ, A is loaded one 16-row block at a time into L0A as ZZ, B one 16-row
// block at a time, each fractal transposed, into L0B as ZN, and Fixpipe turns L0C's NZ into
// ND rows. Then unaligned rows: DataCopyPad with padding (GM -> UB -> GM) and Nd2Nz rows that
// are not 32-byte multiples.
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "kernel_operator.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"

using namespace AscendC;
using npusim::ascendc::gm_addr;

namespace {

constexpr uint32_t kM = 32, kN = 32, kK = 32, kWide = 64;  // A is the left kK of kWide columns
constexpr uint32_t kFractal = 512 / sizeof(half);

extern "C" __global__ __aicore__ void nd2nz_matmul(GM_ADDR a, GM_ADDR b, GM_ADDR c,
                                                   uint32_t rowElements) {
    TPipe pipe;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> cGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, kM * kWide);
    bGm.SetGlobalBuffer((__gm__ half*)b, kK * kN);
    cGm.SetGlobalBuffer((__gm__ float*)c, kM * kN);
    TQue<TPosition::A1, 1> inA1;
    TQue<TPosition::B1, 1> inB1;
    TQue<TPosition::A2, 1> inA2;
    TQue<TPosition::B2, 1> inB2;
    TQue<TPosition::CO1, 1> outCO1;
    pipe.InitBuffer(inA1, 1, kM * kK * sizeof(half));
    pipe.InitBuffer(inB1, 1, kK * kN * sizeof(half));
    pipe.InitBuffer(inA2, 1, kM * kK * sizeof(half));
    pipe.InitBuffer(inB2, 1, kK * kN * sizeof(half));
    pipe.InitBuffer(outCO1, 1, kM * kN * sizeof(float));

    LocalTensor<half> a1 = inA1.AllocTensor<half>();
    LocalTensor<half> b1 = inB1.AllocTensor<half>();
    Nd2NzParams nd2nz;
    nd2nz.ndNum = 1;
    nd2nz.nValue = kM;
    nd2nz.dValue = static_cast<uint16_t>(rowElements);
    nd2nz.srcNdMatrixStride = 0;
    nd2nz.srcDValue = kWide;
    nd2nz.dstNzC0Stride = kM;
    nd2nz.dstNzNStride = 1;
    nd2nz.dstNzMatrixStride = 0;
    DataCopy(a1, aGm, nd2nz);
    DataCopy(b1, bGm, Nd2NzParams{1, kK, kN, 0, kN, kK, 1, 0});
    inA1.EnQue(a1);
    inB1.EnQue(b1);
    a1 = inA1.DeQue<half>();
    b1 = inB1.DeQue<half>();

    LocalTensor<half> a2 = inA2.AllocTensor<half>();
    LocalTensor<half> b2 = inB2.AllocTensor<half>();
    // A: per 16-row block, its kK / 16 fractals (NZ: kM / 16 fractals apart) one after the
    // other (ZZ). B: per 16-row block of k, its kN / 16 fractals transposed (ZN).
    for (uint32_t i = 0; i < kM / 16; ++i) {
        LoadData(a2[i * kK * 16], a1[i * kFractal],
                 LoadData2DParams{0, kK / 16, kM / 16, 0, 0, false, 0});
    }
    for (uint32_t i = 0; i < kK / 16; ++i) {
        LoadData2DParams load;
        load.repeatTimes = kN / 16;
        load.srcStride = kK / 16;
        load.ifTranspose = true;
        LoadData(b2[i * kN * 16], b1[i * kFractal], load);
    }
    inA2.EnQue(a2);
    inB2.EnQue(b2);
    inA1.FreeTensor(a1);
    inB1.FreeTensor(b1);
    a2 = inA2.DeQue<half>();
    b2 = inB2.DeQue<half>();

    LocalTensor<float> c1 = outCO1.AllocTensor<float>();
    Mmad(c1, a2, b2, MmadParams{kM, kN, kK});
    outCO1.EnQue(c1);
    inA2.FreeTensor(a2);
    inB2.FreeTensor(b2);
    c1 = outCO1.DeQue<float>();
    FixpipeParamsV220<> fix;
    fix.nSize = kN;
    fix.mSize = kM;
    fix.srcStride = kM;
    fix.dstStride = kN;
    Fixpipe(cGm, c1, fix);
    outCO1.FreeTensor(c1);
}

struct Nd2NzRun {
    std::vector<float> c, expected;
    std::vector<npusim::Finding> findings;
};

Nd2NzRun run(uint32_t row_elements) {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto a = sim.allocate<half>(kM * kWide, "a");
    auto b = sim.allocate<half>(kK * kN, "b");
    auto c = sim.allocate<float>(kM * kN, "c");
    std::vector<half> as(kM * kWide), bs(kK * kN);
    for (uint32_t i = 0; i < kM * kWide; ++i) as[i] = half(static_cast<float>(i % 7) - 3.0F);
    for (uint32_t i = 0; i < kK * kN; ++i) bs[i] = half(static_cast<float>(i % 3) - 1.0F);
    sim.write(a, as);
    sim.write(b, bs);
    using npusim::ascendc::gm_addr;
    const npusim::RunResult r =
        sim.run({.name = "nd2nz_matmul", .blocks = 1, .type = npusim::KernelType::AIC_ONLY},
                npusim::ascendc::bind_kernel(nd2nz_matmul, gm_addr(a), gm_addr(b), gm_addr(c),
                                             row_elements));
    REQUIRE(r.completed());
    Nd2NzRun run;
    run.c = sim.read(c);
    run.findings = checker.findings();
    for (uint32_t row = 0; row < kM; ++row) {
        for (uint32_t col = 0; col < kN; ++col) {
            float acc = 0.0F;
            for (uint32_t i = 0; i < kK; ++i) {
                acc +=
                    static_cast<float>(as[row * kWide + i]) * static_cast<float>(bs[i * kN + col]);
            }
            run.expected.push_back(acc);
        }
    }
    return run;
}

}  // namespace

TEST_CASE("Ascend C DataCopy with Nd2NzParams feeds the cube chain in the fractal layouts",
          "[ascendc]") {
    const Nd2NzRun r = run(kK);
    CHECK(r.c == r.expected);
    CHECK_THAT(r.findings, npusim::NoFindings());
}

// ---- partial fractals: m, k, n not multiples of 16 (the vendor's Mmad example shape) ----

namespace {

constexpr uint32_t kPm = 30, kPk = 40, kPn = 20;        // 2 x 3 fractals of A, 3 x 2 of B
constexpr uint32_t kPm16 = 32, kPk16 = 48, kPn16 = 32;  // rounded up to whole fractals

extern "C" __global__ __aicore__ void partial_matmul(GM_ADDR a, GM_ADDR b, GM_ADDR zeros,
                                                     GM_ADDR c) {
    GlobalTensor<half> aGm, bGm, zGm;
    zGm.SetGlobalBuffer((__gm__ half*)zeros, kPm16 * kPk16);
    GlobalTensor<float> cGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, kPm * kPk);
    bGm.SetGlobalBuffer((__gm__ half*)b, kPk * kPn);
    cGm.SetGlobalBuffer((__gm__ float*)c, kPm * kPn);
    LocalMemAllocator<Hardware::L1> l1;
    LocalMemAllocator<Hardware::L0A> l0a;
    LocalMemAllocator<Hardware::L0B> l0b;
    LocalMemAllocator<Hardware::L0C> l0c;
    LocalTensor<half> a1 = l1.Alloc<TPosition::A1, half>(kPm16 * kPk16);
    LocalTensor<half> b1 = l1.Alloc<TPosition::B1, half>(kPk16 * kPn16);
    LocalTensor<half> a2 = l0a.Alloc<TPosition::A2, half>(kPm16 * kPk16);
    LocalTensor<half> b2 = l0b.Alloc<TPosition::B2, half>(kPk16 * kPn16);
    LocalTensor<float> c1 = l0c.Alloc<TPosition::CO1, float>(kPm16 * kPn16);
    // The padding rows of the L1 fractals are zeroed first (Nd2Nz writes the nValue rows only,
    // and LoadData moves whole fractals).
    DataCopy(a1, zGm, kPm16 * kPk16);
    DataCopy(b1, zGm, kPk16 * kPn16);
    PipeBarrier<PIPE_MTE2>();
    DataCopy(a1, aGm, Nd2NzParams{1, kPm, kPk, 0, kPk, kPm16, 1, 0});
    DataCopy(b1, bGm, Nd2NzParams{1, kPk, kPn, 0, kPn, kPk16, 1, 0});
    SetFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE1>(EVENT_ID0);
    for (uint32_t i = 0; i < kPm16 / 16; ++i)
        LoadData(a2[i * kPk16 * 16], a1[i * kFractal],
                 LoadData2DParams{0, kPk16 / 16, kPm16 / 16, 0, 0, false, 0});
    for (uint32_t i = 0; i < kPk16 / 16; ++i)
        LoadData(b2[i * kPn16 * 16], b1[i * kFractal],
                 LoadData2DParams{0, kPn16 / 16, kPk16 / 16, 0, 0, true, 0});
    SetFlag<HardEvent::MTE1_M>(EVENT_ID0);
    WaitFlag<HardEvent::MTE1_M>(EVENT_ID0);
    Mmad(c1, a2, b2, MmadParams{kPm, kPn, kPk, 0, false, true});
    SetFlag<HardEvent::M_FIX>(EVENT_ID0);
    WaitFlag<HardEvent::M_FIX>(EVENT_ID0);
    Fixpipe(cGm, c1, FixpipeParamsV220{kPn, kPm, kPm16, kPn, false, QuantMode_t::NoQuant});
}

}  // namespace

TEST_CASE("Ascend C cube chain with partial fractals (m 30, k 40, n 20)", "[ascendc][cube]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto a = sim.allocate<half>(kPm * kPk, "a");
    auto b = sim.allocate<half>(kPk * kPn, "b");
    auto zeros = sim.allocate<half>(kPm16 * kPk16, "zeros");
    auto c = sim.allocate<float>(kPm * kPn, "c");
    sim.write(zeros, std::vector<half>(kPm16 * kPk16, half(0.0F)));
    std::vector<half> as(kPm * kPk), bs(kPk * kPn);
    for (uint32_t i = 0; i < as.size(); ++i) as[i] = half(static_cast<float>(i % 11) - 5.0F);
    for (uint32_t i = 0; i < bs.size(); ++i) bs[i] = half(static_cast<float>(i % 7) - 3.0F);
    sim.write(a, as);
    sim.write(b, bs);
    const npusim::RunResult r =
        sim.run({.name = "partial_matmul", .blocks = 1, .type = npusim::KernelType::AIC_ONLY},
                npusim::ascendc::bind_kernel(partial_matmul, gm_addr(a), gm_addr(b), gm_addr(zeros),
                                             gm_addr(c)));
    REQUIRE(r.completed());
    std::vector<float> expected;
    for (uint32_t row = 0; row < kPm; ++row) {
        for (uint32_t col = 0; col < kPn; ++col) {
            float acc = 0.0F;
            for (uint32_t i = 0; i < kPk; ++i)
                acc +=
                    static_cast<float>(as[row * kPk + i]) * static_cast<float>(bs[i * kPn + col]);
            expected.push_back(acc);
        }
    }
    CHECK(sim.read(c) == expected);
    CHECK_THAT(checker.findings(), npusim::NoFindings());
}

// ---- unaligned rows: DataCopyPad with padding, Nd2Nz rows that are not 32-byte multiples ----

namespace {

constexpr uint32_t kPadRows = 3, kPadCols = 5, kPadPitch = 8;  // GM rows of 8, 5 copied

extern "C" __global__ __aicore__ void pad_round_trip(GM_ADDR in, GM_ADDR out, uint32_t isPad) {
    TPipe pipe;
    GlobalTensor<half> inGm, outGm;
    inGm.SetGlobalBuffer((__gm__ half*)in, kPadRows * kPadPitch);
    outGm.SetGlobalBuffer((__gm__ half*)out, kPadRows * kPadPitch);
    TBuf<TPosition::VECCALC> ub;
    pipe.InitBuffer(ub, kPadRows * 32);
    LocalTensor<half> rows = ub.Get<half>();
    // 10-byte rows, 6 bytes apart in GM; in UB: 1 pad, 5 values, 2 pads, 32-byte aligned.
    DataCopyExtParams in_params{kPadRows, kPadCols * sizeof(half),
                                (kPadPitch - kPadCols) * sizeof(half), 0, 0};
    DataCopyPadExtParams<half> pad{isPad != 0, 1, 2, half(7.0F)};
    DataCopyPad(rows, inGm, in_params, pad);
    SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    // Out: the 16 bytes of each UB row (padding included), dense in GM.
    DataCopyExtParams out_params{kPadRows, kPadPitch * sizeof(half), 0, 0, 0};
    DataCopyPad(outGm, rows, out_params);
}

struct PadRun {
    std::vector<half> out;
    std::vector<npusim::Finding> findings;
};

PadRun run_pad(uint32_t is_pad) {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto in = sim.allocate<half>(kPadRows * kPadPitch, "in");
    auto out = sim.allocate<half>(kPadRows * kPadPitch, "out");
    std::vector<half> values(kPadRows * kPadPitch);
    for (uint32_t i = 0; i < values.size(); ++i) values[i] = half(static_cast<float>(i));
    sim.write(in, values);
    sim.write(out, std::vector<half>(kPadRows * kPadPitch, half(-1.0F)));
    const npusim::RunResult r =
        sim.run({.name = "pad_round_trip", .blocks = 1},
                npusim::ascendc::bind_kernel(pad_round_trip, gm_addr(in), gm_addr(out), is_pad));
    REQUIRE(r.completed());
    return {sim.read(out), checker.findings()};
}

}  // namespace

TEST_CASE("Ascend C DataCopyPad: unaligned rows land 32-byte aligned with their padding",
          "[ascendc]") {
    const PadRun r = run_pad(1);
    std::vector<float> got, want;
    for (const half h : r.out) got.push_back(static_cast<float>(h));
    for (uint32_t row = 0; row < kPadRows; ++row) {
        want.push_back(7.0F);
        for (uint32_t col = 0; col < kPadCols; ++col)
            want.push_back(static_cast<float>(row * kPadPitch + col));
        want.push_back(7.0F);
        want.push_back(7.0F);
    }
    CHECK(got == want);
    CHECK_THAT(r.findings, npusim::NoFindings());
}

TEST_CASE("Ascend C DataCopyPad without isPad leaves the padding unwritten", "[ascendc]") {
    // Copying the padding out reads UB bytes no instruction wrote: the checker says so.
    const PadRun r = run_pad(0);
    REQUIRE_FALSE(r.findings.empty());
    CHECK(static_cast<float>(r.out[1]) == 0.0F);  // the data itself still lands
    CHECK(static_cast<float>(r.out[kPadPitch + 5]) == static_cast<float>(kPadPitch + 4));
}

namespace {

class CopyRecorder final : public npusim::TransactionObserver {
public:
    void on_transaction(const npusim::Transaction& tx) override {
        if (tx.op == npusim::Op::Copy && !tx.inserted) copies.push_back(tx);
    }
    std::vector<npusim::Transaction> copies;
};

extern "C" __global__ __aicore__ void nd2nz_unaligned(GM_ADDR a, uint32_t rowElements) {
    TPipe pipe;
    GlobalTensor<half> aGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, kM * kWide);
    TBuf<TPosition::A1> l1;
    pipe.InitBuffer(l1, kM * kWide * sizeof(half));
    LocalTensor<half> a1 = l1.Get<half>();
    DataCopy(a1, aGm, Nd2NzParams{1, 4, static_cast<uint16_t>(rowElements), 0, kWide, 16, 1, 0});
}

}  // namespace

TEST_CASE(
    "Ascend C DataCopy with Nd2NzParams: unaligned rows are one DMA, a zero-padded C0 block "
    "in L1",
    "[ascendc]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    CopyRecorder recorder;
    sim.attach(recorder);
    auto a = sim.allocate<half>(kM * kWide, "a");
    const npusim::RunResult r =
        sim.run({.name = "nd2nz_unaligned", .blocks = 1, .type = npusim::KernelType::AIC_ONLY},
                npusim::ascendc::bind_kernel(nd2nz_unaligned, gm_addr(a), 10U));
    REQUIRE(r.completed());
    // One DMA instruction of 4 rows of 10 halves (20 bytes), GM rows 128 bytes apart; in L1
    // one C0 column block of 4 rows of 32 bytes (the 12 bytes after each row's data are zeros).
    REQUIRE(recorder.copies.size() == 1);
    const npusim::Transaction& tx = recorder.copies[0];
    CHECK(tx.layout == npusim::CubeLayout::Fractal);
    CHECK(tx.accesses[0].address == a.address);
    CHECK(tx.accesses[0].bytes == 20);
    CHECK(tx.accesses[0].rows == 4);
    CHECK(tx.accesses[0].pitch == kWide * sizeof(half));
    CHECK(tx.accesses[1].address == 0);
    CHECK(tx.accesses[1].bytes == 4 * 32);
    CHECK(tx.accesses[1].rows == 1);
}
