// The element-type table (base/types.h): one row per DType with its name, size and kind;
// visit_dtype hands each DType its C++ type; bfloat16 converts with round to nearest even.
// The cube's matrix formats (base/cube_layout.h): where element (i, j) lies in each.
#include "base/types.h"

#include <cmath>
#include <cstdint>
#include <set>
#include <string_view>

#include <catch2/catch.hpp>

#include "base/cube_layout.h"

using namespace npusim;

TEST_CASE("dtype table: every type has its row, names unique, sizes of its C++ type", "[unit]") {
    std::set<std::string_view> names;
    for (int i = 0; i < kDTypeCount; ++i) {
        const auto dtype = static_cast<DType>(i);
        const DTypeInfo& info = dtype_info(dtype);
        CAPTURE(info.name);
        CHECK(info.dtype == dtype);
        CHECK(to_string(dtype) == info.name);
        CHECK(size_of(dtype) == info.size);
        visit_dtype(dtype, [&](auto element) {
            using T = decltype(element);
            CHECK(sizeof(T) == info.size);
            CHECK(dtype_of<T> == dtype);
            CHECK(FloatElement<T> == info.is_float);
        });
        names.insert(info.name);
    }
    CHECK(names.size() == static_cast<std::size_t>(kDTypeCount));
    CHECK(to_string(DType::BF16) == "bf16");
    CHECK(to_string(DType::U8) == "uint8");
    CHECK(dtype_info(DType::U32).is_signed == false);
    CHECK(dtype_info(DType::I64).is_signed);
}

TEST_CASE("bfloat16: upper half of binary32, round to nearest even, NaN stays NaN", "[unit]") {
    CHECK(bfloat16(1.0F).bits == 0x3F80);
    CHECK(bfloat16(-2.0F).bits == 0xC000);
    CHECK(float(bfloat16(1.0F + 1.0F / 256)) == 1.0F);               // tie: even
    CHECK(float(bfloat16(1.0F + 3.0F / 256)) == 1.0F + 4.0F / 256);  // tie: even (up)
    CHECK(std::isinf(float(bfloat16(3.4e38F))));                     // rounds past the largest
    CHECK(std::isnan(float(bfloat16(std::nanf("")))));
    CHECK(as_double(bfloat16(0.5F)) == 0.5);
}

// ---- the cube's matrix formats (base/cube_layout.h) ------------------------------------

TEST_CASE("cube formats: one row per format, and where (i, j) lies in each", "[unit]") {
    for (std::size_t i = 0; i < kCubeFormats.size(); ++i)
        CHECK(static_cast<std::size_t>(kCubeFormats[i].format) == i);
    CHECK(cube_c0(2) == 16);
    CHECK(cube_c0(1) == 32);
    CHECK(cube_c0(4) == 8);
    // ND: rows of cols elements (or block_stride apart).
    CHECK(MatrixShape{MatrixFormat::ND, 3, 5}.offset(2, 4) == 14);
    CHECK(MatrixShape{MatrixFormat::ND, 3, 5, 16, 8}.offset(2, 4) == 20);
    // NZ, 40 x 40 half (the vendor's M=30-style partial example): 3 row fractals per column
    // block of 16 columns, 48 rows x 16 a column block.
    const MatrixShape nz{MatrixFormat::NZ, 40, 40, 16};
    CHECK(nz.row_fractals() == 3);
    CHECK(nz.col_fractals() == 3);
    CHECK(nz.offset(0, 0) == 0);
    CHECK(nz.offset(1, 0) == 16);            // rows inside a fractal: 16 apart
    CHECK(nz.offset(17, 3) == 17 * 16 + 3);  // column block 0 runs down all 48 rows
    CHECK(nz.offset(0, 16) == 48 * 16);      // the next column block
    CHECK(nz.span() == 9 * 256);
    // NZ with a block stride (Fixpipe's srcStride, Nd2Nz's dstNzC0Stride): 64 rows apart.
    CHECK(MatrixShape{MatrixFormat::NZ, 40, 40, 16, 64 * 16}.offset(2, 17) == 64 * 16 + 2 * 16 + 1);
    // ZZ, 32 x 64 half: fractals row block after row block, each row-major 16 x 16.
    const MatrixShape zz{MatrixFormat::ZZ, 32, 64, 16};
    CHECK(zz.offset(0, 16) == 256);
    CHECK(zz.offset(16, 0) == 4 * 256);
    CHECK(zz.offset(17, 18) == 5 * 256 + 16 + 2);
    // ZN for b (k x n = 32 x 48, int8: C0 32): fractals 32 (k) x 16 (n) row-major over (k, n)
    // blocks, each held column-major (16 rows of n, 32 k values each).
    const MatrixShape zn{MatrixFormat::ZN, 32, 48, 32};
    CHECK(zn.fractal_rows() == 32);
    CHECK(zn.fractal_cols() == 16);
    CHECK(zn.offset(1, 0) == 1);
    CHECK(zn.offset(0, 1) == 32);
    CHECK(zn.offset(0, 16) == 512);
    CHECK(zn.span() == 3 * 512);
    // fp32 ZZ: 16 x 8 fractals.
    CHECK(MatrixShape{MatrixFormat::ZZ, 16, 16, 8}.offset(3, 9) == 128 + 3 * 8 + 1);
}
