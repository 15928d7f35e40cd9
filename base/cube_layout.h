// The cube's matrix formats, written once: where element (i, j) of a matrix lies in each
// format. The decoder sizes the accesses of Mmad, Fixpipe and the ND -> NZ copy with them, the
// compute reads and writes through them, and the Ascend C layer documents its strides with
// them (docs/ascendc.md, "Cube layouts").
//
// Facts (vendor Ascend C API reference, "Mmad" (its partial-fractal example M=30, K=70,
// N=40), "LoadData", "Fixpipe", "DataCopy ND2NZ"; the cce intrinsic reference,
// copy_gm_to_cbuf_multi_nd2nz): a fractal is 16 rows of C0 elements, C0 = 32 bytes /
// sizeof(T) (512 bytes: 16 x 16 half, 16 x 32 int8, 16 x 8 float); results in L0C have
// 16 x 16 fractals. The name's first letter says how the fractals follow each other ("N":
// column after column, "Z": row after row), the second how the elements of one fractal do
// ("Z": row-major, "N": column-major). A matrix whose extent is not a multiple of the fractal
// still takes whole fractals; their extra elements are not part of the matrix.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace npusim {

/// How a cube instruction holds its operands. RowMajor is npusim's own C++ API and the
/// built-in kernels (a m x k, b k x n, c m x n, each dense row-major); Fractal is the
/// hardware's (a in L0A as ZZ, b in L0B as ZN, c in L0C as NZ), used by the Ascend C layer.
enum class CubeLayout : std::uint8_t { RowMajor, Fractal };

/// A matrix format (CubeFormatInfo).
enum class MatrixFormat : std::uint8_t { ND, NZ, ZZ, ZN };

struct CubeFormatInfo {
    MatrixFormat format = MatrixFormat::ND;
    std::string_view name;
    bool fractal = false;             // false: plain row-major
    bool fractals_row_major = false;  // fractals row block after row block ("Z..")
    bool inside_row_major = true;     // elements of a fractal row-major ("..Z")
    bool rows_are_c0 = false;         // the fractal is C0 x 16 (ZN: b as k x n)
};
inline constexpr std::array kCubeFormats{
    CubeFormatInfo{MatrixFormat::ND, "ND", false, true, true, false},
    CubeFormatInfo{MatrixFormat::NZ, "NZ", true, false, true, false},
    CubeFormatInfo{MatrixFormat::ZZ, "ZZ", true, true, true, false},
    CubeFormatInfo{MatrixFormat::ZN, "ZN", true, true, false, true},
};
static_assert(kCubeFormats.size() == static_cast<std::size_t>(MatrixFormat::ZN) + 1);
constexpr const CubeFormatInfo& cube_format_info(MatrixFormat format) {
    return kCubeFormats[static_cast<std::size_t>(format)];
}

/// The rows of a fractal: 16, or C0 for a format whose fractal is C0 x 16.
inline constexpr std::uint64_t kFractalSide = 16;

/// A matrix of `rows` x `cols` elements in `format` with C0 = `c0` elements (32 bytes of its
/// type; 16 for L0C's results). `block_stride` is the distance in elements from one outer
/// block (a column of fractals for "N.", a row of fractals for "Z.") to the next; 0: packed
/// (the whole padded extent). ND's `block_stride` is its row pitch (0: cols).
struct MatrixShape {
    MatrixFormat format = MatrixFormat::ND;
    std::uint64_t rows = 0, cols = 0;
    std::uint64_t c0 = 16;
    std::uint64_t block_stride = 0;

    constexpr std::uint64_t fractal_rows() const {
        return cube_format_info(format).rows_are_c0 ? c0 : kFractalSide;
    }
    constexpr std::uint64_t fractal_cols() const {
        return cube_format_info(format).rows_are_c0 ? kFractalSide : c0;
    }
    constexpr std::uint64_t row_fractals() const {
        return (rows + fractal_rows() - 1) / fractal_rows();
    }
    constexpr std::uint64_t col_fractals() const {
        return (cols + fractal_cols() - 1) / fractal_cols();
    }
    /// Elements from one outer block to the next.
    constexpr std::uint64_t outer_stride() const {
        const CubeFormatInfo& info = cube_format_info(format);
        if (!info.fractal) return block_stride == 0 ? cols : block_stride;
        if (block_stride != 0) return block_stride;
        const std::uint64_t fractal = fractal_rows() * fractal_cols();
        return fractal * (info.fractals_row_major ? col_fractals() : row_fractals());
    }
    /// The element offset of (i, j).
    constexpr std::uint64_t offset(std::uint64_t i, std::uint64_t j) const {
        const CubeFormatInfo& info = cube_format_info(format);
        if (!info.fractal) return i * outer_stride() + j;
        const std::uint64_t fr = fractal_rows(), fc = fractal_cols();
        const std::uint64_t fractal = fr * fc;
        const std::uint64_t outer = info.fractals_row_major ? i / fr : j / fc;
        const std::uint64_t inner = info.fractals_row_major ? j / fc : i / fr;
        const std::uint64_t in =
            info.inside_row_major ? (i % fr) * fc + j % fc : (j % fc) * fr + i % fr;
        return outer * outer_stride() + inner * fractal + in;
    }
    /// Elements from the first to one past the last element the matrix's fractals (or ND
    /// rows) occupy: the span an instruction touches.
    constexpr std::uint64_t span() const {
        if (rows == 0 || cols == 0) return 0;
        const CubeFormatInfo& info = cube_format_info(format);
        if (!info.fractal) return (rows - 1) * outer_stride() + cols;
        const std::uint64_t fractal = fractal_rows() * fractal_cols();
        const std::uint64_t outer = info.fractals_row_major ? row_fractals() : col_fractals();
        const std::uint64_t inner = info.fractals_row_major ? col_fractals() : row_fractals();
        return (outer - 1) * outer_stride() + inner * fractal;
    }
};

/// C0 of an element of `element_bytes` bytes: the elements of 32 bytes.
constexpr std::uint64_t cube_c0(std::uint64_t element_bytes) {
    return 32 / element_bytes;
}

}  // namespace npusim
