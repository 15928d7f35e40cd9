// The SyncAll reduction in Ascend C style: 8 blocks of 32 fp32 each double their slice, write
// it to GM, meet at SyncAll, and add every other block's slice into their own. With all
// inputs 1.0 every output is 16.0. Hard and soft SyncAll give that with no findings; without
// the SyncAll the checker reports the inter-core race on the work buffer at the kernel's
// lines. The kernel chains dependent vector ops without PipeBarrier and relies on the
// automatic synchronization for them.
//
// Flags in GM: blocks in turn through IBSet / IBWait (block b waits for block b - 1, writes
// the row, sets its own flag) and through WaitPreBlock / NotifyNextBlock (two rounds of scalar
// GM writes in block order, with `tensor(i)` element access and a GlobalTensor<bool>): the
// last block's values win, no findings; without the waits the checker reports the inter-core
// WAW at the write's line; a wait no block sets is a deadlock naming its line.
#include <cstdint>
#include <cstring>
#include <vector>

#include <catch2/catch.hpp>

#include "kernel_operator.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/check_report.h"
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

constexpr uint32_t kFlagBlocks = 4;
enum FlagMode : uint32_t { kFlagsOn = 0, kFlagsOff = 1, kFlagNeverSet = 2 };
int g_ib_write_line = 0;    // ib_chain's DataCopy of the row
int g_ib_wait_line = 0;     // ib_chain's IBWait
int g_turn_write_line = 0;  // in_turns' scalar write

// acc = a row of (b + 1) written by each block b in turn (1.5 in element 1 through `out(1)`):
// the last block's row remains.
extern "C" __global__ __aicore__ void ib_chain(GM_ADDR acc, GM_ADDR sync, uint32_t mode) {
    TPipe pipe;
    TQue<TPosition::VECOUT, 1> outQueue;
    TQue<TPosition::VECIN, 1> flagQueue;
    pipe.InitBuffer(outQueue, 1, kElements * sizeof(float));
    pipe.InitBuffer(flagQueue, 1, 8 * sizeof(int32_t));
    GlobalTensor<float> accGm;
    accGm.SetGlobalBuffer((__gm__ float*)acc, kElements);
    GlobalTensor<int32_t> syncGm;
    syncGm.SetGlobalBuffer((__gm__ int32_t*)sync, 2 * GetBlockNum() * 8);
    const int32_t me = static_cast<int32_t>(GetBlockIdx());
    LocalTensor<int32_t> flag = flagQueue.AllocTensor<int32_t>();
    if (me > 0 && mode == kFlagsOn) IBWait(syncGm, flag, me - 1, 0);
    g_ib_wait_line = __LINE__ + 1;
    if (me == 0 && mode == kFlagNeverSet) IBWait(syncGm, flag, kFlagBlocks - 1, 1);
    LocalTensor<float> out = outQueue.AllocTensor<float>();
    Duplicate(out, static_cast<float>(me + 1), kElements);
    out(1) = static_cast<float>(out(1)) + 0.5F;  // element access: a V -> S and S -> MTE3 flag
    outQueue.EnQue(out);
    out = outQueue.DeQue<float>();
    g_ib_write_line = __LINE__ + 1;
    DataCopy(accGm, out, kElements);
    outQueue.FreeTensor(out);
    IBSet(syncGm, flag, me, 0);
    flagQueue.FreeTensor(flag);
}

// Two rounds in block order: each block writes acc(0) = acc(1) + 10 x round + b and marks
// done(b) (a GlobalTensor<bool>); acc(0) ends as acc(1) + 10 + the last block.
extern "C" __global__ __aicore__ void in_turns(GM_ADDR acc, GM_ADDR done, GM_ADDR sync,
                                               uint32_t mode) {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> flagQueue;
    pipe.InitBuffer(flagQueue, 1, (kFlagBlocks + 1) * 8 * sizeof(int32_t));
    GlobalTensor<int32_t> accGm, syncGm;
    accGm.SetGlobalBuffer((__gm__ int32_t*)acc, 8);
    syncGm.SetGlobalBuffer((__gm__ int32_t*)sync, GetBlockNum() * 8);
    GlobalTensor<bool> doneGm;
    doneGm.SetGlobalBuffer((__gm__ bool*)done, 32);
    const int32_t me = static_cast<int32_t>(GetBlockIdx());
    LocalTensor<int32_t> ub = flagQueue.AllocTensor<int32_t>();
    InitDetermineComputeWorkspace(syncGm, ub);
    SyncAll();  // every slot initialised before any block waits on it
    for (int32_t round = 0; round < 2; ++round) {
        if (mode != kFlagsOff) WaitPreBlock(syncGm, ub);
        const int32_t base = accGm(1);
        g_turn_write_line = __LINE__ + 1;
        accGm(0) = base + 10 * round + me;
        NotifyNextBlock(syncGm, ub);
    }
    doneGm(static_cast<uint64_t>(me)) = true;
    flagQueue.FreeTensor(ub);
}

int g_group_write_line = 0;  // group_gather's arrivers' copy to the work rows
int g_group_read_line = 0;   // group_gather's waiters' copy from the work rows

// GroupBarrier: blocks 0 and 1 (arrivers) write row b = b + 1 into work and Arrive; blocks 2
// and 3 (waiters) Wait, then add both rows into their output row (3.0 everywhere).
extern "C" __global__ __aicore__ void group_gather(GM_ADDR work, GM_ADDR out, GM_ADDR barrier,
                                                   uint32_t mode) {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    TBuf<TPosition::VECCALC> sumBuf;
    pipe.InitBuffer(inQueue, 1, kElements * sizeof(float));
    pipe.InitBuffer(outQueue, 1, kElements * sizeof(float));
    pipe.InitBuffer(sumBuf, kElements * sizeof(float));
    GlobalTensor<float> workGm, outGm;
    workGm.SetGlobalBuffer((__gm__ float*)work, 2 * kElements);
    outGm.SetGlobalBuffer((__gm__ float*)out, 2 * kElements);
    GroupBarrier<PipeMode::MTE3_MODE> bar(barrier, 2, 2);
    const uint32_t me = GetBlockIdx();
    if (me < 2) {
        LocalTensor<float> row = outQueue.AllocTensor<float>();
        Duplicate(row, static_cast<float>(me + 1), kElements);
        outQueue.EnQue(row);
        row = outQueue.DeQue<float>();
        g_group_write_line = __LINE__ + 1;
        DataCopy(workGm[me * kElements], row, kElements);
        outQueue.FreeTensor(row);
        bar.Arrive(me);
        return;
    }
    if (mode == kFlagsOn) bar.Wait(me - 2);
    LocalTensor<float> sum = sumBuf.Get<float>();
    Duplicate(sum, 0.0F, kElements);
    for (uint32_t r = 0; r < 2; ++r) {
        LocalTensor<float> x = inQueue.AllocTensor<float>();
        g_group_read_line = __LINE__ + 1;
        DataCopy(x, workGm[r * kElements], kElements);
        inQueue.EnQue(x);
        x = inQueue.DeQue<float>();
        Add(sum, sum, x, kElements);
        inQueue.FreeTensor(x);
    }
    LocalTensor<float> y = outQueue.AllocTensor<float>();
    DataCopy(y, sum, kElements);
    outQueue.EnQue(y);
    y = outQueue.DeQue<float>();
    DataCopy(outGm[(me - 2) * kElements], y, kElements);
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

namespace {

struct FlagResult {
    npusim::RunResult run;
    std::vector<float> row;
    std::vector<int32_t> acc;
    std::vector<uint8_t> done;
    std::vector<npusim::Finding> findings;
};

FlagResult run_flags(uint32_t mode, bool in_turns_kernel) {
    npusim::Simulator sim(npusim::builtin_chip_config("a2"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto row = sim.allocate<float>(kElements, "row");
    auto acc = sim.allocate<int32_t>(8, "acc");
    auto done = sim.allocate<uint8_t>(32, "done");
    auto sync_ws = sim.allocate<int32_t>(2 * kFlagBlocks * 8, "sync_workspace");
    sim.write(row, std::vector<float>(kElements, 0.0F));
    sim.write(acc, std::vector<int32_t>{0, 100, 0, 0, 0, 0, 0, 0});
    sim.write(done, std::vector<uint8_t>(32, 0));
    sim.write(sync_ws, std::vector<int32_t>(2 * kFlagBlocks * 8, 0));
    using npusim::ascendc::gm_addr;
    if (in_turns_kernel) {
        sim.launch({.name = "in_turns", .blocks = kFlagBlocks},
                   npusim::ascendc::bind_kernel(in_turns, gm_addr(acc), gm_addr(done),
                                                gm_addr(sync_ws), mode));
    } else {
        sim.launch({.name = "ib_chain", .blocks = kFlagBlocks},
                   npusim::ascendc::bind_kernel(ib_chain, gm_addr(row), gm_addr(sync_ws), mode));
    }
    FlagResult r;
    r.run = sim.run();
    for (const auto& stuck : r.run.stuck) {
        UNSCOPED_INFO("stuck: block " << stuck.block << " at " << stuck.where << ": "
                                      << stuck.reason);
    }
    r.row = sim.read(row);
    r.acc = sim.read(acc);
    r.done = sim.read(done);
    r.findings = checker.findings();
    return r;
}

}  // namespace

TEST_CASE(
    "Ascend C IBSet / IBWait chain: the last block's row, no findings - without the "
    "waits the inter-core WAW at the copy's line",
    "[ascendc]") {
    const FlagResult r = run_flags(kFlagsOn, false);
    REQUIRE(r.run.completed());
    CHECK(r.row[0] == 4.0F);
    CHECK(r.row[1] == 4.5F);
    CHECK(r.row[kElements - 1] == 4.0F);
    CHECK_THAT(r.findings, npusim::NoFindings());

    const FlagResult racy = run_flags(kFlagsOff, false);
    REQUIRE(racy.run.completed());
    const auto line = static_cast<unsigned>(g_ib_write_line);
    CHECK_THAT(racy.findings, npusim::ExactlyFindings({{.kind = npusim::FindingKind::RaceWAW,
                                                        .space = npusim::MemSpace::GM,
                                                        .scope = npusim::RaceScope::InterCore,
                                                        .first_line = line,
                                                        .second_line = line}}));
}

TEST_CASE("Ascend C IBWait that no block sets: a deadlock naming the IBWait's line", "[ascendc]") {
    const FlagResult r = run_flags(kFlagNeverSet, false);
    REQUIRE(r.run.outcome == npusim::RunOutcome::Deadlock);
    REQUIRE(r.run.deadlocks.size() == 1);
    const npusim::DeadlockFinding& f = r.run.deadlocks[0];
    CHECK(f.kind == npusim::DeadlockKind::OrphanGmFlagWait);
    CHECK_THAT(f.summary, Catch::Contains("wait at IBWait(block 3, event 1) (syncall_test.cpp:" +
                                          std::to_string(g_ib_wait_line)));
}

TEST_CASE(
    "Ascend C WaitPreBlock / NotifyNextBlock: block order, no findings - without the "
    "waits the inter-core WAW at the write's line",
    "[ascendc]") {
    const FlagResult r = run_flags(kFlagsOn, true);
    REQUIRE(r.run.completed());
    CHECK(r.acc[0] == 100 + 10 + 3);
    for (uint32_t b = 0; b < kFlagBlocks; ++b) CHECK(r.done[b] == 1);
    CHECK(r.done[kFlagBlocks] == 0);
    CHECK_THAT(r.findings, npusim::NoFindings());

    const FlagResult racy = run_flags(kFlagsOff, true);
    REQUIRE(racy.run.completed());
    const auto line = static_cast<unsigned>(g_turn_write_line);
    CHECK_THAT(racy.findings, npusim::ExactlyFindings({{.kind = npusim::FindingKind::RaceWAW,
                                                        .space = npusim::MemSpace::GM,
                                                        .scope = npusim::RaceScope::InterCore,
                                                        .first_line = line,
                                                        .second_line = line}}));
}

TEST_CASE(
    "Ascend C GroupBarrier: waiters read what the arrivers wrote, no findings - without "
    "Wait the inter-core RAW at the lines",
    "[ascendc]") {
    for (const uint32_t mode : {uint32_t{kFlagsOn}, uint32_t{kFlagsOff}}) {
        CAPTURE(mode);
        npusim::Simulator sim(npusim::builtin_chip_config("a2"));
        npusim::Checker checker(sim.global_memory());
        sim.attach(checker);
        auto work = sim.allocate<float>(2 * kElements, "work");
        auto out = sim.allocate<float>(2 * kElements, "out");
        auto bar = sim.allocate<int32_t>(2 * 128, "barrier");
        sim.write(work, std::vector<float>(2 * kElements, 0.0F));
        sim.write(bar, std::vector<int32_t>(2 * 128, 0));
        using npusim::ascendc::gm_addr;
        sim.launch({.name = "group_gather", .blocks = 4},
                   npusim::ascendc::bind_kernel(group_gather, gm_addr(work), gm_addr(out),
                                                gm_addr(bar), mode));
        REQUIRE(sim.run().completed());
        if (mode == kFlagsOn) {
            for (float v : sim.read(out)) CHECK(v == 3.0F);
            CHECK_THAT(checker.findings(), npusim::NoFindings());
        } else {
            CHECK_THAT(checker.findings(),
                       npusim::ExactlyFindings(
                           {{.kind = npusim::FindingKind::RaceRAW,
                             .space = npusim::MemSpace::GM,
                             .scope = npusim::RaceScope::InterCore,
                             .first_line = static_cast<unsigned>(g_group_write_line),
                             .second_line = static_cast<unsigned>(g_group_read_line)}}));
        }
    }
}

// Flags polled in GM with scalar reads (docs/checker.md "Flags polled in GM"): block 0 writes
// data, then a flag; block 1 polls the flag, then reads the data. The flag orders the two only
// when its store is visible (written through, or its line cleaned) and comes after the
// writer's earlier stores are done (DataSyncBarrier, or the DMA waited for with MTE3_S).
namespace {

enum PollMode : uint32_t { kPollOk = 0, kPollNoBarrier = 1, kPollNoWait = 2, kPollNeverSet = 3 };
int g_poll_data_write_line = 0;
int g_poll_flag_write_line = 0;
int g_poll_flag_read_line = 0;
int g_poll_data_read_line = 0;

// Scalar data through bypassing stores and loads (as asc-devkit's data_sync_barrier).
extern "C" __global__ __aicore__ void scalar_poll(GM_ADDR data, GM_ADDR flag, GM_ADDR out,
                                                  uint32_t mode) {
    __gm__ int32_t* dataGm = (__gm__ int32_t*)data;
    __gm__ int32_t* flagGm = (__gm__ int32_t*)flag;
    if (GetBlockIdx() == 0) {
        if (mode == kPollNoWait) {  // late: the reader reads before the data is there
            for (int i = 0; i < 4; ++i) PipeBarrier<PIPE_ALL>();
            TPipe pipe;
            TBuf<TPosition::VECCALC> buf;
            pipe.InitBuffer(buf, 4096);
            LocalTensor<float> t = buf.Get<float>();
            for (int i = 0; i < 8; ++i) Duplicate(t, 1.0F, 1024);
            PipeBarrier<PIPE_ALL>();
        }
        g_poll_data_write_line = __LINE__ + 1;
        WriteGmByPassDCache<int32_t>(dataGm, 7);
        if (mode != kPollNoBarrier) DataSyncBarrier<MemDsbT::DDR>();
        g_poll_flag_write_line = __LINE__ + 1;
        if (mode != kPollNeverSet) WriteGmByPassDCache<int32_t>(flagGm, 6);
        return;
    }
    g_poll_flag_read_line = __LINE__ + 1;
    while (mode != kPollNoWait && ReadGmByPassDCache<int32_t>(flagGm) != 6) {
    }
    g_poll_data_read_line = __LINE__ + 1;
    const int32_t v = ReadGmByPassDCache<int32_t>(dataGm);
    WriteGmByPassDCache<int32_t>((__gm__ int32_t*)out, 2 * v);
}

int g_dma_write_line = 0;
int g_dma_flag_line = 0;
int g_dma_poll_line = 0;
int g_dma_read_line = 0;

// DMA data, a cached flag store made visible by a clean of its line (as asc-devkit's
// gm_by_dcache): block 1 copies 8 floats out and sets the flag; block 0 polls with a clean and
// GetValue, then copies them in and doubles them into `out`.
extern "C" __global__ __aicore__ void dma_poll(GM_ADDR data, GM_ADDR flag, GM_ADDR out,
                                               uint32_t clean) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 8 * sizeof(float));
    LocalTensor<float> t = buf.Get<float>();
    GlobalTensor<float> dataGm, outGm;
    dataGm.SetGlobalBuffer((__gm__ float*)data, 8);
    outGm.SetGlobalBuffer((__gm__ float*)out, 8);
    GlobalTensor<int32_t> flagGm;
    flagGm.SetGlobalBuffer((__gm__ int32_t*)flag, 16);
    if (GetBlockIdx() == 1) {
        Duplicate(t, 2.5F, 8);
        SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
        WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
        g_dma_write_line = __LINE__ + 1;
        DataCopy(dataGm, t, 8);
        SetFlag<HardEvent::MTE3_S>(EVENT_ID0);
        WaitFlag<HardEvent::MTE3_S>(EVENT_ID0);
        g_dma_flag_line = __LINE__ + 1;
        flagGm.SetValue(0, 1);
        if (clean)
            DataCacheCleanAndInvalid<int32_t, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(
                flagGm);
        return;
    }
    for (;;) {
        DataCacheCleanAndInvalid<int32_t, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(
            flagGm);
        g_dma_poll_line = __LINE__ + 1;
        if (flagGm.GetValue(0) == 1) break;
    }
    g_dma_read_line = __LINE__ + 1;
    DataCopy(t, dataGm, 8);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Muls(t, t, 2.0F, 8);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(outGm, t, 8);
}

struct PollResult {
    npusim::RunResult run;
    std::vector<float> out;
    std::vector<npusim::Finding> findings;
};

PollResult run_poll(bool dma, uint32_t mode) {
    npusim::Simulator sim(npusim::builtin_chip_config("a2"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto data = sim.allocate<float>(8, "data");
    auto flag = sim.allocate<int32_t>(16, "flag");
    auto out = sim.allocate<float>(8, "out");
    sim.write(data, std::vector<float>(8, 0.0F));
    sim.write(flag, std::vector<int32_t>(16, 0));
    sim.write(out, std::vector<float>(8, 0.0F));
    using npusim::ascendc::gm_addr;
    if (dma) {
        sim.launch({.name = "dma_poll", .blocks = 2},
                   npusim::ascendc::bind_kernel(dma_poll, gm_addr(data), gm_addr(flag),
                                                gm_addr(out), mode));
    } else {
        sim.launch({.name = "scalar_poll", .blocks = 2},
                   npusim::ascendc::bind_kernel(scalar_poll, gm_addr(data), gm_addr(flag),
                                                gm_addr(out), mode));
    }
    PollResult r;
    r.run = sim.run();
    r.out = sim.read(out);
    r.findings = checker.findings();
    for (const auto& f : r.findings) UNSCOPED_INFO(npusim::format_findings({f}));
    return r;
}

int32_t as_int(float bits) {
    int32_t v = 0;
    std::memcpy(&v, &bits, sizeof v);
    return v;
}

npusim::Expected inter_core(npusim::FindingKind kind, int first, int second) {
    return {.kind = kind,
            .space = npusim::MemSpace::GM,
            .scope = npusim::RaceScope::InterCore,
            .first_line = static_cast<unsigned>(first),
            .second_line = static_cast<unsigned>(second)};
}

}  // namespace

TEST_CASE(
    "Ascend C flag polled in GM with bypassing scalar accesses: ordered after DataSyncBarrier "
    "(no findings); without it, or read without the poll, the race at the lines",
    "[ascendc]") {
    const PollResult ok = run_poll(false, kPollOk);
    REQUIRE(ok.run.completed());
    CHECK(as_int(ok.out[0]) == 14);
    CHECK_THAT(ok.findings, npusim::NoFindings());

    // The flag's store may overtake the data's: observing it orders nothing.
    const PollResult racy = run_poll(false, kPollNoBarrier);
    REQUIRE(racy.run.completed());
    CHECK_THAT(racy.findings,
               npusim::ExactlyFindings({inter_core(
                   npusim::FindingKind::RaceRAW, g_poll_flag_write_line, g_poll_flag_read_line)}));

    // The reader never observed the value: its read races with the write.
    const PollResult early = run_poll(false, kPollNoWait);
    REQUIRE(early.run.completed());
    CHECK(as_int(early.out[0]) == 0);
    CHECK_THAT(early.findings,
               npusim::ExactlyFindings({inter_core(
                   npusim::FindingKind::RaceRAW, g_poll_data_write_line, g_poll_data_read_line)}));
}

TEST_CASE("Ascend C scalar poll of a GM flag no block sets: a deadlock naming the poll's line",
          "[ascendc]") {
    const PollResult r = run_poll(false, kPollNeverSet);
    REQUIRE(r.run.outcome == npusim::RunOutcome::Deadlock);
    REQUIRE(r.run.deadlocks.size() == 1);
    CHECK(r.run.deadlocks[0].kind == npusim::DeadlockKind::OrphanGmFlagWait);
    CHECK_THAT(r.run.deadlocks[0].summary,
               Catch::Contains("syncall_test.cpp:" + std::to_string(g_poll_flag_read_line)));
}

TEST_CASE(
    "Ascend C flag polled in GM through the data cache: the DMA data ordered once the flag's "
    "line is cleaned (no findings); without the clean, the races at the lines",
    "[ascendc]") {
    const PollResult ok = run_poll(true, 1);
    REQUIRE(ok.run.completed());
    for (float v : ok.out) CHECK(v == 5.0F);
    CHECK_THAT(ok.findings, npusim::NoFindings());

    const PollResult racy = run_poll(true, 0);
    REQUIRE(racy.run.completed());
    CHECK_THAT(racy.findings,
               npusim::ExactlyFindings(
                   {inter_core(npusim::FindingKind::RaceWAR, g_dma_read_line, g_dma_write_line),
                    inter_core(npusim::FindingKind::RaceWAR, g_dma_poll_line, g_dma_flag_line)}));
}
