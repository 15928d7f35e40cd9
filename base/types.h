// Basic vocabulary of the model: pipes, core types, memory spaces, data types, cycles.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace npusim {

/// Simulated time in core clock cycles.
using Cycle = std::uint64_t;

/// Hardware pipes, numbered as the vendor's pipe_t so reports match what developers read.
enum class Pipe : std::uint8_t {
    S = 0,
    V = 1,
    M = 2,
    MTE1 = 3,
    MTE2 = 4,
    MTE3 = 5,
    ALL = 6,
    FIX = 10
};
inline constexpr int kPipeSlots = 11;  // array size when indexing by pipe id

enum class CoreType : std::uint8_t { Vector, Cube };  // AIV, AIC

/// BT: the cube core's bias table (Ascend C TPosition C2), its own on-chip buffer.
enum class MemSpace : std::uint8_t { GM, UB, L1, L0A, L0B, L0C, BT };
inline constexpr int kMemSpaces = 7;

/// Element types, in the order of the table in types.cpp (dtype_info): name, size, kind.
enum class DType : std::uint8_t { F16, F32, I32, I8, U8, I16, U16, U32, I64, BF16, U64 };
inline constexpr int kDTypeCount = 11;

struct DTypeInfo {
    DType dtype = DType::F32;
    std::string_view name;  // reports: "fp16", "bf16", "uint8", ...
    std::size_t size = 0;   // bytes
    bool is_float = false;
    bool is_signed = false;
};
/// Contract: every DType has a row (checked at compile time).
const DTypeInfo& dtype_info(DType dtype);

/// Atomic copy-out mode (the vendor's SetAtomicAdd / SetAtomicMax / SetAtomicMin): a copy
/// to GM on MTE3 or FIX combines its data with what GM holds instead of overwriting it.
enum class AtomicOp : std::uint8_t { None, Add, Max, Min };

std::string_view to_string(Pipe pipe);
std::string_view to_string(CoreType type);  // "aiv" / "aic"
std::string_view to_string(MemSpace space);
std::string_view to_string(DType dtype);
std::string_view to_string(AtomicOp op);  // "none", "add", "max", "min"
std::size_t size_of(DType dtype);
/// "0x1f40": addresses in messages.
std::string hex_string(std::uint64_t value);

/// IEEE 754 binary16, stored as bits; arithmetic happens in float (round to nearest even back).
struct half {
    std::uint16_t bits = 0;
    half() = default;
    half(float value);       // NOLINT(google-explicit-constructor): behaves like a number
    operator float() const;  // NOLINT(google-explicit-constructor)
    friend bool operator==(half a, half b) { return a.bits == b.bits; }
};
static_assert(sizeof(half) == 2);

/// bfloat16 (the upper half of an IEEE binary32), stored as bits; arithmetic happens in float
/// (round to nearest even back).
struct bfloat16 {
    std::uint16_t bits = 0;
    bfloat16() = default;
    bfloat16(float value);   // NOLINT(google-explicit-constructor): behaves like a number
    operator float() const;  // NOLINT(google-explicit-constructor)
    friend bool operator==(bfloat16 a, bfloat16 b) { return a.bits == b.bits; }
};
static_assert(sizeof(bfloat16) == 2);

template <class T>
struct DTypeOf;
template <>
struct DTypeOf<half> {
    static constexpr DType value = DType::F16;
};
template <>
struct DTypeOf<float> {
    static constexpr DType value = DType::F32;
};
template <>
struct DTypeOf<std::int32_t> {
    static constexpr DType value = DType::I32;
};
template <>
struct DTypeOf<std::int8_t> {
    static constexpr DType value = DType::I8;
};
template <>
struct DTypeOf<std::uint8_t> {
    static constexpr DType value = DType::U8;
};
template <>
struct DTypeOf<std::int16_t> {
    static constexpr DType value = DType::I16;
};
template <>
struct DTypeOf<std::uint16_t> {
    static constexpr DType value = DType::U16;
};
template <>
struct DTypeOf<std::uint32_t> {
    static constexpr DType value = DType::U32;
};
template <>
struct DTypeOf<std::int64_t> {
    static constexpr DType value = DType::I64;
};
template <>
struct DTypeOf<bfloat16> {
    static constexpr DType value = DType::BF16;
};
template <>
struct DTypeOf<std::uint64_t> {
    static constexpr DType value = DType::U64;
};

template <class T>
concept Element = requires {
    DTypeOf<T>::value;
};
template <class T>
concept FloatElement = Element<T> &&
    (DTypeOf<T>::value == DType::F16 || DTypeOf<T>::value == DType::F32 ||
     DTypeOf<T>::value == DType::BF16);
template <class T>
concept IntegerElement = Element<T> && !FloatElement<T>;

template <Element T>
inline constexpr DType dtype_of = DTypeOf<T>::value;

/// Calls f(T{}) with the C++ type of `dtype`: the one switch over element types.
template <class F>
decltype(auto) visit_dtype(DType dtype, F&& f) {
    switch (dtype) {
        case DType::F16:
            return f(half{});
        case DType::F32:
            return f(float{});
        case DType::I32:
            return f(std::int32_t{});
        case DType::I8:
            return f(std::int8_t{});
        case DType::U8:
            return f(std::uint8_t{});
        case DType::I16:
            return f(std::int16_t{});
        case DType::U16:
            return f(std::uint16_t{});
        case DType::U32:
            return f(std::uint32_t{});
        case DType::I64:
            return f(std::int64_t{});
        case DType::BF16:
            return f(bfloat16{});
        case DType::U64:
            return f(std::uint64_t{});
    }
    return f(float{});
}

/// Exact for every element type except int64 beyond 2^53 (half and bf16 go through float).
template <Element T>
double as_double(T value) {
    if constexpr (DTypeOf<T>::value == DType::F16 || DTypeOf<T>::value == DType::BF16) {
        return static_cast<double>(static_cast<float>(value));
    } else {
        return static_cast<double>(value);
    }
}

}  // namespace npusim
