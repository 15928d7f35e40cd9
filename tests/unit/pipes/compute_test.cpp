// Compute functions, called the way the core calls them: through op_info(op).compute with
// the sources in access order. Covers every vector op on fp32, fp16, int32 and int8
// (integer wrap), ReduceSum's fp32 accumulation, Cast rounding and saturation, and Mmad;
// then the types uint8 .. bf16, every Cast round mode, Compare / Select, groups and Axpy.
#include "pipes/compute.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
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

// Vendor API reference (logic operations): unsigned types shift logically, signed types
// arithmetically; 0b1010101010101010 as int16 << 1 is 0b1101010101010100, << 3
// 0b1101010101010000, >> 1 0b1101010101010101, >> 3 0b1111010101010101.
TEST_CASE("compute: ShiftLeft / ShiftRight, logical for unsigned, arithmetic for signed",
          "[unit]") {
    using u16 = std::uint16_t;
    using i16 = std::int16_t;
    const auto pattern = static_cast<i16>(0b1010101010101010);
    auto bits16 = [](const std::vector<i16>& v) {
        std::vector<u16> out;
        for (i16 x : v) out.push_back(static_cast<u16>(x));
        return out;
    };
    CHECK(run_op(Op::ShiftLeft, std::vector<u16>{0b1010101010101010, 1}, {}, 1.0) ==
          std::vector<u16>{0b0101010101010100, 2});
    CHECK(run_op(Op::ShiftRight, std::vector<u16>{0b1010101010101010, 1}, {}, 1.0) ==
          std::vector<u16>{0b0101010101010101, 0});
    CHECK(bits16(run_op(Op::ShiftLeft, std::vector<i16>{pattern, pattern}, {}, 1.0)) ==
          std::vector<u16>{0b1101010101010100, 0b1101010101010100});
    CHECK(bits16(run_op(Op::ShiftLeft, std::vector<i16>{pattern}, {}, 3.0)) ==
          std::vector<u16>{0b1101010101010000});
    CHECK(bits16(run_op(Op::ShiftRight, std::vector<i16>{pattern}, {}, 1.0)) ==
          std::vector<u16>{0b1101010101010101});
    CHECK(bits16(run_op(Op::ShiftRight, std::vector<i16>{pattern}, {}, 3.0)) ==
          std::vector<u16>{0b1111010101010101});
    // A shift by the whole width: unsigned to 0; signed right to the sign, left to the sign bit.
    CHECK(run_op(Op::ShiftLeft, std::vector<std::uint32_t>{0xFFFFFFFFU}, {}, 32.0) ==
          std::vector<std::uint32_t>{0});
    CHECK(run_op(Op::ShiftRight, std::vector<std::int32_t>{-5, 5}, {}, 32.0) ==
          std::vector<std::int32_t>{-1, 0});
    CHECK(run_op(Op::ShiftLeft, std::vector<std::int32_t>{-5, 5}, {}, 32.0) ==
          std::vector<std::int32_t>{kI32Min, 0});
    CHECK(run_op(Op::ShiftRight, std::vector<std::int32_t>{-8}, {}, 0.0) ==
          std::vector<std::int32_t>{-8});
}

TEST_CASE("compute: AddRelu / SubRelu clamp the sum / difference at zero", "[unit]") {
    CHECK(run_op(Op::AddRelu, std::vector<float>{1.5F, -3.0F}, {1.0F, 2.0F}) ==
          std::vector<float>{2.5F, 0.0F});
    CHECK(run_op(Op::SubRelu, std::vector<float>{1.5F, -3.0F}, {1.0F, 2.0F}) ==
          std::vector<float>{0.5F, 0.0F});
    CHECK(floats(run_op(Op::AddRelu, halves({65504.0F, -1.0F}), halves({65504.0F, 0.5F}))) ==
          std::vector<float>{INFINITY, 0.0F});
    CHECK(run_op(Op::AddRelu, std::vector<std::int16_t>{32767, -5}, {1, 9}) ==
          std::vector<std::int16_t>{0, 4});  // the sum wraps first, as Add does
}

TEST_CASE("compute: CreateVecIndex writes firstValue + i without reading", "[unit]") {
    CHECK(run_op(Op::CreateVecIndex, std::vector<std::int16_t>{}, {}, -2.0, 5) ==
          std::vector<std::int16_t>{-2, -1, 0, 1, 2});
    CHECK(run_op(Op::CreateVecIndex, std::vector<float>{}, {}, 0.5, 3) ==
          std::vector<float>{0.5F, 1.5F, 2.5F});
    CHECK(floats(run_op(Op::CreateVecIndex, std::vector<half>{}, {}, 2047.0, 3)) ==
          std::vector<float>{2047.0F, 2048.0F, 2048.0F});  // 2049 rounds to even in half
    CHECK(run_op(Op::CreateVecIndex, std::vector<std::int16_t>{}, {}, 32767.0, 2) ==
          std::vector<std::int16_t>{32767, -32768});
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

TEST_CASE("compute: Transpose writes a dense or row-strided matrix transposed", "[unit]") {
    // 2 x 3 int16 source, rows 8 bytes apart (a strided source: TransDataTo5HD's address list).
    Transaction tx = compute_tx(Op::Transpose, DType::I16, 6, 0.0);
    tx.group = 2;
    tx.add_access(MemSpace::UB, false, 0, 6, 2, 8);
    const std::vector<std::int16_t> in{1, 2, 3, -1, 4, 5, 6, -1};
    const std::vector<std::byte> x = to_bytes(in);
    const std::byte* sources[3] = {x.data(), nullptr, nullptr};
    std::vector<std::byte> out(6 * sizeof(std::int16_t));
    op_info(Op::Transpose).compute(tx, sources, out.data());
    CHECK(from_bytes<std::int16_t>(out, 6) == std::vector<std::int16_t>{1, 4, 2, 5, 3, 6});
    Transaction dense = compute_tx(Op::Transpose, DType::I16, 6, 0.0);
    dense.group = 3;  // 3 x 2 dense
    dense.add_access(MemSpace::UB, false, 0, 12);
    op_info(Op::Transpose).compute(dense, sources, out.data());
    CHECK(from_bytes<std::int16_t>(out, 6) == std::vector<std::int16_t>{1, 3, 4, 2, -1, 5});
}

TEST_CASE("compute: CastInt4 packs half to 4 bits by the round mode and back", "[unit]") {
    Transaction tx = compute_tx(Op::CastInt4, DType::I8, 4, 0.0);
    tx.src_dtype = DType::F16;
    tx.mode = static_cast<std::uint32_t>(RoundMode::Ceil);
    const std::vector<half> in = halves({-8.5F, 7.5F, 1.25F, -0.5F});
    const std::vector<std::byte> x = to_bytes(in);
    const std::byte* sources[3] = {x.data(), nullptr, nullptr};
    std::vector<std::byte> packed(2);
    op_info(Op::CastInt4).compute(tx, sources, packed.data());
    // ceil: -8 (saturated), 7 (8 saturated), 2, 0; element 2i in the low nibble.
    CHECK(std::to_integer<int>(packed[0]) == 0x78);
    CHECK(std::to_integer<int>(packed[1]) == 0x02);
    Transaction back = compute_tx(Op::CastInt4, DType::F16, 4, 0.0);
    back.src_dtype = DType::I8;
    const std::byte* packed_source[3] = {packed.data(), nullptr, nullptr};
    std::vector<std::byte> out(4 * sizeof(half));
    op_info(Op::CastInt4).compute(back, packed_source, out.data());
    CHECK(floats(from_bytes<half>(out, 4)) == std::vector<float>{-8.0F, 7.0F, 2.0F, 0.0F});
}

TEST_CASE("compute: Mmad multiplies fp16 matrices into fp32", "[unit]") {
    // a: 2x3, b: 3x2, row-major.
    const auto a = halves({1, 2, 3, 4, 5, 6});
    const auto b = halves({7, 8, 9, 10, 11, 12});
    Transaction tx;
    tx.op = Op::Mmad;
    tx.src_dtype = DType::F16;  // the cube's fp16 x fp16 -> fp32 row
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

TEST_CASE("compute: Mmad with a bias row and with transposed operands", "[unit]") {
    // a = [[1, 2, 3], [4, 5, 6]], b = [[7, 8], [9, 10], [11, 12]]: a x b = [[58, 64], [139, 154]].
    Transaction tx;
    tx.op = Op::Mmad;
    tx.src_dtype = DType::F16;  // the cube's fp16 x fp16 -> fp32 row
    tx.m = 2;
    tx.n = 2;
    tx.k = 3;
    tx.bias = true;
    const auto x = to_bytes(halves({1, 2, 3, 4, 5, 6}));
    const auto y = to_bytes(halves({7, 8, 9, 10, 11, 12}));
    const auto bias = to_bytes(std::vector<float>{0.5F, -100.0F});
    std::vector<std::byte> out(4 * sizeof(float));
    const std::byte* with_bias[3] = {x.data(), y.data(), bias.data()};
    compute_mmad(tx, with_bias, out.data());
    CHECK(from_bytes<float>(out, 4) == std::vector<float>{58.5F, -36, 139.5F, 54});

    // The same product from a held as k x m (a^T) and b held as n x k (b^T).
    tx.bias = false;
    tx.a_transposed = true;
    tx.b_transposed = true;
    const auto xt = to_bytes(halves({1, 4, 2, 5, 3, 6}));
    const auto yt = to_bytes(halves({7, 9, 11, 8, 10, 12}));
    const std::byte* transposed[3] = {xt.data(), yt.data(), nullptr};
    compute_mmad(tx, transposed, out.data());
    CHECK(from_bytes<float>(out, 4) == std::vector<float>{58, 64, 139, 154});
}

TEST_CASE("compute: Mmad accumulates products in fp32, not fp16", "[unit]") {
    // 1x1 result of k = 3: 2048*1 + 1*1 + 1*1 = 2050 (half arithmetic would give 2048).
    const auto a = halves({2048, 1, 1});
    const auto b = halves({1, 1, 1});
    Transaction tx;
    tx.op = Op::Mmad;
    tx.src_dtype = DType::F16;  // the cube's fp16 x fp16 -> fp32 row
    tx.m = 1;
    tx.n = 1;
    tx.k = 3;
    const auto x = to_bytes(a), y = to_bytes(b);
    std::vector<std::byte> out(sizeof(float));
    const std::byte* sources[3] = {x.data(), y.data(), nullptr};
    compute_mmad(tx, sources, out.data());
    CHECK(from_bytes<float>(out, 1) == std::vector<float>{2050.0F});
}

TEST_CASE("compute: Mmad of int8 into int32, bf16 and fp32 into fp32", "[unit]") {
    // a = [[1, 2, 3], [4, 5, 6]], b = [[7, 8], [9, 10], [11, 12]]: a x b = [[58, 64], [139, 154]].
    Transaction tx;
    tx.op = Op::Mmad;
    tx.m = 2;
    tx.n = 2;
    tx.k = 3;
    std::vector<std::byte> out(4 * sizeof(float));
    // int8: products and sums exact in int32, the bias row an int32 row; -128 x -128 x 3.
    tx.src_dtype = DType::I8;
    tx.dtype = DType::I32;
    const auto xi = to_bytes(std::vector<std::int8_t>{1, 2, 3, 4, 5, 6});
    const auto yi = to_bytes(std::vector<std::int8_t>{7, 8, 9, 10, 11, 12});
    const std::byte* ints[3] = {xi.data(), yi.data(), nullptr};
    compute_mmad(tx, ints, out.data());
    CHECK(from_bytes<std::int32_t>(out, 4) == std::vector<std::int32_t>{58, 64, 139, 154});
    tx.bias = true;
    const auto int_bias = to_bytes(std::vector<std::int32_t>{-1000, 7});
    const std::byte* ints_bias[3] = {xi.data(), yi.data(), int_bias.data()};
    compute_mmad(tx, ints_bias, out.data());
    CHECK(from_bytes<std::int32_t>(out, 4) == std::vector<std::int32_t>{-942, 71, -861, 161});
    tx.bias = false;
    tx.m = tx.n = 1;
    const auto lows = to_bytes(std::vector<std::int8_t>{-128, -128, -128});
    const std::byte* lowest[3] = {lows.data(), lows.data(), nullptr};
    compute_mmad(tx, lowest, out.data());
    CHECK(from_bytes<std::int32_t>(out, 1) == std::vector<std::int32_t>{49152});
    // bf16 inputs widen exactly to fp32.
    tx.m = tx.n = 2;
    tx.src_dtype = DType::BF16;
    tx.dtype = DType::F32;
    const auto xb = to_bytes(std::vector<bfloat16>{1, 2, 3, 4, 5, 6});
    const auto yb = to_bytes(std::vector<bfloat16>{7, 8, 9, 10, 11, 12});
    const std::byte* bfs[3] = {xb.data(), yb.data(), nullptr};
    compute_mmad(tx, bfs, out.data());
    CHECK(from_bytes<float>(out, 4) == std::vector<float>{58, 64, 139, 154});
    // fp32 inputs are multiplied as fp32 (not rounded to fp16 or HF32 first): 1 + 2^-20
    // squared keeps its 2^-19 term.
    tx.src_dtype = DType::F32;
    tx.m = tx.n = tx.k = 1;
    const float fine = 1.0F + std::ldexp(1.0F, -20);
    const auto xf = to_bytes(std::vector<float>{fine});
    const std::byte* floats[3] = {xf.data(), xf.data(), nullptr};
    compute_mmad(tx, floats, out.data());
    CHECK(from_bytes<float>(out, 1) == std::vector<float>{fine * fine});
    CHECK(fine * fine > 1.0F + std::ldexp(1.0F, -20));
}

namespace {

/// A quantisation word: `scale` (its low 13 mantissa bits dropped), offset, signed output.
std::uint64_t quant_word(float scale, std::uint32_t offset = 0, bool is_signed = true) {
    return std::uint64_t{std::bit_cast<std::uint32_t>(scale)} | (std::uint64_t{offset} << 37) |
           (std::uint64_t{is_signed} << 46);
}

std::vector<std::byte> run_fixpipe(FixQuant mode, DType src, DType dst, bool relu,
                                   std::uint64_t word, const std::vector<std::byte>& l0c,
                                   std::uint32_t m, std::uint32_t n,
                                   const std::vector<std::byte>& words = {}) {
    Transaction tx;
    tx.op = Op::Fixpipe;
    tx.mode = static_cast<std::uint32_t>(mode);
    tx.src_dtype = src;
    tx.dtype = dst;
    tx.relu = relu;
    tx.quant_word = word;
    tx.m = m;
    tx.n = n;
    std::vector<std::byte> out(std::size_t{m} * n * size_of(dst));
    const std::byte* sources[2] = {l0c.data(), words.empty() ? nullptr : words.data()};
    op_info(Op::Fixpipe).compute(tx, sources, out.data());
    return out;
}

}  // namespace

TEST_CASE("compute: Fixpipe's conversions, ReLU and scales", "[unit]") {
    const auto floats = to_bytes(std::vector<float>{1.0F, -2.5F, 3.0009765625F, 100000.0F});
    // NoQuant with ReLU, fp32 and int32.
    CHECK(from_bytes<float>(
              run_fixpipe(FixQuant::None, DType::F32, DType::F32, true, 0, floats, 2, 2), 4) ==
          std::vector<float>{1.0F, 0.0F, 3.0009765625F, 100000.0F});
    const auto ints = to_bytes(std::vector<std::int32_t>{7, -7, 300, -300});
    CHECK(from_bytes<std::int32_t>(
              run_fixpipe(FixQuant::None, DType::I32, DType::I32, true, 0, ints, 1, 4), 4) ==
          std::vector<std::int32_t>{7, 0, 300, 0});
    // F322F16: round to nearest even (3.0009765625 is halfway between two halves), inf
    // beyond the half range as a plain cast; F322BF16 likewise.
    const auto h = from_bytes<half>(
        run_fixpipe(FixQuant::F322F16, DType::F32, DType::F16, false, 0, floats, 2, 2), 4);
    CHECK(static_cast<float>(h[1]) == -2.5F);
    CHECK(h[2] == half(3.0009765625F));
    CHECK(static_cast<float>(h[2]) == 3.0F);
    const auto b = from_bytes<bfloat16>(
        run_fixpipe(FixQuant::F322BF16, DType::F32, DType::BF16, true, 0, floats, 2, 2), 4);
    CHECK(static_cast<float>(b[1]) == 0.0F);
    CHECK(b[3] == bfloat16(100000.0F));
    // DEQF16: int32 x the scale (bits 31..13 of the word) into half, saturated to +-65504.
    const auto deq = from_bytes<half>(
        run_fixpipe(FixQuant::DEQF16, DType::I32, DType::F16, false, quant_word(0.5F), ints, 1, 4),
        4);
    CHECK(static_cast<float>(deq[0]) == 3.5F);
    CHECK(static_cast<float>(deq[3]) == -150.0F);
    const auto big = to_bytes(std::vector<std::int32_t>{1 << 20, -(1 << 20)});
    const auto sat = from_bytes<half>(
        run_fixpipe(FixQuant::DEQF16, DType::I32, DType::F16, true, quant_word(1.0F), big, 1, 2),
        2);
    CHECK(static_cast<float>(sat[0]) == 65504.0F);
    CHECK(static_cast<float>(sat[1]) == 0.0F);  // ReLU: the negative side's scale is 0
    // The scale keeps 10 mantissa bits: 1 + 2^-12 is used as 1.
    CHECK(fixpipe_scale(quant_word(1.0F + std::ldexp(1.0F, -12))) == 1.0F);
    CHECK(fixpipe_scale(quant_word(1.0F + std::ldexp(1.0F, -10))) == 1.0F + std::ldexp(1.0F, -10));
    // REQ8: scaled, rounded to nearest even into [-256, 255], plus the offset, saturated to
    // int8 (sign bit set) or uint8. 7 * 0.5 = 3.5 -> 4; -7 * 0.5 = -3.5 -> -4.
    const auto s8 = from_bytes<std::int8_t>(
        run_fixpipe(FixQuant::REQ8, DType::I32, DType::I8, false, quant_word(0.5F), ints, 1, 4), 4);
    CHECK(s8 == std::vector<std::int8_t>{4, -4, 127, -128});
    const auto u8 =
        from_bytes<std::uint8_t>(run_fixpipe(FixQuant::REQ8, DType::I32, DType::U8, false,
                                             quant_word(0.5F, 10, false), ints, 1, 4),
                                 4);
    CHECK(u8 == std::vector<std::uint8_t>{14, 6, 160, 0});
    // VREQ8 / VQF322B8_PRE: one word per column.
    const auto words = to_bytes(std::vector<std::uint64_t>{quant_word(1.0F), quant_word(2.0F),
                                                           quant_word(0.25F), quant_word(-1.0F)});
    CHECK(from_bytes<std::int8_t>(
              run_fixpipe(FixQuant::VREQ8, DType::I32, DType::I8, true, 0, ints, 1, 4, words), 4) ==
          std::vector<std::int8_t>{7, 0, 75, 0});
    CHECK(from_bytes<std::int8_t>(
              run_fixpipe(FixQuant::VQF322B8, DType::F32, DType::I8, false, 0, floats, 1, 4, words),
              4) == std::vector<std::int8_t>{1, -5, 1, -128});
}

// ---- element types beyond fp16/fp32/int32/int8, round modes, bit masks, groups ----------

namespace {

template <class To, class From>
std::vector<To> cast_mode(const std::vector<From>& in, RoundMode mode) {
    Transaction tx = compute_tx(Op::Cast, dtype_of<To>, in.size(), 0.0, dtype_of<From>);
    tx.mode = static_cast<std::uint32_t>(mode);
    const std::vector<std::byte> x = to_bytes(in);
    const std::byte* sources[3] = {x.data(), nullptr, nullptr};
    std::vector<std::byte> out(in.size() * sizeof(To));
    op_info(Op::Cast).compute(tx, sources, out.data());
    return from_bytes<To>(out, in.size());
}

}  // namespace

TEST_CASE("compute: the new integer types wrap, int64 without going through double", "[unit]") {
    CHECK(run_op<std::uint8_t>(Op::Add, {250, 3}, {10, 4}) == std::vector<std::uint8_t>{4, 7});
    CHECK(run_op<std::int16_t>(Op::Mul, {300, -2}, {200, 3}) ==
          std::vector<std::int16_t>{static_cast<std::int16_t>(60000 - 65536), -6});
    CHECK(run_op<std::uint16_t>(Op::Sub, {0}, {1}) == std::vector<std::uint16_t>{65535});
    CHECK(run_op<std::uint32_t>(Op::Max, {4000000000U}, {5}) ==
          std::vector<std::uint32_t>{4000000000U});
    const std::int64_t big = (std::int64_t{1} << 62) + 1;  // not exact in double
    CHECK(run_op<std::int64_t>(Op::Add, {big}, {big}) ==
          std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min() + 2});
    CHECK(run_op<std::int64_t>(Op::ReduceSum, {big, 1, -1}) == std::vector<std::int64_t>{big});
    CHECK(run_op<std::uint16_t>(Op::And, {0xF0F0}, {0x3C3C}) == std::vector<std::uint16_t>{0x3030});
    CHECK(run_op<std::int16_t>(Op::Or, {0x0101}, {0x1010}) == std::vector<std::int16_t>{0x1111});
    CHECK(run_op<std::uint16_t>(Op::Not, {0x00FF}) == std::vector<std::uint16_t>{0xFF00});
}

TEST_CASE("compute: bf16 rounds to nearest even and computes in float", "[unit]") {
    CHECK(bfloat16(1.0F).bits == 0x3F80);
    CHECK(float(bfloat16(257.0F)) == 256.0F);  // tie: even
    CHECK(float(bfloat16(259.0F)) == 260.0F);  // tie: even (up)
    CHECK(float(bfloat16(259.5F)) == 260.0F);  // above the tie
    CHECK(std::isnan(float(bfloat16(std::nanf("")))));
    const auto sum = run_op<bfloat16>(Op::Add, {bfloat16(1.0F)}, {bfloat16(1.0F / 512)});
    CHECK(float(sum[0]) == 1.0F);  // 1 + 2^-9 rounds back to 1 (8 significant bits)
}

TEST_CASE("compute: Cast with every round mode", "[unit]") {
    const std::vector<float> in{2.5F, -2.5F, 1.25F, -1.75F, 3.0F};
    CHECK(cast_mode<std::int32_t>(in, RoundMode::Rint) ==
          std::vector<std::int32_t>{2, -2, 1, -2, 3});
    CHECK(cast_mode<std::int32_t>(in, RoundMode::None) ==
          std::vector<std::int32_t>{2, -2, 1, -2, 3});
    CHECK(cast_mode<std::int32_t>(in, RoundMode::Round) ==
          std::vector<std::int32_t>{3, -3, 1, -2, 3});
    CHECK(cast_mode<std::int32_t>(in, RoundMode::Floor) ==
          std::vector<std::int32_t>{2, -3, 1, -2, 3});
    CHECK(cast_mode<std::int32_t>(in, RoundMode::Ceil) ==
          std::vector<std::int32_t>{3, -2, 2, -1, 3});
    CHECK(cast_mode<std::int32_t>(in, RoundMode::Trunc) ==
          std::vector<std::int32_t>{2, -2, 1, -1, 3});
    // fp32 -> fp16: 1 + 2^-12 lies between 1 (0x3C00) and 1 + 2^-10 (0x3C01).
    const std::vector<float> between{1.0F + 1.0F / 4096, -(1.0F + 1.0F / 4096)};
    auto bits = [](const std::vector<half>& v) {
        std::vector<int> out;
        for (half h : v) out.push_back(h.bits);
        return out;
    };
    CHECK(bits(cast_mode<half>(between, RoundMode::Rint)) == std::vector<int>{0x3C00, 0xBC00});
    CHECK(bits(cast_mode<half>(between, RoundMode::Floor)) == std::vector<int>{0x3C00, 0xBC01});
    CHECK(bits(cast_mode<half>(between, RoundMode::Ceil)) == std::vector<int>{0x3C01, 0xBC00});
    CHECK(bits(cast_mode<half>(between, RoundMode::Trunc)) == std::vector<int>{0x3C00, 0xBC00});
    CHECK(bits(cast_mode<half>(between, RoundMode::Odd)) == std::vector<int>{0x3C01, 0xBC01});
    // Integer -> integer saturates; int64 keeps its low digits exactly.
    CHECK(cast_mode<std::int16_t>(std::vector<std::int32_t>{70000, -70000, 12}, RoundMode::None) ==
          std::vector<std::int16_t>{32767, -32768, 12});
    CHECK(cast_mode<std::uint8_t>(std::vector<std::int32_t>{-5, 300}, RoundMode::None) ==
          std::vector<std::uint8_t>{0, 255});
    const std::int64_t odd = (std::int64_t{1} << 60) + 1;
    CHECK(cast_mode<std::int64_t>(std::vector<std::int64_t>{odd}, RoundMode::None)[0] == odd);
}

TEST_CASE("compute: Compare writes bits LSB first, Select picks by them", "[unit]") {
    const std::vector<float> a{1, 5, 3, 7, 0, 2, 9, 4, 8, 8};
    const std::vector<float> b{2, 2, 3, 3, 1, 1, 9, 9, 8, 0};
    Transaction tx = compute_tx(Op::Compare, DType::F32, a.size(), 0.0);
    tx.mode = static_cast<std::uint32_t>(CmpMode::GE);
    const auto x = to_bytes(a), y = to_bytes(b);
    const std::byte* sources[3] = {x.data(), y.data(), nullptr};
    std::vector<std::byte> bits(2);
    op_info(Op::Compare).compute(tx, sources, bits.data());
    // a >= b: 0 1 1 1 0 1 1 0 | 1 1
    CHECK(std::to_integer<int>(bits[0]) == 0b01101110);
    CHECK(std::to_integer<int>(bits[1]) == 0b11);

    Transaction st = compute_tx(Op::CompareScalar, DType::F32, a.size(), 4.0);
    st.mode = static_cast<std::uint32_t>(CmpMode::LT);
    op_info(Op::CompareScalar).compute(st, sources, bits.data());
    CHECK(std::to_integer<int>(bits[0]) == 0b00110101);  // 1 3 0 2 < 4
    CHECK(std::to_integer<int>(bits[1]) == 0);

    const Transaction sel = compute_tx(Op::Select, DType::F32, a.size(), 0.0);
    const std::byte* sel_sources[3] = {bits.data(), x.data(), y.data()};
    std::vector<std::byte> out(a.size() * sizeof(float));
    op_info(Op::Select).compute(sel, sel_sources, out.data());
    CHECK(from_bytes<float>(out, a.size()) == std::vector<float>{1, 2, 3, 3, 0, 2, 9, 9, 8, 0});
    const Transaction sels = compute_tx(Op::SelectScalar, DType::F32, a.size(), -1.0);
    op_info(Op::SelectScalar).compute(sels, sel_sources, out.data());
    CHECK(from_bytes<float>(out, a.size()) ==
          std::vector<float>{1, -1, 3, -1, 0, 2, -1, -1, -1, -1});
}

TEST_CASE("compute: group reductions and Axpy", "[unit]") {
    const std::vector<float> a{1, 2, 3, 4, 5, 6, -7, 8};
    for (const auto& [op, want] :
         {std::pair{Op::GroupReduceSum, std::vector<float>{3, 7, 11, 1}},
          std::pair{Op::GroupReduceMax, std::vector<float>{2, 4, 6, 8}},
          std::pair{Op::GroupReduceMin, std::vector<float>{1, 3, 5, -7}}}) {
        Transaction tx = compute_tx(op, DType::F32, a.size(), 0.0);
        tx.group = 2;
        const auto x = to_bytes(a);
        const std::byte* sources[3] = {x.data(), nullptr, nullptr};
        std::vector<std::byte> out(4 * sizeof(float));
        op_info(op).compute(tx, sources, out.data());
        CHECK(from_bytes<float>(out, 4) == want);
    }
    // Axpy: sources are src and the destination's old values.
    CHECK(run_op<float>(Op::Axpy, {1, 2}, {10, 20}, 3.0) == std::vector<float>{13, 26});
    CHECK(run_op<std::int16_t>(Op::Axpy, {1, 2}, {10, 20}, 3.0) ==
          std::vector<std::int16_t>{13, 26});
}

TEST_CASE("compute: ReduceMax / GroupReduceMin with the position of the extreme", "[unit]") {
    const std::vector<float> a{3, 9, 1, 9, -2, 5, 0, -2};
    Transaction tx = compute_tx(Op::ReduceMax, DType::F32, a.size(), 0.0);
    tx.mode = static_cast<std::uint32_t>(IndexOrder::ValueThenIndex);
    const auto x = to_bytes(a);
    const std::byte* sources[3] = {x.data(), nullptr, nullptr};
    std::vector<std::byte> out(2 * sizeof(float));
    op_info(Op::ReduceMax).compute(tx, sources, out.data());
    CHECK(from_bytes<float>(out, 1)[0] == 9.0F);
    CHECK(from_bytes<std::uint32_t>(out, 2)[1] == 1U);  // the first 9

    Transaction g = compute_tx(Op::GroupReduceMin, DType::F32, a.size(), 0.0);
    g.group = 4;
    g.mode = static_cast<std::uint32_t>(IndexOrder::IndexThenValue);
    CHECK(reduce_results_per_group(g) == 2);
    std::vector<std::byte> pairs(4 * sizeof(float));
    op_info(Op::GroupReduceMin).compute(g, sources, pairs.data());
    const auto bits = from_bytes<std::uint32_t>(pairs, 4);
    const auto values = from_bytes<float>(pairs, 4);
    CHECK(bits[0] == 2U);  // 1 at position 2 of group 0
    CHECK(values[1] == 1.0F);
    CHECK(bits[2] == 0U);  // -2 first at position 0 of group 1
    CHECK(values[3] == -2.0F);

    const std::vector<half> h{half(1.0F), half(4.0F), half(4.0F), half(2.0F)};
    Transaction th = compute_tx(Op::ReduceMax, DType::F16, h.size(), 0.0);
    th.mode = static_cast<std::uint32_t>(IndexOrder::ValueThenIndex);
    const auto hx = to_bytes(h);
    const std::byte* hsources[3] = {hx.data(), nullptr, nullptr};
    std::vector<std::byte> hout(2 * sizeof(half));
    op_info(Op::ReduceMax).compute(th, hsources, hout.data());
    CHECK(float(from_bytes<half>(hout, 1)[0]) == 4.0F);
    CHECK(from_bytes<std::uint16_t>(hout, 2)[1] == 1U);  // a 16-bit position in half's bytes
}

TEST_CASE("compute: Brcb fills one 32-byte block per source element", "[unit]") {
    const std::vector<float> a{1, 2};
    const Transaction tx = compute_tx(Op::Brcb, DType::F32, a.size(), 0.0);
    const auto x = to_bytes(a);
    const std::byte* sources[3] = {x.data(), nullptr, nullptr};
    std::vector<std::byte> out(16 * sizeof(float));
    op_info(Op::Brcb).compute(tx, sources, out.data());
    CHECK(from_bytes<float>(out, 16) ==
          std::vector<float>{1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2});
}

TEST_CASE("compute: Gather reads the elements at byte offsets from a base", "[unit]") {
    const std::vector<float> src{10, 11, 12, 13};
    const std::vector<std::uint32_t> offsets{8, 0, 4, 4};
    Transaction tx = compute_tx(Op::Gather, DType::F32, offsets.size(), 0.0);
    tx.add_access(MemSpace::UB, false, 0, src.size() * sizeof(float));
    const auto x = to_bytes(src);
    const auto o = to_bytes(offsets);
    const std::byte* sources[3] = {x.data(), o.data(), nullptr};
    std::vector<std::byte> out(4 * sizeof(float));
    op_info(Op::Gather).compute(tx, sources, out.data());
    CHECK(from_bytes<float>(out, 4) == std::vector<float>{12, 10, 11, 11});
    tx.scalar = 4;  // srcBaseAddr: every offset moves on by one element
    op_info(Op::Gather).compute(tx, sources, out.data());
    CHECK(from_bytes<float>(out, 4) == std::vector<float>{13, 11, 12, 12});
}

TEST_CASE("compute: GatherMask packs the elements a built-in or tensor pattern keeps", "[unit]") {
    const std::vector<std::int32_t> src{0, 1, 2, 3, 4, 5, 6, 7};
    const auto x = to_bytes(src);
    // Built-in patterns: 1 even, 2 odd, 3-6 one of every four, 7 all.
    const std::vector<std::vector<std::int32_t>> expected{
        {0, 2, 4, 6}, {1, 3, 5, 7}, {0, 4}, {1, 5}, {2, 6}, {3, 7}, {0, 1, 2, 3, 4, 5, 6, 7}};
    for (std::uint32_t pattern = 1; pattern <= 7; ++pattern) {
        Transaction tx = compute_tx(Op::GatherMask, DType::I32, src.size(), 0.0);
        tx.mode = pattern;
        tx.group = static_cast<std::uint32_t>(expected[pattern - 1].size());
        const std::byte* sources[3] = {x.data(), nullptr, nullptr};
        std::vector<std::byte> out(tx.group * 4);
        op_info(Op::GatherMask).compute(tx, sources, out.data());
        CAPTURE(pattern);
        CHECK(from_bytes<std::int32_t>(out, tx.group) == expected[pattern - 1]);
    }
    // A pattern tensor: bits LSB first, 0b10011001 keeps 0, 3, 4, 7.
    const std::vector<std::uint8_t> bits{0x99};
    const auto b = to_bytes(bits);
    Transaction tx = compute_tx(Op::GatherMask, DType::I32, src.size(), 0.0);
    tx.group = 4;
    const std::byte* sources[3] = {x.data(), b.data(), nullptr};
    std::vector<std::byte> out(16);
    op_info(Op::GatherMask).compute(tx, sources, out.data());
    CHECK(from_bytes<std::int32_t>(out, 4) == std::vector<std::int32_t>{0, 3, 4, 7});
}

TEST_CASE("compute: Sort32 writes (score, index) pairs, descending, stable on ties", "[unit]") {
    std::vector<float> scores(32);
    std::vector<std::uint32_t> indices(32);
    for (std::uint32_t i = 0; i < 32; ++i) {
        scores[i] = static_cast<float>((i * 7) % 5);  // values 0-4, each repeated
        indices[i] = 100 + i;
    }
    const Transaction tx = compute_tx(Op::Sort32, DType::F32, 32, 0.0);
    const auto s = to_bytes(scores);
    const auto ix = to_bytes(indices);
    const std::byte* sources[3] = {s.data(), ix.data(), nullptr};
    std::vector<std::byte> out(32 * 8);
    op_info(Op::Sort32).compute(tx, sources, out.data());
    const auto pairs_f = from_bytes<float>(out, 64);
    const auto pairs_i = from_bytes<std::uint32_t>(out, 64);
    for (std::uint32_t j = 1; j < 32; ++j) {
        CAPTURE(j);
        CHECK(pairs_f[2 * j - 2] >= pairs_f[2 * j]);
        if (pairs_f[2 * j - 2] == pairs_f[2 * j]) CHECK(pairs_i[2 * j - 1] < pairs_i[2 * j + 1]);
    }
    CHECK(pairs_f[0] == 4.0F);
    CHECK(pairs_i[1] == 100 + 2);  // the first 4 is element 2 (2 x 7 = 14, 14 % 5 = 4)
}

TEST_CASE("compute: MrgSort merges sorted queues, the lower queue first on ties", "[unit]") {
    // Queues of (score, index) pairs as floats and uint32s.
    auto queue = [](std::vector<std::pair<float, std::uint32_t>> pairs) {
        std::vector<std::byte> bytes(pairs.size() * 8);
        for (std::size_t i = 0; i < pairs.size(); ++i) {
            std::memcpy(bytes.data() + i * 8, &pairs[i].first, 4);
            std::memcpy(bytes.data() + i * 8 + 4, &pairs[i].second, 4);
        }
        return bytes;
    };
    const auto q0 = queue({{9, 0}, {5, 1}, {1, 2}});
    const auto q1 = queue({{7, 10}, {5, 11}});
    const auto q2 = queue({{8, 20}});
    Transaction tx = compute_tx(Op::MrgSort, DType::F32, 12, 0.0);
    tx.group = 3;
    tx.add_access(MemSpace::UB, false, 0, q0.size());
    tx.add_access(MemSpace::UB, false, 256, q1.size());
    tx.add_access(MemSpace::UB, false, 512, q2.size());
    const std::byte* sources[4] = {q0.data(), q1.data(), q2.data(), nullptr};
    std::vector<std::byte> out(6 * 8);
    op_info(Op::MrgSort).compute(tx, sources, out.data());
    const auto f = from_bytes<float>(out, 12);
    const auto u = from_bytes<std::uint32_t>(out, 12);
    CHECK(std::vector<float>{f[0], f[2], f[4], f[6], f[8], f[10]} ==
          std::vector<float>{9, 8, 7, 5, 5, 1});
    CHECK(std::vector<std::uint32_t>{u[1], u[3], u[5], u[7], u[9], u[11]} ==
          std::vector<std::uint32_t>{0, 20, 10, 1, 11, 2});
}

TEST_CASE("compute: LoadData's fractals, transposed or repeated", "[unit]") {
    // Three 16 x 16 fractals of uint16 (element i of fractal f holds f * 256 + i).
    std::vector<std::uint16_t> src(3 * 256);
    for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::uint16_t>(i);
    const auto x = to_bytes(src);
    const std::byte* sources[3] = {x.data(), nullptr, nullptr};
    std::vector<std::byte> out(2 * 512);
    Transaction tx = compute_tx(Op::LoadFractals, DType::U16, 512, 0.0);
    tx.add_access(MemSpace::L1, false, 0, 512, 2, 2 * 512);  // fractals 0 and 2
    tx.add_access(MemSpace::L0B, true, 0, 512, 2, 512);
    tx.mode = 1;  // ifTranspose: (i, j) lands at (j, i)
    op_info(Op::LoadFractals).compute(tx, sources, out.data());
    const auto t = from_bytes<std::uint16_t>(out, 512);
    CHECK(t[0 * 16 + 1] == src[1 * 16 + 0]);
    CHECK(t[3 * 16 + 5] == src[5 * 16 + 3]);
    CHECK(t[256 + 15 * 16 + 2] == src[512 + 2 * 16 + 15]);
    tx.accesses[0].pitch = 0;  // srcStride 0: the same fractal again, not transposed
    tx.mode = 0;
    op_info(Op::LoadFractals).compute(tx, sources, out.data());
    const auto r = from_bytes<std::uint16_t>(out, 512);
    CHECK(std::vector<std::uint16_t>(r.begin(), r.begin() + 256) ==
          std::vector<std::uint16_t>(src.begin(), src.begin() + 256));
    CHECK(std::vector<std::uint16_t>(r.begin() + 256, r.end()) ==
          std::vector<std::uint16_t>(src.begin(), src.begin() + 256));
}

TEST_CASE("compute: Mmad in the fractal layout reads ZZ / ZN and writes NZ", "[unit]") {
    // a 18 x 20, b 20 x 17 of half: 2 x 2 fractals of a (ZZ), 2 x 2 of b (ZN), 2 x 2 of c (NZ);
    // the elements outside the matrices are in whole fractals (and must not count).
    const std::uint32_t m = 18, k = 20, n = 17;
    Transaction tx;
    tx.op = Op::Mmad;
    tx.src_dtype = DType::F16;
    tx.m = m;
    tx.n = n;
    tx.k = k;
    tx.layout = CubeLayout::Fractal;
    const CubeShapes s = cube_shapes(tx);
    REQUIRE(s.a.span() == 4 * 256);
    REQUIRE(s.b.span() == 4 * 256);
    REQUIRE(s.c.span() == 4 * 256);
    std::vector<half> a(s.a.span(), half(99.0F)), b(s.b.span(), half(99.0F));
    for (std::uint32_t i = 0; i < m; ++i)
        for (std::uint32_t j = 0; j < k; ++j)
            a[s.a.offset(i, j)] = half(static_cast<float>((i * 3 + j) % 7) - 3.0F);
    for (std::uint32_t i = 0; i < k; ++i)
        for (std::uint32_t j = 0; j < n; ++j)
            b[s.b.offset(i, j)] = half(static_cast<float>((i + 2 * j) % 5) - 2.0F);
    const auto x = to_bytes(a), y = to_bytes(b);
    std::vector<std::byte> out(s.c.span() * sizeof(float));
    const std::byte* sources[3] = {x.data(), y.data(), nullptr};
    compute_mmad(tx, sources, out.data());
    const std::vector<float> c = from_bytes<float>(out, s.c.span());
    for (std::uint32_t i = 0; i < m; ++i) {
        for (std::uint32_t j = 0; j < n; ++j) {
            float want = 0.0F;
            for (std::uint32_t p = 0; p < k; ++p)
                want += static_cast<float>(a[s.a.offset(i, p)]) *
                        static_cast<float>(b[s.b.offset(p, j)]);
            CHECK(c[s.c.offset(i, j)] == want);
        }
    }
    CHECK(c[s.c.offset(18, 0)] == 0.0F);  // outside m x n: 0
    // Fixpipe reads the NZ result (column blocks 32 rows apart) into ND rows.
    Transaction fix;
    fix.op = Op::Fixpipe;
    fix.src_dtype = fix.dtype = DType::F32;
    fix.m = m;
    fix.n = n;
    fix.layout = CubeLayout::Fractal;
    fix.block_stride = 32 * 16;
    std::vector<std::byte> nd(std::size_t{m} * n * sizeof(float));
    const std::byte* from_l0c[2] = {out.data(), nullptr};
    compute_fixpipe(fix, from_l0c, nd.data());
    const std::vector<float> rows = from_bytes<float>(nd, m * n);
    CHECK(rows[0] == c[0]);
    CHECK(rows[17 * n + 16] == c[s.c.offset(17, 16)]);
    CHECK(rows[1 * n + 16] == c[32 * 16 + 16]);
}

TEST_CASE("compute: Mmad in the fractal layout with m 1 reads a as ND (GEMV)", "[unit]") {
    Transaction tx;
    tx.op = Op::Mmad;
    tx.src_dtype = DType::F16;
    tx.m = 1;
    tx.n = 1;
    tx.k = 20;
    tx.layout = CubeLayout::Fractal;
    const CubeShapes s = cube_shapes(tx);
    CHECK(s.a.format == MatrixFormat::ND);
    CHECK(s.a.offset(0, 17) == 17);
}

TEST_CASE("compute: the ND -> NZ copy puts C0 column blocks one after the other", "[unit]") {
    // 2 rows of 20 halves (40 bytes): 2 column blocks of 2 rows of 32 bytes, the second
    // holding 4 halves of each row and 12 zeros.
    Transaction tx;
    tx.op = Op::Copy;
    tx.layout = CubeLayout::Fractal;
    tx.add_access(MemSpace::GM, false, 0, 40, 2, 64);
    tx.add_access(MemSpace::L1, true, 0, 64, 2, 64);
    std::vector<half> data(64, half(-1.0F));
    for (int i = 0; i < 40; ++i) data[static_cast<std::size_t>(i)] = half(static_cast<float>(i));
    auto bytes = to_bytes(data);
    nd2nz_in_place(tx, bytes.data());
    const std::vector<float> got = floats(from_bytes<half>(bytes, 64));
    CHECK(got[0] == 0.0F);
    CHECK(got[15] == 15.0F);
    CHECK(got[16] == 20.0F);  // row 1's first block
    CHECK(got[32] == 16.0F);  // block 1, row 0
    CHECK(got[35] == 19.0F);
    CHECK(got[36] == 0.0F);   // the padding is zeros
    CHECK(got[48] == 36.0F);  // block 1, row 1
}
