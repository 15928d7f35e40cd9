// A what-if study's plan: a scenario document, the axes it sweeps (JSON pointers into the
// document and the values each takes) and how many seeded schedules run per point. Pure: no
// SystemC, no processes; sim/study/sweep.h runs a plan.
//
//   npusim sweep study.json --set /host/0/blocks=8:48:8 --set
//   /runtime/placement=launch_order,random
//
// Points are the cartesian product of the axes, the first axis slowest; task t is point
// t / schedules, schedule t % schedules. A scenario file may carry its own "sweep" section:
//   "sweep": {"axes": [{"set": "/host/0/blocks", "values": [8, 16, 24]},
//                      {"name": "streams", "values": [1, 2],
//                       "set": {"/host/1/stream": ["s1", "s2"]}},
//                      {"name": "mode", "values": ["normal", "batch"],
//                       "set": ["/host/0/schedule_mode", "/host/1/schedule_mode"]}],
//             "schedules": 4, "seed": 1}
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace npusim {

/// One axis. A plain axis sets its value at `pointer`. A named axis (a study's "streams",
/// say) sets several places at once, one per link: the axis value itself, or the link's own
/// value for the axis value at the same index.
struct SweepAxis {
    struct Link {
        std::string pointer;
        std::vector<nlohmann::json> values;  // empty: the axis value; else one per axis value
    };
    std::string pointer;  // "/host/0/blocks"; for a named axis its name (the column's name)
    std::vector<nlohmann::json> values;
    std::vector<Link> links;  // empty: a plain axis
};

/// "PATH=v1,v2,..." (each value JSON if it parses as JSON, else a string) or
/// "PATH=start:stop:step" (integers, stop included when reached). Throws UsageError naming
/// the argument.
SweepAxis parse_sweep_axis(std::string_view argument);

/// "K/N" with 1 <= K <= N: task t belongs to the shard when t % N == K - 1.
struct Shard {
    std::uint32_t index = 1;
    std::uint32_t count = 1;
    bool contains(std::size_t task) const { return task % count == index - 1; }
};
Shard parse_shard(std::string_view argument);

struct SweepPlan {
    std::string source;              // the scenario file
    std::filesystem::path base_dir;  // for paths inside the scenario
    nlohmann::json document;         // the scenario, without its "sweep" section
    std::vector<SweepAxis> axes;
    std::uint32_t schedules = 1;  // seeded schedules per point
    std::uint64_t seed = 1;       // schedule s of every point runs with seed + s

    std::size_t points() const;
    std::size_t tasks() const { return points() * schedules; }
    std::size_t point_of(std::size_t task) const { return task / schedules; }
    std::uint32_t schedule_of(std::size_t task) const {
        return static_cast<std::uint32_t>(task % schedules);
    }
    /// The axis values of point `point`, in axis order.
    std::vector<nlohmann::json> values_of(std::size_t point) const;
    /// The scenario document of the point: every axis value set at its pointer. Throws
    /// ConfigError naming the file and the pointer when the pointer's parent does not exist.
    nlohmann::json document_of(std::size_t point) const;
};

/// Reads `file` and its "sweep" section; `extra_axes` add axes or replace those with the
/// same pointer; `schedules` and `seed` override the section's. Throws ConfigError (file and
/// JSON pointer) for a bad section or file, UsageError for an empty study.
SweepPlan plan_sweep(const std::filesystem::path& file, const std::vector<SweepAxis>& extra_axes,
                     std::optional<std::uint32_t> schedules = {},
                     std::optional<std::uint64_t> seed = {});
/// The same from a document in memory (`origin` names it in errors).
SweepPlan plan_sweep(nlohmann::json document, const std::string& origin,
                     const std::filesystem::path& base_dir,
                     const std::vector<SweepAxis>& extra_axes,
                     std::optional<std::uint32_t> schedules = {},
                     std::optional<std::uint64_t> seed = {});

}  // namespace npusim
