#include "base/cross_core_routing.h"

namespace npusim {

std::uint32_t group_of(KernelType type, CoreType core, std::uint32_t block) {
    if (core == CoreType::Cube) return block;
    const std::uint32_t per_group = vector_cores_per_block(type);
    return per_group == 2 ? block / 2 : block;
}

CrossCoreRoute route_cross_core_set(KernelType type, std::uint32_t groups, CoreType setter,
                                    std::uint32_t block, std::uint32_t mode) {
    CrossCoreRoute route;
    const std::uint32_t group = group_of(type, setter, block);
    const std::string group_text = std::to_string(group);
    if (mode == 0) {
        route.round = true;
        route.round_key = static_cast<std::uint64_t>(setter);
        const std::uint32_t members = blocks_on(type, setter, groups);
        route.targets.reserve(members);
        for (std::uint32_t b = 0; b < members; ++b) route.targets.push_back({setter, b});
        route.receiver = "a block of the round";
    } else if (mode == 1) {
        route.round = true;
        route.round_key = (std::uint64_t{1} << 40) | group;
        route.targets = {{CoreType::Vector, 2 * group}, {CoreType::Vector, 2 * group + 1}};
        route.receiver = "an AIV of group " + group_text;
    } else if (setter == CoreType::Cube && mode >= kCrossCoreModeToAiv) {
        const std::uint32_t per_group = vector_cores_per_block(type);
        route.targets = {{CoreType::Vector, per_group * group + (mode - kCrossCoreModeToAiv)}};
        route.receiver =
            "AIV " + std::to_string(mode - kCrossCoreModeToAiv) + " of group " + group_text;
    } else if (setter == CoreType::Cube) {
        const std::uint32_t per_group = vector_cores_per_block(type);
        for (std::uint32_t sub = 0; sub < per_group; ++sub)
            route.targets.push_back({CoreType::Vector, per_group * group + sub});
        route.receiver = "an AIV of group " + group_text;
    } else {
        route.targets = {{CoreType::Cube, group}};
        route.receiver = "the AIC of group " + group_text;
    }
    return route;
}

}  // namespace npusim
