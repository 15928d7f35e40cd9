// HardBarrier: generations, release = last arrival + latency, missing participants.
#include "sync/hard_barrier.h"

#include <vector>

#include <catch2/catch.hpp>

#include "base/errors.h"

using namespace npusim;

TEST_CASE("hard barrier: releases when the last participant arrives", "[unit]") {
    HardBarrier barrier(3);
    CHECK(barrier.participants() == 3);
    CHECK(barrier.arrived() == 0);
    CHECK_FALSE(barrier.released(0));
    const auto a = barrier.arrive(1, 10, 100);
    CHECK(a.generation == 0);
    CHECK_FALSE(a.last);
    CHECK(barrier.arrive(0, 30, 100).generation == 0);
    CHECK(barrier.arrived() == 2);
    CHECK_FALSE(barrier.released(0));
    const auto last = barrier.arrive(2, 45, 100);
    CHECK(last.generation == 0);
    CHECK(last.last);
    CHECK(barrier.released(0));
    CHECK(barrier.last_release() == 145);
    CHECK(barrier.arrived() == 0);
}

TEST_CASE("hard barrier: missing() lists who has not arrived, ascending", "[unit]") {
    HardBarrier barrier(4);
    CHECK(barrier.missing() == std::vector<std::uint32_t>{0, 1, 2, 3});
    barrier.arrive(2, 5, 1);
    barrier.arrive(0, 6, 1);
    CHECK(barrier.missing() == std::vector<std::uint32_t>{1, 3});
    barrier.arrive(3, 7, 1);
    CHECK(barrier.missing() == std::vector<std::uint32_t>{1});
    barrier.arrive(1, 8, 1);
    CHECK(barrier.missing() == std::vector<std::uint32_t>{0, 1, 2, 3});  // next generation
}

TEST_CASE("hard barrier: generations follow one another", "[unit]") {
    HardBarrier barrier(2);
    barrier.arrive(0, 0, 10);
    barrier.arrive(1, 20, 10);
    CHECK(barrier.last_release() == 30);
    const auto early = barrier.arrive(1, 40, 10);
    CHECK(early.generation == 1);
    CHECK_FALSE(early.last);
    CHECK(barrier.released(0));
    CHECK_FALSE(barrier.released(1));
    CHECK(barrier.last_release() == 30);  // still the previous release
    const auto late = barrier.arrive(0, 55, 10);
    CHECK(late.generation == 1);
    CHECK(late.last);
    CHECK(barrier.released(1));
    CHECK_FALSE(barrier.released(2));
    CHECK(barrier.last_release() == 65);  // latest arrival of this generation, not the first
}

TEST_CASE("hard barrier: an arrival twice in one generation is an internal error", "[unit]") {
    // A block waits for the release before it can arrive again, so a second arrival is a bug
    // in the model (base/invariant.h); the barrier is left as it was.
    HardBarrier barrier(2);
    barrier.arrive(0, 1, 5);
    CHECK_THROWS_AS(barrier.arrive(0, 2, 5), InternalError);
    CHECK(barrier.arrived() == 1);
    CHECK(barrier.missing() == std::vector<std::uint32_t>{1});
    CHECK(barrier.arrive(1, 3, 5).last);
    CHECK(barrier.last_release() == 8);
}

TEST_CASE("hard barrier: a single participant releases itself", "[unit]") {
    HardBarrier barrier(1);
    for (std::uint64_t g = 0; g < 3; ++g) {
        const auto arrival = barrier.arrive(0, 100 * g, 7);
        CHECK(arrival.generation == g);
        CHECK(arrival.last);
        CHECK(barrier.last_release() == 100 * g + 7);
    }
}
