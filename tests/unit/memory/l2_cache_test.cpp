// L2Cache: hits, misses, LRU replacement, write-back of dirty victims and the bypass hint
// (docs/cost-model.md, "L2 cache").
#include "memory/l2_cache.h"

#include <catch2/catch.hpp>

using namespace npusim;

TEST_CASE("L2 cache: a second read of the same bytes hits", "[unit]") {
    L2Cache l2(1 << 20, 128, 16);
    REQUIRE(l2.enabled());
    const L2Access first = l2.access(4096, 1000, false, false);
    CHECK(first.miss_bytes == 1000);
    CHECK(first.hit_bytes == 0);
    const L2Access second = l2.access(4096, 1000, false, false);
    CHECK(second.hit_bytes == 1000);
    CHECK(second.miss_bytes == 0);
}

TEST_CASE("L2 cache: reads with the bypass hint allocate nothing", "[unit]") {
    L2Cache l2(1 << 20, 128, 16);
    CHECK(l2.access(0, 4096, false, true).miss_bytes == 4096);
    CHECK(l2.access(0, 4096, false, true).miss_bytes == 4096);
    CHECK(l2.access(0, 4096, false, false).miss_bytes == 4096);
    CHECK(l2.access(0, 4096, false, true).hit_bytes == 4096);  // a hit is still a hit
}

TEST_CASE(
    "L2 cache: streaming twice its capacity evicts everything (LRU) and writes back "
    "dirty lines",
    "[unit]") {
    constexpr std::uint64_t kCapacity = 64 * 1024;
    L2Cache l2(kCapacity, 128, 4);
    // Written lines are dirty (a set the hash fills beyond its ways may already write some
    // back); reading 4x the capacity afterwards evicts every one of them.
    const L2Access written = l2.access(0, kCapacity, true, false);
    CHECK(written.miss_bytes == 0);
    std::uint64_t writeback = written.writeback_bytes, hits = 0;
    for (std::uint64_t at = kCapacity; at < 5 * kCapacity; at += 4096) {
        const L2Access a = l2.access(at, 4096, false, false);
        writeback += a.writeback_bytes;
        hits += a.hit_bytes;
    }
    CHECK(writeback == kCapacity);
    CHECK(hits == 0);
    // The first bytes are long gone: reading them again misses.
    CHECK(l2.access(0, 4096, false, false).miss_bytes == 4096);
}

TEST_CASE("L2 cache: capacity 0 is no cache", "[unit]") {
    L2Cache l2(0, 128, 16);
    CHECK_FALSE(l2.enabled());
    CHECK(l2.access(0, 4096, false, false).miss_bytes == 4096);
    CHECK(l2.access(0, 4096, false, false).miss_bytes == 4096);
}
