// CrossCoreFlags: per-block counters (post / take, the pending cap) and rounds (modes 0, 1).
#include "sync/cross_core_flags.h"

#include <vector>

#include <catch2/catch.hpp>

using namespace npusim;

namespace {
const BlockKey kAiv0{CoreType::Vector, 0};
const BlockKey kAiv1{CoreType::Vector, 1};
const BlockKey kAic0{CoreType::Cube, 0};

CrossCoreSet set_at(Cycle visible, std::uint32_t block, std::uint64_t serial = 0) {
    return {visible, block, CoreType::Vector, serial};
}
}  // namespace

TEST_CASE("cross-core flags: sets are taken oldest first", "[unit]") {
    CrossCoreFlags flags;
    CHECK_FALSE(flags.take(kAiv0, 0));
    CHECK(flags.pending(kAiv0, 0) == 0);
    CHECK(flags.post(kAiv0, 0, set_at(10, 3, 1)));
    CHECK(flags.post(kAiv0, 0, set_at(20, 4, 2)));
    CHECK(flags.pending(kAiv0, 0) == 2);
    const auto first = flags.take(kAiv0, 0);
    REQUIRE(first);
    CHECK(first->visible == 10);
    CHECK(first->block == 3);
    CHECK(first->serial == 1);
    CHECK(flags.take(kAiv0, 0)->serial == 2);
    CHECK_FALSE(flags.take(kAiv0, 0));
}

TEST_CASE("cross-core flags: counters are per block, core type and id", "[unit]") {
    CrossCoreFlags flags;
    flags.post(kAiv0, 1, set_at(1, 9));
    CHECK(flags.pending(kAiv0, 1) == 1);
    CHECK(flags.pending(kAiv0, 2) == 0);
    CHECK(flags.pending(kAiv1, 1) == 0);
    CHECK(flags.pending(kAic0, 1) == 0);  // same block index, other core type
    CHECK_FALSE(flags.take(kAic0, 1));
    CHECK(flags.take(kAiv0, 1));
}

TEST_CASE("cross-core flags: a counter holds at most kCrossCoreMaxPending sets", "[unit]") {
    CrossCoreFlags flags;
    STATIC_REQUIRE(CrossCoreFlags::kMaxPending == kCrossCoreMaxPending);
    for (std::uint32_t i = 0; i < kCrossCoreMaxPending; ++i) {
        CHECK(flags.post(kAic0, 10, set_at(i, 0, i)));
    }
    CHECK_FALSE(flags.post(kAic0, 10, set_at(99, 0, 99)));
    CHECK(flags.pending(kAic0, 10) == kCrossCoreMaxPending);
    CHECK(flags.post(kAic0, 9, set_at(0, 0)));  // another id is not full
    // The refused set was not added: taking drains the original 16 in order.
    CHECK(flags.take(kAic0, 10)->serial == 0);
    CHECK(flags.post(kAic0, 10, set_at(100, 0, 100)));
    std::vector<std::uint64_t> serials;
    while (auto set = flags.take(kAic0, 10)) serials.push_back(set->serial);
    CHECK(serials.size() == kCrossCoreMaxPending);
    CHECK(serials.front() == 1);
    CHECK(serials.back() == 100);
}

TEST_CASE("cross-core flags: a round completes when every member has set", "[unit]") {
    CrossCoreFlags flags;
    const std::vector<BlockKey> members{kAiv0, kAiv1, {CoreType::Vector, 2}};
    CHECK(flags.round_count(0, 4) == 0);
    CHECK(flags.join_round(0, 4, members, set_at(50, 1, 11), 20));
    CHECK(flags.round_count(0, 4) == 1);
    CHECK(flags.pending(kAiv1, 4) == 0);  // nobody gets anything before the round is complete
    CHECK(flags.join_round(0, 4, members, set_at(80, 2, 12), 20));
    CHECK(flags.join_round(0, 4, members, set_at(60, 0, 13), 20));  // last to call, not latest
    CHECK(flags.round_count(0, 4) == 0);                            // a new round begins
    for (const BlockKey& member : members) {
        CAPTURE(member.block);
        const auto got = flags.take(member, 4);
        REQUIRE(got);
        CHECK(got->visible == 100);  // the latest set (80) + latency
        CHECK(got->block == 2);      // ... and its setter
        CHECK(got->serial == 12);
    }
}

TEST_CASE("cross-core flags: rounds are independent per key and id", "[unit]") {
    CrossCoreFlags flags;
    const std::vector<BlockKey> pair{kAiv0, kAiv1};
    flags.join_round(7, 0, pair, set_at(1, 0), 0);
    flags.join_round(8, 0, pair, set_at(1, 0), 0);
    flags.join_round(7, 1, pair, set_at(1, 0), 0);
    CHECK(flags.round_count(7, 0) == 1);
    CHECK(flags.round_count(8, 0) == 1);
    CHECK(flags.round_count(7, 1) == 1);
    CHECK(flags.pending(kAiv0, 0) == 0);
    flags.join_round(7, 0, pair, set_at(5, 1), 3);
    CHECK(flags.round_count(7, 0) == 0);
    CHECK(flags.round_count(8, 0) == 1);
    CHECK(flags.pending(kAiv0, 0) == 1);
    CHECK(flags.pending(kAiv1, 0) == 1);
    CHECK(flags.take(kAiv0, 0)->visible == 8);
    // Two rounds in a row give two counts.
    flags.join_round(7, 0, pair, set_at(10, 0), 0);
    flags.join_round(7, 0, pair, set_at(11, 1), 0);
    CHECK(flags.pending(kAiv1, 0) == 2);
}

TEST_CASE("cross-core flags: a completed round reports a full member counter", "[unit]") {
    CrossCoreFlags flags;
    const std::vector<BlockKey> pair{kAiv0, kAiv1};
    for (std::uint32_t i = 0; i < kCrossCoreMaxPending; ++i) flags.post(kAiv1, 2, set_at(0, 0));
    CHECK(flags.join_round(3, 2, pair, set_at(1, 0), 0));
    CHECK_FALSE(flags.join_round(3, 2, pair, set_at(2, 1), 0));
    // The member with room still got its count; the round is over either way.
    CHECK(flags.pending(kAiv0, 2) == 1);
    CHECK(flags.pending(kAiv1, 2) == kCrossCoreMaxPending);
    CHECK(flags.round_count(3, 2) == 0);
}

TEST_CASE("cross-core flags: ids 0-15, of which hard SyncAll reserves 11-14", "[unit]") {
    STATIC_REQUIRE(kCrossCoreFlagIds == 16);
    STATIC_REQUIRE(CrossCoreFlags::kFlagIds == kCrossCoreFlagIds);
    CHECK_FALSE(kHardSyncAllFlagIds.contains(10));
    CHECK(kHardSyncAllFlagIds.contains(11));
    CHECK(kHardSyncAllFlagIds.contains(14));
    CHECK_FALSE(kHardSyncAllFlagIds.contains(15));
    CHECK(hard_sync_all_flag_id_rule() ==
          "use ids 0-10 or 15 in kernels that call hard SyncAll; hard SyncAll uses 11-14 "
          "internally");
    // Counters exist for every id, including the reserved ones and 15.
    CrossCoreFlags flags;
    for (std::uint32_t id : {0U, 12U, 15U}) {
        CHECK(flags.post(kAiv0, id, set_at(5, 1)));
        CHECK(flags.take(kAiv0, id).has_value());
    }
}
