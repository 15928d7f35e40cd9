// LocalAllocator: Block::alloc()'s bump allocator per local space of one core.
#include "memory/local_allocator.h"

#include <catch2/catch.hpp>

#include "base/memory_spaces.h"
#include "unit_support.h"

using namespace npusim;
using Catch::Contains;
using npusim::unit::small_chip;

TEST_CASE("local allocator: allocations are aligned and never overlap", "[unit]") {
    LocalAllocator alloc(local_capacities(small_chip(), CoreType::Vector));
    const auto a = alloc.allocate(MemSpace::UB, 1000, CoreType::Vector);
    REQUIRE(a.ok());
    CHECK(a.address == 0);
    const auto b = alloc.allocate(MemSpace::UB, 64, CoreType::Vector);
    REQUIRE(b.ok());
    CHECK(b.address == 1024);  // 1000 rounded up to 32
    const auto c = alloc.allocate(MemSpace::UB, 1, CoreType::Vector);
    CHECK(c.address == 1088);
    CHECK(alloc.used(MemSpace::UB) == 1120);
}

TEST_CASE("local allocator: each cube space has its own top and alignment", "[unit]") {
    LocalAllocator alloc(local_capacities(small_chip(), CoreType::Cube));
    CHECK(alloc.allocate(MemSpace::L0A, 100, CoreType::Cube).address == 0);
    CHECK(alloc.allocate(MemSpace::L0A, 100, CoreType::Cube).address == 512);
    CHECK(alloc.allocate(MemSpace::L1, 100, CoreType::Cube).address == 0);
    CHECK(alloc.allocate(MemSpace::L1, 100, CoreType::Cube).address == 128);
    CHECK(alloc.allocate(MemSpace::L0C, 4, CoreType::Cube).address == 0);
    CHECK(alloc.used(MemSpace::L0A) == 1024);
    CHECK(alloc.used(MemSpace::L1) == 256);
    CHECK(alloc.used(MemSpace::L0B) == 0);
}

TEST_CASE("local allocator: a space the core lacks, GM and zero bytes are refused", "[unit]") {
    LocalAllocator alloc(local_capacities(small_chip(), CoreType::Vector));
    const auto l1 = alloc.allocate(MemSpace::L1, 32, CoreType::Vector);
    CHECK_FALSE(l1.ok());
    CHECK(l1.error == "L1 does not exist on an aiv core");
    const auto gm = alloc.allocate(MemSpace::GM, 32, CoreType::Vector);
    CHECK_THAT(gm.error, Contains("alloc() is for local memories"));
    const auto zero = alloc.allocate(MemSpace::UB, 0, CoreType::Vector);
    CHECK_THAT(zero.error, Contains("cannot allocate 0 bytes in UB"));
    CHECK(alloc.used(MemSpace::UB) == 0);
    LocalAllocator cube(local_capacities(small_chip(), CoreType::Cube));
    CHECK(cube.allocate(MemSpace::UB, 32, CoreType::Cube).error ==
          "UB does not exist on an aic core");
}

TEST_CASE("local allocator: a space fills exactly and then refuses", "[unit]") {
    LocalAllocator alloc(local_capacities(small_chip(), CoreType::Cube));  // L0A 64 KiB
    CHECK(alloc.allocate(MemSpace::L0A, 65536 - 512, CoreType::Cube).ok());
    const auto over = alloc.allocate(MemSpace::L0A, 513, CoreType::Cube);
    CHECK(over.error == "cannot allocate 513 bytes in L0A: 512 of 65536 bytes left");
    CHECK(alloc.used(MemSpace::L0A) == 65536 - 512);  // a refusal allocates nothing
    const auto last = alloc.allocate(MemSpace::L0A, 1, CoreType::Cube);  // rounds to 512
    CHECK(last.ok());
    CHECK(last.address == 65536 - 512);
    CHECK_FALSE(alloc.allocate(MemSpace::L0A, 1, CoreType::Cube).ok());
    // A request near 2^64 cannot wrap around the rounding.
    LocalAllocator fresh(local_capacities(small_chip(), CoreType::Vector));
    CHECK_FALSE(fresh.allocate(MemSpace::UB, ~std::uint64_t{0}, CoreType::Vector).ok());
    CHECK_FALSE(fresh.allocate(MemSpace::UB, ~std::uint64_t{0} - 30, CoreType::Vector).ok());
}

TEST_CASE("local allocator: a request that fits only before rounding is refused", "[unit]") {
    std::array<std::uint64_t, kMemSpaces> capacities{};
    capacities[static_cast<std::size_t>(MemSpace::UB)] = 100;  // not a multiple of 32
    LocalAllocator alloc(capacities);
    CHECK(alloc.allocate(MemSpace::UB, 64, CoreType::Vector).ok());
    const auto tail = alloc.allocate(MemSpace::UB, 30, CoreType::Vector);  // 36 left, needs 32
    CHECK(tail.ok());
    CHECK(tail.address == 64);
    LocalAllocator tight(capacities);
    CHECK(tight.allocate(MemSpace::UB, 96, CoreType::Vector).ok());
    CHECK_FALSE(tight.allocate(MemSpace::UB, 4, CoreType::Vector).ok());  // 4 left, rounds to 32
}

TEST_CASE("local allocator: reset forgets every allocation", "[unit]") {
    LocalAllocator alloc(local_capacities(small_chip(), CoreType::Vector));
    alloc.allocate(MemSpace::UB, 4096, CoreType::Vector);
    alloc.reset();
    CHECK(alloc.used(MemSpace::UB) == 0);
    CHECK(alloc.allocate(MemSpace::UB, 32, CoreType::Vector).address == 0);
}
