// The element-type table (base/types.h): one row per DType with its name, size and kind;
// visit_dtype hands each DType its C++ type; bfloat16 converts with round to nearest even.
#include "base/types.h"

#include <cmath>
#include <cstdint>
#include <set>
#include <string_view>

#include <catch2/catch.hpp>

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
