// The cube's tables, written once: the input types Mmad takes (with the cube's rate per type)
// and Fixpipe's conversions out of L0C. The decoder checks instructions against them, the
// cost model and the compute read them, and the Ascend C layer checks its types at compile
// time with them (installed: kernels include it through kernel_operator.h).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/transaction.h"
#include "base/types.h"

namespace npusim {

/// One input type the cube (Mmad) takes, from the vendor's Mmad data-type table for the
/// A2/A3 generation (Ascend C API reference, "Mmad", data types): fm and filter of `input`,
/// the result in L0C (and the bias row) of `result`. One cube cycle multiplies a 16 x k0 left
/// fractal by a k0 x 16 right one, k0 = 32 bytes of the input type (a fractal is 512 bytes:
/// 16 x 16 fp16/bf16, 16 x 32 int8, 16 x 8 fp32), so the cube's rate per type is
/// 16 x 16 x k0 multiply-adds per cycle (docs/cost-model.md).
struct CubeTypeInfo {
    DType input = DType::F16;
    DType result = DType::F32;
    std::uint32_t k0 = 16;  // k elements per cube cycle (one fractal's row of 32 bytes)
};
inline constexpr std::array kCubeTypes{
    CubeTypeInfo{DType::F16, DType::F32, 16},
    CubeTypeInfo{DType::BF16, DType::F32, 16},
    CubeTypeInfo{DType::I8, DType::I32, 32},
    CubeTypeInfo{DType::F32, DType::F32, 8},
};
/// The row for input type `input`, or nullptr when the cube does not take it.
constexpr const CubeTypeInfo* cube_type(DType input) {
    for (const CubeTypeInfo& row : kCubeTypes) {
        if (row.input == input) return &row;
    }
    return nullptr;
}
/// One Fixpipe conversion (FixQuant, the vendor's QuantMode_t; Ascend C API reference, "Fixpipe"
/// and its "quantisation on the way" page): L0C `source` type to a GM `result` type (or
/// `result_alt`: int8 / uint8), scaled by the deqScalar word (`scaled`) or by one uint64 word
/// per column read from the fixpipe buffer (`per_channel`).
struct FixQuantInfo {
    FixQuant mode = FixQuant::None;
    std::string_view name;  // the vendor's spelling
    DType source = DType::F32;
    DType result = DType::F32;
    DType result_alt = DType::F32;
    bool scaled = false;
    bool per_channel = false;
};
inline constexpr std::array kFixQuants{
    FixQuantInfo{FixQuant::None, "NoQuant", DType::F32, DType::F32, DType::F32},
    FixQuantInfo{FixQuant::F322F16, "F322F16", DType::F32, DType::F16, DType::F16},
    FixQuantInfo{FixQuant::F322BF16, "F322BF16", DType::F32, DType::BF16, DType::BF16},
    FixQuantInfo{FixQuant::DEQF16, "DEQF16", DType::I32, DType::F16, DType::F16, true},
    FixQuantInfo{FixQuant::VDEQF16, "VDEQF16", DType::I32, DType::F16, DType::F16, true, true},
    FixQuantInfo{FixQuant::QF322B8, "QF322B8_PRE", DType::F32, DType::I8, DType::U8, true},
    FixQuantInfo{FixQuant::VQF322B8, "VQF322B8_PRE", DType::F32, DType::I8, DType::U8, true, true},
    FixQuantInfo{FixQuant::REQ8, "REQ8", DType::I32, DType::I8, DType::U8, true},
    FixQuantInfo{FixQuant::VREQ8, "VREQ8", DType::I32, DType::I8, DType::U8, true, true},
};
static_assert(kFixQuants.size() == static_cast<std::size_t>(FixQuant::VREQ8) + 1);
constexpr const FixQuantInfo& fix_quant_info(FixQuant mode) {
    return kFixQuants[static_cast<std::size_t>(mode)];
}

}  // namespace npusim
