// ASSERT in a kernel: one that holds changes nothing; one that fails stops the run with a
// KernelError naming the kernel's line and the expression, on the block where it failed.
#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

#include "kernel_operator.h"
#include "sim/simulator.h"

using namespace AscendC;

namespace {

int g_assert_line = 0;

// Every block asserts that its index is below `limit`.
extern "C" __global__ __aicore__ void assert_block_below(uint32_t limit) {
    g_assert_line = __LINE__ + 1;
    ASSERT(GetBlockIdx() < limit && "block index in range");
}

npusim::RunResult run(uint32_t limit) {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    return sim.run({.name = "assert_block_below", .blocks = 4},
                   npusim::ascendc::bind_kernel(assert_block_below, limit));
}

}  // namespace

TEST_CASE("Ascend C ASSERT: holds, or stops the run naming the line and expression", "[ascendc]") {
    CHECK(run(4).completed());
    std::string message;
    try {
        run(3);
    } catch (const npusim::KernelError& error) {
        message = error.what();
    }
    CHECK_THAT(message,
               Catch::Contains("assert_test.cpp:" + std::to_string(g_assert_line) + ":") &&
                   Catch::Contains("ASSERT(GetBlockIdx() < limit && \"block index in range\") "
                                   "failed") &&
                   Catch::Contains("block 3"));
}
