// memcheck's local bounds (check::LocalBuffers), without a simulation: an access must lie
// inside one buffer its block allocated in that space, whatever answers were cached before.
#include <catch2/catch.hpp>

#include "sync/check/agents.h"

using namespace npusim;
using npusim::check::LocalBuffers;

TEST_CASE("local buffers: an access lies inside one buffer of its space", "[unit]") {
    LocalBuffers buffers;
    CHECK_FALSE(buffers.any(MemSpace::UB));
    buffers.add(MemSpace::UB, 64, 32);
    buffers.add(MemSpace::UB, 0, 32);  // added out of order
    buffers.add(MemSpace::UB, 32, 32);
    buffers.add(MemSpace::L1, 0, 4096);
    CHECK(buffers.any(MemSpace::UB));
    CHECK_FALSE(buffers.any(MemSpace::L0A));
    for (int round = 0; round < 2; ++round) {  // the second round answers from the cache
        CHECK(buffers.inside_one(MemSpace::UB, 0, 32));
        CHECK(buffers.inside_one(MemSpace::UB, 40, 8));
        CHECK(buffers.inside_one(MemSpace::UB, 64, 32));
        CHECK_FALSE(buffers.inside_one(MemSpace::UB, 16, 32));  // spans two buffers
        CHECK_FALSE(buffers.inside_one(MemSpace::UB, 80, 32));  // past the last
        CHECK_FALSE(buffers.inside_one(MemSpace::UB, 96, 1));
        CHECK(buffers.inside_one(MemSpace::L1, 1024, 1024));
        CHECK_FALSE(buffers.inside_one(MemSpace::L0A, 0, 32));  // the same address, elsewhere
    }
}

TEST_CASE("local buffers: a long buffer before short ones still holds its accesses", "[unit]") {
    LocalBuffers buffers;
    buffers.add(MemSpace::UB, 0, 1024);  // overlapped by the later ones (a reused region)
    buffers.add(MemSpace::UB, 256, 32);
    buffers.add(MemSpace::UB, 512, 32);
    CHECK(buffers.inside_one(MemSpace::UB, 300, 100));  // only the long one holds it
    CHECK(buffers.inside_one(MemSpace::UB, 512, 32));
    CHECK(buffers.inside_one(MemSpace::UB, 1000, 24));
    CHECK_FALSE(buffers.inside_one(MemSpace::UB, 1000, 25));
}
