#include "base/types.h"

#include <array>
#include <bit>

#include "base/memory_spaces.h"
#include "base/pipe_table.h"

namespace npusim {

std::string_view to_string(Pipe pipe) {
    if (pipe == Pipe::ALL) return "PIPE_ALL";
    return is_real_pipe(pipe) ? pipe_info(pipe).name : "PIPE_?";
}

std::string hex_string(std::uint64_t value) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string digits;
    do {
        digits.insert(digits.begin(), kDigits[value & 0xF]);
        value >>= 4;
    } while (value != 0);
    return "0x" + digits;
}

std::string_view to_string(CoreType type) {
    return type == CoreType::Vector ? "aiv" : "aic";
}

std::string_view to_string(MemSpace space) {
    const auto index = static_cast<std::size_t>(space);
    return index < kMemSpaceTable.size() ? kMemSpaceTable[index].name : "?";
}

namespace {

constexpr std::array kDTypeTable{
    DTypeInfo{DType::F16, "fp16", 2, true, true},
    DTypeInfo{DType::F32, "fp32", 4, true, true},
    DTypeInfo{DType::I32, "int32", 4, false, true},
    DTypeInfo{DType::I8, "int8", 1, false, true},
    DTypeInfo{DType::U8, "uint8", 1, false, false},
    DTypeInfo{DType::I16, "int16", 2, false, true},
    DTypeInfo{DType::U16, "uint16", 2, false, false},
    DTypeInfo{DType::U32, "uint32", 4, false, false},
    DTypeInfo{DType::I64, "int64", 8, false, true},
    DTypeInfo{DType::BF16, "bf16", 2, true, true},
    DTypeInfo{DType::U64, "uint64", 8, false, false},
};

constexpr bool dtype_rows_in_order() {
    for (std::size_t i = 0; i < kDTypeTable.size(); ++i) {
        if (static_cast<std::size_t>(kDTypeTable[i].dtype) != i) return false;
    }
    return kDTypeTable.size() == kDTypeCount;
}
static_assert(dtype_rows_in_order(), "kDTypeTable has one row per DType, in enumerator order");

}  // namespace

const DTypeInfo& dtype_info(DType dtype) {
    const auto index = static_cast<std::size_t>(dtype);
    return kDTypeTable[index < kDTypeTable.size() ? index : 1];
}

std::string_view to_string(DType dtype) {
    return dtype_info(dtype).name;
}

std::string_view to_string(AtomicOp op) {
    switch (op) {
        case AtomicOp::None:
            return "none";
        case AtomicOp::Add:
            return "add";
        case AtomicOp::Max:
            return "max";
        case AtomicOp::Min:
            return "min";
    }
    return "?";
}

std::size_t size_of(DType dtype) {
    return dtype_info(dtype).size;
}

// Conversions follow IEEE 754 binary16 with round-to-nearest-even, including subnormals,
// infinities and NaN (quiet NaN is kept quiet).
half::half(float value) {
    const std::uint32_t f = std::bit_cast<std::uint32_t>(value);
    const std::uint32_t sign = (f >> 16) & 0x8000u;
    const std::uint32_t abs = f & 0x7fffffffu;
    if (abs >= 0x7f800000u) {  // inf or NaN
        bits = static_cast<std::uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
        return;
    }
    if (abs >= 0x477ff000u) {  // rounds to >= 65520: overflow to infinity
        bits = static_cast<std::uint16_t>(sign | 0x7c00u);
        return;
    }
    if (abs < 0x38800000u) {      // below the smallest normal half: subnormal or zero
        if (abs < 0x33000000u) {  // < 2^-25 rounds to zero
            bits = static_cast<std::uint16_t>(sign);
            return;
        }
        // value = mantissa * 2^(E-150); half subnormal units are 2^-24, so shift by 126-E.
        const std::uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
        const std::uint32_t shift = 126u - (abs >> 23);  // 14..24
        const std::uint32_t q = mantissa >> shift;
        const std::uint32_t rem = mantissa & ((1u << shift) - 1u);
        const std::uint32_t halfway = 1u << (shift - 1u);
        std::uint32_t r = q;
        if (rem > halfway || (rem == halfway && (q & 1u))) ++r;
        bits = static_cast<std::uint16_t>(sign | r);
        return;
    }
    const std::uint32_t exp = (abs >> 23) - 112u;  // rebias 127 -> 15
    const std::uint32_t mant = abs & 0x7fffffu;
    std::uint32_t h = (exp << 10) | (mant >> 13);
    const std::uint32_t rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // carry into exponent is correct
    bits = static_cast<std::uint16_t>(sign | h);
}

half::operator float() const {
    const std::uint32_t sign = (static_cast<std::uint32_t>(bits) & 0x8000u) << 16;
    const std::uint32_t exp = (bits >> 10) & 0x1fu;
    std::uint32_t mant = bits & 0x3ffu;
    std::uint32_t f = 0;
    if (exp == 0x1fu) {
        f = sign | 0x7f800000u | (mant << 13);
    } else if (exp != 0) {
        f = sign | ((exp + 112u) << 23) | (mant << 13);
    } else if (mant != 0) {  // subnormal: normalise
        int e = -1;
        do {
            ++e;
            mant <<= 1;
        } while ((mant & 0x400u) == 0);
        f = sign | (static_cast<std::uint32_t>(112 - e) << 23) | ((mant & 0x3ffu) << 13);
    } else {
        f = sign;
    }
    return std::bit_cast<float>(f);
}

// bfloat16 is the upper 16 bits of binary32: round to nearest even on the dropped half, NaN
// stays a (quiet) NaN.
bfloat16::bfloat16(float value) {
    const std::uint32_t f = std::bit_cast<std::uint32_t>(value);
    if ((f & 0x7fffffffu) > 0x7f800000u) {
        bits = static_cast<std::uint16_t>((f >> 16) | 0x40u);
        return;
    }
    const std::uint32_t rounding = 0x7fffu + ((f >> 16) & 1u);
    bits = static_cast<std::uint16_t>((f + rounding) >> 16);
}

bfloat16::operator float() const {
    return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

}  // namespace npusim
