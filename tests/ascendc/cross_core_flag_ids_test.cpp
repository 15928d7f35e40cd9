// Cross-core flag ids in Ascend C style: ids 0-15 for modes 0-2; a kernel that calls hard
// SyncAll must keep away from 11-14 (hard SyncAll uses them), which the engine reports as a
// hardware-rule error naming the flag call's line and the SyncAll's line.
#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

#include "base/errors.h"
#include "kernel_operator.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"

using namespace AscendC;

namespace {

int g_set_line = 0;
int g_sync_line = 0;

// Every AIV block joins a mode-0 round on `flagId`, then (hardSync) meets at a hard SyncAll.
extern "C" __global__ __aicore__ void round_then_sync(uint32_t flagId, uint32_t hardSync) {
    g_set_line = __LINE__ + 1;
    CrossCoreSetFlag<0, PIPE_S>(static_cast<uint16_t>(flagId));
    CrossCoreWaitFlag(static_cast<uint16_t>(flagId));
    if (hardSync != 0) {
        g_sync_line = __LINE__ + 1;
        SyncAll();
    }
}

npusim::RunResult run(uint32_t flag_id, uint32_t hard_sync) {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    const npusim::RunResult r =
        sim.run({.name = "round_then_sync", .blocks = 4},
                npusim::ascendc::bind_kernel(round_then_sync, flag_id, hard_sync));
    CHECK_THAT(checker.findings(), npusim::NoFindings());
    return r;
}

}  // namespace

TEST_CASE("Ascend C cross-core flags: ids 0-15, and 11-14 not with hard SyncAll",
          "[ascendc][xflag]") {
    CHECK(run(15, 1).completed());
    CHECK(run(10, 1).completed());
    CHECK(run(12, 0).completed());
    std::string message;
    try {
        run(12, 1);
    } catch (const npusim::KernelError& error) {
        message = error.what();
    }
    CHECK_THAT(message, Catch::Contains("hard SyncAll in a kernel that uses a cross-core flag "
                                        "id it reserves: CrossCoreSetFlag<0, PIPE_S>(12) at "
                                        "cross_core_flag_ids_test.cpp:" +
                                        std::to_string(g_set_line) + ":"));
    CHECK_THAT(message, Catch::Contains(
                            "cross_core_flag_ids_test.cpp:" + std::to_string(g_sync_line) + ":"));
    CHECK_THAT(message, Catch::Contains("use ids 0-10 or 15 in kernels that call hard SyncAll"));
    CHECK_THROWS_WITH(run(16, 0), Catch::Contains("flag id must be 0-15"));
}
