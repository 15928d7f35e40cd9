#include "memory/byte_ranges.h"

#include <cstdint>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

using npusim::ByteRanges;
using Ranges = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

namespace {
Ranges all(const ByteRanges& r, std::uint64_t lo = 0, std::uint64_t hi = 1000) {
    Ranges out;
    r.for_each(lo, hi, [&](std::uint64_t a, std::uint64_t b) { out.emplace_back(a, b); });
    return out;
}
}  // namespace

TEST_CASE("byte ranges merge overlapping and touching ranges", "[memory]") {
    ByteRanges r;
    r.add(10, 20);
    r.add(30, 40);
    CHECK(all(r) == Ranges{{10, 20}, {30, 40}});
    r.add(20, 30);  // touches both
    CHECK(all(r) == Ranges{{10, 40}});
    r.add(5, 12);
    r.add(38, 50);
    CHECK(all(r) == Ranges{{5, 50}});
    r.add(7, 7);  // empty
    CHECK(r.size() == 1);
}

TEST_CASE("byte ranges remove splits a straddling range and clips queries", "[memory]") {
    ByteRanges r;
    r.add(0, 100);
    r.remove(40, 60);
    CHECK(all(r) == Ranges{{0, 40}, {60, 100}});
    r.remove(30, 70);
    CHECK(all(r) == Ranges{{0, 30}, {70, 100}});
    CHECK(all(r, 20, 80) == Ranges{{20, 30}, {70, 80}});
    r.remove(0, 1000);
    CHECK(r.empty());
}
