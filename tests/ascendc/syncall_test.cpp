// The SyncAll reduction in Ascend C style: 8 blocks of 32 fp32 each double their slice, write
// it to GM, meet at SyncAll, and add every other block's slice into their own. With all
// inputs 1.0 every output is 16.0. Hard and soft SyncAll give that with no findings; without
// the SyncAll the checker reports the inter-core race on the work buffer at the kernel's
// lines. The kernel chains dependent vector ops without PipeBarrier and relies on the
// automatic synchronization for them.
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "kernel_operator.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"

using namespace AscendC;

namespace {

constexpr uint32_t kBlocks = 8;
constexpr uint32_t kElements = 32;
enum SyncMode : uint32_t { kNone = 0, kHard = 1, kSoft = 2 };

int g_store_line = 0;  // DataCopy of the doubled slice to the work buffer
int g_load_line = 0;   // DataCopy of another block's slice from the work buffer

extern "C" __global__ __aicore__ void syncall_reduce(GM_ADDR input, GM_ADDR work, GM_ADDR output,
                                                     GM_ADDR syncWorkspace, uint32_t mode) {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    TBuf<TPosition::VECCALC> mineBuf, syncBuf;
    pipe.InitBuffer(inQueue, 1, kElements * sizeof(float));
    pipe.InitBuffer(outQueue, 1, kElements * sizeof(float));
    pipe.InitBuffer(mineBuf, kElements * sizeof(float));
    pipe.InitBuffer(syncBuf, kBlocks * 32);

    const int64_t me = GetBlockIdx();
    const int64_t blocks = GetBlockNum();
    GlobalTensor<float> inGm, workGm, outGm;
    GlobalTensor<int32_t> syncGm;
    inGm.SetGlobalBuffer((__gm__ float*)input, blocks * kElements);
    workGm.SetGlobalBuffer((__gm__ float*)work, blocks * kElements);
    outGm.SetGlobalBuffer((__gm__ float*)output, blocks * kElements);
    syncGm.SetGlobalBuffer((__gm__ int32_t*)syncWorkspace, blocks * 8);

    LocalTensor<float> mine = mineBuf.Get<float>();
    LocalTensor<float> x = inQueue.AllocTensor<float>();
    DataCopy(x, inGm[me * kElements], kElements);
    inQueue.EnQue(x);
    x = inQueue.DeQue<float>();
    Muls(mine, x, 2.0F, kElements);
    inQueue.FreeTensor(x);

    LocalTensor<float> y = outQueue.AllocTensor<float>();
    DataCopy(y, mine, kElements);  // UB -> UB after Muls wrote `mine`: auto-sync orders it
    outQueue.EnQue(y);
    y = outQueue.DeQue<float>();
    g_store_line = __LINE__ + 1;
    DataCopy(workGm[me * kElements], y, kElements);
    outQueue.FreeTensor(y);

    if (mode == kHard) {
        SyncAll();
    } else if (mode == kSoft) {
        SyncAll(syncGm, syncBuf.Get<int32_t>(), static_cast<int32_t>(blocks));
    }

    for (int64_t k = 1; k < blocks; ++k) {
        const int64_t from = (me + k) % blocks;
        x = inQueue.AllocTensor<float>();
        g_load_line = __LINE__ + 1;
        DataCopy(x, workGm[from * kElements], kElements);
        inQueue.EnQue(x);
        x = inQueue.DeQue<float>();
        Add(mine, mine, x, kElements);  // no PipeBarrier: auto-sync inserts it
        inQueue.FreeTensor(x);
    }
    y = outQueue.AllocTensor<float>();
    DataCopy(y, mine, kElements);
    outQueue.EnQue(y);
    y = outQueue.DeQue<float>();
    DataCopy(outGm[me * kElements], y, kElements);
    outQueue.FreeTensor(y);
}

struct Result {
    npusim::RunResult run;
    std::vector<float> output;
    std::vector<npusim::Finding> findings;
};

Result run_reduction(uint32_t mode) {
    npusim::Simulator sim(npusim::builtin_chip_config("a2"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto input = sim.allocate<float>(kBlocks * kElements, "input");
    auto work = sim.allocate<float>(kBlocks * kElements, "work");
    auto output = sim.allocate<float>(kBlocks * kElements, "output");
    auto sync_ws = sim.allocate<int32_t>(kBlocks * 8, "sync_workspace");
    sim.write(input, std::vector<float>(kBlocks * kElements, 1.0F));
    sim.write(sync_ws, std::vector<int32_t>(kBlocks * 8, 0));
    sim.write(work, std::vector<float>(kBlocks * kElements, 0.0F));  // initcheck: defined
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "syncall_reduce", .blocks = kBlocks},
               npusim::ascendc::bind_kernel(syncall_reduce, gm_addr(input), gm_addr(work),
                                            gm_addr(output), gm_addr(sync_ws), mode));
    Result r;
    r.run = sim.run();
    r.output = sim.read(output);
    r.findings = checker.findings();
    return r;
}

}  // namespace

TEST_CASE("Ascend C SyncAll reduction - hard and soft: every output 16.0 and no findings",
          "[ascendc]") {
    const uint32_t mode = GENERATE(kHard, kSoft);
    CAPTURE(mode);
    const Result r = run_reduction(mode);
    REQUIRE(r.run.completed());
    std::uint64_t wrong = 0;
    for (float v : r.output) {
        if (v != 16.0F) ++wrong;
    }
    CHECK(wrong == 0);
    CHECK_THAT(r.findings, npusim::NoFindings());
}

TEST_CASE("Ascend C SyncAll reduction without the SyncAll: the inter-core race at the lines",
          "[ascendc]") {
    const Result r = run_reduction(kNone);
    REQUIRE(r.run.completed());
    const auto store = static_cast<unsigned>(g_store_line);
    const auto load = static_cast<unsigned>(g_load_line);
    // Program order names a pair after the lower block: its load of a higher block's slice is
    // a WAR against that block's store, its store a RAW for a higher block's load.
    CHECK_THAT(r.findings, npusim::ExactlyFindings({{.kind = npusim::FindingKind::RaceRAW,
                                                     .space = npusim::MemSpace::GM,
                                                     .scope = npusim::RaceScope::InterCore,
                                                     .first_line = store,
                                                     .second_line = load},
                                                    {.kind = npusim::FindingKind::RaceWAR,
                                                     .space = npusim::MemSpace::GM,
                                                     .scope = npusim::RaceScope::InterCore,
                                                     .first_line = load,
                                                     .second_line = store}}));
}
