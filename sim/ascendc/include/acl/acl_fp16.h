// aclFloat16 and its conversions (acl/acl.h), as the data helpers that ship with most samples
// use them: an IEEE 754 binary16 value held in 16 bits, converted to and from float with
// round to nearest, ties to even (subnormals kept, overflow to infinity, NaN stays NaN).
#pragma once

#include <bit>
#include <cstdint>

using aclFloat16 = std::uint16_t;

inline float aclFloat16ToFloat(aclFloat16 value) {
    const std::uint32_t sign = static_cast<std::uint32_t>(value & 0x8000u) << 16;
    const std::uint32_t exponent = (value >> 10) & 0x1Fu;
    std::uint32_t mantissa = value & 0x3FFu;
    if (exponent == 0x1F) {  // infinity or NaN (the payload kept)
        return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
    }
    if (exponent != 0) {
        return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
    }
    if (mantissa == 0) return std::bit_cast<float>(sign);
    // Subnormal: normalise (value = mantissa * 2^-24).
    std::uint32_t shift = 0;
    while ((mantissa & 0x400u) == 0) {
        mantissa <<= 1;
        ++shift;
    }
    mantissa &= 0x3FFu;
    return std::bit_cast<float>(sign | ((113 - shift) << 23) | (mantissa << 13));
}

inline aclFloat16 aclFloatToFloat16(float value) {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
    const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
    const std::uint32_t exponent = (bits >> 23) & 0xFFu;
    const std::uint32_t mantissa = bits & 0x7FFFFFu;
    if (exponent == 0xFF) {  // infinity, or NaN kept quiet
        return static_cast<aclFloat16>(sign | 0x7C00u |
                                       (mantissa != 0 ? 0x200u | (mantissa >> 13) : 0));
    }
    const int e = static_cast<int>(exponent) - 127 + 15;
    if (e >= 0x1F) return static_cast<aclFloat16>(sign | 0x7C00u);  // overflow: infinity
    // The value's significand with its hidden bit, and how many bits round away.
    std::uint32_t significand = mantissa | (exponent != 0 ? 0x800000u : 0);
    std::uint32_t drop = 13;
    std::uint32_t biased = static_cast<std::uint32_t>(e);
    if (e <= 0) {  // subnormal half (or zero)
        if (e < -10) return sign;
        drop = static_cast<std::uint32_t>(14 - e);
        biased = 0;
    }
    std::uint32_t kept = significand >> drop;
    const std::uint32_t rest = significand & ((1u << drop) - 1);
    const std::uint32_t half_way = 1u << (drop - 1);
    if (rest > half_way || (rest == half_way && (kept & 1u) != 0)) ++kept;
    // kept holds the hidden bit for normal values; a carry out of the mantissa moves the
    // exponent up by one (to infinity at the top), which the addition below does.
    const std::uint32_t result = biased == 0 ? kept : ((biased << 10) + (kept - 0x400u));
    return static_cast<aclFloat16>(sign | (result > 0x7C00u ? 0x7C00u : result));
}
