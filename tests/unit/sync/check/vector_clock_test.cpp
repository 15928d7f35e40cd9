// VectorClock: sparse get/set/raise, elementwise-max join and the change counter that lets
// a consumer skip a join it has already done. (Happens-before is the checker's use of it:
// a clock that joined another knows at least every epoch the other knew.)
#include "sync/check/vector_clock.h"

#include <algorithm>
#include <array>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

using namespace npusim;

namespace {
/// a <= b elementwise over agents [0, agents).
bool covered_by(const VectorClock& a, const VectorClock& b, AgentId agents) {
    for (AgentId i = 0; i < agents; ++i) {
        if (a.get(i) > b.get(i)) return false;
    }
    return true;
}
}  // namespace

TEST_CASE("vector clock: unknown agents read zero, set and raise", "[unit]") {
    VectorClock clock;
    CHECK(clock.get(0) == 0);
    CHECK(clock.get(1000000) == 0);
    clock.set(5, 3);
    clock.set(2, 7);
    clock.set(9, 1);
    CHECK(clock.get(2) == 7);
    CHECK(clock.get(5) == 3);
    CHECK(clock.get(9) == 1);
    CHECK(clock.get(4) == 0);
    clock.set(5, 1);  // set may lower
    CHECK(clock.get(5) == 1);
    clock.raise(5, 0);  // raise never lowers
    CHECK(clock.get(5) == 1);
    clock.raise(5, 4);
    clock.raise(6, 2);
    CHECK(clock.get(5) == 4);
    CHECK(clock.get(6) == 2);
}

TEST_CASE("vector clock: join is the elementwise maximum", "[unit]") {
    VectorClock a, b;
    a.set(1, 5);
    a.set(3, 1);
    b.set(1, 2);
    b.set(2, 4);
    b.set(3, 6);
    a.join(b);
    CHECK(a.get(1) == 5);
    CHECK(a.get(2) == 4);
    CHECK(a.get(3) == 6);
    CHECK(b.get(1) == 2);  // the argument is unchanged
    CHECK(covered_by(b, a, 8));
    CHECK_FALSE(covered_by(a, b, 8));
}

TEST_CASE("vector clock: join of a subset raises in place", "[unit]") {
    VectorClock a, b;
    for (AgentId i = 0; i < 6; ++i) a.set(i, 2);
    b.set(1, 1);
    b.set(4, 9);
    a.join(b);
    CHECK(a.get(1) == 2);
    CHECK(a.get(4) == 9);
    CHECK(a.get(5) == 2);
}

TEST_CASE("vector clock: version moves only when a join changes something", "[unit]") {
    VectorClock a, b;
    a.set(1, 5);
    b.set(1, 3);
    const std::uint64_t v0 = a.version();
    a.join(b);  // nothing new
    CHECK(a.version() == v0);
    a.join(a);  // self
    CHECK(a.version() == v0);
    a.join(VectorClock{});  // empty
    CHECK(a.version() == v0);
    b.set(1, 6);
    a.join(b);  // raise in place
    CHECK(a.version() > v0);
    const std::uint64_t v1 = a.version();
    b.set(7, 1);
    a.join(b);  // a new agent
    CHECK(a.version() > v1);
    CHECK(a.get(7) == 1);
    const std::uint64_t v2 = a.version();
    a.set(7, 1);  // set counts as a change
    CHECK(a.version() > v2);
}

TEST_CASE("vector clock: join is commutative, idempotent and an upper bound", "[unit]") {
    std::mt19937 random(7);
    std::uniform_int_distribution<AgentId> agent(0, 40);
    std::uniform_int_distribution<EpochCount> epoch(0, 9);
    for (int trial = 0; trial < 200; ++trial) {
        VectorClock a, b;
        for (int i = 0; i < 12; ++i) a.set(agent(random), epoch(random));
        for (int i = 0; i < 12; ++i) b.set(agent(random), epoch(random));
        VectorClock ab = a, ba = b;
        ab.join(b);
        ba.join(a);
        for (AgentId i = 0; i <= 40; ++i) {
            CHECK(ab.get(i) == std::max(a.get(i), b.get(i)));
            CHECK(ab.get(i) == ba.get(i));
        }
        const std::uint64_t version = ab.version();
        ab.join(b);
        CHECK(ab.version() == version);
        CHECK(covered_by(a, ab, 41));
        CHECK(covered_by(b, ab, 41));
    }
}

TEST_CASE("vector clock: join merges interleaved new agents in place, in order", "[unit]") {
    VectorClock a, b;
    a.set(2, 4);
    a.set(5, 1);
    a.set(9, 3);
    b.set(0, 1);   // before every entry of a
    b.set(5, 6);   // shared, raised
    b.set(7, 2);   // between two entries of a
    b.set(8, 0);   // a zero entry adds nothing
    b.set(12, 5);  // after every entry of a
    const std::uint64_t v0 = a.version();
    a.join(b);
    CHECK(a.version() > v0);
    const EpochCount expected[] = {1, 0, 4, 0, 0, 6, 0, 2, 0, 3, 0, 0, 5};
    for (AgentId i = 0; i < 13; ++i) CHECK(a.get(i) == expected[i]);
    const std::uint64_t v1 = a.version();
    VectorClock zeros;
    zeros.set(3, 0);
    zeros.set(20, 0);
    a.join(zeros);  // only zero entries: nothing changes
    CHECK(a.version() == v1);
}

TEST_CASE("vector clock: join and raise agree with an elementwise reference", "[unit]") {
    std::mt19937 random(11);
    std::uniform_int_distribution<AgentId> agent(0, 30);
    std::uniform_int_distribution<EpochCount> epoch(0, 5);
    std::uniform_int_distribution<int> entries(0, 10);
    for (int trial = 0; trial < 300; ++trial) {
        VectorClock a, b;
        EpochCount ref[31] = {};
        for (int i = entries(random); i > 0; --i) {
            const AgentId id = agent(random);
            const EpochCount e = epoch(random);
            a.set(id, e);
            ref[id] = e;
        }
        for (int i = entries(random); i > 0; --i) b.set(agent(random), epoch(random));
        bool changes = false;
        for (AgentId i = 0; i <= 30; ++i) changes = changes || b.get(i) > ref[i];
        const std::uint64_t version = a.version();
        a.join(b);
        CHECK((a.version() != version) == changes);
        for (AgentId i = 0; i <= 30; ++i) {
            ref[i] = std::max(ref[i], b.get(i));
            CHECK(a.get(i) == ref[i]);
        }
        const AgentId id = agent(random);
        const EpochCount e = epoch(random);
        const std::uint64_t before = a.version();
        a.raise(id, e);
        CHECK((a.version() != before) == (e > ref[id]));
        CHECK(a.get(id) == std::max(ref[id], e));
    }
}

TEST_CASE("vector clock: a moved window keeps every epoch", "[unit]") {
    VectorClock clock;
    clock.set(0, 3);   // inside the first window
    clock.set(41, 5);  // outside it
    clock.set(44, 2);
    clock.focus(40);
    CHECK(clock.window_base() == 40);
    CHECK(clock.get(0) == 3);
    CHECK(clock.get(41) == 5);
    CHECK(clock.get(44) == 2);
    CHECK(clock.get(42) == 0);
    clock.set(40 + VectorClock::kWindow, 7);  // just past the window
    clock.focus(0);
    CHECK(clock.get(40 + VectorClock::kWindow) == 7);
    CHECK(clock.get(41) == 5);
}

TEST_CASE("vector clock: a window moved onto listed agents leaves the shared list alone",
          "[unit]") {
    VectorClock start;
    start.focus(VectorClock::kFar);
    for (AgentId id = 10; id < 30; ++id) start.set(id, id);
    VectorClock block = start;  // a block's start: moves its window onto its agents
    block.focus(16);
    CHECK(block.get(17) == 17);
    block.raise(17, 40);
    block.set(18, 1);  // lowered inside the window: the window is authoritative
    CHECK(block.get(17) == 40);
    CHECK(block.get(18) == 1);
    CHECK(start.get(17) == 17);  // the list they shared is unchanged
    CHECK(start.get(18) == 18);
    block.focus(VectorClock::kFar);  // leaving the window: the list says what it said
    CHECK(block.get(17) == 40);
    CHECK(block.get(18) == 1);
    CHECK(block.get(16) == 16);
    CHECK(start.get(17) == 17);
}

TEST_CASE("vector clock: moved windows, joins and copies agree with a reference", "[unit]") {
    std::mt19937 random(29);
    constexpr AgentId kAgents = 48;
    std::uniform_int_distribution<AgentId> agent(0, kAgents - 1);
    std::uniform_int_distribution<EpochCount> epoch(0, 9);
    std::uniform_int_distribution<AgentId> base(0, kAgents);
    std::uniform_int_distribution<int> what(0, 5);
    std::array<VectorClock, 3> clocks;
    std::array<std::array<EpochCount, kAgents>, 3> ref{};
    std::uniform_int_distribution<std::size_t> which(0, clocks.size() - 1);
    for (int step = 0; step < 4000; ++step) {
        const std::size_t i = which(random);
        const std::size_t j = which(random);
        const AgentId id = agent(random);
        const EpochCount e = epoch(random);
        switch (what(random)) {
            case 0:
                clocks[i].set(id, e);
                ref[i][id] = e;
                break;
            case 1:
                clocks[i].raise(id, e);
                ref[i][id] = std::max(ref[i][id], e);
                break;
            case 2: {
                const AgentId b = base(random);
                clocks[i].focus(b == kAgents ? VectorClock::kFar : b);
                break;
            }
            case 3:
                clocks[i].join(clocks[j]);
                for (AgentId a = 0; a < kAgents; ++a) ref[i][a] = std::max(ref[i][a], ref[j][a]);
                break;
            case 4:
                clocks[i] = clocks[j];
                ref[i] = ref[j];
                break;
            default: {
                std::array<EpochCount, VectorClock::kWindow> issued{};
                const AgentId first = std::min<AgentId>(id, kAgents - VectorClock::kWindow);
                for (auto& x : issued) x = epoch(random) / 3;
                bool covered = true;
                for (AgentId a = 0; a < VectorClock::kWindow; ++a)
                    covered = covered && (issued[a] == 0 || ref[i][first + a] >= issued[a]);
                CHECK(clocks[i].covers_run(first, issued) == covered);
            }
        }
        for (std::size_t c = 0; c < clocks.size(); ++c)
            for (AgentId a = 0; a < kAgents; ++a) REQUIRE(clocks[c].get(a) == ref[c][a]);
    }
}

TEST_CASE("vector clock: clocks with different windows join entry by entry", "[unit]") {
    std::mt19937 random(13);
    std::uniform_int_distribution<AgentId> agent(0, 60);
    std::uniform_int_distribution<EpochCount> epoch(0, 6);
    std::uniform_int_distribution<AgentId> base(0, 50);
    for (int trial = 0; trial < 200; ++trial) {
        VectorClock a, b;
        a.focus(base(random));
        b.focus(base(random));
        for (int i = 0; i < 10; ++i) a.set(agent(random), epoch(random));
        for (int i = 0; i < 10; ++i) b.set(agent(random), epoch(random));
        bool changes = false;
        for (AgentId i = 0; i <= 60; ++i) changes = changes || b.get(i) > a.get(i);
        VectorClock joined = a;
        const std::uint64_t version = joined.version();
        joined.join(b);
        CHECK((joined.version() != version) == changes);
        for (AgentId i = 0; i <= 60; ++i) CHECK(joined.get(i) == std::max(a.get(i), b.get(i)));
        CHECK(joined.window_base() == a.window_base());
    }
}

TEST_CASE("vector clock: copies keep their entries inline and on the heap", "[unit]") {
    // Entries outside the window: a few are held inline, more move to the heap. Copies in
    // either direction are independent of their source.
    VectorClock few;
    few.set(20, 1);
    few.set(30, 2);
    VectorClock many;
    for (AgentId id = 20; id < 32; ++id) many.set(id, id);
    VectorClock copy = many;  // heap entries into a fresh clock
    many.set(25, 99);
    CHECK(copy.get(25) == 25);
    copy = few;  // inline entries over heap ones
    CHECK(copy.get(20) == 1);
    CHECK(copy.get(30) == 2);
    CHECK(copy.get(25) == 0);
    copy = many;  // heap entries over inline ones
    for (AgentId id = 20; id < 32; ++id) CHECK(copy.get(id) == (id == 25 ? 99 : id));
    VectorClock grown = few;  // inline entries grow onto the heap in a join
    grown.join(many);
    for (AgentId id = 20; id < 32; ++id) CHECK(grown.get(id) == many.get(id));
    CHECK(few.get(21) == 0);
}

TEST_CASE("vector clock: raising sorted entries agrees with raising each", "[unit]") {
    std::mt19937 random(23);
    std::uniform_int_distribution<AgentId> agent(0, 40);
    std::uniform_int_distribution<EpochCount> epoch(0, 6);
    std::uniform_int_distribution<int> entries(0, 12);
    for (int trial = 0; trial < 300; ++trial) {
        VectorClock a;
        for (int i = entries(random); i > 0; --i) a.set(agent(random), epoch(random));
        a.focus(trial % 3 == 0 ? VectorClock::kFar : agent(random));
        const VectorClock shared = a;  // shares a's list: raising a must not change it
        std::array<EpochCount, 41> before{};
        for (AgentId id = 0; id <= 40; ++id) before[id] = a.get(id);
        VectorClock each = a;
        std::vector<ClockEntry> raised;
        for (AgentId id = 0; id <= 40; ++id) {
            // Mostly agents the clock knows already (a kernel's reused agents), some new.
            if (random() % 3 != 0) continue;
            const EpochCount e = epoch(random) + (random() % 2 == 0 ? 0 : 3);
            if (e == 0) continue;
            raised.push_back({id, e});
            each.raise(id, e);
        }
        const std::uint64_t version = a.version();
        a.raise_sorted(raised.data(), raised.data() + raised.size());
        bool changes = false;
        for (AgentId id = 0; id <= 40; ++id) {
            CHECK(a.get(id) == each.get(id));
            CHECK(shared.get(id) == before[id]);
            changes = changes || each.get(id) != before[id];
        }
        CHECK((a.version() != version) == changes);
    }
}

// A kernel's start clock sits at kFar with an empty window; each block moves it onto its
// agents. From an empty window nothing leaves (no search for it): every epoch must still
// read the same, on the moved clock and on the one whose list it shares.
TEST_CASE("vector clock: a window moved from an empty one keeps every epoch", "[unit]") {
    std::mt19937 random(29);
    std::uniform_int_distribution<AgentId> agent(0, 200);
    std::uniform_int_distribution<EpochCount> epoch(1, 9);
    for (int trial = 0; trial < 200; ++trial) {
        VectorClock a;
        a.focus(VectorClock::kFar);
        std::array<EpochCount, 201> want{};
        for (int i = 0; i < 60; ++i) {
            const AgentId id = agent(random);
            const EpochCount e = epoch(random);
            a.set(id, e);
            want[id] = e;
        }
        const VectorClock start = a;  // the kernel's start: its window stays empty
        VectorClock block = start;
        block.focus(agent(random));  // a block's agents, some of them listed
        for (AgentId id = 0; id <= 200; ++id) {
            CHECK(block.get(id) == want[id]);
            CHECK(start.get(id) == want[id]);
        }
        block.focus(VectorClock::kFar);
        for (AgentId id = 0; id <= 200; ++id) CHECK(block.get(id) == want[id]);
    }
}
