// Compute of Cast: every element type to every other, with the vendor's round modes
// (semantics: docs/ascendc.md, "Cast").
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "pipes/compute.h"
#include "pipes/element_access.h"

namespace npusim {

namespace {

using namespace compute_detail;

double round_to_integer(double value, RoundMode mode) {
    switch (mode) {
        case RoundMode::Floor:
            return std::floor(value);
        case RoundMode::Ceil:
            return std::ceil(value);
        case RoundMode::Round:
            return std::round(value);  // half away from zero
        case RoundMode::Trunc:
            return std::trunc(value);
        case RoundMode::None:
        case RoundMode::Rint:
        case RoundMode::Odd:
            break;
    }
    return std::nearbyint(value);
}

// The next representable value of a float type after `value`, up (+1) or down (-1).
template <class T>
T next_float(T value, int direction) {
    if constexpr (std::is_same_v<T, float>) {
        return std::nextafter(value, direction > 0 ? std::numeric_limits<float>::infinity()
                                                   : -std::numeric_limits<float>::infinity());
    } else {
        T next = value;
        const bool negative = (value.bits & 0x8000u) != 0;
        if ((value.bits & 0x7fffu) == 0) {
            next.bits = direction > 0 ? 0x0001u : 0x8001u;  // the smallest subnormal
        } else if (negative == (direction < 0)) {
            next.bits = static_cast<std::uint16_t>(value.bits + 1u);  // away from zero
        } else {
            next.bits = static_cast<std::uint16_t>(value.bits - 1u);
        }
        return next;
    }
}

template <class T>
std::uint32_t low_bit(T value) {
    if constexpr (std::is_same_v<T, float>) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &value, sizeof bits);
        return bits & 1u;
    } else {
        return value.bits & 1u;
    }
}

// `value` in float type T under `mode`: the two representable neighbours of an inexact value
// are found from the round-to-nearest-even result, then the mode picks one.
template <class T>
T round_to_float(double value, RoundMode mode) {
    const T nearest = from_double<T>(value);
    const double at = as_double(nearest);
    if (mode == RoundMode::None || mode == RoundMode::Rint || std::isnan(value) ||
        std::isinf(value) || at == value) {
        return nearest;
    }
    const T lower = at < value ? nearest : next_float(nearest, -1);
    const T upper = at < value ? next_float(nearest, +1) : nearest;
    switch (mode) {
        case RoundMode::Floor:
            return lower;
        case RoundMode::Ceil:
            return upper;
        case RoundMode::Trunc:
            return value > 0 ? lower : upper;
        case RoundMode::Round: {
            const double below = value - as_double(lower);
            const double above = as_double(upper) - value;
            if (below != above) return below < above ? lower : upper;
            return value > 0 ? upper : lower;
        }
        case RoundMode::Odd:
            return low_bit(lower) != 0 ? lower : upper;
        case RoundMode::None:
        case RoundMode::Rint:
            break;
    }
    return nearest;
}

template <class To, class From>
To convert(From from, RoundMode mode) {
    if constexpr (std::is_integral_v<To> && std::is_integral_v<From>) {
        // Integer to integer saturates (int64 sources do not go through double).
        constexpr auto lo = static_cast<std::int64_t>(std::numeric_limits<To>::min());
        constexpr auto hi = static_cast<std::uint64_t>(std::numeric_limits<To>::max());
        if constexpr (std::is_signed_v<From>) {
            const auto v = static_cast<std::int64_t>(from);
            if (v < lo) return std::numeric_limits<To>::min();
            if (v >= 0 && static_cast<std::uint64_t>(v) > hi) return std::numeric_limits<To>::max();
            return static_cast<To>(v);
        } else {
            const auto v = static_cast<std::uint64_t>(from);
            return v > hi ? std::numeric_limits<To>::max() : static_cast<To>(v);
        }
    } else if constexpr (std::is_integral_v<To>) {
        return from_double<To>(round_to_integer(as_double(from), mode));
    } else {
        return round_to_float<To>(as_double(from), mode);
    }
}

template <class To, class From>
void cast(const Transaction& tx, const std::byte* src, std::byte* out) {
    const auto mode = static_cast<RoundMode>(tx.mode);
    for (std::uint64_t i = 0; i < tx.count; ++i) {
        store_at<To>(out, i, convert<To, From>(load_at<From>(src, i), mode));
    }
}

}  // namespace

void compute_cast(const Transaction& tx, const std::byte* const* sources, std::byte* out) {
    visit_dtype(tx.dtype, [&](auto to) {
        visit_dtype(tx.src_dtype,
                    [&](auto from) { cast<decltype(to), decltype(from)>(tx, sources[0], out); });
    });
}

void compute_cast_int4(const Transaction& tx, const std::byte* const* sources, std::byte* out) {
    if (tx.src_dtype == DType::F16) {  // half -> int4, packed
        for (std::uint64_t i = 0; i < tx.count; ++i) {
            const double v = as_double(load_at<half>(sources[0], i));
            const double r = std::isnan(v) ? 0.0 : round_to_integer(v, RoundMode(tx.mode));
            const int q = static_cast<int>(std::clamp(r, -8.0, 7.0));
            const auto nibble = static_cast<unsigned>(q) & 0xFU;
            auto& byte = out[i / 2];
            byte = i % 2 == 0 ? std::byte(nibble)
                              : std::byte((std::to_integer<unsigned>(byte) & 0xFU) | (nibble << 4));
        }
        return;
    }
    for (std::uint64_t i = 0; i < tx.count; ++i) {  // int4 -> half, exact
        const unsigned byte = std::to_integer<unsigned>(sources[0][i / 2]);
        const int nibble = static_cast<int>(i % 2 == 0 ? byte & 0xFU : byte >> 4);
        store_at<half>(out, i, from_double<half>(nibble >= 8 ? nibble - 16 : nibble));
    }
}

}  // namespace npusim
