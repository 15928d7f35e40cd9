// FlagTable: a FIFO of unconsumed SetFlags per (src pipe, dst pipe, id).
#include "pipes/flag_table.h"

#include <catch2/catch.hpp>

using namespace npusim;

TEST_CASE("flag table: sets are consumed oldest first", "[unit]") {
    FlagTable flags(8);
    CHECK_FALSE(flags.consume(Pipe::MTE2, Pipe::V, 0));
    flags.set(Pipe::MTE2, Pipe::V, 0, {10, 1, 0});
    flags.set(Pipe::MTE2, Pipe::V, 0, {20, 2, 0});
    flags.set(Pipe::MTE2, Pipe::V, 0, {30, 3, 1});
    CHECK(flags.outstanding(Pipe::MTE2, Pipe::V, 0) == 3);
    const auto first = flags.consume(Pipe::MTE2, Pipe::V, 0);
    REQUIRE(first);
    CHECK(first->time == 10);
    CHECK(first->serial == 1);
    CHECK(flags.outstanding(Pipe::MTE2, Pipe::V, 0) == 2);
    CHECK(flags.consume(Pipe::MTE2, Pipe::V, 0)->serial == 2);
    const auto third = flags.consume(Pipe::MTE2, Pipe::V, 0);
    REQUIRE(third);
    CHECK(third->time == 30);
    CHECK(third->block == 1);
    CHECK_FALSE(flags.consume(Pipe::MTE2, Pipe::V, 0));
    CHECK(flags.outstanding(Pipe::MTE2, Pipe::V, 0) == 0);
}

TEST_CASE("flag table: order holds when sets and consumes interleave", "[unit]") {
    FlagTable flags(2);
    std::uint64_t next_set = 1, next_consumed = 1;
    for (int round = 0; round < 5; ++round) {
        for (int i = 0; i < 3; ++i) flags.set(Pipe::V, Pipe::MTE3, 1, {0, next_set++, 0});
        for (int i = 0; i < 2; ++i) {
            CHECK(flags.consume(Pipe::V, Pipe::MTE3, 1)->serial == next_consumed++);
        }
    }
    CHECK(flags.outstanding(Pipe::V, Pipe::MTE3, 1) == 5);
    while (auto set = flags.consume(Pipe::V, Pipe::MTE3, 1)) CHECK(set->serial == next_consumed++);
    CHECK(next_consumed == next_set);
    // Empty again: a new set is the only one.
    flags.set(Pipe::V, Pipe::MTE3, 1, {5, 99, 0});
    CHECK(flags.outstanding(Pipe::V, Pipe::MTE3, 1) == 1);
    CHECK(flags.consume(Pipe::V, Pipe::MTE3, 1)->serial == 99);
}

TEST_CASE("flag table: ids, directions and pipe pairs are independent", "[unit]") {
    FlagTable flags(8);
    flags.set(Pipe::MTE2, Pipe::V, 0, {1, 1, 0});
    flags.set(Pipe::MTE2, Pipe::V, 7, {2, 2, 0});
    flags.set(Pipe::V, Pipe::MTE2, 0, {3, 3, 0});
    flags.set(Pipe::M, Pipe::FIX, 0, {4, 4, 0});
    flags.set(Pipe::S, Pipe::MTE1, 3, {5, 5, 0});
    CHECK(flags.outstanding(Pipe::MTE2, Pipe::V, 0) == 1);
    CHECK(flags.outstanding(Pipe::MTE2, Pipe::V, 1) == 0);
    CHECK(flags.outstanding(Pipe::MTE2, Pipe::V, 7) == 1);
    CHECK(flags.outstanding(Pipe::V, Pipe::MTE2, 0) == 1);
    CHECK(flags.outstanding(Pipe::MTE2, Pipe::MTE3, 0) == 0);
    CHECK(flags.consume(Pipe::MTE2, Pipe::V, 7)->serial == 2);
    CHECK(flags.consume(Pipe::V, Pipe::MTE2, 0)->serial == 3);
    CHECK(flags.consume(Pipe::M, Pipe::FIX, 0)->serial == 4);
    CHECK(flags.consume(Pipe::S, Pipe::MTE1, 3)->serial == 5);
    CHECK(flags.outstanding(Pipe::MTE2, Pipe::V, 0) == 1);  // untouched by the others
}

TEST_CASE("flag table: every pair of real pipes has its own FIFO", "[unit]") {
    const Pipe pipes[] = {Pipe::S, Pipe::V, Pipe::M, Pipe::MTE1, Pipe::MTE2, Pipe::MTE3, Pipe::FIX};
    FlagTable flags(4);
    std::uint64_t serial = 0;
    for (Pipe src : pipes) {
        for (Pipe dst : pipes) flags.set(src, dst, 3, {0, ++serial, 0});
    }
    serial = 0;
    for (Pipe src : pipes) {
        for (Pipe dst : pipes) {
            CHECK(flags.outstanding(src, dst, 3) == 1);
            CHECK(flags.consume(src, dst, 3)->serial == ++serial);
        }
    }
}

TEST_CASE("flag table: clear drops every unconsumed set", "[unit]") {
    FlagTable flags(8);
    flags.set(Pipe::MTE2, Pipe::V, 0, {1, 1, 0});
    flags.set(Pipe::MTE2, Pipe::V, 0, {2, 2, 0});
    flags.set(Pipe::V, Pipe::MTE3, 5, {3, 3, 0});
    CHECK(flags.consume(Pipe::MTE2, Pipe::V, 0));
    flags.clear();
    CHECK(flags.outstanding(Pipe::MTE2, Pipe::V, 0) == 0);
    CHECK(flags.outstanding(Pipe::V, Pipe::MTE3, 5) == 0);
    CHECK_FALSE(flags.consume(Pipe::MTE2, Pipe::V, 0));
    flags.set(Pipe::MTE2, Pipe::V, 0, {4, 4, 0});
    CHECK(flags.consume(Pipe::MTE2, Pipe::V, 0)->serial == 4);
}

TEST_CASE("flag table: flag pipes are the real pipes", "[unit]") {
    CHECK(FlagTable::is_flag_pipe(Pipe::S));
    CHECK(FlagTable::is_flag_pipe(Pipe::MTE2));
    CHECK(FlagTable::is_flag_pipe(Pipe::FIX));
    CHECK_FALSE(FlagTable::is_flag_pipe(Pipe::ALL));
    CHECK_FALSE(FlagTable::is_flag_pipe(static_cast<Pipe>(200)));  // no pipe has this id
}
