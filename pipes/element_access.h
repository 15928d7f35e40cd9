// Element access and conversions shared by the compute sources (pipes/compute*.cpp): not
// installed, not part of the layer's interface.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "base/types.h"

namespace npusim::compute_detail {

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
template <>
struct Arith<bfloat16> {
    using type = float;
};

// Two's complement wrap: integer arithmetic runs in uint64_t (no signed-overflow UB) and
// keeps the low bits of T.
template <class T>
T wrap_int(std::uint64_t value) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(value));
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
    } else if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
        return T(static_cast<float>(value));
    } else {
        return static_cast<T>(value);
    }
}

}  // namespace npusim::compute_detail
