// SmallVector: values inside while they fit, on the heap beyond, and back inside when they
// fit again; copies and moves in every direction; filter and insert keep the order.
#include "base/small_vector.h"

#include <vector>

#include <catch2/catch.hpp>

using namespace npusim;

namespace {
std::vector<int> values(const SmallVector<int, 2>& v) {
    return std::vector<int>(v.begin(), v.end());
}
}  // namespace

TEST_CASE("small vector: grows onto the heap and back inside", "[unit]") {
    SmallVector<int, 2> v;
    CHECK(v.empty());
    for (int i = 0; i < 5; ++i) v.push_back(i);
    CHECK(values(v) == std::vector<int>{0, 1, 2, 3, 4});
    v.filter([](int x) { return x % 2 == 0; });
    CHECK(values(v) == std::vector<int>{0, 2, 4});
    v.filter([](int x) { return x != 2; });  // fits inside again
    CHECK(values(v) == std::vector<int>{0, 4});
    v.resize(4);  // new values are zero
    CHECK(values(v) == std::vector<int>{0, 4, 0, 0});
    v.clear();
    CHECK(v.empty());
    v.push_back(7);
    CHECK(values(v) == std::vector<int>{7});
}

TEST_CASE("small vector: insert keeps the order across the inline limit", "[unit]") {
    SmallVector<int, 2> v;
    v.insert(0, 3);
    v.insert(0, 1);
    v.insert(1, 2);  // the third value moves everything to the heap
    v.insert(3, 4);
    CHECK(values(v) == std::vector<int>{1, 2, 3, 4});
}

TEST_CASE("small vector: the filter predicate sees each value once, in order", "[unit]") {
    SmallVector<int, 2> v;
    for (int i = 0; i < 6; ++i) v.push_back(i);
    std::vector<int> seen;
    v.filter([&](int x) {
        seen.push_back(x);
        return x > 3;
    });
    CHECK(seen == std::vector<int>{0, 1, 2, 3, 4, 5});
    CHECK(values(v) == std::vector<int>{4, 5});
}

TEST_CASE("small vector: copies and moves are independent of their source", "[unit]") {
    SmallVector<int, 2> few;
    few.push_back(1);
    SmallVector<int, 2> many;
    for (int i = 10; i < 15; ++i) many.push_back(i);
    SmallVector<int, 2> copy = many;  // heap into a fresh one
    many[0] = 99;
    CHECK(copy[0] == 10);
    copy = few;  // inline over heap
    CHECK(values(copy) == std::vector<int>{1});
    copy = many;  // heap over inline (its earlier heap array is reused)
    CHECK(values(copy) == std::vector<int>{99, 11, 12, 13, 14});
    SmallVector<int, 2> moved = std::move(copy);
    CHECK(values(moved) == std::vector<int>{99, 11, 12, 13, 14});
    CHECK(copy.empty());  // NOLINT(bugprone-use-after-move): a moved-from one is empty
    copy = std::move(few);
    CHECK(values(copy) == std::vector<int>{1});
}
