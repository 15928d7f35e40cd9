// Integer expressions of JSON kernels (sim/kernels/json_kernel_expr.h): precedence, C++ integer
// semantics, errors for overflow and division by zero, parse errors with columns.
#include "sim/kernels/json_kernel_expr.h"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

using namespace npusim;

namespace {

std::optional<std::uint32_t> names(std::string_view name) {
    if (name == "block_idx") return 0;
    if (name == "n") return 1;
    if (name == "i") return 2;
    return std::nullopt;
}

std::int64_t eval(const std::string& text, std::vector<std::int64_t> slots = {5, 32, 3}) {
    std::string error;
    const auto e = IntExpr::parse(text, names, error);
    INFO(text << ": " << error);
    REQUIRE(e);
    return e->evaluate(slots);
}

std::string parse_error(const std::string& text) {
    std::string error;
    const auto e = IntExpr::parse(text, names, error);
    CHECK_FALSE(e);
    return error;
}

}  // namespace

TEST_CASE("JSON kernel expressions: precedence and integer semantics", "[json_kernel][unit]") {
    CHECK(eval("block_idx * n + i") == 163);
    CHECK(eval("(block_idx + 1) % 8 * n") == 192);
    CHECK(eval("-7 / 2") == -3);  // truncates toward zero, as C++
    CHECK(eval("-7 % 2") == -1);
    CHECK(eval("1 + 2 * 3 - 4") == 3);
    CHECK(eval("n >= 32 && i != 3 || !0") == 1);
    CHECK(eval("min(n, i) + max(n, 100)") == 103);
    CHECK(eval("block_idx == 5") == 1);
    CHECK(eval(" 9223372036854775807 ") == 9223372036854775807);
}

TEST_CASE("JSON kernel expressions: overflow and division by zero are errors",
          "[json_kernel][unit]") {
    CHECK_THROWS_WITH(eval("n / (i - 3)"), "division by zero: 32 / 0");
    CHECK_THROWS_WITH(eval("n % 0"), "division by zero: 32 % 0");
    CHECK_THROWS_WITH(eval("9223372036854775807 + 1"),
                      "integer overflow: 9223372036854775807 + 1 does not fit in 64 bits");
    CHECK_THROWS_AS(eval("-9223372036854775807 - 2"), ExprError);
    CHECK_THROWS_AS(eval("4611686018427387904 * 2"), ExprError);
}

TEST_CASE("JSON kernel expressions: parse errors name the column", "[json_kernel][unit]") {
    CHECK(parse_error("block_idx * nn") == "undefined name 'nn' at column 13");
    CHECK(parse_error("(n + 1") == "expected ')' at column 7");
    CHECK(parse_error("n +") == "expected a value at column 4");
    CHECK(parse_error("n $ 2") == "unexpected '$' at column 3");
    CHECK(parse_error("99999999999999999999") ==
          "integer larger than 9223372036854775807 at column 19");
    CHECK(parse_error(std::string(100, '(') + "1" + std::string(100, ')'))
              .starts_with("nested deeper than 64 levels"));
    CHECK(parse_error(std::string(2000, '1')).starts_with("expression longer than"));
}
