// Chip configuration: a typed struct parsed strictly from JSON (configs/chips/*.json).
//
// Every numeric parameter is described once in chip_parameters() (JSON pointer, unit,
// range, meaning); that table drives parsing, validation and `npusim params`. A parameter
// may be written as a plain number or as {"value": N, "note": "where this number comes from"}.
//
// Example (configs/chips/small.json, abbreviated):
//   { "name": "small", "clock_mhz": 1000,
//     "cores": { "vector": 4, "cube": 2 },
//     "memory": { "ub_bytes": {"value": 196608, "note": "A2 vector core UB"}, ... } }
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/copy_routes.h"
#include "base/types.h"

namespace npusim {

/// Resolved, validated chip parameters. All sizes in bytes, all times in core cycles.
/// Timing of one group of DataCopy routes.
struct CopyPathParams {
    std::uint64_t latency = 0;          // cycles before the first byte lands
    std::uint64_t bytes_per_cycle = 0;  // rate of one core's transfer
    std::uint64_t issue_cycles = 0;     // pipe cycles to issue one DMA instruction
    std::uint64_t burst_cycles = 0;     // pipe cycles per further burst (row) of one instruction
};

struct ChipConfig {
    std::string name;
    std::string source;  // file it came from ("<builtin>" or "<json>" otherwise)

    std::uint64_t clock_mhz = 0;
    std::uint64_t vector_cores = 0;
    std::uint64_t cube_cores = 0;

    std::uint64_t gm_bytes = 0;
    std::uint64_t ub_bytes = 0;
    std::uint64_t l1_bytes = 0;
    std::uint64_t l0a_bytes = 0;
    std::uint64_t l0b_bytes = 0;
    std::uint64_t l0c_bytes = 0;
    std::uint64_t bt_bytes = 0;  // the cube core's bias table (Ascend C TPosition C2)

    std::uint64_t gm_bytes_per_cycle = 0;  // whole chip, shared by all transfers
    std::uint64_t gm_window_cycles = 0;    // bandwidth accounting slot
    std::uint64_t gm_access_bytes = 0;     // GM access granule: a burst moves whole granules
    std::uint64_t gm_fair_share = 0;       // 1: HBM and L2 shared fairly among the busy cores

    // L2 cache between the cores and HBM (memory/l2_cache.h); l2_bytes 0: none.
    std::uint64_t l2_bytes = 0;
    std::uint64_t l2_line_bytes = 0;
    std::uint64_t l2_ways = 0;
    std::uint64_t l2_bytes_per_cycle = 0;        // whole chip, all L2 traffic
    std::uint64_t l2_read_bytes_per_cycle = 0;   // one core's reads served by L2
    std::uint64_t l2_write_bytes_per_cycle = 0;  // one core's writes into L2

    std::uint64_t queue_depth = 0;  // per pipe, instructions not yet started
    std::uint64_t event_ids = 0;    // SetFlag/WaitFlag ids per pipe pair

    std::uint64_t scalar_cycles_per_call = 0;
    std::uint64_t scalar_ub_latency = 0;
    std::uint64_t scalar_gm_latency = 0;

    /// DataCopy timing per copy group (base/copy_routes.h): fixed latency plus
    /// bytes / bytes_per_cycle. Indexed like kCopyGroups.
    std::array<CopyPathParams, kCopyGroupCount> copy_paths{};

    std::uint64_t vector_startup_cycles = 0;
    std::uint64_t vector_repeat_bytes = 0;  // bytes one repeat processes (one cycle)
    std::uint64_t vector_issue_cycles = 0;  // pipe cycles per instruction beyond its repeats
    std::uint64_t ub_read_read_conflict_cycles = 0;   // per repeat, sources in one bank group
    std::uint64_t ub_read_write_conflict_cycles = 0;  // per repeat, write shifted onto a read
    std::uint64_t cube_startup_cycles = 0;

    std::uint64_t syncall_latency = 0;          // hard SyncAll release after last arrival
    std::uint64_t cross_core_flag_latency = 0;  // cross-core flag set -> visible

    // Host runtime (sim/host/runtime.h): what the host thread pays per call, and the host link.
    std::uint64_t runtime_launch_cycles = 0;  // host cost of one kernel launch call
    std::uint64_t kernel_start_cycles = 0;  // device: a launch reaching the device -> blocks start
    std::uint64_t runtime_call_cycles = 0;  // host cost of any other runtime call
    std::uint64_t runtime_sync_cycles = 0;  // synchronize: completion -> host resumes
    std::uint64_t host_link_bytes_per_cycle = 0;  // host <-> device copy rate
    std::uint64_t host_link_latency = 0;          // cycles before a copy's first byte lands

    /// JSON pointer -> the note written beside the value in the file.
    std::map<std::string, std::string> notes;

    std::uint64_t cores_of(CoreType type) const {
        return type == CoreType::Vector ? vector_cores : cube_cores;
    }
    std::uint64_t capacity_of(MemSpace space) const;
    /// The copy group with this key ("mte2"); UsageError for a key not in kCopyGroups.
    const CopyPathParams& copy_group(std::string_view key) const;
    const CopyPathParams& copy_path(const CopyRoute& route) const {
        return copy_paths[route.group];
    }
};

/// Where a numeric parameter lives in ChipConfig: a plain member, or one member of a copy
/// group's CopyPathParams.
struct ChipField {
    std::uint64_t ChipConfig::*member = nullptr;
    std::uint64_t CopyPathParams::*path_member = nullptr;
    std::size_t copy_group = 0;

    constexpr bool operator==(const ChipField&) const = default;
    std::uint64_t& of(ChipConfig& config) const {
        return member ? config.*member : config.copy_paths[copy_group].*path_member;
    }
    std::uint64_t of(const ChipConfig& config) const {
        return member ? config.*member : config.copy_paths[copy_group].*path_member;
    }
};

/// Descriptor of one numeric parameter. The single place where a default, a range and a
/// meaning are written.
struct ChipParameter {
    std::string_view pointer;  // JSON pointer, e.g. "/memory/ub_bytes"
    ChipField field;
    std::string_view unit;
    std::uint64_t min;
    std::uint64_t max;
    std::string_view description;
};
const std::vector<ChipParameter>& chip_parameters();

/// Parses and validates. Throws ConfigError listing every problem, each as
/// "<origin>:<json pointer>: <what is wrong>" (unknown keys get a nearest-name suggestion).
/// `origin` is used in messages (normally the file path).
ChipConfig parse_chip_config(std::string_view json_text, const std::string& origin);

/// Reads a file and parses it. Missing/unreadable file -> ConfigError naming the file.
ChipConfig load_chip_config(const std::filesystem::path& file);

/// The configs shipped with the library, by preset name ("a2", "small"): compiled in so a
/// test or a user needs no path. Unknown name -> ConfigError listing the known ones.
ChipConfig builtin_chip_config(std::string_view preset);
std::vector<std::string> builtin_chip_presets();

}  // namespace npusim
