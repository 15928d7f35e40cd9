// The copy-route table: every route names an existing group, routes are unique, and GM use
// follows the spaces.
#include "base/copy_routes.h"

#include <set>
#include <utility>

#include <catch2/catch.hpp>

#include "base/chip_config.h"
#include "base/pipe_table.h"

using namespace npusim;

TEST_CASE("copy routes: every route's group exists and routes are unique", "[unit]") {
    std::set<std::pair<MemSpace, MemSpace>> pairs;
    std::set<std::size_t> groups_used;
    for (const CopyRoute& route : kCopyRoutes) {
        CAPTURE(to_string(route.src), to_string(route.dst));
        CHECK(route.group < kCopyGroupCount);
        CHECK(is_real_pipe(route.pipe));
        CHECK(pairs.insert({route.src, route.dst}).second);
        groups_used.insert(route.group);
        const auto found = find_copy_route(route.src, route.dst);
        REQUIRE(found);
        CHECK(found->pipe == route.pipe);
        CHECK(found->group == route.group);
    }
    CHECK(groups_used.size() == kCopyGroupCount);  // no group without a route
    CHECK(copy_routes_valid());
}

TEST_CASE("copy routes: the hardware's routes and pipes", "[unit]") {
    CHECK(find_copy_route(MemSpace::GM, MemSpace::UB)->pipe == Pipe::MTE2);
    CHECK(find_copy_route(MemSpace::GM, MemSpace::L1)->pipe == Pipe::MTE2);
    CHECK(find_copy_route(MemSpace::UB, MemSpace::GM)->pipe == Pipe::MTE3);
    CHECK(find_copy_route(MemSpace::UB, MemSpace::UB)->pipe == Pipe::V);
    CHECK(find_copy_route(MemSpace::L1, MemSpace::L0A)->pipe == Pipe::MTE1);
    CHECK(find_copy_route(MemSpace::L1, MemSpace::L0B)->pipe == Pipe::MTE1);
    CHECK(find_copy_route(MemSpace::L1, MemSpace::BT)->pipe == Pipe::MTE1);  // C1 -> C2 (bias)
    CHECK_FALSE(find_copy_route(MemSpace::L1, MemSpace::L1).has_value());
    CHECK(find_copy_route(MemSpace::L0C, MemSpace::GM)->pipe == Pipe::FIX);
    CHECK(find_copy_route(MemSpace::L0C, MemSpace::L1)->pipe == Pipe::FIX);  // C1 results
    CHECK_FALSE(find_copy_route(MemSpace::GM, MemSpace::GM));
    CHECK_FALSE(find_copy_route(MemSpace::L1, MemSpace::L0C));
    CHECK_FALSE(find_copy_route(MemSpace::L0A, MemSpace::GM));
}

TEST_CASE("copy routes: a route uses GM exactly when one end is GM", "[unit]") {
    for (const CopyRoute& route : kCopyRoutes) {
        CHECK(route.uses_gm() == (route.src == MemSpace::GM || route.dst == MemSpace::GM));
    }
    for (std::size_t group = 0; group < kCopyGroupCount; ++group) {
        CAPTURE(kCopyGroups[group].key);
        bool any_gm = false;
        for (const CopyRoute& route : kCopyRoutes) {
            if (route.group == group) any_gm = any_gm || route.uses_gm();
        }
        CHECK(copy_group_uses_gm(group) == any_gm);
    }
    CHECK(copy_group_uses_gm(0));        // mte2
    CHECK_FALSE(copy_group_uses_gm(2));  // v
    CHECK_FALSE(copy_group_uses_gm(3));  // mte1
}

TEST_CASE("copy routes: a route's pipe exists on a core that has both spaces", "[unit]") {
    // Each route runs on the core type that owns its local space(s).
    for (const CopyRoute& route : kCopyRoutes) {
        const bool vector_side = route.src == MemSpace::UB || route.dst == MemSpace::UB;
        CHECK(has_pipe(vector_side ? CoreType::Vector : CoreType::Cube, route.pipe));
    }
}

TEST_CASE("copy routes: group keys are unique and found in a chip config", "[unit]") {
    const ChipConfig chip = builtin_chip_config("small");
    std::set<std::string_view> keys;
    for (std::size_t group = 0; group < kCopyGroupCount; ++group) {
        keys.insert(kCopyGroups[group].key);
        CHECK(&chip.copy_group(kCopyGroups[group].key) == &chip.copy_paths[group]);
    }
    CHECK(keys.size() == kCopyGroupCount);
}
