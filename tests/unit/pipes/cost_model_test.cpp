// CostModel: copy paths from the copy-route table, and the copy, vector, cube and scalar
// cost formulas (docs/cost-model.md), with the small preset's parameters.
#include "pipes/cost_model.h"

#include <catch2/catch.hpp>

#include "base/copy_routes.h"
#include "unit_support.h"

using namespace npusim;
using npusim::unit::small_chip;

TEST_CASE("cost model: every copy route has a path with its group's timing", "[unit]") {
    const ChipConfig& chip = small_chip();
    const CostModel cost(chip);
    for (const CopyRoute& route : kCopyRoutes) {
        CAPTURE(to_string(route.src), to_string(route.dst));
        const std::optional<CopyPath> path = cost.copy_path(route.src, route.dst);
        REQUIRE(path);
        CHECK(path->pipe == route.pipe);
        CHECK(path->latency == chip.copy_paths[route.group].latency);
        CHECK(path->bytes_per_cycle == chip.copy_paths[route.group].bytes_per_cycle);
        CHECK(path->uses_gm == (route.src == MemSpace::GM || route.dst == MemSpace::GM));
    }
}

TEST_CASE("cost model: the small preset's paths", "[unit]") {
    const CostModel cost(small_chip());
    const auto gm_ub = cost.copy_path(MemSpace::GM, MemSpace::UB);
    REQUIRE(gm_ub);
    CHECK(gm_ub->pipe == Pipe::MTE2);
    CHECK(gm_ub->latency == 100);
    CHECK(gm_ub->bytes_per_cycle == 32);
    CHECK(gm_ub->uses_gm);
    const auto l1_l0b = cost.copy_path(MemSpace::L1, MemSpace::L0B);
    REQUIRE(l1_l0b);
    CHECK(l1_l0b->pipe == Pipe::MTE1);
    CHECK(l1_l0b->latency == 16);
    CHECK(l1_l0b->bytes_per_cycle == 128);
    CHECK_FALSE(l1_l0b->uses_gm);
    const auto l0c_gm = cost.copy_path(MemSpace::L0C, MemSpace::GM);
    REQUIRE(l0c_gm);
    CHECK(l0c_gm->pipe == Pipe::FIX);
    CHECK(l0c_gm->latency == 40);
    CHECK(l0c_gm->uses_gm);
}

TEST_CASE("cost model: a pair of spaces without a route has no path", "[unit]") {
    const CostModel cost(small_chip());
    CHECK_FALSE(cost.copy_path(MemSpace::GM, MemSpace::GM));
    CHECK_FALSE(cost.copy_path(MemSpace::UB, MemSpace::L1));
    CHECK_FALSE(cost.copy_path(MemSpace::L0A, MemSpace::L1));
    CHECK_FALSE(cost.copy_path(MemSpace::GM, MemSpace::L0C));
    for (int s = 0; s < kMemSpaces; ++s) {
        for (int d = 0; d < kMemSpaces; ++d) {
            const auto src = static_cast<MemSpace>(s);
            const auto dst = static_cast<MemSpace>(d);
            CHECK(cost.copy_path(src, dst).has_value() == find_copy_route(src, dst).has_value());
        }
    }
}

TEST_CASE("cost model: a local copy occupies ceil(bytes / rate) and adds the path latency",
          "[unit]") {
    const CostModel cost(small_chip());
    const CopyPath path = *cost.copy_path(MemSpace::UB, MemSpace::UB);  // 128 B/cycle, 8
    CHECK(cost.local_copy(path, 128).occupancy == 1);
    CHECK(cost.local_copy(path, 129).occupancy == 2);
    CHECK(cost.local_copy(path, 4096).occupancy == 32);
    CHECK(cost.local_copy(path, 4096).latency == 8);
    const CopyPath custom{Pipe::MTE1, 3, 7, false};
    CHECK(cost.local_copy(custom, 15).occupancy == 3);
    CHECK(cost.local_copy(custom, 15).latency == 3);
}

TEST_CASE("cost model: a vector op is one cycle per repeat after the startup", "[unit]") {
    const CostModel cost(small_chip());  // 256 bytes per repeat, startup 8
    CHECK(cost.vector_op(1).occupancy == 1);
    CHECK(cost.vector_op(256).occupancy == 1);
    CHECK(cost.vector_op(257).occupancy == 2);
    CHECK(cost.vector_op(8192).occupancy == 32);
    CHECK(cost.vector_op(8192).latency == 8);
}

TEST_CASE("cost model: a cube op is one cycle per 16x16x16 fractal after the startup", "[unit]") {
    const CostModel cost(small_chip());  // startup 16
    CHECK(cost.cube_op(16, 16, 16).occupancy == 1);
    CHECK(cost.cube_op(1, 1, 1).occupancy == 1);
    CHECK(cost.cube_op(17, 16, 16).occupancy == 2);
    CHECK(cost.cube_op(32, 48, 64).occupancy == 2 * 3 * 4);
    CHECK(cost.cube_op(32, 48, 64).latency == 16);
}

TEST_CASE("cost model: scalar calls and scalar memory accesses", "[unit]") {
    const ChipConfig& chip = small_chip();
    const CostModel cost(chip);
    CHECK(cost.scalar_call() == chip.scalar_cycles_per_call);
    CHECK(cost.scalar_call() == 1);
    CHECK(cost.scalar_access(MemSpace::GM) == 100);
    CHECK(cost.scalar_access(MemSpace::UB) == 4);
}

TEST_CASE("cost model: reads the chip it was given, not a copy", "[unit]") {
    ChipConfig chip = small_chip();
    const CostModel cost(chip);
    chip.vector_repeat_bytes = 64;
    chip.cube_startup_cycles = 3;
    CHECK(cost.vector_op(256).occupancy == 4);
    CHECK(cost.cube_op(16, 16, 16).latency == 3);
}
