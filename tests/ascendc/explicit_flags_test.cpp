// A kernel that orders its pipes itself: TBuf scratch (no implicit flags) with explicit
// SetFlag/WaitFlag<HardEvent> and event ids from the TPipe. Right output and no findings;
// with the MTE2 -> V pair removed, the RAWs between the loads and the add at the kernel's lines
// (and the next tile's loads unordered after this tile's).
// Also: the event ids the TPipe hands out.
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "kernel_operator.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"

using namespace AscendC;

namespace {

constexpr uint32_t kTile = 128;
constexpr uint32_t kTiles = 4;

int g_load_line = 0;
int g_add_line = 0;

extern "C" __global__ __aicore__ void add_with_flags(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                     uint32_t dropMte2V) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> xBuf, yBuf, zBuf;
    pipe.InitBuffer(xBuf, kTile * sizeof(float));
    pipe.InitBuffer(yBuf, kTile * sizeof(float));
    pipe.InitBuffer(zBuf, kTile * sizeof(float));
    GlobalTensor<float> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, kTile * kTiles);
    yGm.SetGlobalBuffer((__gm__ float*)y, kTile * kTiles);
    zGm.SetGlobalBuffer((__gm__ float*)z, kTile * kTiles);
    LocalTensor<float> xLocal = xBuf.Get<float>();
    LocalTensor<float> yLocal = yBuf.Get<float>();
    LocalTensor<float> zLocal = zBuf.Get<float>();

    const event_t loaded = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE2_V));
    const int32_t computed = GetTPipePtr()->AllocEventID<HardEvent::V_MTE3>();
    const int32_t stored = GetTPipePtr()->AllocEventID<HardEvent::MTE3_MTE2>();
    for (uint32_t t = 0; t < kTiles; ++t) {
        g_load_line = __LINE__ + 1;
        DataCopy(xLocal, xGm[t * kTile], kTile);
        DataCopy(yLocal, yGm[t * kTile], kTile);
        if (dropMte2V == 0) {
            SetFlag<HardEvent::MTE2_V>(loaded);
            WaitFlag<HardEvent::MTE2_V>(loaded);
        }
        g_add_line = __LINE__ + 1;
        Add(zLocal, xLocal, yLocal, kTile);
        SetFlag<HardEvent::V_MTE3>(computed);
        WaitFlag<HardEvent::V_MTE3>(computed);
        DataCopy(zGm[t * kTile], zLocal, kTile);
        // The next loads overwrite x and y (read by V, done before MTE3 started) and the next
        // add overwrites z (read by MTE3): MTE2 waits for MTE3.
        SetFlag<HardEvent::MTE3_MTE2>(stored);
        WaitFlag<HardEvent::MTE3_MTE2>(stored);
        if (dropMte2V != 0) {
            // Still order the next Add after this store's read of z.
            SetFlag<HardEvent::MTE3_V>(EVENT_ID0);
            WaitFlag<HardEvent::MTE3_V>(EVENT_ID0);
        }
    }
    GetTPipePtr()->ReleaseEventID<HardEvent::V_MTE3>(computed);
    GetTPipePtr()->ReleaseEventID<HardEvent::MTE3_MTE2>(stored);
}

struct FlagIds {
    int32_t first = -1, second = -1, fetched = -1, after_release = -1;
};

}  // namespace

TEST_CASE("Ascend C explicit SetFlag/WaitFlag with TBuf: right output and no findings",
          "[ascendc]") {
    const uint32_t drop = GENERATE(0U, 1U);
    CAPTURE(drop);
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    const uint32_t n = kTile * kTiles;
    auto x = sim.allocate<float>(n, "x");
    auto y = sim.allocate<float>(n, "y");
    auto z = sim.allocate<float>(n, "z");
    std::vector<float> xs(n), ys(n);
    for (uint32_t i = 0; i < n; ++i) {
        xs[i] = static_cast<float>(i);
        ys[i] = 0.5F * static_cast<float>(i % 7);
    }
    sim.write(x, xs);
    sim.write(y, ys);
    using npusim::ascendc::gm_addr;
    sim.launch(
        {.name = "add_with_flags"},
        npusim::ascendc::bind_kernel(add_with_flags, gm_addr(x), gm_addr(y), gm_addr(z), drop));
    REQUIRE(sim.run().completed());
    if (drop == 0) {
        const std::vector<float> zs = sim.read(z);
        std::uint64_t wrong = 0;
        for (uint32_t i = 0; i < n; ++i) {
            if (zs[i] != xs[i] + ys[i]) ++wrong;
        }
        CHECK(wrong == 0);
        CHECK_THAT(checker.findings(), npusim::NoFindings());
    } else {
        CHECK_THAT(checker.findings(),
                   npusim::ExactlyFindings({{.kind = npusim::FindingKind::RaceRAW,
                                             .space = npusim::MemSpace::UB,
                                             .scope = npusim::RaceScope::InterPipe,
                                             .first_pipe = npusim::Pipe::MTE2,
                                             .second_pipe = npusim::Pipe::V,
                                             .first_line = unsigned(g_load_line),
                                             .second_line = unsigned(g_add_line)},
                                            {.kind = npusim::FindingKind::RaceRAW,
                                             .space = npusim::MemSpace::UB,
                                             .scope = npusim::RaceScope::InterPipe,
                                             .first_pipe = npusim::Pipe::MTE2,
                                             .second_pipe = npusim::Pipe::V,
                                             .first_line = unsigned(g_load_line + 1),
                                             .second_line = unsigned(g_add_line)},
                                            // Without the pair nothing tells MTE2 that its own
                                            // loads of one tile completed before the next.
                                            {.kind = npusim::FindingKind::RaceWAW,
                                             .space = npusim::MemSpace::UB,
                                             .scope = npusim::RaceScope::IntraPipe,
                                             .first_line = unsigned(g_load_line),
                                             .second_line = unsigned(g_load_line)},
                                            {.kind = npusim::FindingKind::RaceWAW,
                                             .space = npusim::MemSpace::UB,
                                             .scope = npusim::RaceScope::IntraPipe,
                                             .first_line = unsigned(g_load_line + 1),
                                             .second_line = unsigned(g_load_line + 1)}}));
    }
}

TEST_CASE("TPipe event ids: AllocEventID reserves from 0 up - FetchEventID peeks - Release frees",
          "[ascendc]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    FlagIds ids;
    sim.launch({.name = "ids"}, npusim::ascendc::bind_kernel([&ids]() {
                   TPipe pipe;
                   ids.first = pipe.AllocEventID<HardEvent::V_MTE3>();
                   ids.second = pipe.AllocEventID<HardEvent::V_MTE3>();
                   ids.fetched = pipe.FetchEventID<HardEvent::V_MTE3>();
                   pipe.ReleaseEventID<HardEvent::V_MTE3>(ids.first);
                   ids.after_release = pipe.FetchEventID(HardEvent::V_MTE3);
               }));
    REQUIRE(sim.run().completed());
    CHECK(ids.first == 0);
    CHECK(ids.second == 1);
    CHECK(ids.fetched == 2);
    CHECK(ids.after_release == 0);
}

TEST_CASE("TPipe event ids: AllocEventID hands out 0-5 and then fails naming the line",
          "[ascendc]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    std::vector<int32_t> ids;
    sim.launch({.name = "ids"}, npusim::ascendc::bind_kernel([&ids]() {
                   TPipe pipe;
                   for (int i = 0; i < 7; ++i)
                       ids.push_back(pipe.AllocEventID<HardEvent::MTE2_V>());
               }));
    CHECK_THROWS_WITH(sim.run(), Catch::Matchers::Contains("explicit_flags_test.cpp:") &&
                                     Catch::Matchers::Contains("AllocEventID"));
    CHECK(ids == std::vector<int32_t>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("SetScheduleMode in a kernel checks the launch's schedule mode", "[ascendc]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    const auto kernel = []() { SetScheduleMode(1); };
    sim.launch({.name = "batch", .blocks = 2, .schedule_mode = npusim::ScheduleMode::Batch},
               npusim::ascendc::bind_kernel(kernel));
    CHECK(sim.run().completed());
    sim.launch({.name = "normal", .blocks = 2}, npusim::ascendc::bind_kernel(kernel));
    CHECK_THROWS_WITH(sim.run(), Catch::Matchers::Contains("explicit_flags_test.cpp:") &&
                                     Catch::Matchers::Contains("SetScheduleMode(1)"));
}
