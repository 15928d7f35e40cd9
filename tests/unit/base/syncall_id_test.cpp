// SyncAllId: the 64-bit identity of a SyncAll instance (kind in the top two bits).
#include "base/syncall_id.h"

#include <set>

#include <catch2/catch.hpp>

using namespace npusim;

TEST_CASE("syncall id: encode and decode round trip", "[unit]") {
    using Kind = SyncAllId::Kind;
    for (Kind kind : {Kind::HardAll, Kind::HardVector, Kind::Soft}) {
        for (std::uint64_t instance :
             {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{12345}, SyncAllId::kInstanceMask}) {
            const SyncAllId id{kind, instance};
            CHECK(SyncAllId::decode(id.encode()) == id);
        }
    }
    STATIC_REQUIRE(SyncAllId::decode(SyncAllId{Kind::Soft, 7}.encode()).instance == 7);
}

TEST_CASE("syncall id: kinds and instances give distinct ids", "[unit]") {
    using Kind = SyncAllId::Kind;
    std::set<std::uint64_t> ids;
    for (Kind kind : {Kind::HardAll, Kind::HardVector, Kind::Soft}) {
        for (std::uint64_t instance = 0; instance < 4; ++instance) {
            ids.insert(SyncAllId{kind, instance}.encode());
        }
        ids.insert(SyncAllId{kind, SyncAllId::kInstanceMask}.encode());
    }
    CHECK(ids.size() == 15);
    CHECK(SyncAllId{Kind::HardAll, 3}.encode() == 3);
    CHECK(SyncAllId{Kind::HardVector, 0}.encode() == std::uint64_t{1} << 62);
    CHECK(SyncAllId{Kind::Soft, 0}.encode() == std::uint64_t{2} << 62);
    // An instance beyond 62 bits does not leak into the kind.
    CHECK(SyncAllId::decode(SyncAllId{Kind::HardAll, SyncAllId::kInstanceMask + 1}.encode()).kind ==
          Kind::HardAll);
}
