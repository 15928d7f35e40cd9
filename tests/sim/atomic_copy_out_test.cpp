// Atomic copy-out (Block::set_atomic, the vendor's SetAtomicAdd / Max / Min): the data
// semantics of copies to GM in atomic mode, which copies the mode applies to, and its rules.
// The checker's side (atomic writes never race each other) is in checker_corpus_test.cpp.
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/simulator.h"
#include "test_support.h"

using namespace npusim;
using Catch::Matchers::Contains;

namespace {

constexpr std::uint64_t kN = 64;  // elements per block

/// Runs `blocks` AIV blocks; block i copies in[i*kN, (i+1)*kN) to `out` in atomic mode `op`.
template <Element T>
std::vector<T> accumulate(AtomicOp op, const std::vector<T>& in, const std::vector<T>& initial,
                          std::uint32_t blocks) {
    Simulator sim(test::small_chip());
    auto x = sim.allocate<T>(in.size(), "x");
    auto z = sim.allocate<T>(kN, "z");
    sim.write(x, in);
    sim.write(z, initial);
    const RunResult r = sim.run({.name = "atomic", .blocks = blocks}, [=](Block& b) {
        auto ub = b.alloc<T>(MemSpace::UB, kN);
        b.copy(ub, x.sub(b.block_idx() * kN, kN), kN);
        b.set_flag(Pipe::MTE2, Pipe::MTE3, 0);
        b.wait_flag(Pipe::MTE2, Pipe::MTE3, 0);
        b.set_atomic<T>(op);
        b.copy(z, ub, kN);
        b.clear_atomic();
    });
    REQUIRE(r.completed());
    return sim.read(z);
}

}  // namespace

TEST_CASE("atomic add accumulates every block's copy into GM, in each element type",
          "[atomic][functional]") {
    SECTION("fp32") {
        std::vector<float> in(4 * kN);
        for (std::uint64_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % kN) * 0.5F;
        const auto got = accumulate<float>(AtomicOp::Add, in, std::vector<float>(kN, 1.0F), 4);
        for (std::uint64_t i = 0; i < kN; ++i) CHECK(got[i] == 1.0F + 4 * (i * 0.5F));
    }
    SECTION("fp16") {
        const auto got = accumulate<half>(AtomicOp::Add, std::vector<half>(4 * kN, half(0.25F)),
                                          std::vector<half>(kN, half(2.0F)), 4);
        for (const half v : got) CHECK(static_cast<float>(v) == 3.0F);
    }
    SECTION("int32") {
        const auto got =
            accumulate<std::int32_t>(AtomicOp::Add, std::vector<std::int32_t>(3 * kN, 7),
                                     std::vector<std::int32_t>(kN, -1), 3);
        for (const std::int32_t v : got) CHECK(v == 20);
    }
    SECTION("int8 wraps like the vector Add") {
        const auto got =
            accumulate<std::int8_t>(AtomicOp::Add, std::vector<std::int8_t>(2 * kN, 100),
                                    std::vector<std::int8_t>(kN, 0), 2);
        for (const std::int8_t v : got) CHECK(v == static_cast<std::int8_t>(-56));
    }
}

TEST_CASE("atomic max and min keep the largest and smallest value per element",
          "[atomic][functional]") {
    std::vector<float> in(3 * kN);
    for (std::uint64_t i = 0; i < in.size(); ++i) {
        in[i] = static_cast<float>((i * 37) % 101) - 50.0F;
    }
    const auto hi = accumulate<float>(AtomicOp::Max, in, std::vector<float>(kN, -1000.0F), 3);
    const auto lo = accumulate<float>(AtomicOp::Min, in, std::vector<float>(kN, 1000.0F), 3);
    for (std::uint64_t i = 0; i < kN; ++i) {
        const float a = in[i], b = in[kN + i], c = in[2 * kN + i];
        CHECK(hi[i] == std::max({a, b, c}));
        CHECK(lo[i] == std::min({a, b, c}));
    }
}

TEST_CASE("the atomic mode applies to copies to GM only and ends with clear_atomic",
          "[atomic][functional]") {
    Simulator sim(test::small_chip());
    test::Recorder rec;
    sim.attach(rec);
    auto x = sim.allocate<float>(kN, "x");
    auto z = sim.allocate<float>(kN, "z");
    sim.write(x, std::vector<float>(kN, 2.0F));
    sim.write(z, std::vector<float>(kN, 5.0F));
    const RunResult r = sim.run({.name = "modes"}, [=](Block& b) {
        auto ub = b.alloc<float>(MemSpace::UB, kN);
        auto ub2 = b.alloc<float>(MemSpace::UB, kN);
        b.set_atomic<float>(AtomicOp::Add);
        b.copy(ub, x, kN);  // GM -> UB: a plain load
        b.set_flag(Pipe::MTE2, Pipe::V, 0);
        b.wait_flag(Pipe::MTE2, Pipe::V, 0);
        b.copy(ub2, ub, kN);  // UB -> UB: a plain copy
        b.set_flag(Pipe::V, Pipe::MTE3, 0);
        b.wait_flag(Pipe::V, Pipe::MTE3, 0);
        b.copy(z, ub2, kN);  // UB -> GM: 5 + 2
        b.clear_atomic();
        b.pipe_barrier(Pipe::MTE3);
        b.copy(z, ub2, kN);  // plain again: 2
    });
    REQUIRE(r.completed());
    for (const float v : sim.read(z)) CHECK(v == 2.0F);
    const auto copies = rec.of(Op::Copy);
    REQUIRE(copies.size() == 4);
    CHECK(copies[0].atomic == AtomicOp::None);
    CHECK(copies[1].atomic == AtomicOp::None);
    CHECK(copies[2].atomic == AtomicOp::Add);
    CHECK(copies[3].atomic == AtomicOp::None);
}

TEST_CASE("atomic copy-out from L0C on FIX accumulates matrix products of two cube blocks",
          "[atomic][functional]") {
    Simulator sim(test::small_chip());
    constexpr std::uint32_t D = 16;
    constexpr std::uint64_t DD = D * D;
    auto ga = sim.allocate<half>(DD, "a");
    auto gb = sim.allocate<half>(DD, "b");
    auto gc = sim.allocate<float>(DD, "c");
    std::vector<half> identity(DD, half(0.0F));
    for (std::uint32_t i = 0; i < D; ++i) identity[i * D + i] = half(1.0F);
    std::vector<half> a(DD);
    for (std::uint64_t i = 0; i < DD; ++i) a[i] = half(static_cast<float>(i % 9) - 4.0F);
    sim.write(ga, a);
    sim.write(gb, identity);
    sim.write(gc, std::vector<float>(DD, 0.0F));
    const RunResult r = sim.run({.name = "cube_atomic", .blocks = 2, .type = KernelType::AIC_ONLY},
                                [=](Block& blk) {
                                    auto l1a = blk.alloc<half>(MemSpace::L1, DD);
                                    auto l1b = blk.alloc<half>(MemSpace::L1, DD);
                                    auto l0a = blk.alloc<half>(MemSpace::L0A, DD);
                                    auto l0b = blk.alloc<half>(MemSpace::L0B, DD);
                                    auto l0c = blk.alloc<float>(MemSpace::L0C, DD);
                                    blk.copy(l1a, ga, DD);
                                    blk.copy(l1b, gb, DD);
                                    blk.set_flag(Pipe::MTE2, Pipe::MTE1, 0);
                                    blk.wait_flag(Pipe::MTE2, Pipe::MTE1, 0);
                                    blk.copy(l0a, l1a, DD);
                                    blk.copy(l0b, l1b, DD);
                                    blk.set_flag(Pipe::MTE1, Pipe::M, 0);
                                    blk.wait_flag(Pipe::MTE1, Pipe::M, 0);
                                    blk.mmad(l0c, l0a, l0b, D, D, D);
                                    blk.set_flag(Pipe::M, Pipe::FIX, 0);
                                    blk.wait_flag(Pipe::M, Pipe::FIX, 0);
                                    blk.set_atomic<float>(AtomicOp::Add);
                                    blk.copy(gc, l0c, DD);
                                    blk.clear_atomic();
                                });
    REQUIRE(r.completed());
    const std::vector<float> got = sim.read(gc);
    for (std::uint64_t i = 0; i < DD; ++i) CHECK(got[i] == 2.0F * static_cast<float>(a[i]));
}

TEST_CASE("a copy of another element type while an atomic mode is set is a rule error",
          "[atomic][rules]") {
    Simulator sim(test::small_chip());
    auto z = sim.allocate<half>(kN, "z");
    int set_line = 0, copy_line = 0;
    sim.launch({.name = "mismatch"}, [&, z](Block& b) {
        auto ub = b.alloc<half>(MemSpace::UB, kN);
        b.fill(ub, half(1.0F), kN);
        b.set_flag(Pipe::V, Pipe::MTE3, 0);
        b.wait_flag(Pipe::V, Pipe::MTE3, 0);
        set_line = __LINE__ + 1;
        b.set_atomic<float>(AtomicOp::Add);
        copy_line = __LINE__ + 1;
        b.copy(z, ub, kN);
    });
    try {
        (void)sim.run();
        FAIL("expected a KernelError");
    } catch (const KernelError& error) {
        const std::string message = error.what();
        INFO(message);
        CHECK_THAT(message, Contains("kernel 'mismatch'"));
        CHECK_THAT(message, Contains(test::location_prefix(__FILE__, copy_line)));
        CHECK_THAT(message, Contains(test::location_prefix(__FILE__, set_line)));
        CHECK_THAT(message, Contains("DataCopy UB->GM of fp16 while atomic add of fp32 is set"));
    }
}
