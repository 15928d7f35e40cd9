// GmBandwidth: a lone transfer runs at its path rate, many concurrent transfers share the
// chip rate, and forgotten windows can no longer be reserved.
#include "memory/gm_bandwidth.h"

#include <algorithm>
#include <vector>

#include <catch2/catch.hpp>

using namespace npusim;

namespace {
// The small preset's GM: 64 B/cycle for the chip in 32-cycle windows; MTE2 32 B/cycle.
constexpr std::uint64_t kChipRate = 64;
constexpr std::uint64_t kWindow = 32;
constexpr std::uint64_t kPathRate = 32;
}  // namespace

TEST_CASE("gm bandwidth: a lone transfer runs at the per-core path rate", "[unit]") {
    GmBandwidth gm(kChipRate, kWindow);
    CHECK(gm.transfer(0, 1000, kPathRate) == 32);  // ceil(1000 / 32)
    GmBandwidth later(kChipRate, kWindow);
    CHECK(later.transfer(10, 64, kPathRate) == 12);  // starts mid-window
    GmBandwidth long_one(kChipRate, kWindow);
    CHECK(long_one.transfer(0, 3200, kPathRate) == 100);  // spans many windows
    CHECK(long_one.total_bytes() == 3200);
}

TEST_CASE("gm bandwidth: a transfer of zero bytes ends where it starts", "[unit]") {
    GmBandwidth gm(kChipRate, kWindow);
    CHECK(gm.transfer(77, 0, kPathRate) == 77);
    CHECK(gm.total_bytes() == 0);
}

TEST_CASE("gm bandwidth: two transfers fit side by side when the chip has the room", "[unit]") {
    GmBandwidth gm(kChipRate, kWindow);  // 64 B/cycle = two 32 B/cycle paths
    CHECK(gm.transfer(0, 2048, kPathRate) == 64);
    CHECK(gm.transfer(0, 2048, kPathRate) == 64);
}

TEST_CASE("gm bandwidth: many concurrent transfers are limited by the chip rate", "[unit]") {
    GmBandwidth gm(kChipRate, kWindow);
    const std::uint64_t bytes = 2048;
    std::vector<Cycle> ends;
    for (int i = 0; i < 8; ++i) ends.push_back(gm.transfer(0, bytes, kPathRate));
    // Never faster than the path rate, first come first served, aggregate at the chip rate.
    for (Cycle end : ends) CHECK(end >= bytes / kPathRate);
    CHECK(std::is_sorted(ends.begin(), ends.end()));
    CHECK(ends.back() == 8 * bytes / kChipRate);
    CHECK(ends == std::vector<Cycle>{64, 64, 96, 128, 160, 192, 224, 256});
    CHECK(gm.total_bytes() == 8 * bytes);
}

TEST_CASE("gm bandwidth: a transfer held back early catches up later", "[unit]") {
    GmBandwidth gm(kChipRate, kWindow);
    gm.transfer(0, 2048, 64);  // takes all of window 0
    // 96 bytes at 32 B/cycle would take 3 cycles; window 0 is full, so it moves in window 1
    // at up to 32 * (64 - 0) bytes and ends 3 cycles into it.
    CHECK(gm.transfer(0, 96, kPathRate) == 35);
}

TEST_CASE("gm bandwidth: forgotten windows are never reserved again", "[unit]") {
    GmBandwidth gm(kChipRate, kWindow);
    CHECK(gm.transfer(0, 2048, 64) == 32);       // fills window 0
    CHECK(gm.transfer(320, 2048, 64) == 352);    // fills window 10
    gm.forget_before(100);                       // drops windows 0-2
    CHECK(gm.transfer(0, 64, kPathRate) == 98);  // starts at window 3 (cycle 96)
    // Window 10 is still reserved: a transfer there moves in window 11.
    CHECK(gm.transfer(320, 64, kPathRate) == 354);
}

TEST_CASE("gm bandwidth: forgetting past every reservation starts afresh", "[unit]") {
    GmBandwidth gm(kChipRate, kWindow);
    gm.transfer(0, 2048, 64);
    gm.forget_before(1000);                       // window 31 and later remain
    CHECK(gm.transfer(0, 64, kPathRate) == 994);  // clamped to cycle 992
    CHECK(gm.transfer(2000, 64, kPathRate) == 2002);
    gm.forget_before(10);  // going back changes nothing
    CHECK(gm.transfer(0, 32, kPathRate) == 993);
}

TEST_CASE("gm bandwidth: fair arbitration gives each transfer chip rate / requesters", "[unit]") {
    std::uint32_t requesters = 8;
    GmBandwidth gm(kChipRate, kWindow);
    gm.share_among(&requesters);
    // 8 requesters: each moves at most 64 / 8 = 8 B/cycle, so all 8 end together at
    // 2048 / 8 = 256 (first come, first served ends them at 64, 64, 96, ... 256).
    std::vector<Cycle> ends;
    for (int i = 0; i < 8; ++i) ends.push_back(gm.transfer(0, 2048, kPathRate));
    CHECK(ends == std::vector<Cycle>(8, 256));
    // The share holds even when the chip has room: a ninth transfer alone later.
    CHECK(gm.transfer(1000, 2048, kPathRate) == 1256);
    // 3 requesters: 64 / 3 B/cycle, 2048 bytes in ceil(2048 * 3 / 64) = 96 cycles.
    requesters = 3;
    CHECK(gm.transfer(2000, 2048, kPathRate) == 2096);
    // Few requesters whose path rates fit the chip: the path rate, as without sharing.
    requesters = 2;
    CHECK(gm.transfer(3000, 2048, kPathRate) == 3064);
    requesters = 1;
    CHECK(gm.transfer(4000, 2048, kPathRate) == 4064);
}
