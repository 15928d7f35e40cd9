// A mixed cube/vector kernel (MIX_AIC_1_2) in Ascend C style: the AIC computes C = A x B
// through the cube queues (GM -> L1 -> L0A/L0B, Mmad, Fixpipe to GM) and releases its two
// AIVs with a mode-2 cross-core flag; each AIV post-processes half the rows,
// out = relu(C) * 0.5. Right output, no findings; without the cross-core flag pair the AIVs'
// loads race the Fixpipe at the kernel's lines.
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "kernel_operator.h"
#include "sim/catch_matchers.h"
#include "sim/simulator.h"
#include "sync/checker.h"

using namespace AscendC;

namespace {

constexpr uint32_t kM = 32, kN = 32, kK = 32;
constexpr uint32_t kFractal = 512 / sizeof(half);

int g_fixpipe_line = 0;
int g_load_c_line = 0;

extern "C" __global__ __mix__(1, 2) void matmul_relu(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR out,
                                                     uint32_t withFlag) {
    TPipe pipe;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> cGm, outGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, kM * kK);
    bGm.SetGlobalBuffer((__gm__ half*)b, kK * kN);
    cGm.SetGlobalBuffer((__gm__ float*)c, kM * kN);
    outGm.SetGlobalBuffer((__gm__ float*)out, kM * kN);
    if ASCEND_IS_AIC {
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
        DataCopy(a1, aGm, kM * kK);
        DataCopy(b1, bGm, kK * kN);
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
        g_fixpipe_line = __LINE__ + 1;
        Fixpipe(cGm, c1, fix);
        outCO1.FreeTensor(c1);
        if (withFlag != 0) CrossCoreSetFlag<2, PIPE_FIX>(0);
    }
    if ASCEND_IS_AIV {
        constexpr uint32_t rows = kM / 2;
        TQue<TPosition::VECIN, 1> inQueue;
        TQue<TPosition::VECOUT, 1> outQueue;
        pipe.InitBuffer(inQueue, 1, rows * kN * sizeof(float));
        pipe.InitBuffer(outQueue, 1, rows * kN * sizeof(float));
        if (withFlag != 0) CrossCoreWaitFlag(0);
        const uint64_t first = GetSubBlockIdx() * rows * kN;
        LocalTensor<float> in = inQueue.AllocTensor<float>();
        g_load_c_line = __LINE__ + 1;
        DataCopy(in, cGm[first], rows * kN);
        inQueue.EnQue(in);
        in = inQueue.DeQue<float>();
        LocalTensor<float> result = outQueue.AllocTensor<float>();
        Relu(result, in, rows * kN);
        Muls(result, result, 0.5F, rows * kN);  // auto-sync orders it after the Relu
        outQueue.EnQue(result);
        inQueue.FreeTensor(in);
        result = outQueue.DeQue<float>();
        DataCopy(outGm[first], result, rows * kN);
        outQueue.FreeTensor(result);
    }
}

struct MixRun {
    std::vector<float> out, expected;
    std::vector<npusim::Finding> findings;
    bool completed = false;
};

MixRun run_mix(uint32_t with_flag) {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto a = sim.allocate<half>(kM * kK, "a");
    auto b = sim.allocate<half>(kK * kN, "b");
    auto c = sim.allocate<float>(kM * kN, "c");
    auto out = sim.allocate<float>(kM * kN, "out");
    std::vector<half> as(kM * kK), bs(kK * kN);
    for (uint32_t i = 0; i < kM * kK; ++i) as[i] = half(static_cast<float>(i % 5) - 2.0F);
    for (uint32_t i = 0; i < kK * kN; ++i) bs[i] = half(static_cast<float>(i % 3) - 1.0F);
    sim.write(a, as);
    sim.write(b, bs);
    sim.write(c, std::vector<float>(kM * kN, 0.0F));
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "matmul_relu", .blocks = 1, .type = npusim::KernelType::MIX_AIC_1_2},
               npusim::ascendc::bind_kernel(matmul_relu, gm_addr(a), gm_addr(b), gm_addr(c),
                                            gm_addr(out), with_flag));
    MixRun run;
    run.completed = sim.run().completed();
    run.out = sim.read(out);
    run.findings = checker.findings();
    for (uint32_t r = 0; r < kM; ++r) {
        for (uint32_t col = 0; col < kN; ++col) {
            float acc = 0.0F;
            for (uint32_t i = 0; i < kK; ++i) {
                acc += static_cast<float>(as[r * kK + i]) * static_cast<float>(bs[i * kN + col]);
            }
            run.expected.push_back((acc > 0.0F ? acc : 0.0F) * 0.5F);
        }
    }
    return run;
}

}  // namespace

TEST_CASE("Ascend C mixed kernel: Mmad then a vector epilogue on two AIVs", "[ascendc]") {
    const MixRun run = run_mix(1);
    REQUIRE(run.completed);
    CHECK(run.out == run.expected);
    CHECK_THAT(run.findings, npusim::NoFindings());
}

TEST_CASE("Ascend C mixed kernel without its cross-core flag: the AIV loads race the Fixpipe",
          "[ascendc]") {
    const MixRun run = run_mix(0);
    REQUIRE(run.completed);
    CHECK_THAT(run.findings, npusim::ExactlyFindings({{.kind = npusim::FindingKind::RaceRAW,
                                                       .space = npusim::MemSpace::GM,
                                                       .scope = npusim::RaceScope::InterCore,
                                                       .first_pipe = npusim::Pipe::FIX,
                                                       .second_pipe = npusim::Pipe::MTE2,
                                                       .first_line = unsigned(g_fixpipe_line),
                                                       .second_line = unsigned(g_load_c_line)}}));
}
