// Atomic copy-out in Ascend C style: every block adds its slice into one GM range with
// SetAtomicAdd<float> and DataCopy, then DisableDmaAtomic (or the older SetAtomicNone). The
// sum is right and the checker reports nothing (two atomic writes never race); without the
// atomic mode the same kernel is an inter-core WAW at the copy-out line. InitGlobalMemory
// zeroes (here: sets) the output first; its documented MTE3_MTE2 flag and SyncAll are needed,
// and the checker names what is missing.
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "kernel_operator.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"

using namespace AscendC;

namespace {

constexpr uint32_t kBlocks = 4;
constexpr uint32_t kElements = 64;
enum AtomicSpelling : uint32_t { kPlain = 0, kDisableDmaAtomic = 1, kSetAtomicNone = 2 };

int g_copy_out_line = 0;

extern "C" __global__ __aicore__ void accumulate_rows(GM_ADDR input, GM_ADDR output,
                                                      uint32_t spelling) {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    pipe.InitBuffer(inQueue, 1, kElements * sizeof(float));
    pipe.InitBuffer(outQueue, 1, kElements * sizeof(float));
    GlobalTensor<float> inGm, outGm;
    inGm.SetGlobalBuffer((__gm__ float*)input + GetBlockIdx() * kElements, kElements);
    outGm.SetGlobalBuffer((__gm__ float*)output, kElements);

    LocalTensor<float> x = inQueue.AllocTensor<float>();
    DataCopy(x, inGm, kElements);
    inQueue.EnQue(x);
    x = inQueue.DeQue<float>();
    LocalTensor<float> y = outQueue.AllocTensor<float>();
    Muls(y, x, 2.0F, kElements);
    outQueue.EnQue(y);
    inQueue.FreeTensor(x);
    y = outQueue.DeQue<float>();
    if (spelling != kPlain) SetAtomicAdd<float>();
    g_copy_out_line = __LINE__ + 1;
    DataCopy(outGm, y, kElements);
    if (spelling == kDisableDmaAtomic) DisableDmaAtomic();
    if (spelling == kSetAtomicNone) SetAtomicNone();
    outQueue.FreeTensor(y);
}

enum InitMode : uint32_t { kInitSynced = 0, kInitWithoutSyncAll = 1, kInitWithoutMte3Mte2 = 2 };

int g_init_line = 0;
int g_load_line = 0;
int g_atomic_line = 0;

extern "C" __global__ __aicore__ void init_then_accumulate(GM_ADDR input, GM_ADDR output,
                                                           uint32_t mode) {
    GlobalTensor<float> inGm, outGm;
    inGm.SetGlobalBuffer((__gm__ float*)input + GetBlockIdx() * kElements, kElements);
    outGm.SetGlobalBuffer((__gm__ float*)output, kElements);
    if (GetBlockIdx() == 0) {
        g_init_line = __LINE__ + 1;
        InitGlobalMemory(outGm, kElements, 0.5F);
        if (mode != kInitWithoutMte3Mte2) {
            SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
            WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
        }
    }
    if (mode == kInitSynced) SyncAll();  // the single-block case needs none

    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    pipe.InitBuffer(inQueue, 1, kElements * sizeof(float));
    pipe.InitBuffer(outQueue, 1, kElements * sizeof(float));
    LocalTensor<float> x = inQueue.AllocTensor<float>();
    g_load_line = __LINE__ + 1;
    DataCopy(x, inGm, kElements);
    inQueue.EnQue(x);
    x = inQueue.DeQue<float>();
    LocalTensor<float> y = outQueue.AllocTensor<float>();
    Muls(y, x, 2.0F, kElements);
    outQueue.EnQue(y);
    inQueue.FreeTensor(x);
    y = outQueue.DeQue<float>();
    SetAtomicAdd<float>();
    g_atomic_line = __LINE__ + 1;
    DataCopy(outGm, y, kElements);
    DisableDmaAtomic();
    outQueue.FreeTensor(y);
}

struct Result {
    npusim::RunResult run;
    std::vector<float> output;
    std::vector<npusim::Finding> findings;
};

/// Runs `kernel(input, output, mode)` on `blocks` blocks of the small chip with the checker:
/// block b's input slice holds b + 1, the output starts as `initial`.
Result run_kernel(const char* name, void (*kernel)(GM_ADDR, GM_ADDR, uint32_t), uint32_t mode,
                  uint32_t blocks, float initial) {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto input = sim.allocate<float>(blocks * kElements, "input");
    auto output = sim.allocate<float>(kElements, "output");
    std::vector<float> values(blocks * kElements);
    for (uint32_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i / kElements + 1);
    sim.write(input, values);
    sim.write(output, std::vector<float>(kElements, initial));
    using npusim::ascendc::gm_addr;
    sim.launch({.name = name, .blocks = blocks},
               npusim::ascendc::bind_kernel(kernel, gm_addr(input), gm_addr(output), mode));
    Result r;
    r.run = sim.run();
    r.output = sim.read(output);
    r.findings = checker.findings();
    return r;
}

Result run_accumulate(uint32_t spelling) {
    // 0.5: the atomic mode does not clear GM, the sum lands on top of it.
    return run_kernel("accumulate_rows", accumulate_rows, spelling, kBlocks, 0.5F);
}

Result run_init_then_accumulate(uint32_t mode, uint32_t blocks) {
    // 99: InitGlobalMemory replaces it.
    return run_kernel("init_then_accumulate", init_then_accumulate, mode, blocks, 99.0F);
}

}  // namespace

TEST_CASE("Ascend C SetAtomicAdd: blocks accumulate into one GM range, no findings",
          "[ascendc][atomic]") {
    const uint32_t spelling = GENERATE(kDisableDmaAtomic, kSetAtomicNone);
    CAPTURE(spelling);
    const Result r = run_accumulate(spelling);
    REQUIRE(r.run.completed());
    // 0.5 + 2 * (1 + 2 + 3 + 4)
    for (float v : r.output) CHECK(v == 20.5F);
    CHECK_THAT(r.findings, npusim::NoFindings());
}

TEST_CASE("Ascend C copy-out without SetAtomicAdd: the inter-core WAW at the DataCopy line",
          "[ascendc][atomic]") {
    const Result r = run_accumulate(kPlain);
    REQUIRE(r.run.completed());
    const auto line = static_cast<unsigned>(g_copy_out_line);
    CHECK_THAT(r.findings, npusim::ExactlyFindings({{.kind = npusim::FindingKind::RaceWAW,
                                                     .space = npusim::MemSpace::GM,
                                                     .scope = npusim::RaceScope::InterCore,
                                                     .first_line = line,
                                                     .second_line = line}}));
}

TEST_CASE("Ascend C InitGlobalMemory then SyncAll and SetAtomicAdd: the sum, no findings",
          "[ascendc][atomic]") {
    const Result r = run_init_then_accumulate(kInitSynced, kBlocks);
    REQUIRE(r.run.completed());
    for (float v : r.output) CHECK(v == 20.5F);  // 0.5 + 2 * (1 + 2 + 3 + 4)
    CHECK_THAT(r.findings, npusim::NoFindings());
}

TEST_CASE("Ascend C InitGlobalMemory without the SyncAll: the other blocks' atomic adds race it",
          "[ascendc][atomic]") {
    const Result r = run_init_then_accumulate(kInitWithoutSyncAll, kBlocks);
    REQUIRE(r.run.completed());
    CHECK_THAT(r.findings,
               npusim::ExactlyFindings({{.kind = npusim::FindingKind::RaceWAW,
                                         .space = npusim::MemSpace::GM,
                                         .scope = npusim::RaceScope::InterCore,
                                         .first_line = static_cast<unsigned>(g_init_line),
                                         .second_line = static_cast<unsigned>(g_atomic_line)}}));
}

TEST_CASE("Ascend C InitGlobalMemory without MTE3_MTE2: the next load overwrites its UB scratch",
          "[ascendc][atomic]") {
    const Result r = run_init_then_accumulate(kInitWithoutMte3Mte2, 1);
    REQUIRE(r.run.completed());
    CHECK(r.output[0] == 2.5F);  // the scratch was copied out before the load landed here
    // The load overwrites the scratch that MTE3 still reads (WAR) and that V filled (WAW), and
    // nothing orders the atomic copy-out after InitGlobalMemory's copy on MTE3 (intra-pipe).
    const auto init = static_cast<unsigned>(g_init_line);
    const auto load = static_cast<unsigned>(g_load_line);
    const auto atomic = static_cast<unsigned>(g_atomic_line);
    using npusim::FindingKind;
    using npusim::MemSpace;
    using npusim::RaceScope;
    CHECK_THAT(r.findings, npusim::ExactlyFindings({{.kind = FindingKind::RaceWAR,
                                                     .space = MemSpace::UB,
                                                     .scope = RaceScope::InterPipe,
                                                     .first_line = init,
                                                     .second_line = load},
                                                    {.kind = FindingKind::RaceWAW,
                                                     .space = MemSpace::UB,
                                                     .scope = RaceScope::InterPipe,
                                                     .first_line = init,
                                                     .second_line = load},
                                                    {.kind = FindingKind::RaceWAW,
                                                     .space = MemSpace::GM,
                                                     .scope = RaceScope::IntraPipe,
                                                     .first_line = init,
                                                     .second_line = atomic}}));
}
