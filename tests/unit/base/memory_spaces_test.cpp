// The memory-space table: order, names, alignments, which core type has which space and the
// chip parameter that sizes it.
#include "base/memory_spaces.h"

#include <catch2/catch.hpp>

#include "unit_support.h"

using namespace npusim;
using npusim::unit::small_chip;

TEST_CASE("memory spaces: rows in enumerator order with their names", "[unit]") {
    for (std::size_t i = 0; i < kMemSpaceTable.size(); ++i) {
        const auto space = static_cast<MemSpace>(i);
        CHECK(mem_space_info(space).space == space);
        CHECK(to_string(space) == mem_space_info(space).name);
    }
    CHECK(mem_space_info(MemSpace::L0C).name == "L0C");
    CHECK(mem_space_rows_in_order());
}

TEST_CASE("memory spaces: DataCopy alignments", "[unit]") {
    CHECK(mem_space_info(MemSpace::GM).alignment == 32);
    CHECK(mem_space_info(MemSpace::UB).alignment == 32);
    CHECK(mem_space_info(MemSpace::L1).alignment == 32);
    CHECK(mem_space_info(MemSpace::L0A).alignment == 512);
    CHECK(mem_space_info(MemSpace::L0B).alignment == 512);
    CHECK(mem_space_info(MemSpace::L0C).alignment == 512);
    CHECK(mem_space_info(MemSpace::BT).alignment == 64);  // the bias table
    for (const MemSpaceInfo& info : kMemSpaceTable) {
        CHECK(info.alignment > 0);
        CHECK((info.alignment & (info.alignment - 1)) == 0);  // a power of two
    }
}

TEST_CASE("memory spaces: UB is on vector cores, L1 and L0x on cube cores, GM on neither",
          "[unit]") {
    for (const MemSpaceInfo& info : kMemSpaceTable) {
        CAPTURE(info.name);
        CHECK_FALSE((info.on_vector && info.on_cube));
        CHECK(info.capacity != nullptr);
    }
    CHECK(mem_space_info(MemSpace::UB).on_vector);
    CHECK_FALSE(mem_space_info(MemSpace::GM).on_vector);
    CHECK_FALSE(mem_space_info(MemSpace::GM).on_cube);
    for (MemSpace space :
         {MemSpace::L1, MemSpace::L0A, MemSpace::L0B, MemSpace::L0C, MemSpace::BT}) {
        CHECK(mem_space_info(space).on_cube);
    }
}

TEST_CASE("memory spaces: capacities come from the chip", "[unit]") {
    const ChipConfig& chip = small_chip();
    CHECK(chip.capacity_of(MemSpace::GM) == chip.gm_bytes);
    CHECK(chip.capacity_of(MemSpace::UB) == 196608);
    CHECK(chip.capacity_of(MemSpace::L0C) == 131072);
    CHECK(chip.capacity_of(MemSpace::BT) == 1024);
    const auto vector = local_capacities(chip, CoreType::Vector);
    const auto cube = local_capacities(chip, CoreType::Cube);
    for (const MemSpaceInfo& info : kMemSpaceTable) {
        const auto i = static_cast<std::size_t>(info.space);
        CHECK(vector[i] == (info.on_vector ? chip.*info.capacity : 0));
        CHECK(cube[i] == (info.on_cube ? chip.*info.capacity : 0));
    }
    CHECK(vector[static_cast<std::size_t>(MemSpace::UB)] == 196608);
    CHECK(cube[static_cast<std::size_t>(MemSpace::L1)] == 524288);
    CHECK(cube[static_cast<std::size_t>(MemSpace::GM)] == 0);
}
