// The one table of DataCopy routes: which pipe moves data from one memory space to another,
// whether the transfer draws on the chip's shared GM bandwidth, and which group of chip
// parameters (latency, bytes per cycle) times it. Adding a route is one row; a new timing
// group is one row of kCopyGroups plus its values in the chip files (configs/chips/*.json,
// "/copy/<key>/latency" and "/copy/<key>/bytes_per_cycle").
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

#include "base/types.h"

namespace npusim {

struct CopyGroupInfo {
    std::string_view key;          // the chip file's object under /copy
    std::string_view description;  // "a GM -> UB copy (MTE2)": completes "fixed cost of ..."
};

inline constexpr std::array<CopyGroupInfo, 5> kCopyGroups{{
    {"mte2", "a GM -> UB / L1 copy (MTE2)"},
    {"mte3", "a UB / L1 -> GM copy (MTE3)"},
    {"v", "a UB -> UB copy (PIPE_V)"},
    {"mte1", "an L1 -> L0A / L0B / BT copy (MTE1)"},
    {"fix", "an L0C -> GM / L1 copy (fixpipe)"},
}};
inline constexpr std::size_t kCopyGroupCount = kCopyGroups.size();

struct CopyRoute {
    MemSpace src = MemSpace::GM;
    MemSpace dst = MemSpace::UB;
    Pipe pipe = Pipe::MTE2;
    std::size_t group = 0;  // index into kCopyGroups

    /// GM transfers share the chip's GM bandwidth; local ones depend only on their core.
    constexpr bool uses_gm() const { return src == MemSpace::GM || dst == MemSpace::GM; }
};

inline constexpr std::array<CopyRoute, 10> kCopyRoutes{{
    {MemSpace::GM, MemSpace::UB, Pipe::MTE2, 0},
    {MemSpace::GM, MemSpace::L1, Pipe::MTE2, 0},
    {MemSpace::UB, MemSpace::GM, Pipe::MTE3, 1},
    // The AIC's MTE3 copies L1 out to GM (the vendor's profiling counts aic_mte3 instructions
    // and L1_to_GM data), timed as a UB -> GM copy.
    {MemSpace::L1, MemSpace::GM, Pipe::MTE3, 1},
    {MemSpace::UB, MemSpace::UB, Pipe::V, 2},
    {MemSpace::L1, MemSpace::L0A, Pipe::MTE1, 3},
    {MemSpace::L1, MemSpace::L0B, Pipe::MTE1, 3},
    // L1 -> the bias table (Ascend C C1 -> C2), timed as an L1 -> L0 copy.
    {MemSpace::L1, MemSpace::BT, Pipe::MTE1, 3},
    {MemSpace::L0C, MemSpace::GM, Pipe::FIX, 4},
    // A2/A3's fixpipe also writes L1 (the vendor's Fixpipe to a C1 tensor), timed alike.
    {MemSpace::L0C, MemSpace::L1, Pipe::FIX, 4},
}};

constexpr bool copy_routes_valid() {
    for (const CopyRoute& route : kCopyRoutes) {
        if (route.group >= kCopyGroupCount) return false;
    }
    return true;
}
static_assert(copy_routes_valid(), "every copy route names a group of kCopyGroups");

/// The route from `src` to `dst`, if the hardware has one.
constexpr std::optional<CopyRoute> find_copy_route(MemSpace src, MemSpace dst) {
    for (const CopyRoute& route : kCopyRoutes) {
        if (route.src == src && route.dst == dst) return route;
    }
    return std::nullopt;
}

/// Whether any route of `group` moves data to or from GM (its rate is then bounded by GM's).
constexpr bool copy_group_uses_gm(std::size_t group) {
    for (const CopyRoute& route : kCopyRoutes) {
        if (route.group == group && route.uses_gm()) return true;
    }
    return false;
}

}  // namespace npusim
