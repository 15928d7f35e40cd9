// Attaching the checker late: bytes defined before it was attached (host writes, earlier
// runs' outputs) are initialized, and reads of bytes nobody wrote are still reported.
#include <cstdint>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "base/tensor.h"
#include "core/block.h"
#include "sim/simulator.h"
#include "sync/check/checker.h"
#include "sync/check/findings.h"

using namespace npusim;

namespace {

constexpr std::uint64_t N = 256;  // floats per block

/// y = x, one slice per block, through UB.
KernelBody copy_kernel(GlobalTensor<float> x, GlobalTensor<float> y) {
    return [=](Block& b) {
        auto ub = b.alloc<float>(MemSpace::UB, N);
        b.copy(ub, x.sub(b.block_idx() * N, N), N);
        b.set_flag(Pipe::MTE2, Pipe::MTE3, 0);
        b.wait_flag(Pipe::MTE2, Pipe::MTE3, 0);
        b.copy(y.sub(b.block_idx() * N, N), ub, N);
    };
}

RunResult run_one(Simulator& sim, const char* name, KernelBody body) {
    sim.launch({.name = name, .blocks = 4}, std::move(body));
    return sim.run();
}

std::size_t count(const std::vector<Finding>& findings, FindingKind kind) {
    std::size_t n = 0;
    for (const Finding& f : findings) n += f.kind == kind ? 1 : 0;
    return n;
}

}  // namespace

TEST_CASE("a checker attached after the host wrote the input reports no uninitialized read",
          "[checker][initcheck]") {
    Simulator sim(builtin_chip_config("small"));
    auto x = sim.allocate<float>(4 * N, "x");
    auto y = sim.allocate<float>(4 * N, "y");
    sim.write(x, std::vector<float>(4 * N, 2.0F));
    Checker checker(sim.global_memory());
    sim.attach(checker);
    const RunResult r = run_one(sim, "copy", copy_kernel(x, y));
    REQUIRE(r.completed());
    CHECK(checker.findings().empty());
    CHECK(sim.read(y) == std::vector<float>(4 * N, 2.0F));
}

TEST_CASE("a late checker still reports reads of bytes nobody wrote", "[checker][initcheck]") {
    Simulator sim(builtin_chip_config("small"));
    auto x = sim.allocate<float>(4 * N, "x");
    auto y = sim.allocate<float>(4 * N, "y");
    sim.write(x.sub(0, 2 * N), std::vector<float>(2 * N, 1.0F));  // blocks 2 and 3 read unset x
    Checker checker(sim.global_memory());
    sim.attach(checker);
    REQUIRE(run_one(sim, "copy", copy_kernel(x, y)).completed());
    CHECK(count(checker.findings(), FindingKind::UninitializedRead) == 1);
}

TEST_CASE("a checker attached after an unchecked run counts that run's output as written",
          "[checker][initcheck]") {
    Simulator sim(builtin_chip_config("small"));
    auto x = sim.allocate<float>(4 * N, "x");
    auto y = sim.allocate<float>(4 * N, "y");
    auto z = sim.allocate<float>(4 * N, "z");
    sim.write(x, std::vector<float>(4 * N, 3.0F));
    REQUIRE(run_one(sim, "produce", copy_kernel(x, y)).completed());
    Checker checker(sim.global_memory());
    sim.attach(checker);
    REQUIRE(run_one(sim, "consume", copy_kernel(y, z)).completed());
    CHECK(checker.findings().empty());
    CHECK(sim.read(z) == std::vector<float>(4 * N, 3.0F));
}
