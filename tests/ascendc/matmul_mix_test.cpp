// The Matmul API in a mixed kernel as the vendor's samples use it: the Matmul object is
// created in AIV code (REGIST_MATMUL_OBJ with the system workspace), each AIV's calls run as
// requests on the group's AIC (real cube instructions), C comes back to UB through the
// workspace or goes to GM. Both AIVs of the group drive their own half of C at once. Each
// form against a CPU reference with a clean checker; reading C from GM after an
// IterateAll<false> without WaitIterateAll is the race the checker reports.
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#define NPUSIM_ACL_NO_MAIN
#include "acl/acl.h"
#include "kernel_operator.h"
#include "lib/matmul_intf.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"

using namespace matmul;  // as the samples do: the AscendC names are visible through it

namespace {

constexpr int kM = 128, kN = 64, kK = 64;  // each AIV: 64 rows of C
constexpr int kBase = 32;
constexpr float kSlope = 0.25F;
TCubeTiling g_mix_tiling;
std::uint32_t g_racy_read_line = 0;

enum Mode : uint32_t {
    kTilesToUb,         // Iterate + GetTensorC(ub) + LeakyReLU per tile (the samples' loop)
    kTilesToGm,         // Iterate + GetTensorC(gm)
    kAllToGm,           // IterateAll(gm)
    kAllToUb,           // IterateAll(ub) + LeakyReLU
    kAllToGmAsync,      // IterateAll<false>(gm), WaitIterateAll, then C from GM + LeakyReLU
    kAllToGmAsyncRacy,  // the same without WaitIterateAll
    kTilesToUbPlaced,   // GetTensorC(ub, 0, false): each tile at its place in the AIV's C in UB
    kInitLater,         // REGIST_MATMUL_OBJ without a tiling, Init on the AIV, IterateAll(gm)
    kTilesToUbAsync,    // one Iterate<false>, then GetTensorC<false>(ub) per tile + LeakyReLU
    kTilesToUbEarly,    // kTilesToUb with its UB queue set up before REGIST_MATMUL_OBJ (on the
                        // AIC too: bookkeeping there, as the vendor's samples' Init does)
};

using AType = MatmulType<TPosition::GM, CubeFormat::ND, half>;
using CType = MatmulType<TPosition::VECIN, CubeFormat::ND, float>;
using BiasType = MatmulType<TPosition::GM, CubeFormat::ND, float>;

__global__ __mix__(1, 2) void mm_mix(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR c, GM_ADDR out,
                                     GM_ADDR workspace, uint32_t mode) {
    SetSysWorkspace(workspace);
    const TCubeTiling tiling = g_mix_tiling;
    Matmul<AType, AType, CType, BiasType> mm;
    TPipe pipe;
    TQue<TPosition::VECOUT, 1> earlyQueue;
    if (mode == kTilesToUbEarly) {
        pipe.InitBuffer(earlyQueue, 1, tiling.baseM * tiling.baseN * sizeof(float));
    }
    if (mode == kInitLater) {
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm);  // the AIC serves, returns
        mm.Init(&tiling);                                    // the AIV's tiling reaches the AIC
    } else {
        REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
    }
    const int rows = tiling.singleCoreM;
    const int row0 = GetBlockIdx() * rows;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> biasGm, cGm, outGm;
    aGm.SetGlobalBuffer((__gm__ half*)a + row0 * kK, rows * kK);
    bGm.SetGlobalBuffer((__gm__ half*)b, kK * kN);
    biasGm.SetGlobalBuffer((__gm__ float*)bias, kN);
    cGm.SetGlobalBuffer((__gm__ float*)c + row0 * kN, rows * kN);
    outGm.SetGlobalBuffer((__gm__ float*)out + row0 * kN, rows * kN);
    mm.SetTensorA(aGm);
    mm.SetTensorB(bGm);
    mm.SetBias(biasGm);
    const int tile = tiling.baseM * tiling.baseN;
    if (mode == kTilesToUb || mode == kTilesToUbAsync || mode == kTilesToUbEarly) {
        TQue<TPosition::VECOUT, 1> ownQueue;
        if (mode != kTilesToUbEarly) pipe.InitBuffer(ownQueue, 1, tile * sizeof(float));
        TQue<TPosition::VECOUT, 1>& outQueue = mode == kTilesToUbEarly ? earlyQueue : ownQueue;
        const uint32_t roundM = rows / tiling.baseM;
        const uint32_t rounds = roundM * (kN / tiling.baseN);
        if (mode == kTilesToUbAsync) mm.template Iterate<false>();  // the vendor's async form
        uint32_t round = 0;
        while (mode == kTilesToUbAsync ? round < rounds : mm.template Iterate<true>()) {
            LocalTensor<float> t = outQueue.AllocTensor<float>();
            if (mode == kTilesToUbAsync) {
                mm.template GetTensorC<false>(t);  // each call takes the next tile, packed
            } else {
                mm.template GetTensorC<true>(t, false, true);
            }
            LeakyRelu(t, t, kSlope, tile);
            outQueue.EnQue(t);
            t = outQueue.DeQue<float>();
            const uint32_t at = round % roundM * tiling.baseM * kN + round / roundM * tiling.baseN;
            DataCopyParams params{(uint16_t)tiling.baseM, (uint16_t)(tiling.baseN * 4 / 32), 0,
                                  (uint16_t)((kN - tiling.baseN) * 4 / 32)};
            DataCopy(outGm[at], t, params);
            outQueue.FreeTensor(t);
            ++round;
        }
    } else if (mode == kTilesToUbPlaced) {
        TQue<TPosition::VECOUT, 1> outQueue;
        pipe.InitBuffer(outQueue, 1, rows * kN * sizeof(float));
        LocalTensor<float> t = outQueue.AllocTensor<float>();
        while (mm.Iterate()) mm.GetTensorC(t, false, false);
        LeakyRelu(t, t, kSlope, rows * kN);
        outQueue.EnQue(t);
        t = outQueue.DeQue<float>();
        DataCopy(outGm, t, rows * kN);
        outQueue.FreeTensor(t);
    } else if (mode == kTilesToGm) {
        while (mm.Iterate()) mm.GetTensorC(cGm);
    } else if (mode == kAllToGm || mode == kInitLater) {
        mm.IterateAll(cGm);
    } else if (mode == kAllToUb) {
        TQue<TPosition::VECOUT, 1> outQueue;
        pipe.InitBuffer(outQueue, 1, rows * kN * sizeof(float));
        LocalTensor<float> t = outQueue.AllocTensor<float>();
        mm.IterateAll(t);
        LeakyRelu(t, t, kSlope, rows * kN);
        outQueue.EnQue(t);
        t = outQueue.DeQue<float>();
        DataCopy(outGm, t, rows * kN);
        outQueue.FreeTensor(t);
    } else {
        mm.template IterateAll<false>(cGm);
        if (mode == kAllToGmAsync) mm.WaitIterateAll();
        TQue<TPosition::VECIN, 1> inQueue;
        TQue<TPosition::VECOUT, 1> outQueue;
        pipe.InitBuffer(inQueue, 1, rows * kN * sizeof(float));
        pipe.InitBuffer(outQueue, 1, rows * kN * sizeof(float));
        LocalTensor<float> in = inQueue.AllocTensor<float>();
        DataCopy(in, cGm, rows * kN);  // racy without WaitIterateAll
        g_racy_read_line = __LINE__ - 1;
        inQueue.EnQue(in);
        in = inQueue.DeQue<float>();
        LocalTensor<float> t = outQueue.AllocTensor<float>();
        LeakyRelu(t, in, kSlope, rows * kN);
        outQueue.EnQue(t);
        inQueue.FreeTensor(in);
        t = outQueue.DeQue<float>();
        DataCopy(outGm, t, rows * kN);
        outQueue.FreeTensor(t);
    }
    mm.End();
}

struct MixRun {
    bool completed = false;
    std::vector<float> c, out, expected_c, expected_out;
    std::vector<npusim::Finding> findings;
};

void set_mix_tiling() {
    TCubeTiling& t = g_mix_tiling;
    t = TCubeTiling{};
    t.M = kM;
    t.N = kN;
    t.Ka = t.Kb = kK;
    t.singleCoreM = kM / 2;
    t.singleCoreN = kN;
    t.singleCoreK = kK;
    t.baseM = t.baseN = t.baseK = kBase;
    t.isBias = 1;
    t.usedCoreNum = 2;
}

struct MixInputs {
    std::vector<half> as, bs;
    std::vector<float> biases, expected_c, expected_out;
};

/// Integer-valued inputs (`shift` varies them) and C = A x B + bias, LeakyReLU(C) on the CPU.
MixInputs mix_inputs(int shift) {
    MixInputs in;
    for (int i = 0; i < kM * kK; ++i)
        in.as.push_back(half(static_cast<float>((i + shift) % 7) - 3.0F));
    for (int i = 0; i < kK * kN; ++i) in.bs.push_back(half(static_cast<float>(i % 5) - 2.0F));
    for (int i = 0; i < kN; ++i) in.biases.push_back(static_cast<float>((i + shift) % 9) - 4.0F);
    for (int r = 0; r < kM; ++r) {
        for (int col = 0; col < kN; ++col) {
            float acc = in.biases[col];
            for (int i = 0; i < kK; ++i) {
                acc +=
                    static_cast<float>(in.as[r * kK + i]) * static_cast<float>(in.bs[i * kN + col]);
            }
            in.expected_c.push_back(acc);
            in.expected_out.push_back(acc > 0.0F ? acc : acc * kSlope);
        }
    }
    return in;
}

MixRun run_mix(Mode mode) {
    set_mix_tiling();
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    const MixInputs in = mix_inputs(0);
    auto a = sim.allocate<half>(in.as.size(), "a");
    auto b = sim.allocate<half>(in.bs.size(), "b");
    auto bias = sim.allocate<float>(kN, "bias");
    auto c = sim.allocate<float>(kM * kN, "c");
    auto out = sim.allocate<float>(kM * kN, "out");
    auto workspace = sim.allocate<std::uint8_t>(npusim::ascendc::kSysWorkspaceBytes, "workspace");
    sim.write(a, in.as);
    sim.write(b, in.bs);
    sim.write(bias, in.biases);
    sim.write(c, std::vector<float>(kM * kN, 0.0F));
    sim.write(out, std::vector<float>(kM * kN, 0.0F));
    using npusim::ascendc::gm_addr;
    MixRun run;
    run.completed =
        sim.run({.name = "mm_mix", .blocks = 1, .type = npusim::KernelType::MIX_AIC_1_2},
                npusim::ascendc::bind_kernel(mm_mix, gm_addr(a), gm_addr(b), gm_addr(bias),
                                             gm_addr(c), gm_addr(out), gm_addr(workspace),
                                             static_cast<uint32_t>(mode)))
            .completed();
    run.c = sim.read(c);
    run.out = sim.read(out);
    run.findings = checker.findings();
    run.expected_c = in.expected_c;
    run.expected_out = in.expected_out;
    return run;
}

/// One launch of mm_mix with its own buffers and workspace: inputs in, launch, C and out back.
struct StreamRun {
    MixInputs in;
    void *a = nullptr, *b = nullptr, *bias = nullptr, *c = nullptr, *out = nullptr,
         *workspace = nullptr;
    std::vector<float> c_host, out_host;

    void put(aclrtStream stream) {
        const auto put = [&](void*& device, const void* host, size_t bytes) {
            aclrtMalloc(&device, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
            aclrtMemcpyAsync(device, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream);
        };
        const std::vector<float> zeros(kM * kN, 0.0F);
        put(a, in.as.data(), in.as.size() * sizeof(half));
        put(b, in.bs.data(), in.bs.size() * sizeof(half));
        put(bias, in.biases.data(), in.biases.size() * sizeof(float));
        put(c, zeros.data(), zeros.size() * sizeof(float));
        put(out, zeros.data(), zeros.size() * sizeof(float));
        aclrtMalloc(&workspace, npusim::ascendc::kSysWorkspaceBytes, ACL_MEM_MALLOC_HUGE_FIRST);
    }
    void launch(aclrtStream stream, Mode mode) {
        NPUSIM_KERNEL_LAUNCH(mm_mix, 1, nullptr, stream)
        (a, b, bias, c, out, workspace, static_cast<uint32_t>(mode));
    }
    void collect() {
        c_host.resize(kM * kN);
        out_host.resize(kM * kN);
        aclrtMemcpy(c_host.data(), kM * kN * 4, c, kM * kN * 4, ACL_MEMCPY_DEVICE_TO_HOST);
        aclrtMemcpy(out_host.data(), kM * kN * 4, out, kM * kN * 4, ACL_MEMCPY_DEVICE_TO_HOST);
        for (void* p : {a, b, bias, c, out, workspace}) aclrtFree(p);
    }
};

}  // namespace

TEST_CASE("Matmul API, mixed kernel: Iterate + GetTensorC to UB + LeakyReLU on both AIVs",
          "[ascendc][matmul][mix]") {
    for (const Mode mode : {kTilesToUb, kTilesToUbEarly}) {
        CAPTURE(mode);
        const MixRun run = run_mix(mode);
        REQUIRE(run.completed);
        CHECK(run.out == run.expected_out);
        CHECK_THAT(run.findings, npusim::NoFindings());
    }
}

TEST_CASE("Matmul API, mixed kernel: GetTensorC and IterateAll to GM from the AIVs",
          "[ascendc][matmul][mix]") {
    for (const Mode mode : {kTilesToGm, kAllToGm, kInitLater}) {
        CAPTURE(mode);
        const MixRun run = run_mix(mode);
        REQUIRE(run.completed);
        CHECK(run.c == run.expected_c);
        CHECK_THAT(run.findings, npusim::NoFindings());
    }
}

TEST_CASE(
    "Matmul API, mixed kernel: IterateAll to UB, IterateAll<false> + WaitIterateAll, tiles "
    "placed in UB, the async Iterate<false> + GetTensorC<false> per tile",
    "[ascendc][matmul][mix]") {
    for (const Mode mode : {kAllToUb, kAllToGmAsync, kTilesToUbPlaced, kTilesToUbAsync}) {
        CAPTURE(mode);
        const MixRun run = run_mix(mode);
        REQUIRE(run.completed);
        CHECK(run.out == run.expected_out);
        CHECK_THAT(run.findings, npusim::NoFindings());
    }
}

TEST_CASE("Matmul API, mixed kernel: C read from GM before WaitIterateAll is a reported race",
          "[ascendc][matmul][mix]") {
    const MixRun run = run_mix(kAllToGmAsyncRacy);
    REQUIRE(run.completed);
    REQUIRE_FALSE(run.findings.empty());
    const npusim::Finding& race = run.findings.front();
    INFO(race.message);
    CHECK(race.kind == npusim::FindingKind::RaceRAW);
    CHECK(race.scope == npusim::RaceScope::InterCore);
    CHECK(race.space == npusim::MemSpace::GM);
    // the AIC's fixpipe of C against the AIV's read at the kernel's line
    REQUIRE(race.sites.size() == 2);
    CHECK(race.sites[0].pipe == npusim::Pipe::FIX);
    CHECK(race.sites[1].pipe == npusim::Pipe::MTE2);
    CHECK(race.sites[1].where.line() == g_racy_read_line);
}

TEST_CASE(
    "Matmul API, mixed kernel: the same kernel on two streams at once keeps its requests apart",
    "[ascendc][matmul][mix]") {
    // Each launch's AIC serves its own AIVs only (the request channel is the launch's, as the
    // hardware's message queue lives in that launch's workspace): stream 1 takes tiles to UB,
    // stream 2 all of C to GM, with other inputs, at the same time on the two cube cores.
    set_mix_tiling();
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    StreamRun first, second;
    first.in = mix_inputs(0);
    second.in = mix_inputs(3);
    int code = -1;
    const npusim::RunResult r = npusim::acl::run_host(
        sim,
        [&] {
            npusim::acl::set_kernel_type(reinterpret_cast<const void*>(mm_mix),
                                         npusim::KernelType::MIX_AIC_1_2);
            aclrtStream s1 = nullptr, s2 = nullptr;
            aclrtCreateStream(&s1);
            aclrtCreateStream(&s2);
            first.put(s1);
            second.put(s2);
            aclrtSynchronizeDevice();  // both launches start together
            first.launch(s1, kTilesToUb);
            second.launch(s2, kAllToGm);
            aclrtSynchronizeDevice();
            first.collect();
            second.collect();
            aclrtDestroyStream(s1);
            aclrtDestroyStream(s2);
            return 0;
        },
        &code);
    REQUIRE(r.completed());
    REQUIRE(code == 0);
    CHECK(first.out_host == first.in.expected_out);
    CHECK(second.c_host == second.in.expected_c);
    CHECK_THAT(checker.findings(), npusim::NoFindings());
    // both launches ran at once (each on its own cube core)
    REQUIRE(r.kernels.size() == 2);
    CHECK(r.kernels[0].start < r.kernels[1].end);
    CHECK(r.kernels[1].start < r.kernels[0].end);
}

// ---- A large GEMM from the AIVs against the same GEMM on the AICs alone ---------------------

namespace {

TCubeTiling g_gemm_tiling;

// C (512 x 512) = A x B (K 512), data-free. AIC_ONLY: core g computes the 256 x 256 block
// (g % 2, g / 2) through the API itself (the same instructions as the basic-API schedule,
// matmul_api_test.cpp); mixed: the two AIVs of group g ask their AIC for the upper and lower
// 128 rows of that block, tile by tile (Iterate + GetTensorC) or at once (IterateAll).
__global__ __aicore__ void mm_gemm(GM_ADDR a, GM_ADDR b, GM_ADDR c, uint32_t tiles, uint32_t aivs) {
    using GType = MatmulType<TPosition::GM, CubeFormat::ND, half>;
    using FType = MatmulType<TPosition::GM, CubeFormat::ND, float>;
    const TCubeTiling tiling = g_gemm_tiling;
    Matmul<GType, GType, FType, FType> mm;
    TPipe pipe;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
    const bool aiv = GetCoreType() == AIV;
    const int rows = aiv ? 256 / aivs : 256;
    const int group = aiv ? GetBlockIdx() / aivs : GetBlockIdx();
    const int m0 = group % 2 * 256 + (aiv ? GetSubBlockIdx() * rows : 0), n0 = group / 2 * 256;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> cGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, 512 * 512);
    bGm.SetGlobalBuffer((__gm__ half*)b, 512 * 512);
    cGm.SetGlobalBuffer((__gm__ float*)c, 512 * 512);
    mm.SetTensorA(aGm[m0 * 512]);
    mm.SetTensorB(bGm[n0]);
    mm.SetSingleShape(rows, 256, 512);
    if (tiles != 0) {
        while (mm.Iterate()) mm.GetTensorC(cGm[m0 * 512 + n0]);
    } else {
        mm.IterateAll(cGm[m0 * 512 + n0]);
    }
    mm.End();
}

npusim::Cycle gemm_cycles(npusim::KernelType type, uint32_t tiles) {
    TCubeTiling& t = g_gemm_tiling;
    t = TCubeTiling{};
    t.M = t.N = t.Ka = t.Kb = 512;
    t.singleCoreM = t.singleCoreN = 256;
    t.singleCoreK = 512;
    t.baseM = t.baseN = 128;
    t.baseK = 64;
    t.usedCoreNum = 4;
    npusim::SimOptions options;
    options.model_data = false;
    npusim::Simulator sim(npusim::builtin_chip_config("a2"), options);
    auto a = sim.allocate<half>(512 * 512, "a");
    auto b = sim.allocate<half>(512 * 512, "b");
    auto c = sim.allocate<float>(512 * 512, "c");
    auto workspace = sim.allocate<std::uint8_t>(npusim::ascendc::kSysWorkspaceBytes, "workspace");
    npusim::ascendc::LaunchOptions launch;
    launch.sys_workspace = workspace.address;
    using npusim::ascendc::gm_addr;
    const npusim::RunResult r = sim.run(
        {.name = "mm_gemm", .blocks = 4, .type = type},
        npusim::ascendc::bind_kernel(mm_gemm, launch, gm_addr(a), gm_addr(b), gm_addr(c), tiles,
                                     type == npusim::KernelType::MIX_AIC_1_1 ? 1u : 2u));
    REQUIRE(r.completed());
    return r.cycles();
}

}  // namespace

TEST_CASE("Matmul API, mixed kernel: a large GEMM from the AIVs against the AICs alone",
          "[ascendc][matmul][mix]") {
    const npusim::Cycle alone = gemm_cycles(npusim::KernelType::AIC_ONLY, 0);
    const npusim::Cycle all = gemm_cycles(npusim::KernelType::MIX_AIC_1_2, 0);
    const npusim::Cycle tiles = gemm_cycles(npusim::KernelType::MIX_AIC_1_2, 1);
    const npusim::Cycle one_aiv = gemm_cycles(npusim::KernelType::MIX_AIC_1_1, 1);
    INFO("AIC alone " << alone << ", AIVs IterateAll " << all << ", AIVs Iterate + GetTensorC "
                      << tiles << ", one AIV per AIC Iterate + GetTensorC " << one_aiv
                      << " cycles");
    CHECK(static_cast<double>(all) <= 1.25 * static_cast<double>(alone));
    CHECK(static_cast<double>(tiles) <= 1.25 * static_cast<double>(alone));
    CHECK(static_cast<double>(one_aiv) <= 1.25 * static_cast<double>(alone));
}
