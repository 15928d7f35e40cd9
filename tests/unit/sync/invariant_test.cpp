// Internal invariants (base/invariant.h) end as an InternalError naming the component, the
// simulated cycle and the broken condition, never as memory corruption.
#include <catch2/catch.hpp>

#include "base/errors.h"
#include "base/transaction.h"
#include "sync/hard_barrier.h"

using namespace npusim;
using Catch::Matchers::Contains;

TEST_CASE("a transaction never writes past its fixed access array", "[unit][invariant]") {
    Transaction tx;
    tx.issue = 1234;
    for (std::size_t i = 0; i < tx.accesses.size(); ++i) {
        tx.add_access(MemSpace::UB, false, 32 * i, 32);
    }
    REQUIRE(tx.access_count == tx.accesses.size());
    try {
        tx.add_access(MemSpace::UB, true, 0, 32);
        FAIL("expected an InternalError");
    } catch (const InternalError& error) {
        const std::string message = error.what();
        CHECK_THAT(message, Contains("internal error in Transaction at cycle 1234"));
        CHECK_THAT(message, Contains("access_count < accesses.size()"));
        CHECK_THAT(message, Contains("transaction.h:"));
    }
    CHECK(tx.access_count == tx.accesses.size());  // nothing was written
}

TEST_CASE("a hard barrier rejects arrivals that cannot happen", "[unit][invariant]") {
    HardBarrier barrier(3);
    barrier.arrive(0, 100, 10);
    CHECK_THROWS_WITH(barrier.arrive(0, 120, 10),
                      Contains("HardBarrier at cycle 120") && Contains("arrived twice"));
    CHECK_THROWS_WITH(barrier.arrive(1, 50, 10),
                      Contains("HardBarrier at cycle 50") && Contains("time order"));
    CHECK_THROWS_WITH(barrier.arrive(7, 200, 10), Contains("not a participant"));
    barrier.arrive(1, 150, 10);
    const HardBarrier::Arrival last = barrier.arrive(2, 160, 10);
    CHECK(last.last);
    CHECK(barrier.last_release() == 170);
}
