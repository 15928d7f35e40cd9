// Compute functions, called the way the core calls them: through op_info(op).compute with
// the sources in access order. Covers every vector op on fp32, fp16, int32 and int8
// (integer wrap), ReduceSum's fp32 accumulation, Cast rounding and saturation, and Mmad.
#include "pipes/compute.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <catch2/catch.hpp>

#include "pipes/op_table.h"
#include "unit_support.h"

using namespace npusim;
using npusim::unit::compute_tx;
using npusim::unit::from_bytes;
using npusim::unit::to_bytes;

namespace {

/// Runs `op` on one or two source vectors (or none, for Fill, with `count`).
template <class T>
std::vector<T> run_op(Op op, const std::vector<T>& a, const std::vector<T>& b = {},
                      double scalar = 0.0, std::uint64_t count = 0) {
    const OpInfo& info = op_info(op);
    REQUIRE(info.compute != nullptr);
    if (count == 0) count = a.size();
    const Transaction tx = compute_tx(op, dtype_of<T>, count, scalar);
    const std::vector<std::byte> x = to_bytes(a), y = to_bytes(b);
    const std::byte* sources[3] = {a.empty() ? nullptr : x.data(), b.empty() ? nullptr : y.data(),
                                   nullptr};
    std::vector<std::byte> out(count * sizeof(T));
    info.compute(tx, sources, out.data());
    return from_bytes<T>(out, info.single_output ? 1 : count);
}

template <class To, class From>
std::vector<To> cast(const std::vector<From>& in) {
    const Transaction tx = compute_tx(Op::Cast, dtype_of<To>, in.size(), 0.0, dtype_of<From>);
    const std::vector<std::byte> x = to_bytes(in);
    const std::byte* sources[3] = {x.data(), nullptr, nullptr};
    std::vector<std::byte> out(in.size() * sizeof(To));
    op_info(Op::Cast).compute(tx, sources, out.data());
    return from_bytes<To>(out, in.size());
}

std::vector<half> halves(const std::vector<float>& values) {
    return {values.begin(), values.end()};
}
std::vector<float> floats(const std::vector<half>& values) {
    return {values.begin(), values.end()};
}
std::vector<int> ints(const std::vector<std::int8_t>& values) {
    return {values.begin(), values.end()};
}
std::vector<std::int8_t> i8(const std::vector<int>& values) {
    std::vector<std::int8_t> out;
    for (int v : values) out.push_back(static_cast<std::int8_t>(v));
    return out;
}

constexpr std::int32_t kI32Max = std::numeric_limits<std::int32_t>::max();
constexpr std::int32_t kI32Min = std::numeric_limits<std::int32_t>::min();

}  // namespace

TEST_CASE("compute: binary ops on fp32", "[unit]") {
    const std::vector<float> a{1.5F, -2.0F, 0.0F, 8.0F};
    const std::vector<float> b{0.25F, 4.0F, -1.0F, 8.0F};
    CHECK(run_op(Op::Add, a, b) == std::vector<float>{1.75F, 2.0F, -1.0F, 16.0F});
    CHECK(run_op(Op::Sub, a, b) == std::vector<float>{1.25F, -6.0F, 1.0F, 0.0F});
    CHECK(run_op(Op::Mul, a, b) == std::vector<float>{0.375F, -8.0F, -0.0F, 64.0F});
    CHECK(run_op(Op::Max, a, b) == std::vector<float>{1.5F, 4.0F, 0.0F, 8.0F});
    CHECK(run_op(Op::Min, a, b) == std::vector<float>{0.25F, -2.0F, -1.0F, 8.0F});
}

TEST_CASE("compute: binary ops on fp16 round each result to half", "[unit]") {
    const auto a = halves({1.5F, 2048.0F, 0.1F, -3.0F});
    const auto b = halves({0.25F, 1.0F, 0.2F, 5.0F});
    // 2048 + 1 = 2049 is not a half: ties to even gives 2048.
    CHECK(floats(run_op(Op::Add, a, b)) ==
          std::vector<float>{1.75F, 2048.0F, float(half(float(half(0.1F)) + float(half(0.2F)))),
                             2.0F});
    CHECK(floats(run_op(Op::Sub, a, b)) ==
          floats(halves({1.25F, 2047.0F, float(half(0.1F)) - float(half(0.2F)), -8.0F})));
    CHECK(floats(run_op(Op::Mul, halves({300.0F, -2.0F}), halves({300.0F, 0.5F}))) ==
          std::vector<float>{INFINITY, -1.0F});  // 90000 overflows half
    CHECK(floats(run_op(Op::Max, a, b)) == floats(halves({1.5F, 2048.0F, 0.2F, 5.0F})));
    CHECK(floats(run_op(Op::Min, a, b)) == floats(halves({0.25F, 1.0F, 0.1F, -3.0F})));
}

TEST_CASE("compute: binary ops on int32 wrap", "[unit]") {
    const std::vector<std::int32_t> a{kI32Max, kI32Min, 65536, -7};
    const std::vector<std::int32_t> b{1, 1, 65536, 3};
    CHECK(run_op(Op::Add, a, b) == std::vector<std::int32_t>{kI32Min, kI32Min + 1, 131072, -4});
    CHECK(run_op(Op::Sub, a, b) == std::vector<std::int32_t>{kI32Max - 1, kI32Max, 0, -10});
    CHECK(run_op(Op::Mul, a, b) == std::vector<std::int32_t>{kI32Max, kI32Min, 0, -21});
    CHECK(run_op(Op::Max, a, b) == std::vector<std::int32_t>{kI32Max, 1, 65536, 3});
    CHECK(run_op(Op::Min, a, b) == std::vector<std::int32_t>{1, kI32Min, 65536, -7});
}

TEST_CASE("compute: binary ops on int8 wrap", "[unit]") {
    const auto a = i8({100, -128, 16, -5});
    const auto b = i8({100, 1, 16, 7});
    CHECK(ints(run_op(Op::Add, a, b)) == std::vector<int>{-56, -127, 32, 2});
    CHECK(ints(run_op(Op::Sub, a, b)) == std::vector<int>{0, 127, 0, -12});
    CHECK(ints(run_op(Op::Mul, a, b)) == std::vector<int>{16, -128, 0, -35});
    CHECK(ints(run_op(Op::Max, a, b)) == std::vector<int>{100, 1, 16, 7});
    CHECK(ints(run_op(Op::Min, a, b)) == std::vector<int>{100, -128, 16, -5});
}

TEST_CASE("compute: ops with a scalar operand", "[unit]") {
    CHECK(run_op(Op::Adds, std::vector<float>{1.0F, -2.5F}, {}, 0.5) ==
          std::vector<float>{1.5F, -2.0F});
    CHECK(run_op(Op::Muls, std::vector<float>{3.0F, -2.5F}, {}, -2.0) ==
          std::vector<float>{-6.0F, 5.0F});
    CHECK(floats(run_op(Op::Adds, halves({2048.0F, 1.0F}), {}, 1.0)) ==
          std::vector<float>{2048.0F, 2.0F});
    CHECK(floats(run_op(Op::Muls, halves({40000.0F}), {}, 2.0)) == std::vector<float>{INFINITY});
    CHECK(run_op(Op::Adds, std::vector<std::int32_t>{kI32Max, -1}, {}, 1.0) ==
          std::vector<std::int32_t>{kI32Min, 0});
    CHECK(run_op(Op::Muls, std::vector<std::int32_t>{1 << 30, 5}, {}, 4.0) ==
          std::vector<std::int32_t>{0, 20});
    CHECK(ints(run_op(Op::Adds, i8({127, -128}), {}, 1.0)) == std::vector<int>{-128, -127});
    CHECK(ints(run_op(Op::Muls, i8({64, -3}), {}, 2.0)) == std::vector<int>{-128, -6});
    // An integer op takes the scalar truncated to an integer.
    CHECK(run_op(Op::Adds, std::vector<std::int32_t>{10}, {}, 2.9) ==
          std::vector<std::int32_t>{12});
}

TEST_CASE("compute: Exp on float types", "[unit]") {
    const auto f32 = run_op(Op::Exp, std::vector<float>{0.0F, 1.0F, -1.0F});
    CHECK(f32[0] == 1.0F);
    CHECK(f32[1] == std::exp(1.0F));
    CHECK(f32[2] == std::exp(-1.0F));
    CHECK(floats(run_op(Op::Exp, halves({0.0F, 1.0F, 12.0F}))) ==
          std::vector<float>{1.0F, float(half(std::exp(1.0F))), INFINITY});
}

TEST_CASE("compute: Relu clamps negatives to zero on every type", "[unit]") {
    CHECK(run_op(Op::Relu, std::vector<float>{-1.5F, 0.0F, 2.5F}) ==
          std::vector<float>{0.0F, 0.0F, 2.5F});
    CHECK(floats(run_op(Op::Relu, halves({-1.5F, 3.0F}))) == std::vector<float>{0.0F, 3.0F});
    CHECK(run_op(Op::Relu, std::vector<std::int32_t>{kI32Min, -1, 0, 9}) ==
          std::vector<std::int32_t>{0, 0, 0, 9});
    CHECK(ints(run_op(Op::Relu, i8({-128, 127, -1}))) == std::vector<int>{0, 127, 0});
}

TEST_CASE("compute: Fill writes the scalar to every element without reading", "[unit]") {
    CHECK(run_op(Op::Fill, std::vector<float>{}, {}, 2.5, 3) ==
          std::vector<float>{2.5F, 2.5F, 2.5F});
    CHECK(floats(run_op(Op::Fill, std::vector<half>{}, {}, 0.1, 2)) ==
          std::vector<float>(2, float(half(0.1F))));
    CHECK(run_op(Op::Fill, std::vector<std::int32_t>{}, {}, -7.0, 2) ==
          std::vector<std::int32_t>{-7, -7});
    CHECK(ints(run_op(Op::Fill, std::vector<std::int8_t>{}, {}, 5.0, 4)) ==
          std::vector<int>{5, 5, 5, 5});
}

TEST_CASE("compute: ReduceSum writes one element", "[unit]") {
    CHECK(run_op(Op::ReduceSum, std::vector<float>{1.5F, 2.5F, -1.0F}) == std::vector<float>{3.0F});
    // fp16 accumulates in fp32: 2048 + 1 + 1 would stay 2048 in half arithmetic.
    CHECK(floats(run_op(Op::ReduceSum, halves({2048.0F, 1.0F, 1.0F}))) ==
          std::vector<float>{2050.0F});
    CHECK(run_op(Op::ReduceSum, std::vector<std::int32_t>{kI32Max, 1, 5}) ==
          std::vector<std::int32_t>{kI32Min + 5});
    CHECK(ints(run_op(Op::ReduceSum, i8({100, 100, 1}))) == std::vector<int>{-55});
}

TEST_CASE("compute: Cast float to integer rounds to nearest even and saturates", "[unit]") {
    CHECK(cast<std::int32_t>(std::vector<float>{2.5F, 3.5F, -2.5F, 1.4F, -1.6F}) ==
          std::vector<std::int32_t>{2, 4, -2, 1, -2});
    CHECK(cast<std::int32_t>(std::vector<float>{1e10F, -1e10F, NAN, INFINITY}) ==
          std::vector<std::int32_t>{kI32Max, kI32Min, 0, kI32Max});
    CHECK(ints(cast<std::int8_t>(std::vector<float>{200.0F, -200.0F, 127.5F, -128.5F, 0.5F})) ==
          std::vector<int>{127, -128, 127, -128, 0});
    CHECK(ints(cast<std::int8_t>(halves({-0.5F, 1.5F, 300.0F}))) == std::vector<int>{0, 2, 127});
}

TEST_CASE("compute: Cast between integer types saturates", "[unit]") {
    CHECK(ints(cast<std::int8_t>(std::vector<std::int32_t>{300, -300, 42})) ==
          std::vector<int>{127, -128, 42});
    CHECK(cast<std::int32_t>(i8({-128, 127})) == std::vector<std::int32_t>{-128, 127});
}

TEST_CASE("compute: Cast to float types rounds to nearest even", "[unit]") {
    CHECK(cast<float>(std::vector<std::int32_t>{16777217, -3}) ==
          std::vector<float>{16777216.0F, -3.0F});
    CHECK(floats(cast<half>(std::vector<float>{1.0F / 3.0F, 70000.0F, 2049.0F, 2051.0F})) ==
          std::vector<float>{float(half(1.0F / 3.0F)), INFINITY, 2048.0F, 2052.0F});
    CHECK(floats(cast<half>(i8({-128, 7}))) == std::vector<float>{-128.0F, 7.0F});
    CHECK(cast<float>(halves({0.1F, -65504.0F})) ==
          std::vector<float>{float(half(0.1F)), -65504.0F});
}

TEST_CASE("compute: Mmad multiplies fp16 matrices into fp32", "[unit]") {
    // a: 2x3, b: 3x2, row-major.
    const auto a = halves({1, 2, 3, 4, 5, 6});
    const auto b = halves({7, 8, 9, 10, 11, 12});
    Transaction tx;
    tx.op = Op::Mmad;
    tx.m = 2;
    tx.n = 2;
    tx.k = 3;
    const auto x = to_bytes(a), y = to_bytes(b);
    const auto c_in = to_bytes(std::vector<float>{1000, 2000, 3000, 4000});
    std::vector<std::byte> out(4 * sizeof(float));

    const std::byte* sources[3] = {x.data(), y.data(), nullptr};
    op_info(Op::Mmad).compute(tx, sources, out.data());
    CHECK(from_bytes<float>(out, 4) == std::vector<float>{58, 64, 139, 154});

    tx.accumulate = true;
    const std::byte* with_c[3] = {x.data(), y.data(), c_in.data()};
    op_info(Op::Mmad).compute(tx, with_c, out.data());
    CHECK(from_bytes<float>(out, 4) == std::vector<float>{1058, 2064, 3139, 4154});

    // Without accumulate, c_in is not read even if given.
    tx.accumulate = false;
    op_info(Op::Mmad).compute(tx, with_c, out.data());
    CHECK(from_bytes<float>(out, 4) == std::vector<float>{58, 64, 139, 154});
}

TEST_CASE("compute: Mmad accumulates products in fp32, not fp16", "[unit]") {
    // 1x1 result of k = 3: 2048*1 + 1*1 + 1*1 = 2050 (half arithmetic would give 2048).
    const auto a = halves({2048, 1, 1});
    const auto b = halves({1, 1, 1});
    Transaction tx;
    tx.op = Op::Mmad;
    tx.m = 1;
    tx.n = 1;
    tx.k = 3;
    const auto x = to_bytes(a), y = to_bytes(b);
    std::vector<std::byte> out(sizeof(float));
    const std::byte* sources[3] = {x.data(), y.data(), nullptr};
    compute_mmad(tx, sources, out.data());
    CHECK(from_bytes<float>(out, 1) == std::vector<float>{2050.0F});
}
