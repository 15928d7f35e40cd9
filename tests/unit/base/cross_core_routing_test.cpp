// Cross-core routing: where a CrossCoreSetFlag of each mode goes, and the round keys that
// tell rounds apart, for each kernel type.
#include "base/cross_core_routing.h"

#include <set>
#include <vector>

#include <catch2/catch.hpp>

using namespace npusim;

namespace {
std::vector<std::pair<CoreType, std::uint32_t>> keys(const std::vector<BlockKey>& targets) {
    std::vector<std::pair<CoreType, std::uint32_t>> out;
    for (const BlockKey& key : targets) out.emplace_back(key.type, key.block);
    return out;
}
using Targets = std::vector<std::pair<CoreType, std::uint32_t>>;
constexpr CoreType V = CoreType::Vector;
constexpr CoreType C = CoreType::Cube;
}  // namespace

TEST_CASE("cross-core routing: group of a block per kernel type", "[unit]") {
    CHECK(group_of(KernelType::MIX_AIC_1_2, V, 5) == 2);
    CHECK(group_of(KernelType::MIX_AIC_1_2, V, 4) == 2);
    CHECK(group_of(KernelType::MIX_AIC_1_2, C, 2) == 2);
    CHECK(group_of(KernelType::MIX_AIC_1_1, V, 5) == 5);
    CHECK(group_of(KernelType::AIV_ONLY, V, 3) == 3);
    CHECK(group_of(KernelType::AIC_ONLY, C, 3) == 3);
}

TEST_CASE("cross-core routing: mode 0 is a round over the setter's core type", "[unit]") {
    const CrossCoreRoute aiv = route_cross_core_set(KernelType::AIV_ONLY, 3, V, 1, 0);
    CHECK(aiv.round);
    CHECK(keys(aiv.targets) == Targets{{V, 0}, {V, 1}, {V, 2}});
    const CrossCoreRoute aic = route_cross_core_set(KernelType::AIC_ONLY, 2, C, 0, 0);
    CHECK(aic.round);
    CHECK(keys(aic.targets) == Targets{{C, 0}, {C, 1}});
    CHECK(aiv.round_key != aic.round_key);
    // In a 1:2 kernel of 2 groups, the AIV round has 4 members and the AIC round 2.
    const CrossCoreRoute mix_aiv = route_cross_core_set(KernelType::MIX_AIC_1_2, 2, V, 3, 0);
    CHECK(keys(mix_aiv.targets) == Targets{{V, 0}, {V, 1}, {V, 2}, {V, 3}});
    const CrossCoreRoute mix_aic = route_cross_core_set(KernelType::MIX_AIC_1_2, 2, C, 1, 0);
    CHECK(keys(mix_aic.targets) == Targets{{C, 0}, {C, 1}});
    CHECK(mix_aiv.round_key != mix_aic.round_key);
    // Every block of a type joins the same round.
    CHECK(route_cross_core_set(KernelType::MIX_AIC_1_2, 2, V, 0, 0).round_key == mix_aiv.round_key);
    const CrossCoreRoute mix11 = route_cross_core_set(KernelType::MIX_AIC_1_1, 3, V, 2, 0);
    CHECK(keys(mix11.targets) == Targets{{V, 0}, {V, 1}, {V, 2}});
    const CrossCoreRoute mix_aiv_1_0 = route_cross_core_set(KernelType::MIX_AIV_1_0, 2, V, 0, 0);
    CHECK(keys(mix_aiv_1_0.targets) == Targets{{V, 0}, {V, 1}});
    const CrossCoreRoute mix_aic_1_0 = route_cross_core_set(KernelType::MIX_AIC_1_0, 2, C, 1, 0);
    CHECK(keys(mix_aic_1_0.targets) == Targets{{C, 0}, {C, 1}});
}

TEST_CASE("cross-core routing: mode 1 is a round over the two AIVs of a group", "[unit]") {
    const CrossCoreRoute even = route_cross_core_set(KernelType::MIX_AIC_1_2, 3, V, 4, 1);
    const CrossCoreRoute odd = route_cross_core_set(KernelType::MIX_AIC_1_2, 3, V, 5, 1);
    CHECK(even.round);
    CHECK(keys(even.targets) == Targets{{V, 4}, {V, 5}});
    CHECK(keys(odd.targets) == keys(even.targets));
    CHECK(even.round_key == odd.round_key);
    CHECK(even.receiver == "an AIV of group 2");
    // Other groups and mode 0 are other rounds.
    std::set<std::uint64_t> round_keys;
    for (std::uint32_t block = 0; block < 6; block += 2) {
        round_keys.insert(route_cross_core_set(KernelType::MIX_AIC_1_2, 3, V, block, 1).round_key);
    }
    round_keys.insert(route_cross_core_set(KernelType::MIX_AIC_1_2, 3, V, 0, 0).round_key);
    round_keys.insert(route_cross_core_set(KernelType::MIX_AIC_1_2, 3, C, 0, 0).round_key);
    CHECK(round_keys.size() == 5);
}

TEST_CASE("cross-core routing: mode 2 is point to point inside a group", "[unit]") {
    const CrossCoreRoute aic12 = route_cross_core_set(KernelType::MIX_AIC_1_2, 4, C, 3, 2);
    CHECK_FALSE(aic12.round);
    CHECK(keys(aic12.targets) == Targets{{V, 6}, {V, 7}});
    CHECK(aic12.receiver == "an AIV of group 3");
    const CrossCoreRoute aiv12 = route_cross_core_set(KernelType::MIX_AIC_1_2, 4, V, 7, 2);
    CHECK_FALSE(aiv12.round);
    CHECK(keys(aiv12.targets) == Targets{{C, 3}});
    CHECK(aiv12.receiver == "the AIC of group 3");
    const CrossCoreRoute aic11 = route_cross_core_set(KernelType::MIX_AIC_1_1, 4, C, 2, 2);
    CHECK(keys(aic11.targets) == Targets{{V, 2}});
    const CrossCoreRoute aiv11 = route_cross_core_set(KernelType::MIX_AIC_1_1, 4, V, 2, 2);
    CHECK(keys(aiv11.targets) == Targets{{C, 2}});
}

TEST_CASE("cross-core routing: npusim's AIC -> one AIV set reaches that AIV only", "[unit]") {
    // The Matmul API's replies in a mixed kernel (kCrossCoreModeToAiv + sub-block).
    const CrossCoreRoute to0 =
        route_cross_core_set(KernelType::MIX_AIC_1_2, 3, C, 2, kCrossCoreModeToAiv);
    const CrossCoreRoute to1 =
        route_cross_core_set(KernelType::MIX_AIC_1_2, 3, C, 2, kCrossCoreModeToAiv + 1);
    CHECK_FALSE(to0.round);
    CHECK(keys(to0.targets) == Targets{{V, 4}});
    CHECK(keys(to1.targets) == Targets{{V, 5}});
    CHECK(to1.receiver == "AIV 1 of group 2");
    const CrossCoreRoute mix11 =
        route_cross_core_set(KernelType::MIX_AIC_1_1, 3, C, 1, kCrossCoreModeToAiv);
    CHECK(keys(mix11.targets) == Targets{{V, 1}});
}
