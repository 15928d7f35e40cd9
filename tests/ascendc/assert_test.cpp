// ASSERT in a kernel: one that holds changes nothing; one that fails stops the run with a
// KernelError naming the kernel's line and the expression, on the block where it failed.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

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

namespace {

int g_ascendc_assert_line = 0;
int g_shift_line = 0;
int64_t g_cycles[3] = {};

// ascendc_assert with a printf-style message (the vendor's asc-devkit assert sample's form),
// and without one; `which` 2 shifts by more than the element width.
extern "C" __global__ __aicore__ void ascendc_assert_kernel(uint32_t limit, uint32_t which) {
    if (which == 0) {
        g_ascendc_assert_line = __LINE__ + 1;
        ascendc_assert(GetBlockIdx() < limit, "BlockIdx %u is out of range %u.\n", GetBlockIdx(),
                       limit);
    } else if (which == 1) {
        g_ascendc_assert_line = __LINE__ + 1;
        ascendc_assert(GetBlockIdx() < limit);
    } else {
        LocalMemAllocator<Hardware::UB> ub;
        LocalTensor<uint16_t> t = ub.Alloc<uint16_t>(128);
        g_shift_line = __LINE__ + 1;
        ShiftRight(t, t, uint16_t(17), 128);
    }
}

std::string ascendc_assert_message(uint32_t limit, uint32_t which) {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    try {
        sim.run({.name = "ascendc_assert_kernel", .blocks = 4},
                npusim::ascendc::bind_kernel(ascendc_assert_kernel, limit, which));
    } catch (const npusim::KernelError& error) {
        return error.what();
    }
    return "no error";
}

// GetSystemCycle around a vector op: the block's scalar time, before and after.
extern "C" __global__ __aicore__ void system_cycle_kernel() {
    LocalMemAllocator<Hardware::UB> ub;
    LocalTensor<float> t = ub.Alloc<float>(1024);
    g_cycles[0] = GetSystemCycle();
    Duplicate(t, 1.0F, 1024);
    PipeBarrier<PIPE_ALL>();
    g_cycles[1] = GetSystemCycle();
    g_cycles[2] = GetSystemCycle();
}

}  // namespace

TEST_CASE("Ascend C ascendc_assert: stops the run with the line and the formatted message",
          "[ascendc]") {
    CHECK(ascendc_assert_message(4, 0) == "no error");
    const std::string with_message = ascendc_assert_message(2, 0);
    CHECK_THAT(with_message,
               Catch::Contains("assert_test.cpp:" + std::to_string(g_ascendc_assert_line) + ":") &&
                   Catch::Contains("ascendc_assert(GetBlockIdx() < limit) failed") &&
                   Catch::Contains("block 2: BlockIdx 2 is out of range 2."));
    const std::string plain = ascendc_assert_message(3, 1);
    CHECK_THAT(plain, Catch::Contains("assert_test.cpp:" + std::to_string(g_ascendc_assert_line)) &&
                          Catch::EndsWith("failed in aiv block 3"));
    const std::string shift = ascendc_assert_message(4, 2);
    CHECK_THAT(shift, Catch::Contains("assert_test.cpp:" + std::to_string(g_shift_line) + ":") &&
                          Catch::Contains("ShiftRight: the shift 17 is outside [0, 16]"));
}

TEST_CASE("Ascend C GetSystemCycle: the block's simulated scalar time, deterministic",
          "[ascendc]") {
    int64_t first[3] = {};
    for (int run = 0; run < 2; ++run) {
        npusim::Simulator sim(npusim::builtin_chip_config("small"));
        sim.run({.name = "system_cycle_kernel", .blocks = 1},
                npusim::ascendc::bind_kernel(system_cycle_kernel));
        if (run == 0) std::copy(std::begin(g_cycles), std::end(g_cycles), std::begin(first));
    }
    CHECK(g_cycles[0] == first[0]);
    CHECK(g_cycles[1] == first[1]);
    CHECK(g_cycles[1] > g_cycles[0] + 4);   // the Duplicate of 16 repeats ran in between
    CHECK(g_cycles[2] == g_cycles[1] + 1);  // reading the counter is one scalar cycle
}

namespace {

// 20 halves per row padded to 32 (rightPadding 12) without isPad: before SetPadValue the
// padding is not written (it keeps the 7s a Duplicate put there), after it the register's 1.
extern "C" __global__ __aicore__ void pad_value_kernel(GM_ADDR x, GM_ADDR out) {
    LocalMemAllocator<Hardware::UB> ub;
    LocalTensor<half> a = ub.Alloc<half>(64);
    GlobalTensor<half> xGm, oGm;
    xGm.SetGlobalBuffer((__gm__ half*)x, 20);
    oGm.SetGlobalBuffer((__gm__ half*)out, 64);
    Duplicate(a, half(7), 64);
    SetFlag<HardEvent::V_MTE2>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE2>(EVENT_ID0);
    DataCopyExtParams copy{1, 20 * sizeof(half), 0, 0, 0};
    DataCopyPadExtParams<half> pad{false, 0, 12, half(0)};
    DataCopyPad(a, xGm, copy, pad);
    SetPadValue(half(1));
    DataCopyPad(a[32], xGm, copy, pad);
    SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    DataCopy(oGm, a, 64);
}

}  // namespace

TEST_CASE("Ascend C SetPadValue: DataCopyPad without isPad pads with the register's value",
          "[ascendc]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    auto x = sim.allocate<half>(20, "x");
    auto out = sim.allocate<half>(64, "out");
    std::vector<half> values(20);
    for (int i = 0; i < 20; ++i) values[i] = half(float(i + 2));
    sim.write(x, values);
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "pad_value"},
               npusim::ascendc::bind_kernel(pad_value_kernel, gm_addr(x), gm_addr(out)));
    REQUIRE(sim.run().completed());
    const std::vector<half> o = sim.read(out);
    for (int i = 0; i < 32; ++i) {
        CAPTURE(i);
        CHECK(float(o[i]) == (i < 20 ? float(i + 2) : 7.0F));
        CHECK(float(o[32 + i]) == (i < 20 ? float(i + 2) : 1.0F));
    }
}
