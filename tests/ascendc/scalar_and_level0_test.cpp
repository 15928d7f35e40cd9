// Auto-sync around scalar GM accesses (S -> MTE2 before a load of what SetValue wrote,
// MTE3 -> S before GetValue of what a store wrote), and the mask/repeat ("level 0") vector
// forms: contiguous ones are the count form, strided ones one instruction per run.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "kernel_operator.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"

using namespace AscendC;

namespace {

constexpr uint32_t kCount = 64;
constexpr uint32_t kLevel0 = 128;  // two 256-byte repeats of fp32

int g_set_line = 0;
int g_load_line = 0;
int g_store_line = 0;
int g_get_line = 0;

// Writes a marker into GM with the scalar unit, loads the range with MTE2, stores it back
// elsewhere with MTE3 and reads the stored marker with the scalar unit again.
extern "C" __global__ __aicore__ void scalar_gm_roundtrip(GM_ADDR src, GM_ADDR dst,
                                                          GM_ADDR result) {
    TPipe pipe;
    TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> queue;
    pipe.InitBuffer(queue, 1, kCount * sizeof(float));
    GlobalTensor<float> srcGm, dstGm, resultGm;
    srcGm.SetGlobalBuffer((__gm__ float*)src, kCount);
    dstGm.SetGlobalBuffer((__gm__ float*)dst, kCount);
    resultGm.SetGlobalBuffer((__gm__ float*)result, 8);
    g_set_line = __LINE__ + 1;
    srcGm.SetValue(0, 42.0F);
    LocalTensor<float> staged = queue.AllocTensor<float>();
    g_load_line = __LINE__ + 1;
    DataCopy(staged, srcGm, kCount);
    queue.EnQue(staged);
    staged = queue.DeQue<float>();
    g_store_line = __LINE__ + 1;
    DataCopy(dstGm, staged, kCount);
    queue.FreeTensor(staged);
    g_get_line = __LINE__ + 1;
    const float marker = dstGm.GetValue(0);
    resultGm.SetValue(0, marker);
}

extern "C" __global__ __aicore__ void level0_add(GM_ADDR x, GM_ADDR z, uint32_t strided) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 3 * kLevel0 * sizeof(float));
    GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, kLevel0);
    zGm.SetGlobalBuffer((__gm__ float*)z, kLevel0);
    LocalTensor<float> a = buf.Get<float>();
    LocalTensor<float> sum = a[kLevel0];
    DataCopy(a, xGm, kLevel0);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    BinaryRepeatParams params;
    if (strided != 0) params.src1RepStride = 16;
    Add(sum, a, a, 64, kLevel0 / 64, params);  // 64 fp32 per 256-byte repeat
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(zGm, sum, kLevel0);
}

constexpr int kChain = 1000;

// A long chain of dependent vector ops with no barrier in the source: auto-sync inserts one
// PipeBarrier<PIPE_V> per link and the bookkeeping stays bounded.
extern "C" __global__ __aicore__ void long_chain(GM_ADDR z) {
    TPipe pipe;
    TQue<TPosition::VECOUT, 1> outQueue;
    pipe.InitBuffer(outQueue, 1, kCount * sizeof(float));
    GlobalTensor<float> zGm;
    zGm.SetGlobalBuffer((__gm__ float*)z, kCount);
    LocalTensor<float> t = outQueue.AllocTensor<float>();
    Duplicate(t, 0.0F, kCount);
    for (int i = 0; i < kChain; ++i) Adds(t, t, 1.0F, kCount);
    const float first = t.GetValue(0);
    Adds(t, t, first, kCount);  // t = 2 * kChain
    outQueue.EnQue(t);
    t = outQueue.DeQue<float>();
    DataCopy(zGm, t, kCount);
    outQueue.FreeTensor(t);
}

class CountInserted final : public npusim::TransactionObserver {
public:
    void on_transaction(const npusim::Transaction& tx) override {
        if (tx.inserted && tx.op == npusim::Op::PipeBarrier) ++barriers;
    }
    int barriers = 0;
};

}  // namespace

TEST_CASE("a long chain of dependent vector ops: one inserted barrier per link", "[ascendc]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    CountInserted inserted;
    sim.attach(checker);
    sim.attach(inserted);
    auto z = sim.allocate<float>(kCount, "z");
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "long_chain"}, npusim::ascendc::bind_kernel(long_chain, gm_addr(z)));
    REQUIRE(sim.run().completed());
    for (float v : sim.read(z)) CHECK(v == 2.0F * kChain);
    CHECK_THAT(checker.findings(), npusim::NoFindings());
    // Before each Adds of the loop; the last Adds is already ordered by the V -> S flag that
    // GetValue needed.
    CHECK(inserted.barriers == kChain);
}

TEST_CASE("auto-sync orders scalar GM accesses against MTE2 and MTE3", "[ascendc]") {
    const bool auto_sync = GENERATE(true, false);
    CAPTURE(auto_sync);
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto src = sim.allocate<float>(kCount, "src");
    auto dst = sim.allocate<float>(kCount, "dst");
    auto result = sim.allocate<float>(8, "result");
    sim.write(src, std::vector<float>(kCount, 1.0F));
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "scalar_gm_roundtrip"},
               npusim::ascendc::bind_kernel(scalar_gm_roundtrip, {.auto_sync = auto_sync},
                                            gm_addr(src), gm_addr(dst), gm_addr(result)));
    REQUIRE(sim.run().completed());
    if (auto_sync) {
        CHECK(sim.read(result)[0] == 42.0F);
        CHECK_THAT(checker.findings(), npusim::NoFindings());
    } else {
        CHECK_THAT(checker.findings(),
                   npusim::ExactlyFindings({{.kind = npusim::FindingKind::RaceRAW,
                                             .space = npusim::MemSpace::GM,
                                             .scope = npusim::RaceScope::InterPipe,
                                             .first_pipe = npusim::Pipe::S,
                                             .second_pipe = npusim::Pipe::MTE2,
                                             .first_line = unsigned(g_set_line),
                                             .second_line = unsigned(g_load_line)},
                                            {.kind = npusim::FindingKind::RaceRAW,
                                             .space = npusim::MemSpace::GM,
                                             .scope = npusim::RaceScope::InterPipe,
                                             .first_pipe = npusim::Pipe::MTE3,
                                             .second_pipe = npusim::Pipe::S,
                                             .first_line = unsigned(g_store_line),
                                             .second_line = unsigned(g_get_line)}}));
    }
}

TEST_CASE("level-0 Add: contiguous repeats equal the count form, strided ones run per run",
          "[ascendc]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto x = sim.allocate<float>(kLevel0, "x");
    auto z = sim.allocate<float>(kLevel0, "z");
    std::vector<float> xs(kLevel0);
    for (uint32_t i = 0; i < kLevel0; ++i) xs[i] = static_cast<float>(i);
    sim.write(x, xs);
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "level0_add"},
               npusim::ascendc::bind_kernel(level0_add, gm_addr(x), gm_addr(z), 0U));
    REQUIRE(sim.run().completed());
    const std::vector<float> zs = sim.read(z);
    for (uint32_t i = 0; i < kLevel0; ++i) CHECK(zs[i] == 2.0F * xs[i]);

    // src1RepStride 16: repeat 1 reads src1 at a[128..192), which is sum[0..64) that repeat 0
    // wrote (auto-sync orders the two instructions): sum[64 + j] = x[64 + j] + 2 x[j].
    sim.launch({.name = "level0_strided"},
               npusim::ascendc::bind_kernel(level0_add, gm_addr(x), gm_addr(z), 1U));
    REQUIRE(sim.run().completed());
    const std::vector<float> strided = sim.read(z);
    for (uint32_t j = 0; j < 64; ++j) {
        CHECK(strided[j] == 2.0F * xs[j]);
        CHECK(strided[64 + j] == xs[64 + j] + 2.0F * xs[j]);
    }
    CHECK_THAT(checker.findings(), npusim::NoFindings());
}

namespace {

struct ScaleTiling {
    uint32_t count;
    float scale;
    uint32_t marker;
};

int g_foreign_line = 0;

// Reads its tiling with plain scalar loads through a __gm__ pointer, as public samples'
// CopyTiling loops do, scales x by it, and writes the marker back through the pointer.
extern "C" __global__ __aicore__ void pointer_tiling_scale(GM_ADDR x, GM_ADDR y, GM_ADDR tiling) {
    ScaleTiling t;
    auto* words = reinterpret_cast<uint32_t*>(&t);
    auto* tiling32 = reinterpret_cast<__gm__ uint32_t*>(tiling);
    for (uint32_t i = 0; i < sizeof(ScaleTiling) / sizeof(uint32_t); i++) {
        words[i] = *(tiling32 + i);
    }
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    pipe.InitBuffer(inQueue, 1, t.count * sizeof(float));
    pipe.InitBuffer(outQueue, 1, t.count * sizeof(float));
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, t.count);
    yGm.SetGlobalBuffer((__gm__ float*)y, t.count);
    LocalTensor<float> in = inQueue.AllocTensor<float>();
    DataCopy(in, xGm, t.count);
    inQueue.EnQue(in);
    in = inQueue.DeQue<float>();
    LocalTensor<float> out = outQueue.AllocTensor<float>();
    Muls(out, in, t.scale, t.count);
    outQueue.EnQue(out);
    inQueue.FreeTensor(in);
    out = outQueue.DeQue<float>();
    DataCopy(yGm, out, t.count);
    outQueue.FreeTensor(out);
    if (GetBlockIdx() == 0) tiling32[2] = t.marker + 1;
}

extern "C" __global__ __aicore__ void foreign_pointer(GM_ADDR x) {
    GlobalTensor<float> xGm;
    g_foreign_line = __LINE__ + 1;
    xGm.SetGlobalBuffer((__gm__ float*)x, 8);
}

}  // namespace

TEST_CASE("kernels read and write GM through __gm__ pointers (CopyTiling loops)", "[ascendc]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto x = sim.allocate<float>(kCount, "x");
    auto y = sim.allocate<float>(kCount, "y");
    auto tiling = sim.allocate<uint32_t>(3, "tiling");
    std::vector<float> xs(kCount);
    for (uint32_t i = 0; i < kCount; ++i) xs[i] = float(i) - 7.5F;
    sim.write(x, xs);
    const ScaleTiling t{kCount, 3.0F, 41};
    std::vector<uint32_t> words(3);
    std::memcpy(words.data(), &t, sizeof t);
    sim.write(tiling, words);
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "pointer_tiling_scale"},
               npusim::ascendc::bind_kernel(pointer_tiling_scale, gm_addr(x), gm_addr(y),
                                            gm_addr(tiling)));
    REQUIRE(sim.run().completed());
    const std::vector<float> ys = sim.read(y);
    for (uint32_t i = 0; i < kCount; ++i) CHECK(ys[i] == 3.0F * xs[i]);
    CHECK(sim.read(tiling)[2] == 42U);
    CHECK_THAT(checker.findings(), npusim::NoFindings());
}

TEST_CASE("a host pointer passed as GM_ADDR is a KernelError naming the line", "[ascendc]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    std::vector<float> host(8);
    sim.launch(
        {.name = "foreign_pointer"},
        npusim::ascendc::bind_kernel(foreign_pointer, reinterpret_cast<GM_ADDR>(host.data())));
    REQUIRE_THROWS_WITH(sim.run(), Catch::Contains("scalar_and_level0_test.cpp:" +
                                                   std::to_string(g_foreign_line)) &&
                                       Catch::Contains("is not in the simulator's GM"));
}
