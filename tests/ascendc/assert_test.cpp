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

namespace {

int g_error_line = 0;

// Each case makes one host-style API fail: 0 GetSysWorkSpacePtr before SetSysWorkspace,
// 1 a static tensor at a position without local memory, 2 an allocator past the end of UB.
extern "C" __global__ __aicore__ void host_style_misuse(uint32_t which) {
    if (which == 0) {
        g_error_line = __LINE__ + 1;
        (void)GetSysWorkSpacePtr();
    } else if (which == 1) {
        g_error_line = __LINE__ + 1;
        LocalTensor<float> t(TPosition::GM, 0, 8);
    } else {
        LocalMemAllocator<Hardware::UB> ub;
        g_error_line = __LINE__ + 1;
        (void)ub.Alloc<float>(16u * 1024 * 1024);
    }
}

std::string misuse_message(uint32_t which) {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    try {
        sim.run({.name = "host_style_misuse", .blocks = 1},
                npusim::ascendc::bind_kernel(host_style_misuse, which));
    } catch (const npusim::KernelError& error) {
        return error.what();
    }
    return "no error";
}

}  // namespace

TEST_CASE("Ascend C host-style APIs: misuse is a KernelError naming the kernel's line",
          "[ascendc]") {
    const std::string at = "assert_test.cpp:";
    std::string message = misuse_message(0);
    CHECK_THAT(message, Catch::Contains(at + std::to_string(g_error_line) + ":") &&
                            Catch::Contains("GetSysWorkSpacePtr before SetSysWorkspace"));
    message = misuse_message(1);
    CHECK_THAT(message, Catch::Contains(at + std::to_string(g_error_line) + ":") &&
                            Catch::Contains("a LocalTensor at this TPosition"));
    message = misuse_message(2);
    CHECK_THAT(message, Catch::Contains(at + std::to_string(g_error_line) + ":"));
}
