// LoadData 3D (img2col) as the cube's L1 -> L0A / L0B load sees it, written once: which
// feature-map element each element of the image-to-column matrix is. The decoder sizes the
// instruction's L1 read with it and the compute gathers through it.
//
// Facts (vendor Ascend C API reference, "LoadData" 3D v2 and its pseudo-code in asc-devkit's
// load_data_l12l0 sample, scripts/load3d.py): the feature map lies in L1 as NC1HWC0 (C1 =
// channelSize / C0 blocks, each l1H x l1W positions of C0 elements, C0 = 32 bytes). The
// img2col matrix has one row per output position (oh * Wout + ow, W fastest) and one column
// per (c1, kh, kw, c0) in that order (c0 fastest); a row reads the window at (oh * strideH +
// kh * dilationH - padTop, ow * strideW + kw * dilationW - padLeft), and a position outside
// the feature map reads the pad value.
#pragma once

#include <cstdint>

#include "base/cube_layout.h"

namespace npusim {

/// One LoadData 3D v2 instruction's geometry (the vendor's LoadData3DParamsV2 and the
/// feature-map registers SetFmatrix / SetLoadDataPaddingValue set). The instruction takes the
/// window of `m_extent` rows from `m_start` and `k_extent` columns from `k_start` (whole C0
/// blocks) of the img2col matrix. `transpose`: into L0A as the transposed window (enTranspose);
/// into L0B the window is always written as ZN.
struct Img2Col {
    std::uint32_t l1_h = 0, l1_w = 0, channels = 0;
    std::uint32_t k_start = 0, k_extent = 0, m_start = 0, m_extent = 0;
    std::uint32_t stride_h = 1, stride_w = 1;
    std::uint32_t filter_h = 1, filter_w = 1;  // filterSizeH / W already added (+256)
    std::uint32_t dilation_h = 1, dilation_w = 1;
    std::uint32_t pad_left = 0, pad_right = 0, pad_top = 0, pad_bottom = 0;
    bool transpose = false;
    /// SetLoadDataBoundary: an L1 byte address the reads wrap at (an element at address
    /// a >= wrap_bytes reads a - wrap_bytes, from L1's start); 0: no wrap.
    std::uint64_t wrap_bytes = 0;
    /// Set by the decoder: the elements from the feature map's start to the first one the
    /// instruction reads (where its L1 read access begins).
    std::uint64_t first_read = 0;

    constexpr std::uint64_t out_w() const {
        const std::uint64_t window = (std::uint64_t{filter_w} - 1) * dilation_w + 1;
        const std::uint64_t padded = std::uint64_t{l1_w} + pad_left + pad_right;
        return padded < window || stride_w == 0 ? 0 : (padded - window) / stride_w + 1;
    }
    constexpr std::uint64_t out_h() const {
        const std::uint64_t window = (std::uint64_t{filter_h} - 1) * dilation_h + 1;
        const std::uint64_t padded = std::uint64_t{l1_h} + pad_top + pad_bottom;
        return padded < window || stride_h == 0 ? 0 : (padded - window) / stride_h + 1;
    }
    /// The feature-map position (its index h * l1_w + w inside one C1 block) that row `m` of
    /// the img2col matrix reads for kernel point (kh, kw), or -1 for the padding.
    constexpr std::int64_t position(std::uint64_t m, std::uint64_t kh, std::uint64_t kw) const {
        const std::uint64_t ow = out_w();
        if (ow == 0) return -1;
        const std::int64_t h = static_cast<std::int64_t>((m / ow) * stride_h + kh * dilation_h) -
                               static_cast<std::int64_t>(pad_top);
        const std::int64_t w = static_cast<std::int64_t>((m % ow) * stride_w + kw * dilation_w) -
                               static_cast<std::int64_t>(pad_left);
        if (h < 0 || w < 0 || h >= static_cast<std::int64_t>(l1_h) ||
            w >= static_cast<std::int64_t>(l1_w)) {
            return -1;
        }
        return h * static_cast<std::int64_t>(l1_w) + w;
    }
    /// The element offset in L1 (from the feature map's start) of img2col element (m, k), or
    /// -1 for the padding; `c0` elements a block.
    constexpr std::int64_t source(std::uint64_t m, std::uint64_t k, std::uint64_t c0) const {
        const std::uint64_t block = k / c0;  // (c1, kh, kw)
        const std::uint64_t points = std::uint64_t{filter_h} * filter_w;
        const std::uint64_t c1 = block / points, kh = block % points / filter_w;
        const std::uint64_t kw = block % filter_w;
        const std::int64_t at = position(m, kh, kw);
        if (at < 0) return -1;
        const std::uint64_t plane = std::uint64_t{l1_h} * l1_w;
        return static_cast<std::int64_t>((c1 * plane + static_cast<std::uint64_t>(at)) * c0 +
                                         k % c0);
    }
};

/// The feature-map elements [lo, hi) (from its start) the window reads: from the lowest to
/// one past the highest C0 block gathered; empty (hi 0) when it reads only padding.
struct Img2ColRead {
    std::uint64_t lo = 0, hi = 0;
};
constexpr Img2ColRead img2col_read(const Img2Col& g, std::uint64_t c0) {
    Img2ColRead read{~std::uint64_t{0}, 0};
    for (std::uint64_t m = g.m_start; m < std::uint64_t{g.m_start} + g.m_extent; ++m) {
        for (std::uint64_t k = g.k_start; k < std::uint64_t{g.k_start} + g.k_extent; k += c0) {
            const std::int64_t at = g.source(m, k, c0);
            if (at < 0) continue;
            read.lo =
                read.lo < static_cast<std::uint64_t>(at) ? read.lo : static_cast<std::uint64_t>(at);
            const std::uint64_t end = static_cast<std::uint64_t>(at) + c0;
            read.hi = read.hi > end ? read.hi : end;
        }
    }
    if (read.hi == 0) read.lo = 0;
    return read;
}

/// Where the window lands (A2 / A3): into L0A as ZZ of the m_extent x k_extent window, or with
/// `transpose` as ZZ of its k_extent x m_extent transpose; into L0B as ZN of the window (the
/// img2col rows are b's k, its columns b's n). Element (i, j) of the returned shape is img2col
/// element (m_start + i, k_start + j), or (m_start + j, k_start + i) when transposed.
constexpr MatrixShape img2col_destination(const Img2Col& g, std::uint64_t c0, bool to_l0b) {
    if (to_l0b) return MatrixShape{MatrixFormat::ZN, g.m_extent, g.k_extent, c0};
    if (g.transpose) return MatrixShape{MatrixFormat::ZZ, g.k_extent, g.m_extent, c0};
    return MatrixShape{MatrixFormat::ZZ, g.m_extent, g.k_extent, c0};
}

}  // namespace npusim
