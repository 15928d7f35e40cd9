// The vendor's size constants that kernels use by name (its kernel_utils_constants.h), one
// definition for kernel_operator.h and the Matmul API headers.
#pragma once

#include <cstdint>

/// The values are the A2/A3 ones: 32-byte blocks, 256-byte repeats, 16 x 16 cube fractals.
namespace AscendC {
inline constexpr std::uint16_t ONE_BLK_SIZE = 32;
inline constexpr std::uint32_t ONE_BLOCK_SIZE = 32;
inline constexpr std::int32_t ONE_REPEAT_BYTE_SIZE = 256;
inline constexpr std::int32_t DEFAULT_BLK_NUM = 8;
inline constexpr std::int32_t DEFAULT_BLK_STRIDE = 1;
inline constexpr std::uint8_t DEFAULT_REPEAT_STRIDE = 8;
inline constexpr std::uint8_t HALF_DEFAULT_REPEAT_STRIDE = 4;
inline constexpr std::uint8_t ONE_FOURTH_DEFAULT_REPEAT_STRIDE = 2;
inline constexpr std::uint64_t FULL_MASK = 0xffffffffffffffffULL;
inline constexpr std::int32_t DEFAULT_C0_SIZE = 32;
inline constexpr std::int32_t MAX_REPEAT_TIMES = 255;
inline constexpr std::int32_t ONE_BYTE_BIT_SIZE = 8;
inline constexpr std::int32_t BLOCK_CUBE = 16;
inline constexpr std::int32_t CUBE_MAX_SIZE = 256;
inline constexpr std::uint8_t B32_BYTE_SIZE = 4;
inline constexpr std::uint8_t B16_BYTE_SIZE = 2;
inline constexpr std::uint8_t B8_BYTE_SIZE = 1;
}  // namespace AscendC
