#include "pipes/compute.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace npusim {

namespace {

template <class T>
T load_at(const std::byte* base, std::uint64_t i) {
    T value;
    std::memcpy(&value, base + i * sizeof(T), sizeof(T));
    return value;
}

template <class T>
void store_at(std::byte* base, std::uint64_t i, T value) {
    std::memcpy(base + i * sizeof(T), &value, sizeof(T));
}

// The arithmetic type each element type computes in.
template <class T>
struct Arith {
    using type = T;
};
template <>
struct Arith<half> {
    using type = float;
};

template <class T>
T wrap_int(std::int64_t value) {
    // Two's complement wrap without signed-overflow UB.
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<std::uint64_t>(value)));
}

template <class T>
T from_double(double value) {
    if constexpr (std::is_integral_v<T>) {
        if (std::isnan(value)) return 0;
        const double rounded = std::nearbyint(value);
        if (rounded <= static_cast<double>(std::numeric_limits<T>::min())) {
            return std::numeric_limits<T>::min();
        }
        if (rounded >= static_cast<double>(std::numeric_limits<T>::max())) {
            return std::numeric_limits<T>::max();
        }
        return static_cast<T>(rounded);
    } else if constexpr (std::is_same_v<T, half>) {
        return half(static_cast<float>(value));
    } else {
        return static_cast<T>(value);
    }
}

template <Op op, class T>
T combine(T a, T b, double scalar) {
    if constexpr (std::is_integral_v<T>) {
        const std::int64_t x = a;
        const std::int64_t y = b;
        const auto s = static_cast<std::int64_t>(scalar);
        switch (op) {
            case Op::Add:
                return wrap_int<T>(x + y);
            case Op::Sub:
                return wrap_int<T>(x - y);
            case Op::Mul:
                return wrap_int<T>(x * y);
            case Op::Max:
                return x > y ? a : b;
            case Op::Min:
                return x < y ? a : b;
            case Op::Adds:
                return wrap_int<T>(x + s);
            case Op::Muls:
                return wrap_int<T>(x * s);
            case Op::Relu:
                return x > 0 ? a : T{0};
            case Op::Maxs:
                return x > s ? a : static_cast<T>(s);
            case Op::Mins:
                return x < s ? a : static_cast<T>(s);
            case Op::Abs:
                return wrap_int<T>(x < 0 ? -x : x);
            case Op::Fill:
                return static_cast<T>(s);
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
            default:
                return a;
        }
    }
}

template <Op op, class T>
void elementwise(const Transaction& tx, const std::byte* src0, const std::byte* src1,
                 std::byte* out) {
    for (std::uint64_t i = 0; i < tx.count; ++i) {
        const T a = src0 != nullptr ? load_at<T>(src0, i) : T{};
        const T b = src1 != nullptr ? load_at<T>(src1, i) : T{};
        store_at<T>(out, i, combine<op, T>(a, b, tx.scalar));
    }
}

template <class T>
void reduce_sum(const Transaction& tx, const std::byte* src, std::byte* out) {
    if constexpr (std::is_integral_v<T>) {
        std::int64_t sum = 0;
        for (std::uint64_t i = 0; i < tx.count; ++i) sum += load_at<T>(src, i);
        store_at<T>(out, 0, wrap_int<T>(sum));
    } else {
        float sum = 0.0F;  // hardware accumulates in fp32 for both fp16 and fp32
        for (std::uint64_t i = 0; i < tx.count; ++i) {
            sum += static_cast<float>(load_at<T>(src, i));
        }
        store_at<T>(out, 0, T(sum));
    }
}

// Max (want_max) or min of tx.count elements, compared in the arithmetic type.
template <class T, bool want_max>
void reduce_extreme(const Transaction& tx, const std::byte* src, std::byte* out) {
    using A = typename Arith<T>::type;
    T best = tx.count > 0 ? load_at<T>(src, 0) : T{};
    for (std::uint64_t i = 1; i < tx.count; ++i) {
        const T value = load_at<T>(src, i);
        const bool better = want_max ? static_cast<A>(value) > static_cast<A>(best)
                                     : static_cast<A>(value) < static_cast<A>(best);
        if (better) best = value;
    }
    store_at<T>(out, 0, best);
}

template <class To, class From>
void cast(const Transaction& tx, const std::byte* src, std::byte* out) {
    for (std::uint64_t i = 0; i < tx.count; ++i) {
        store_at<To>(out, i, from_double<To>(as_double(load_at<From>(src, i))));
    }
}

template <class F>
void with_dtype(DType dtype, F&& f) {
    switch (dtype) {
        case DType::F16:
            f(half{});
            break;
        case DType::F32:
            f(float{});
            break;
        case DType::I32:
            f(std::int32_t{});
            break;
        case DType::I8:
            f(std::int8_t{});
            break;
    }
}

}  // namespace

template <Op op>
void compute_elementwise(const Transaction& tx, const std::byte* const* sources, std::byte* out) {
    with_dtype(tx.dtype, [&](auto element) {
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

void compute_reduce_sum(const Transaction& tx, const std::byte* const* sources, std::byte* out) {
    with_dtype(tx.dtype, [&](auto element) { reduce_sum<decltype(element)>(tx, sources[0], out); });
}

void compute_reduce_max(const Transaction& tx, const std::byte* const* sources, std::byte* out) {
    with_dtype(tx.dtype,
               [&](auto element) { reduce_extreme<decltype(element), true>(tx, sources[0], out); });
}

void compute_reduce_min(const Transaction& tx, const std::byte* const* sources, std::byte* out) {
    with_dtype(tx.dtype, [&](auto element) {
        reduce_extreme<decltype(element), false>(tx, sources[0], out);
    });
}

void compute_cast(const Transaction& tx, const std::byte* const* sources, std::byte* out) {
    with_dtype(tx.dtype, [&](auto to) {
        with_dtype(tx.src_dtype,
                   [&](auto from) { cast<decltype(to), decltype(from)>(tx, sources[0], out); });
    });
}

void compute_mmad(const Transaction& tx, const std::byte* const* sources, std::byte* out) {
    const std::byte* a = sources[0];
    const std::byte* b = sources[1];
    const std::byte* c_in = sources[2];
    const std::uint64_t m = tx.m, n = tx.n, k = tx.k;
    for (std::uint64_t row = 0; row < m; ++row) {
        for (std::uint64_t col = 0; col < n; ++col) {
            float acc = tx.accumulate ? load_at<float>(c_in, row * n + col) : 0.0F;
            for (std::uint64_t i = 0; i < k; ++i) {
                acc += static_cast<float>(load_at<half>(a, row * k + i)) *
                       static_cast<float>(load_at<half>(b, i * n + col));
            }
            store_at<float>(out, row * n + col, acc);
        }
    }
}

}  // namespace npusim
