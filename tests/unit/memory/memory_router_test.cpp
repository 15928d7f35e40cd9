// MemoryRouter: an access goes to GM or to the core's local memory by its space.
#include "memory/memory_router.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include <catch2/catch.hpp>

#include "base/memory_spaces.h"
#include "unit_support.h"

using namespace npusim;
using npusim::unit::small_chip;

namespace {
std::vector<std::byte> bytes_of(std::initializer_list<int> values) {
    std::vector<std::byte> out;
    for (int v : values) out.push_back(static_cast<std::byte>(v));
    return out;
}

/// GM and one core's local memory with a router over them.
struct RoutedMemory {
    explicit RoutedMemory(CoreType type)
        : local(local_capacities(small_chip(), type)), router(gm, local) {}
    GlobalMemory gm{std::uint64_t{1} << 30};
    LocalMemory local;
    MemoryRouter router;
};
}  // namespace

TEST_CASE("memory router: GM accesses go to global memory", "[unit]") {
    RoutedMemory m(CoreType::Vector);
    const auto data = bytes_of({1, 2, 3, 4});
    m.router.write({MemSpace::GM, true, 70000, 4}, data.data());
    std::vector<std::byte> direct(4);
    m.gm.read(70000, direct.data(), 4);
    CHECK(direct == data);
    std::vector<std::byte> routed(4);
    m.router.read({MemSpace::GM, false, 70000, 4}, routed.data());
    CHECK(routed == data);
    CHECK(&m.router.gm() == &m.gm);
}

TEST_CASE("memory router: local accesses go to the core's space at their offset", "[unit]") {
    RoutedMemory m(CoreType::Vector);
    const auto data = bytes_of({9, 8, 7});
    m.router.write({MemSpace::UB, true, 100, 3}, data.data());
    CHECK(std::memcmp(m.local.data(MemSpace::UB) + 100, data.data(), 3) == 0);
    CHECK(m.router.local_bytes({MemSpace::UB, false, 100, 3}) == m.local.data(MemSpace::UB) + 100);
    std::vector<std::byte> routed(3);
    m.router.read({MemSpace::UB, false, 100, 3}, routed.data());
    CHECK(routed == data);
    // Nothing reached GM.
    CHECK(m.gm.resident_bytes() == 0);
    std::vector<std::byte> gm_bytes(3);
    m.gm.read(100, gm_bytes.data(), 3);
    CHECK(gm_bytes == bytes_of({0, 0, 0}));
}

TEST_CASE("memory router: cube spaces are separate memories", "[unit]") {
    RoutedMemory m(CoreType::Cube);
    const auto a = bytes_of({1, 1});
    const auto b = bytes_of({2, 2});
    m.router.write({MemSpace::L0A, true, 0, 2}, a.data());
    m.router.write({MemSpace::L0B, true, 0, 2}, b.data());
    std::vector<std::byte> out(2);
    m.router.read({MemSpace::L0A, false, 0, 2}, out.data());
    CHECK(out == a);
    m.router.read({MemSpace::L0B, false, 0, 2}, out.data());
    CHECK(out == b);
    m.router.read({MemSpace::L0C, false, 0, 2}, out.data());  // untouched: zeros
    CHECK(out == bytes_of({0, 0}));
    CHECK(m.local.capacity(MemSpace::L0C) == 131072);
    CHECK(m.local.capacity(MemSpace::UB) == 0);
}
