// Compute of the cube's data movers that change the data: Fixpipe's conversions on the way out
// of L0C (semantics: docs/ascendc.md, "Fixpipe", from the vendor's Ascend C API reference:
// "Fixpipe", "quantisation on the way", "ReLU on the way" and the reference scripts of its
// fixpipe_l0c2gm example) and LoadData's fractal transpose on the way into L0A / L0B.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "base/img2col.h"
#include "pipes/compute.h"
#include "pipes/element_access.h"
#include "pipes/op_table.h"

namespace npusim {

namespace {

using compute_detail::load_at;
using compute_detail::store_at;

constexpr float kHalfMax = 65504.0F;

/// The quantisation word's offset (bits 45..37, 0..511) and output sign (bit 46).
std::int32_t word_offset(std::uint64_t word) {
    return static_cast<std::int32_t>((word >> 37) & 0x1ffU);
}
bool word_signed(std::uint64_t word) {
    return ((word >> 46) & 1U) != 0;
}

/// (V)QF322B8_PRE and (V)REQ8: the scaled value rounded (to nearest even) into [-256, 255],
/// plus the offset, saturated to int8 or uint8 by the word's sign bit; the byte's bits.
std::uint8_t to_b8(float scaled, std::uint64_t word) {
    const float clamped = std::clamp(scaled, -256.0F, 255.0F);
    const auto rounded = static_cast<std::int32_t>(std::nearbyint(clamped));
    const std::int32_t shifted = rounded + word_offset(word);
    if (word_signed(word)) {
        return static_cast<std::uint8_t>(static_cast<std::int8_t>(std::clamp(shifted, -128, 127)));
    }
    return static_cast<std::uint8_t>(std::clamp(shifted, 0, 255));
}

}  // namespace

float fixpipe_scale(std::uint64_t word) {
    return std::bit_cast<float>(static_cast<std::uint32_t>(word & 0xffffe000U));
}

void compute_fixpipe(const Transaction& tx, const std::byte* const* sources, std::byte* out) {
    const FixQuantInfo& info = fix_quant_info(static_cast<FixQuant>(tx.mode));
    const std::byte* src = sources[0];
    const std::byte* words = info.per_channel ? sources[1] : nullptr;
    const std::uint64_t m = tx.m, n = tx.n;
    const bool from_int = tx.src_dtype == DType::I32;
    const MatrixShape source = fixpipe_source(tx);
    for (std::uint64_t row = 0; row < m; ++row) {
        for (std::uint64_t col = 0; col < n; ++col) {
            const std::uint64_t i = row * n + col;
            const std::uint64_t at = source.offset(row, col);
            if (info.mode == FixQuant::None) {
                if (from_int) {
                    const auto v = load_at<std::int32_t>(src, at);
                    store_at<std::int32_t>(out, i, tx.relu ? std::max(v, 0) : v);
                } else {
                    const auto v = load_at<float>(src, at);
                    store_at<float>(out, i, tx.relu && v < 0.0F ? 0.0F : v);
                }
                continue;
            }
            const float v = from_int ? static_cast<float>(load_at<std::int32_t>(src, at))
                                     : load_at<float>(src, at);
            if (!info.scaled) {  // F322F16 / F322BF16: a cast that rounds to nearest even
                const float r = tx.relu && v < 0.0F ? 0.0F : v;
                if (tx.dtype == DType::F16) {
                    store_at<half>(out, i, half(r));
                } else {
                    store_at<bfloat16>(out, i, bfloat16(r));
                }
                continue;
            }
            // Scaled: M1 for values >= 0, M2 (0 with ReLU, else M1) for negative ones.
            const std::uint64_t word =
                words != nullptr ? load_at<std::uint64_t>(words, col) : tx.quant_word;
            const float m1 = fixpipe_scale(word);
            const float scaled = v >= 0.0F ? v * m1 : (tx.relu ? 0.0F : v * m1);
            if (tx.dtype == DType::F16) {
                store_at<half>(out, i, half(std::clamp(scaled, -kHalfMax, kHalfMax)));
            } else {
                store_at<std::uint8_t>(out, i, to_b8(scaled, word));
            }
        }
    }
}

void compute_load_fractals(const Transaction& tx, const std::byte* const* sources, std::byte* out) {
    constexpr std::uint64_t kSide = 16;  // a 512-byte fractal of 16-bit elements
    constexpr std::uint64_t kFractalBytes = kSide * kSide * 2;
    const bool square = tx.mode == 2 || tx.mode == 3;
    const MemAccess& read = tx.accesses[square ? 1 : 0];
    const std::uint64_t fractals = read.rows;
    for (std::uint64_t f = 0; f < fractals; ++f) {
        const std::byte* src = sources[0] + f * read.pitch;
        std::byte* dst = out + f * kFractalBytes;
        if (tx.mode == 0) {
            std::memcpy(dst, src, kFractalBytes);
        } else if (tx.mode == 1) {
            for (std::uint64_t i = 0; i < kSide; ++i) {
                for (std::uint64_t j = 0; j < kSide; ++j) {
                    std::memcpy(dst + (j * kSide + i) * 2, src + (i * kSide + j) * 2, 2);
                }
            }
        } else if (size_of(tx.dtype) == 1) {
            // A 32 x 32 square (two 16 x 32 fractals, row-major); the half is rows 16h.. of
            // its transpose: dst (r, c) = square (c, 16h + r).
            const std::uint64_t h = tx.mode - 2;
            for (std::uint64_t r = 0; r < kSide; ++r) {
                for (std::uint64_t c = 0; c < 2 * kSide; ++c)
                    dst[r * 32 + c] = src[c * 32 + h * 16 + r];
            }
        } else {
            // A 16 x 16 square of 32-bit elements from two 16 x 8 fractals side by side; the
            // half is columns 8h.. of its transpose: dst (r, c) = square (8h + c, r).
            const std::uint64_t h = tx.mode - 2;
            for (std::uint64_t r = 0; r < kSide; ++r) {
                for (std::uint64_t c = 0; c < 8; ++c) {
                    const std::uint64_t from = (r / 8) * 128 + (8 * h + c) * 8 + r % 8;
                    std::memcpy(dst + (r * 8 + c) * 4, src + from * 4, 4);
                }
            }
        }
    }
}

void compute_img2col(const Transaction& tx, const std::byte* const* sources, std::byte* out) {
    const Img2Col& g = tx.img2col;
    const std::uint64_t element = size_of(tx.dtype), c0 = cube_c0(element);
    const bool to_b = tx.accesses[0].space == MemSpace::L0B;
    const MatrixShape dst = img2col_destination(g, c0, to_b);
    const std::uint64_t rows = dst.row_fractals() * dst.fractal_rows();
    const std::uint64_t cols = dst.col_fractals() * dst.fractal_cols();
    for (std::uint64_t i = 0; i < rows; ++i) {
        for (std::uint64_t j = 0; j < cols; ++j) {
            std::byte* at = out + dst.offset(i, j) * element;
            // Past the window (a partial last fractal): 0 (hardware leaves those elements).
            if (i >= dst.rows || j >= dst.cols) {
                std::memset(at, 0, element);
                continue;
            }
            const bool swap = g.transpose && !to_b;
            const std::int64_t from =
                g.source(g.m_start + (swap ? j : i), g.k_start + (swap ? i : j), c0);
            if (from < 0) {
                for (std::uint64_t b = 0; b < element; ++b)
                    at[b] = static_cast<std::byte>((tx.pad_value >> (8 * b)) & 0xFF);
            } else {
                // Past SetLoadDataBoundary's bound (g.wrap_bytes): the second read, from L1's
                // start.
                const std::uint64_t offset =
                    (static_cast<std::uint64_t>(from) - g.first_read) * element;
                const std::uint64_t address = tx.accesses[1].address + offset;
                const bool wrapped = g.wrap_bytes != 0 && address >= g.wrap_bytes;
                std::memcpy(at,
                            wrapped ? sources[1] + (address - g.wrap_bytes) : sources[0] + offset,
                            element);
            }
        }
    }
}

void compute_init_const(const Transaction& tx, const std::byte* const*, std::byte* out) {
    const std::uint64_t element = size_of(tx.dtype);
    const std::uint64_t bytes = tx.accesses[0].total_bytes();
    for (std::uint64_t b = 0; b < bytes; ++b)
        out[b] = static_cast<std::byte>((tx.pad_value >> (8 * (b % element))) & 0xFF);
}

void nd2nz_in_place(const Transaction& tx, std::byte* data) {
    constexpr std::uint64_t kBlock = 32;  // C0 elements: one row of a column block
    const MemAccess& read = tx.accesses[0];
    const std::uint64_t rows = read.rows, row_bytes = read.bytes;
    const std::uint64_t blocks = (row_bytes + kBlock - 1) / kBlock;
    std::vector<std::byte> nd(data, data + rows * row_bytes);
    for (std::uint64_t b = 0; b < blocks; ++b) {
        const std::uint64_t bytes = std::min(kBlock, row_bytes - b * kBlock);
        for (std::uint64_t r = 0; r < rows; ++r) {
            std::byte* dst = data + (b * rows + r) * kBlock;
            std::memcpy(dst, nd.data() + r * row_bytes + b * kBlock, bytes);
            std::memset(dst + bytes, 0, kBlock - bytes);
        }
    }
}

}  // namespace npusim
