// DataCopy with Nd2NzParams on the cube chain (GM -> L1 -> L0A/L0B, Mmad, Fixpipe): A is the
// left half of a wider GM matrix (srcDValue > dValue), B a whole one; C = A x B comes out
// right, as npusim keeps every matrix row-major. Then unaligned rows: DataCopyPad with
// padding (GM -> UB -> GM) and Nd2Nz rows that are not 32-byte multiples.
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

TEST_CASE("Ascend C DataCopy with Nd2NzParams feeds the cube chain row-major", "[ascendc]") {
    const Nd2NzRun r = run(kK);
    CHECK(r.c == r.expected);
    CHECK_THAT(r.findings, npusim::NoFindings());
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
    "Ascend C DataCopy with Nd2NzParams: unaligned rows are one strided DMA, 32-byte "
    "aligned in L1",
    "[ascendc]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    CopyRecorder recorder;
    sim.attach(recorder);
    auto a = sim.allocate<half>(kM * kWide, "a");
    const npusim::RunResult r =
        sim.run({.name = "nd2nz_unaligned", .blocks = 1, .type = npusim::KernelType::AIC_ONLY},
                npusim::ascendc::bind_kernel(nd2nz_unaligned, gm_addr(a), 10U));
    REQUIRE(r.completed());
    // One DMA instruction of 4 rows of 10 halves (20 bytes): GM rows 128 bytes apart, L1
    // rows 32 bytes apart.
    REQUIRE(recorder.copies.size() == 1);
    const npusim::Transaction& tx = recorder.copies[0];
    CHECK(tx.accesses[0].address == a.address);
    CHECK(tx.accesses[0].bytes == 20);
    CHECK(tx.accesses[0].rows == 4);
    CHECK(tx.accesses[0].pitch == kWide * sizeof(half));
    CHECK(tx.accesses[1].address == 0);
    CHECK(tx.accesses[1].bytes == 20);
    CHECK(tx.accesses[1].rows == 4);
    CHECK(tx.accesses[1].pitch == 32);
}
