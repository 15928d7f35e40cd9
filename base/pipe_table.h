// The one table of hardware pipes. Names, trace lane order, which core types have a pipe and
// whether it takes part in SetFlag/WaitFlag all come from here; adding a pipe is one row
// (plus its enumerator in base/types.h and, if it copies data, a copy route).
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string_view>

#include "base/types.h"

namespace npusim {

struct PipeInfo {
    Pipe pipe = Pipe::S;
    std::string_view name;        // "PIPE_MTE2": the vendor's pipe_t spelling, used in reports
    std::string_view short_name;  // "MTE2": flag names (SetFlag<MTE2_V>) and trace lanes
    int lane = 0;                 // order inside a core in traces and listings: data flow order
    bool on_vector = false;       // an AIV core has this pipe
    bool on_cube = false;         // an AIC core has this pipe
};

/// Real pipes first, in dense-index order; PIPE_ALL (a barrier target, not a unit) is not here.
inline constexpr std::array<PipeInfo, 7> kPipeTable{{
    {Pipe::S, "PIPE_S", "S", 0, true, true},
    {Pipe::V, "PIPE_V", "V", 3, true, false},
    {Pipe::M, "PIPE_M", "M", 4, false, true},
    {Pipe::MTE1, "PIPE_MTE1", "MTE1", 2, false, true},
    {Pipe::MTE2, "PIPE_MTE2", "MTE2", 1, true, true},
    {Pipe::MTE3, "PIPE_MTE3", "MTE3", 5, true, true},  // AIC: L1 -> GM
    {Pipe::FIX, "PIPE_FIX", "FIX", 6, false, true},
}};
inline constexpr std::size_t kPipeCount = kPipeTable.size();
/// Lane of PIPE_ALL slices in traces: after every real pipe.
inline constexpr int kAllPipesLane = static_cast<int>(kPipeCount);

namespace detail {
constexpr std::array<int, kPipeSlots> make_dense_index() {
    std::array<int, kPipeSlots> index{};
    for (int& i : index) i = -1;
    for (std::size_t i = 0; i < kPipeTable.size(); ++i)
        index[static_cast<std::size_t>(kPipeTable[i].pipe)] = static_cast<int>(i);
    return index;
}
inline constexpr std::array<int, kPipeSlots> kDenseIndex = make_dense_index();
}  // namespace detail

/// 0..kPipeCount-1 for a real pipe, -1 for PIPE_ALL or a value that is no pipe.
constexpr int pipe_index(Pipe pipe) {
    const auto slot = static_cast<std::size_t>(pipe);
    return slot < detail::kDenseIndex.size() ? detail::kDenseIndex[slot] : -1;
}
constexpr bool is_real_pipe(Pipe pipe) {
    return pipe_index(pipe) >= 0;
}

/// Contract: `pipe` is a real pipe (is_real_pipe).
constexpr const PipeInfo& pipe_info(Pipe pipe) {
    return kPipeTable[static_cast<std::size_t>(pipe_index(pipe))];
}

constexpr bool has_pipe(CoreType type, Pipe pipe) {
    if (!is_real_pipe(pipe)) return false;
    const PipeInfo& info = pipe_info(pipe);
    return type == CoreType::Vector ? info.on_vector : info.on_cube;
}

/// The pipes of a core type in lane order (S first).
std::span<const Pipe> pipes_of(CoreType type);

}  // namespace npusim
