#include "pipes/compute.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "pipes/element_access.h"

namespace npusim {

namespace {

using namespace compute_detail;

// ShiftLeft / ShiftRight by `bits` (0 to T's width; the Ascend C layer checks the range):
// unsigned types shift logically; signed types shift arithmetically (a left shift keeps the
// sign bit and drops the bit below it, a right shift copies the sign bit in).
template <class T>
T shift_left(T a, std::int64_t bits) {
    using U = std::make_unsigned_t<T>;
    constexpr int width = static_cast<int>(sizeof(T) * 8);
    const auto ua = static_cast<U>(a);
    const U shifted = bits <= 0 ? ua : bits >= width ? U{0} : static_cast<U>(ua << bits);
    if constexpr (std::is_signed_v<T>) {
        const U sign = static_cast<U>(U{1} << (width - 1));
        return static_cast<T>(static_cast<U>((shifted & static_cast<U>(~sign)) | (ua & sign)));
    } else {
        return static_cast<T>(shifted);
    }
}
template <class T>
T shift_right(T a, std::int64_t bits) {
    constexpr int width = static_cast<int>(sizeof(T) * 8);
    if constexpr (std::is_signed_v<T>) {
        return bits <= 0 ? a : static_cast<T>(a >> (bits >= width ? width - 1 : bits));
    } else {
        return bits <= 0 ? a : bits >= width ? T{0} : static_cast<T>(a >> bits);
    }
}

template <Op op, class T>
T combine(T a, T b, double scalar) {
    if constexpr (std::is_integral_v<T>) {
        const auto x = static_cast<std::int64_t>(a);
        const auto y = static_cast<std::int64_t>(b);
        const auto s = static_cast<std::int64_t>(scalar);
        const auto ux = static_cast<std::uint64_t>(x);
        const auto uy = static_cast<std::uint64_t>(y);
        const auto us = static_cast<std::uint64_t>(s);
        switch (op) {
            case Op::Add:
                return wrap_int<T>(ux + uy);
            case Op::Sub:
                return wrap_int<T>(ux - uy);
            case Op::Mul:
                return wrap_int<T>(ux * uy);
            case Op::Max:
                return x > y ? a : b;
            case Op::Min:
                return x < y ? a : b;
            case Op::Adds:
                return wrap_int<T>(ux + us);
            case Op::Muls:
                return wrap_int<T>(ux * us);
            case Op::Relu:
                return x > 0 ? a : T{0};
            case Op::Maxs:
                return x > s ? a : static_cast<T>(s);
            case Op::Mins:
                return x < s ? a : static_cast<T>(s);
            case Op::Abs:
                return wrap_int<T>(x < 0 ? std::uint64_t{0} - ux : ux);
            case Op::Fill:
                return static_cast<T>(s);
            case Op::And:
                return static_cast<T>(a & b);
            case Op::Or:
                return static_cast<T>(a | b);
            case Op::Not:
                return static_cast<T>(~a);
            case Op::Axpy:
                return wrap_int<T>(ux * us + uy);
            case Op::AddRelu: {
                const T sum = wrap_int<T>(ux + uy);
                return sum > T{0} ? sum : T{0};
            }
            case Op::SubRelu: {
                const T diff = wrap_int<T>(ux - uy);
                return diff > T{0} ? diff : T{0};
            }
            case Op::ShiftLeft:
                return shift_left<T>(a, s);
            case Op::ShiftRight:
                return shift_right<T>(a, s);
            default:
                return a;
        }
    } else {
        using A = typename Arith<T>::type;
        const A x = static_cast<A>(a);
        const A y = static_cast<A>(b);
        const A s = static_cast<A>(scalar);
        switch (op) {
            case Op::Add:
                return T(x + y);
            case Op::Sub:
                return T(x - y);
            case Op::Mul:
                return T(x * y);
            case Op::Max:
                return T(x > y ? x : y);
            case Op::Min:
                return T(x < y ? x : y);
            case Op::Adds:
                return T(x + s);
            case Op::Muls:
                return T(x * s);
            case Op::Exp:
                return T(std::exp(x));
            case Op::Relu:
                return T(x > A{0} ? x : A{0});
            case Op::Div:
                return T(x / y);
            case Op::Maxs:
                return T(x > s ? x : s);
            case Op::Mins:
                return T(x < s ? x : s);
            case Op::Ln:
                return T(std::log(x));
            case Op::Abs:
                return T(std::fabs(x));
            case Op::Sqrt:
                return T(std::sqrt(x));
            case Op::Rsqrt:
                return T(A{1} / std::sqrt(x));
            case Op::Reciprocal:
                return T(A{1} / x);
            case Op::LeakyRelu:
                return T(x > A{0} ? x : x * s);
            case Op::Fill:
                return T(s);
            case Op::Axpy:
                return T(x * s + y);
            case Op::AddRelu:
                return T(x + y > A{0} ? x + y : A{0});
            case Op::SubRelu:
                return T(x - y > A{0} ? x - y : A{0});
            default:
                return a;
        }
    }
}

template <Op op, class T>
void elementwise(const Transaction& tx, const std::byte* src0, const std::byte* src1,
                 std::byte* out) {
    for (std::uint64_t i = 0; i < tx.count; ++i) {
        if constexpr (op == Op::CreateVecIndex) {
            // firstValue + i in the arithmetic type (integers wrap), as numpy's arange.
            if constexpr (std::is_integral_v<T>) {
                const auto first = static_cast<std::uint64_t>(static_cast<std::int64_t>(tx.scalar));
                store_at<T>(out, i, wrap_int<T>(first + i));
            } else {
                using A = typename Arith<T>::type;
                store_at<T>(out, i, T(static_cast<A>(tx.scalar) + static_cast<A>(i)));
            }
            continue;
        }
        const T a = src0 != nullptr ? load_at<T>(src0, i) : T{};
        const T b = src1 != nullptr ? load_at<T>(src1, i) : T{};
        store_at<T>(out, i, combine<op, T>(a, b, tx.scalar));
    }
}

template <class T>
void reduce_sum(const Transaction& tx, const std::byte* src, std::byte* out) {
    if constexpr (std::is_integral_v<T>) {
        std::uint64_t sum = 0;
        for (std::uint64_t i = 0; i < tx.count; ++i) {
            sum += static_cast<std::uint64_t>(static_cast<std::int64_t>(load_at<T>(src, i)));
        }
        store_at<T>(out, 0, wrap_int<T>(sum));
    } else {
        float sum = 0.0F;  // hardware accumulates in fp32 for both fp16 and fp32
        for (std::uint64_t i = 0; i < tx.count; ++i) {
            sum += static_cast<float>(load_at<T>(src, i));
        }
        store_at<T>(out, 0, T(sum));
    }
}

// Max (want_max) or min of tx.count elements, compared in the arithmetic type. With an
// index order (tx.mode, IndexOrder) the first position of the extreme goes next to the value,
// as an unsigned integer of T's width in T's bytes.
template <class T, bool want_max>
void reduce_extreme(const Transaction& tx, const std::byte* src, std::byte* out) {
    using A = typename Arith<T>::type;
    T best = tx.count > 0 ? load_at<T>(src, 0) : T{};
    std::uint64_t at = 0;
    for (std::uint64_t i = 1; i < tx.count; ++i) {
        const T value = load_at<T>(src, i);
        const bool better = want_max ? static_cast<A>(value) > static_cast<A>(best)
                                     : static_cast<A>(value) < static_cast<A>(best);
        if (better) {
            best = value;
            at = i;
        }
    }
    const auto order = static_cast<IndexOrder>(tx.mode);
    const std::size_t value_slot = order == IndexOrder::IndexThenValue ? 1 : 0;
    store_at<T>(out, value_slot, best);
    if (order == IndexOrder::None) return;
    using Bits = std::conditional_t<
        sizeof(T) == 1, std::uint8_t,
        std::conditional_t<sizeof(T) == 2, std::uint16_t,
                           std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;
    store_at<Bits>(out, 1 - value_slot, static_cast<Bits>(at));
}

template <class A>
bool compare(A x, A y, CmpMode mode) {
    switch (mode) {
        case CmpMode::LT:
            return x < y;
        case CmpMode::GT:
            return x > y;
        case CmpMode::EQ:
            return x == y;
        case CmpMode::LE:
            return x <= y;
        case CmpMode::GE:
            return x >= y;
        case CmpMode::NE:
            return x != y;
    }
    return false;
}

bool mask_bit(const std::byte* mask, std::uint64_t i) {
    return ((std::to_integer<unsigned>(mask[i / 8]) >> (i % 8)) & 1u) != 0;
}

}  // namespace

template <Op op>
void compute_elementwise(const Transaction& tx, const std::byte* const* sources, std::byte* out) {
    visit_dtype(tx.dtype, [&](auto element) {
        elementwise<op, decltype(element)>(tx, sources[0], sources[1], out);
    });
}
void combine_atomic(const Transaction& tx, std::byte* gm, const std::byte* data) {
    const std::byte* sources[3] = {gm, data, nullptr};
    switch (tx.atomic) {
        case AtomicOp::Add:
            compute_elementwise<Op::Add>(tx, sources, gm);
            return;
        case AtomicOp::Max:
            compute_elementwise<Op::Max>(tx, sources, gm);
            return;
        case AtomicOp::Min:
            compute_elementwise<Op::Min>(tx, sources, gm);
            return;
        case AtomicOp::None:
            return;
    }
}

template void compute_elementwise<Op::Add>(const Transaction&, const std::byte* const*, std::byte*);
template void compute_elementwise<Op::Sub>(const Transaction&, const std::byte* const*, std::byte*);
template void compute_elementwise<Op::Mul>(const Transaction&, const std::byte* const*, std::byte*);
template void compute_elementwise<Op::Max>(const Transaction&, const std::byte* const*, std::byte*);
template void compute_elementwise<Op::Min>(const Transaction&, const std::byte* const*, std::byte*);
template void compute_elementwise<Op::Adds>(const Transaction&, const std::byte* const*,
                                            std::byte*);
template void compute_elementwise<Op::Muls>(const Transaction&, const std::byte* const*,
                                            std::byte*);
template void compute_elementwise<Op::Exp>(const Transaction&, const std::byte* const*, std::byte*);
template void compute_elementwise<Op::Relu>(const Transaction&, const std::byte* const*,
                                            std::byte*);
template void compute_elementwise<Op::Fill>(const Transaction&, const std::byte* const*,
                                            std::byte*);

template void compute_elementwise<Op::Div>(const Transaction&, const std::byte* const*, std::byte*);
template void compute_elementwise<Op::Maxs>(const Transaction&, const std::byte* const*,
                                            std::byte*);
template void compute_elementwise<Op::Mins>(const Transaction&, const std::byte* const*,
                                            std::byte*);
template void compute_elementwise<Op::Ln>(const Transaction&, const std::byte* const*, std::byte*);
template void compute_elementwise<Op::Abs>(const Transaction&, const std::byte* const*, std::byte*);
template void compute_elementwise<Op::Sqrt>(const Transaction&, const std::byte* const*,
                                            std::byte*);
template void compute_elementwise<Op::Rsqrt>(const Transaction&, const std::byte* const*,
                                             std::byte*);
template void compute_elementwise<Op::Reciprocal>(const Transaction&, const std::byte* const*,
                                                  std::byte*);
template void compute_elementwise<Op::LeakyRelu>(const Transaction&, const std::byte* const*,
                                                 std::byte*);
template void compute_elementwise<Op::And>(const Transaction&, const std::byte* const*, std::byte*);
template void compute_elementwise<Op::Or>(const Transaction&, const std::byte* const*, std::byte*);
template void compute_elementwise<Op::Not>(const Transaction&, const std::byte* const*, std::byte*);
template void compute_elementwise<Op::Axpy>(const Transaction&, const std::byte* const*,
                                            std::byte*);
template void compute_elementwise<Op::ShiftLeft>(const Transaction&, const std::byte* const*,
                                                 std::byte*);
template void compute_elementwise<Op::ShiftRight>(const Transaction&, const std::byte* const*,
                                                  std::byte*);
template void compute_elementwise<Op::AddRelu>(const Transaction&, const std::byte* const*,
                                               std::byte*);
template void compute_elementwise<Op::SubRelu>(const Transaction&, const std::byte* const*,
                                               std::byte*);
template void compute_elementwise<Op::CreateVecIndex>(const Transaction&, const std::byte* const*,
                                                      std::byte*);

void compute_reduce_sum(const Transaction& tx, const std::byte* const* sources, std::byte* out) {
    visit_dtype(tx.dtype,
                [&](auto element) { reduce_sum<decltype(element)>(tx, sources[0], out); });
}

void compute_reduce_max(const Transaction& tx, const std::byte* const* sources, std::byte* out) {
    visit_dtype(tx.dtype, [&](auto element) {
        reduce_extreme<decltype(element), true>(tx, sources[0], out);
    });
}

void compute_reduce_min(const Transaction& tx, const std::byte* const* sources, std::byte* out) {
    visit_dtype(tx.dtype, [&](auto element) {
        reduce_extreme<decltype(element), false>(tx, sources[0], out);
    });
}

std::uint64_t reduce_results_per_group(const Transaction& tx) {
    const bool extreme = tx.op == Op::ReduceMax || tx.op == Op::ReduceMin ||
                         tx.op == Op::GroupReduceMax || tx.op == Op::GroupReduceMin;
    return extreme && static_cast<IndexOrder>(tx.mode) != IndexOrder::None ? 2 : 1;
}

void compute_compare(const Transaction& tx, const std::byte* const* sources, std::byte* out) {
    const auto mode = static_cast<CmpMode>(tx.mode);
    std::memset(out, 0, (tx.count + 7) / 8);
    visit_dtype(tx.dtype, [&](auto element) {
        using T = decltype(element);
        using A = typename Arith<T>::type;
        const auto scalar = static_cast<A>(from_double<T>(tx.scalar));
        for (std::uint64_t i = 0; i < tx.count; ++i) {
            const auto x = static_cast<A>(load_at<T>(sources[0], i));
            const A y = tx.op == Op::Compare ? static_cast<A>(load_at<T>(sources[1], i)) : scalar;
            if (compare(x, y, mode)) {
                out[i / 8] |= std::byte{static_cast<unsigned char>(1u << (i % 8))};
            }
        }
    });
}

void compute_select(const Transaction& tx, const std::byte* const* sources, std::byte* out) {
    visit_dtype(tx.dtype, [&](auto element) {
        using T = decltype(element);
        const T scalar = from_double<T>(tx.scalar);
        for (std::uint64_t i = 0; i < tx.count; ++i) {
            T value = tx.op == Op::Select ? load_at<T>(sources[2], i) : scalar;
            if (mask_bit(sources[0], i)) value = load_at<T>(sources[1], i);
            store_at<T>(out, i, value);
        }
    });
}

void compute_group_reduce(const Transaction& tx, const std::byte* const* sources, std::byte* out) {
    const std::uint64_t group = tx.group;
    visit_dtype(tx.dtype, [&](auto element) {
        using T = decltype(element);
        Transaction part = tx;
        part.count = group;
        const std::uint64_t per_result = reduce_results_per_group(tx);
        for (std::uint64_t j = 0; group != 0 && j < tx.count / group; ++j) {
            const std::byte* src = sources[0] + j * group * sizeof(T);
            std::byte* dst = out + j * per_result * sizeof(T);
            if (tx.op == Op::GroupReduceSum) {
                reduce_sum<T>(part, src, dst);
            } else if (tx.op == Op::GroupReduceMax) {
                reduce_extreme<T, true>(part, src, dst);
            } else {
                reduce_extreme<T, false>(part, src, dst);
            }
        }
    });
}

void compute_brcb(const Transaction& tx, const std::byte* const* sources, std::byte* out) {
    visit_dtype(tx.dtype, [&](auto element) {
        using T = decltype(element);
        constexpr std::uint64_t per_block = 32 / sizeof(T);
        for (std::uint64_t i = 0; i < tx.count; ++i) {
            const T value = load_at<T>(sources[0], i);
            for (std::uint64_t k = 0; k < per_block; ++k)
                store_at<T>(out, i * per_block + k, value);
        }
    });
}

CubeShapes cube_shapes(const Transaction& tx) {
    const std::uint64_t m = tx.m, n = tx.n, k = tx.k;
    CubeShapes s;
    if (tx.layout == CubeLayout::RowMajor) {
        s.a = tx.a_transposed ? MatrixShape{MatrixFormat::ND, k, m}
                              : MatrixShape{MatrixFormat::ND, m, k};
        s.b = tx.b_transposed ? MatrixShape{MatrixFormat::ND, n, k}
                              : MatrixShape{MatrixFormat::ND, k, n};
        s.c = MatrixShape{MatrixFormat::ND, m, n};
        return s;
    }
    const std::uint64_t c0 = cube_c0(size_of(tx.src_dtype));
    // m = 1: the cube reads a as ND (the vendor's GEMV form, "Mmad").
    s.a = m == 1 ? MatrixShape{MatrixFormat::ND, m, k}
                 : MatrixShape{MatrixFormat::ZZ, m, k, c0, tx.block_stride};
    s.b = MatrixShape{MatrixFormat::ZN, k, n, c0};
    s.c = MatrixShape{MatrixFormat::NZ, m, n, kFractalSide};
    return s;
}

MatrixShape fixpipe_source(const Transaction& tx) {
    if (tx.layout == CubeLayout::RowMajor) return MatrixShape{MatrixFormat::ND, tx.m, tx.n};
    return MatrixShape{MatrixFormat::NZ, tx.m, tx.n, kFractalSide, tx.block_stride};
}

namespace {

template <class In, class Acc>
Acc mmad_dot(const std::byte* a, const std::byte* b, std::uint64_t k, Acc acc, const auto& a_at,
             const auto& b_at) {
    for (std::uint64_t i = 0; i < k; ++i) {
        if constexpr (std::is_same_v<Acc, std::int32_t>) {
            const auto product = static_cast<std::uint32_t>(std::int32_t{load_at<In>(a, a_at(i))} *
                                                            std::int32_t{load_at<In>(b, b_at(i))});
            acc = static_cast<std::int32_t>(static_cast<std::uint32_t>(acc) + product);
        } else {
            acc += static_cast<float>(load_at<In>(a, a_at(i))) *
                   static_cast<float>(load_at<In>(b, b_at(i)));
        }
    }
    return acc;
}

/// c = a x b (+ c or the bias row) for one cube type: In the inputs, Acc the result. Products
/// and sums are exact for int8 (int32 results wrap as the hardware's int32 accumulator);
/// fp16, bf16 and fp32 inputs are widened to fp32 and summed in fp32, in k order.
template <class In, class Acc>
void mmad_typed(const Transaction& tx, const std::byte* a, const std::byte* b,
                const std::byte* c_in, std::byte* out) {
    const std::uint64_t m = tx.m, n = tx.n, k = tx.k;
    const CubeShapes s = cube_shapes(tx);
    if (tx.layout == CubeLayout::Fractal) {
        // Whole fractals: the elements outside m x n are 0, or keep their value.
        const std::uint64_t span = s.c.span();
        for (std::uint64_t e = 0; e < span; ++e) {
            store_at<Acc>(out, e, tx.accumulate ? load_at<Acc>(c_in, e) : Acc{});
        }
    }
    for (std::uint64_t row = 0; row < m; ++row) {
        for (std::uint64_t col = 0; col < n; ++col) {
            const std::uint64_t at = s.c.offset(row, col);
            Acc acc = tx.accumulate ? load_at<Acc>(c_in, at)
                      : tx.bias     ? load_at<Acc>(c_in, col)
                                    : Acc{};
            if (tx.layout == CubeLayout::Fractal) {
                acc = mmad_dot<In, Acc>(
                    a, b, k, acc, [&](std::uint64_t i) { return s.a.offset(row, i); },
                    [&](std::uint64_t i) { return s.b.offset(i, col); });
            } else {
                acc = mmad_dot<In, Acc>(
                    a, b, k, acc,
                    [&](std::uint64_t i) { return tx.a_transposed ? i * m + row : row * k + i; },
                    [&](std::uint64_t i) { return tx.b_transposed ? col * k + i : i * n + col; });
            }
            store_at<Acc>(out, at, acc);
        }
    }
}

}  // namespace

void compute_mmad(const Transaction& tx, const std::byte* const* sources, std::byte* out) {
    const std::byte* a = sources[0];
    const std::byte* b = sources[1];
    const std::byte* c_in = sources[2];  // the accumulator, or the bias row
    switch (tx.src_dtype) {
        case DType::I8:
            return mmad_typed<std::int8_t, std::int32_t>(tx, a, b, c_in, out);
        case DType::BF16:
            return mmad_typed<bfloat16, float>(tx, a, b, c_in, out);
        case DType::F32:
            return mmad_typed<float, float>(tx, a, b, c_in, out);
        default:
            return mmad_typed<half, float>(tx, a, b, c_in, out);
    }
}

}  // namespace npusim
