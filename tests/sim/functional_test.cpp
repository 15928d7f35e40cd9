// Functional results: the built-in vector add kernels, every vector op on every element type
// it supports, the cube path (GM -> L1 -> L0A/L0B -> Mmad -> L0C -> GM) and scalar access.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/kernels/builtin_kernels.h"
#include "sim/simulator.h"
#include "test_support.h"

using namespace npusim;

namespace {

constexpr std::uint64_t kN = 64;  // elements per op test: a multiple of 32 bytes for any type

/// d = op(a, b) on one vector core: GM -> UB (MTE2), op (V), UB -> GM (MTE3), with flags.
/// `op` is called as op(block, d, a, b, n). Returns d as read back from GM.
template <Element D, Element S, class Fn>
std::vector<D> run_op(Simulator& sim, const std::vector<S>& a, const std::vector<S>& b, Fn op) {
    const std::uint64_t n = a.size();
    auto ga = sim.allocate<S>(n, "a");
    auto gb = sim.allocate<S>(n, "b");
    auto gd = sim.allocate<D>(n, "d");
    sim.write(ga, a);
    sim.write(gb, b);
    const RunResult r = sim.run({.name = "op"}, [=](Block& blk) {
        auto ua = blk.alloc<S>(MemSpace::UB, n);
        auto ub = blk.alloc<S>(MemSpace::UB, n);
        auto ud = blk.alloc<D>(MemSpace::UB, n);
        blk.copy(ua, ga, n);
        blk.copy(ub, gb, n);
        blk.set_flag(Pipe::MTE2, Pipe::V, 0);
        blk.wait_flag(Pipe::MTE2, Pipe::V, 0);
        op(blk, ud, ua, ub, n);
        blk.set_flag(Pipe::V, Pipe::MTE3, 0);
        blk.wait_flag(Pipe::V, Pipe::MTE3, 0);
        blk.copy(gd, ud, n);
    });
    REQUIRE(r.completed());
    return sim.read(gd);
}

template <Element T, class Fn>
std::vector<T> run_same(Simulator& sim, const std::vector<T>& a, const std::vector<T>& b, Fn op) {
    return run_op<T, T>(sim, a, b, op);
}

template <Element D, Element S>
std::vector<D> run_cast(Simulator& sim, const std::vector<S>& a) {
    return run_op<D, S>(
        sim, a, a, [](Block& blk, auto d, auto x, auto, std::uint64_t n) { blk.cast(d, x, n); });
}

std::vector<float> f32_a() {
    std::vector<float> v(kN);
    for (std::uint64_t i = 0; i < kN; ++i) v[i] = static_cast<float>(i) * 0.75F - 20.0F;
    return v;
}
std::vector<float> f32_b() {
    std::vector<float> v(kN);
    for (std::uint64_t i = 0; i < kN; ++i) v[i] = static_cast<float>((i * 13) % 17) - 8.5F;
    return v;
}
std::vector<half> to_half(const std::vector<float>& v) {
    return {v.begin(), v.end()};
}
std::vector<std::int32_t> i32_a() {
    std::vector<std::int32_t> v(kN);
    for (std::uint64_t i = 0; i < kN; ++i) v[i] = static_cast<std::int32_t>(i * 1000) - 30000;
    v[0] = std::numeric_limits<std::int32_t>::max();
    v[1] = std::numeric_limits<std::int32_t>::min();
    return v;
}
std::vector<std::int32_t> i32_b() {
    std::vector<std::int32_t> v(kN);
    for (std::uint64_t i = 0; i < kN; ++i) v[i] = static_cast<std::int32_t>((i * 7) % 11) - 5;
    v[0] = 1;  // INT32_MAX + 1 wraps
    v[1] = 1;  // INT32_MIN - 1 wraps
    return v;
}
std::vector<std::int8_t> i8_a() {
    std::vector<std::int8_t> v(kN);
    for (std::uint64_t i = 0; i < kN; ++i) {
        v[i] = static_cast<std::int8_t>(static_cast<int>(i * 4) - 128);
    }
    return v;
}
std::vector<std::int8_t> i8_b() {
    std::vector<std::int8_t> v(kN);
    for (std::uint64_t i = 0; i < kN; ++i) {
        v[i] = static_cast<std::int8_t>(static_cast<int>((i * 29) % 200) - 100);
    }
    return v;
}

template <class T>
T wrap(std::int64_t value) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<std::uint64_t>(value)));
}

/// Expected elementwise result with the documented arithmetic: floats in float, half computed
/// in float and rounded back, integers wrapping.
template <class T, class F>
std::vector<T> expect(const std::vector<T>& a, const std::vector<T>& b, F f) {
    std::vector<T> out(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        if constexpr (std::is_integral_v<T>) {
            out[i] = wrap<T>(f(std::int64_t{a[i]}, std::int64_t{b[i]}));
        } else {
            out[i] = T(f(static_cast<float>(a[i]), static_cast<float>(b[i])));
        }
    }
    return out;
}

template <class T>
void check_equal(const std::vector<T>& got, const std::vector<T>& want, std::size_t count) {
    REQUIRE(got.size() >= count);
    REQUIRE(want.size() >= count);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < count; ++i) {
        bool same = false;
        if constexpr (std::is_same_v<T, half>) {
            same = got[i].bits == want[i].bits;
        } else {
            same = got[i] == want[i];
        }
        if (!same) {
            if (wrong++ < 4) {
                UNSCOPED_INFO("index " << i << ": got " << as_double(got[i]) << ", want "
                                       << as_double(want[i]));
            }
        }
    }
    CHECK(wrong == 0);
}
template <class T>
void check_equal(const std::vector<T>& got, const std::vector<T>& want) {
    check_equal(got, want, want.size());
}

/// Binary ops and scalar ops of one element type against the expected arithmetic.
template <Element T>
void check_arithmetic(Simulator& sim, const std::vector<T>& a, const std::vector<T>& b, T scalar) {
    const double s = as_double(scalar);
    SECTION("add") {
        check_equal(
            run_same(sim, a, b,
                     [](Block& k, auto d, auto x, auto y, std::uint64_t n) { k.add(d, x, y, n); }),
            expect(a, b, [](auto x, auto y) { return x + y; }));
    }
    SECTION("sub") {
        check_equal(
            run_same(sim, a, b,
                     [](Block& k, auto d, auto x, auto y, std::uint64_t n) { k.sub(d, x, y, n); }),
            expect(a, b, [](auto x, auto y) { return x - y; }));
    }
    SECTION("mul") {
        check_equal(
            run_same(sim, a, b,
                     [](Block& k, auto d, auto x, auto y, std::uint64_t n) { k.mul(d, x, y, n); }),
            expect(a, b, [](auto x, auto y) { return x * y; }));
    }
    SECTION("max") {
        check_equal(
            run_same(sim, a, b,
                     [](Block& k, auto d, auto x, auto y, std::uint64_t n) { k.max(d, x, y, n); }),
            expect(a, b, [](auto x, auto y) { return x > y ? x : y; }));
    }
    SECTION("min") {
        check_equal(
            run_same(sim, a, b,
                     [](Block& k, auto d, auto x, auto y, std::uint64_t n) { k.min(d, x, y, n); }),
            expect(a, b, [](auto x, auto y) { return x < y ? x : y; }));
    }
    SECTION("adds") {
        check_equal(run_same(sim, a, b,
                             [scalar](Block& k, auto d, auto x, auto, std::uint64_t n) {
                                 k.adds(d, x, scalar, n);
                             }),
                    expect(a, b, [s](auto x, auto) { return x + static_cast<decltype(x)>(s); }));
    }
    SECTION("muls") {
        check_equal(run_same(sim, a, b,
                             [scalar](Block& k, auto d, auto x, auto, std::uint64_t n) {
                                 k.muls(d, x, scalar, n);
                             }),
                    expect(a, b, [s](auto x, auto) { return x * static_cast<decltype(x)>(s); }));
    }
    SECTION("relu") {
        check_equal(
            run_same(sim, a, b,
                     [](Block& k, auto d, auto x, auto, std::uint64_t n) { k.relu(d, x, n); }),
            expect(a, b, [](auto x, auto) { return x > 0 ? x : decltype(x){0}; }));
    }
    SECTION("fill") {
        check_equal(run_same(sim, a, b,
                             [scalar](Block& k, auto d, auto, auto, std::uint64_t n) {
                                 k.fill(d, scalar, n);
                             }),
                    std::vector<T>(a.size(), scalar));
    }
    SECTION("reduce_sum") {
        const std::vector<T> got = run_same(
            sim, a, b,
            [](Block& k, auto d, auto x, auto, std::uint64_t n) { k.reduce_sum(d, x, n); });
        T want{};
        if constexpr (std::is_integral_v<T>) {
            std::int64_t sum = 0;
            for (const T v : a) sum += v;
            want = wrap<T>(sum);
        } else {
            float sum = 0.0F;  // fp32 accumulation for fp16 and fp32
            for (const T v : a) sum += static_cast<float>(v);
            want = T(sum);
        }
        check_equal(got, std::vector<T>{want}, 1);
    }
}

}  // namespace

TEST_CASE("built-in vector add: single and double buffered give x + y over many tiles",
          "[functional][engine]") {
    Simulator sim(test::small_chip());
    const std::uint32_t blocks = GENERATE(1u, 4u, 6u);
    constexpr std::uint64_t kTile = 256;
    const std::uint64_t elements = blocks * kTile * 6;  // 6 tiles per block
    const test::VectorAddData data = test::make_vector_add(sim, elements, kTile, 3, 4);
    const kernels::VectorAddArgs& args = data.args;
    const std::vector<float> want = data.sum();
    INFO("blocks " << blocks);

    SECTION("single buffered") {
        const RunResult r =
            sim.run({.name = "add1", .blocks = blocks}, kernels::vector_add_single_buffered, args);
        REQUIRE(r.completed());
        check_equal(sim.read(args.z), want);
    }
    SECTION("double buffered") {
        const RunResult r =
            sim.run({.name = "add2", .blocks = blocks}, kernels::vector_add_double_buffered, args);
        REQUIRE(r.completed());
        check_equal(sim.read(args.z), want);
    }
}

TEST_CASE("double buffering is at least 1.6x faster than single buffering when balanced",
          "[functional][engine][timing]") {
    constexpr std::uint64_t kTile = 512;
    constexpr std::uint64_t kElements = kTile * 32;
    auto run = [&](bool double_buffered) {
        Simulator sim(test::small_chip());
        const test::VectorAddData data = test::make_vector_add(sim, kElements, kTile, 5, 6);
        const kernels::VectorAddArgs& args = data.args;
        const RunResult r =
            double_buffered ? sim.run({.name = "db"}, kernels::vector_add_double_buffered, args)
                            : sim.run({.name = "sb"}, kernels::vector_add_single_buffered, args);
        REQUIRE(r.completed());
        check_equal(sim.read(args.z), data.sum());
        return r.cycles();
    };
    const Cycle single = run(false);
    const Cycle twice = run(true);
    const double ratio = static_cast<double>(single) / static_cast<double>(twice);
    INFO("single-buffered " << single << " cycles, double-buffered " << twice << " cycles, speedup "
                            << ratio);
    CHECK(ratio >= 1.6);
}

TEST_CASE("fp32 vector ops", "[functional]") {
    Simulator sim(test::small_chip());
    check_arithmetic<float>(sim, f32_a(), f32_b(), 1.5F);
    SECTION("exp") {
        const std::vector<float> a = f32_a();
        std::vector<float> small(a.size());
        for (std::size_t i = 0; i < a.size(); ++i) small[i] = a[i] / 8.0F;
        const std::vector<float> got =
            run_same(sim, small, small,
                     [](Block& k, auto d, auto x, auto, std::uint64_t n) { k.exp(d, x, n); });
        std::vector<float> want(a.size());
        for (std::size_t i = 0; i < a.size(); ++i) want[i] = std::exp(small[i]);
        check_equal(got, want);
    }
}

TEST_CASE("fp16 vector ops compute in fp32 and round to nearest even", "[functional]") {
    Simulator sim(test::small_chip());
    // Values that are not all exact in fp16 after the op, so rounding matters.
    std::vector<float> a = f32_a();
    std::vector<float> b = f32_b();
    for (std::size_t i = 0; i < a.size(); ++i) {
        a[i] = a[i] * 1.001F;
        b[i] = b[i] / 3.0F;
    }
    check_arithmetic<half>(sim, to_half(a), to_half(b), half(0.3F));
    SECTION("exp") {
        std::vector<half> x(kN);
        for (std::uint64_t i = 0; i < kN; ++i) x[i] = half(static_cast<float>(i) / 16.0F - 2.0F);
        const std::vector<half> got = run_same(
            sim, x, x, [](Block& k, auto d, auto s, auto, std::uint64_t n) { k.exp(d, s, n); });
        std::vector<half> want(kN);
        for (std::uint64_t i = 0; i < kN; ++i) want[i] = half(std::exp(static_cast<float>(x[i])));
        check_equal(got, want);
    }
}

TEST_CASE("int32 vector ops wrap", "[functional]") {
    Simulator sim(test::small_chip());
    check_arithmetic<std::int32_t>(sim, i32_a(), i32_b(), std::int32_t{-7});
    SECTION("wrapping is visible") {
        const std::vector<std::int32_t> got =
            run_same(sim, i32_a(), i32_b(),
                     [](Block& k, auto d, auto x, auto y, std::uint64_t n) { k.add(d, x, y, n); });
        CHECK(got[0] == std::numeric_limits<std::int32_t>::min());
        CHECK(got[1] == std::numeric_limits<std::int32_t>::min() + 1);
    }
}

TEST_CASE("int8 vector ops wrap", "[functional]") {
    Simulator sim(test::small_chip());
    check_arithmetic<std::int8_t>(sim, i8_a(), i8_b(), std::int8_t{3});
    SECTION("wrapping is visible") {
        const std::vector<std::int8_t> a(kN, std::int8_t{100});
        const std::vector<std::int8_t> got =
            run_same(sim, a, a,
                     [](Block& k, auto d, auto x, auto y, std::uint64_t n) { k.add(d, x, y, n); });
        CHECK(got[0] == std::int8_t{-56});
    }
}

TEST_CASE("casts: fp32 <-> fp16, float -> int rounds to nearest even and saturates",
          "[functional]") {
    Simulator sim(test::small_chip());
    const float nan = std::numeric_limits<float>::quiet_NaN();
    SECTION("fp32 -> fp16") {
        std::vector<float> a(kN, 0.0F);
        const float ulp = std::ldexp(1.0F, -10);  // fp16 ulp at 1.0
        a[0] = 1.0F + ulp / 2;                    // tie -> even (1.0)
        a[1] = 1.0F + 3 * ulp / 2;                // tie -> even (1 + 2 ulp)
        a[2] = 65504.0F;                          // largest finite
        a[3] = 65520.0F;                          // rounds to infinity
        a[4] = -2.5F;
        a[5] = 1e-8F;                  // below half the smallest subnormal: zero
        a[6] = std::ldexp(1.0F, -24);  // smallest subnormal
        const std::vector<half> got = run_cast<half, float>(sim, a);
        CHECK(got[0].bits == 0x3C00);
        CHECK(got[1].bits == 0x3C02);
        CHECK(got[2].bits == 0x7BFF);
        CHECK(got[3].bits == 0x7C00);
        CHECK(got[4].bits == 0xC100);
        CHECK(got[5].bits == 0x0000);
        CHECK(got[6].bits == 0x0001);
        CHECK(got[7].bits == 0x0000);
    }
    SECTION("fp16 -> fp32 is exact") {
        std::vector<half> a(kN);
        for (std::uint64_t i = 0; i < kN; ++i) {
            a[i].bits = static_cast<std::uint16_t>(i * 997 % 0x7C00);
        }
        const std::vector<float> got = run_cast<float, half>(sim, a);
        std::vector<float> want(kN);
        for (std::uint64_t i = 0; i < kN; ++i) want[i] = static_cast<float>(a[i]);
        check_equal(got, want);
        CHECK(got[1] == static_cast<float>(a[1]));
    }
    SECTION("fp32 -> int32") {
        std::vector<float> a(kN, 0.0F);
        constexpr std::int32_t kMax = std::numeric_limits<std::int32_t>::max();
        constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();
        const std::vector<std::pair<float, std::int32_t>> cases{
            {2.5F, 2},        {3.5F, 4},      {-2.5F, -2}, {-3.5F, -4},
            {0.49999997F, 0}, {1.5F, 2},      {-0.5F, 0},  {7.0F, 7},
            {1e10F, kMax},    {-1e10F, kMin}, {nan, 0},    {2147483520.0F, 2147483520}};
        for (std::size_t i = 0; i < cases.size(); ++i) a[i] = cases[i].first;
        const std::vector<std::int32_t> got = run_cast<std::int32_t, float>(sim, a);
        for (std::size_t i = 0; i < cases.size(); ++i) {
            INFO("cast of " << cases[i].first);
            CHECK(got[i] == cases[i].second);
        }
    }
    SECTION("fp32 -> int8 saturates") {
        std::vector<float> a(kN, 0.0F);
        a[0] = 127.4F;
        a[1] = 200.0F;
        a[2] = -200.0F;
        a[3] = -128.0F;
        a[4] = 126.5F;  // tie -> even
        const std::vector<std::int8_t> got = run_cast<std::int8_t, float>(sim, a);
        CHECK(got[0] == 127);
        CHECK(got[1] == 127);
        CHECK(got[2] == -128);
        CHECK(got[3] == -128);
        CHECK(got[4] == 126);
    }
    SECTION("fp16 -> int32 rounds to nearest even") {
        std::vector<half> a(kN, half(0.0F));
        a[0] = half(2.5F);
        a[1] = half(-5.5F);
        a[2] = half(65504.0F);
        const std::vector<std::int32_t> got = run_cast<std::int32_t, half>(sim, a);
        CHECK(got[0] == 2);
        CHECK(got[1] == -6);
        CHECK(got[2] == 65504);
    }
    SECTION("int32 -> fp32 rounds to nearest even") {
        std::vector<std::int32_t> a(kN, 0);
        a[0] = 16777217;  // 2^24 + 1: tie -> 2^24
        a[1] = -3;
        a[2] = 16777219;  // tie -> 2^24 + 4
        const std::vector<float> got = run_cast<float, std::int32_t>(sim, a);
        CHECK(got[0] == 16777216.0F);
        CHECK(got[1] == -3.0F);
        CHECK(got[2] == 16777220.0F);
    }
    SECTION("int8 -> fp32 and int8 -> fp16") {
        const std::vector<std::int8_t> a = i8_a();
        const std::vector<float> got = run_cast<float, std::int8_t>(sim, a);
        const std::vector<half> got16 = run_cast<half, std::int8_t>(sim, a);
        for (std::uint64_t i = 0; i < kN; ++i) {
            CHECK(got[i] == static_cast<float>(a[i]));
            CHECK(static_cast<float>(got16[i]) == static_cast<float>(a[i]));
        }
    }
}

TEST_CASE("cube path: GM -> L1 -> L0A/L0B -> mmad -> L0C -> GM gives the matrix product",
          "[functional][engine]") {
    test::Recorder rec;
    Simulator sim(test::small_chip());
    struct Shape {
        std::uint32_t m, n, k;
    };
    const Shape s = GENERATE(Shape{32, 32, 32}, Shape{16, 48, 64}, Shape{48, 16, 16});
    const bool accumulate_twice = GENERATE(false, true);
    const std::uint64_t mk = std::uint64_t{s.m} * s.k, kn = std::uint64_t{s.k} * s.n,
                        mn = std::uint64_t{s.m} * s.n;
    std::vector<half> a(mk), b(kn);
    // Small integers and halves: every product and sum is exact in fp32.
    for (std::uint64_t i = 0; i < mk; ++i) {
        a[i] = half(static_cast<float>(static_cast<int>(i % 7) - 3));
    }
    for (std::uint64_t i = 0; i < kn; ++i) {
        b[i] = half(static_cast<float>(static_cast<int>(i % 5) - 2) * 0.5F);
    }
    auto ga = sim.allocate<half>(mk, "a");
    auto gb = sim.allocate<half>(kn, "b");
    auto gc = sim.allocate<float>(mn, "c");
    sim.write(ga, a);
    sim.write(gb, b);
    sim.attach(rec);
    const RunResult r = sim.run({.name = "matmul", .type = KernelType::AIC_ONLY}, [=](Block& blk) {
        auto l1a = blk.alloc<half>(MemSpace::L1, mk);
        auto l1b = blk.alloc<half>(MemSpace::L1, kn);
        auto l0a = blk.alloc<half>(MemSpace::L0A, mk);
        auto l0b = blk.alloc<half>(MemSpace::L0B, kn);
        auto l0c = blk.alloc<float>(MemSpace::L0C, mn);
        blk.copy(l1a, ga, mk);
        blk.copy(l1b, gb, kn);
        blk.set_flag(Pipe::MTE2, Pipe::MTE1, 0);
        blk.wait_flag(Pipe::MTE2, Pipe::MTE1, 0);
        blk.copy(l0a, l1a, mk);
        blk.copy(l0b, l1b, kn);
        blk.set_flag(Pipe::MTE1, Pipe::M, 0);
        blk.wait_flag(Pipe::MTE1, Pipe::M, 0);
        blk.mmad(l0c, l0a, l0b, s.m, s.n, s.k);
        if (accumulate_twice) {
            blk.pipe_barrier(Pipe::M);  // the second reads what the first writes
            blk.mmad(l0c, l0a, l0b, s.m, s.n, s.k, true);
        }
        blk.set_flag(Pipe::M, Pipe::FIX, 0);
        blk.wait_flag(Pipe::M, Pipe::FIX, 0);
        blk.copy(gc, l0c, mn);
    });
    REQUIRE(r.completed());
    INFO("m n k = " << s.m << " " << s.n << " " << s.k << ", accumulate " << accumulate_twice);
    std::vector<float> want(mn);
    for (std::uint32_t row = 0; row < s.m; ++row) {
        for (std::uint32_t col = 0; col < s.n; ++col) {
            float acc = 0.0F;
            for (std::uint32_t i = 0; i < s.k; ++i) {
                acc += static_cast<float>(a[row * s.k + i]) * static_cast<float>(b[i * s.n + col]);
            }
            want[row * s.n + col] = accumulate_twice ? 2 * acc : acc;
        }
    }
    check_equal(sim.read(gc), want);
    // The pipes the data went through, on a cube core.
    for (const Transaction& tx : rec.transactions) CHECK(tx.core_type == CoreType::Cube);
    CHECK(rec.on_pipe(Pipe::MTE1).size() == 4);  // WaitFlag + 2 copies + SetFlag
    CHECK(rec.on_pipe(Pipe::FIX).size() == 2);   // WaitFlag + copy
    REQUIRE(r.cores.size() == 1);
    CHECK(r.cores[0].type == CoreType::Cube);
}

TEST_CASE("scalar load and store on GM", "[functional]") {
    Simulator sim(test::small_chip());
    auto x = sim.allocate<float>(16, "x");
    auto z = sim.allocate<float>(16, "z");
    auto h = sim.allocate<half>(16, "h");
    auto c = sim.allocate<std::int8_t>(32, "c");
    std::vector<float> xs(16);
    for (int i = 0; i < 16; ++i) xs[static_cast<std::size_t>(i)] = static_cast<float>(i) * 1.5F;
    sim.write(x, xs);
    const RunResult r = sim.run({.name = "scalar_gm"}, [=](Block& b) {
        for (std::uint64_t i = 0; i < 16; ++i) b.store(z, i, b.load(x, i) * 2.0F + 1.0F);
        b.store(h, 3, half(-0.5F));
        b.store(c, 5, std::int8_t{-7});
        b.store(c, 6, static_cast<std::int8_t>(b.load(c, 0) + 1));
    });
    REQUIRE(r.completed());
    const std::vector<float> zs = sim.read(z);
    for (std::size_t i = 0; i < 16; ++i) CHECK(zs[i] == xs[i] * 2.0F + 1.0F);
    CHECK(sim.read(h)[3].bits == half(-0.5F).bits);
    CHECK(sim.read(h)[2].bits == 0);
    CHECK(sim.read(c)[5] == -7);
    CHECK(sim.read(c)[6] == 1);
}

TEST_CASE("scalar store to UB feeds V and MTE3 and scalar load reads UB after MTE2",
          "[functional]") {
    Simulator sim(test::small_chip());
    auto x = sim.allocate<float>(64, "x");
    auto z = sim.allocate<float>(64, "z");
    auto seen = sim.allocate<float>(8, "seen");
    sim.write(x, test::pattern_f32(64, 9));
    const RunResult r = sim.run({.name = "scalar_ub"}, [=](Block& b) {
        auto ub = b.alloc<float>(MemSpace::UB, 64);
        auto out = b.alloc<float>(MemSpace::UB, 64);
        b.fill(ub, 0.0F, 64);
        b.set_flag(Pipe::V, Pipe::S, 0);
        b.wait_flag(Pipe::V, Pipe::S, 0);
        for (std::uint64_t i = 0; i < 64; i += 8) b.store(ub, i, static_cast<float>(i) + 0.5F);
        b.set_flag(Pipe::S, Pipe::V, 0);  // fires once the stores are visible
        b.wait_flag(Pipe::S, Pipe::V, 0);
        b.muls(out, ub, 2.0F, 64);
        b.set_flag(Pipe::V, Pipe::MTE3, 0);
        b.wait_flag(Pipe::V, Pipe::MTE3, 0);
        b.copy(z, out, 64);
        // And the other way: MTE2 fills UB, the scalar unit reads it.
        b.set_flag(Pipe::V, Pipe::MTE2, 0);  // V has read ub: MTE2 may overwrite it
        b.wait_flag(Pipe::V, Pipe::MTE2, 0);
        b.copy(ub, x, 64);
        b.set_flag(Pipe::MTE2, Pipe::S, 0);
        b.wait_flag(Pipe::MTE2, Pipe::S, 0);
        for (std::uint64_t i = 0; i < 8; ++i) b.store(seen, i, b.load(ub, i * 8));
    });
    REQUIRE(r.completed());
    const std::vector<float> zs = sim.read(z);
    for (std::size_t i = 0; i < 64; ++i) {
        INFO("index " << i);
        CHECK(zs[i] == (i % 8 == 0 ? (static_cast<float>(i) + 0.5F) * 2.0F : 0.0F));
    }
    const std::vector<float> xs = test::pattern_f32(64, 9);
    const std::vector<float> ss = sim.read(seen);
    for (std::size_t i = 0; i < 8; ++i) CHECK(ss[i] == xs[i * 8]);
}

// Scalar accesses need natural alignment only: element 1 of a float UB tensor is 4-byte
// aligned and must be readable and writable by the scalar unit.
TEST_CASE("scalar load and store reach every element of a UB tensor", "[functional]") {
    Simulator sim(test::small_chip());
    auto z = sim.allocate<float>(8, "z");
    const RunResult r = sim.run({.name = "scalar_ub_any"}, [=](Block& b) {
        auto ub = b.alloc<float>(MemSpace::UB, 8);
        for (std::uint64_t i = 0; i < 8; ++i) b.store(ub, i, static_cast<float>(i) * 3.0F);
        b.set_flag(Pipe::S, Pipe::MTE3, 0);
        b.wait_flag(Pipe::S, Pipe::MTE3, 0);
        b.copy(z, ub, 8);
        b.pipe_barrier(Pipe::ALL);
        for (std::uint64_t i = 0; i < 8; ++i) b.store(z, i, b.load(ub, i) + 1.0F);
    });
    REQUIRE(r.completed());
    const std::vector<float> zs = sim.read(z);
    for (std::size_t i = 0; i < 8; ++i) CHECK(zs[i] == static_cast<float>(i) * 3.0F + 1.0F);
}

// The scalar unit executes in program order: a load after a store to the same address must
// return the stored value (no other unit is involved, and no flag can order S against S).
TEST_CASE("a scalar load sees the scalar unit's own earlier store", "[functional]") {
    Simulator sim(test::small_chip());
    auto g = sim.allocate<float>(8, "g");
    auto out = sim.allocate<float>(8, "out");
    sim.write(g, std::vector<float>(8, 1.0F));
    const RunResult r = sim.run({.name = "store_load"}, [=](Block& b) {
        b.store(g, 3, 42.0F);
        b.store(out, 0, b.load(g, 3));
    });
    REQUIRE(r.completed());
    CHECK(sim.read(g)[3] == 42.0F);
    CHECK(sim.read(out)[0] == 42.0F);
}
