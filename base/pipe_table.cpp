#include "base/pipe_table.h"

#include <algorithm>
#include <vector>

namespace npusim {

namespace {
std::vector<Pipe> pipes_in_lane_order(CoreType type) {
    std::vector<const PipeInfo*> rows;
    for (const PipeInfo& info : kPipeTable) {
        if (type == CoreType::Vector ? info.on_vector : info.on_cube) rows.push_back(&info);
    }
    std::sort(rows.begin(), rows.end(),
              [](const PipeInfo* a, const PipeInfo* b) { return a->lane < b->lane; });
    std::vector<Pipe> pipes;
    for (const PipeInfo* info : rows) pipes.push_back(info->pipe);
    return pipes;
}
}  // namespace

std::span<const Pipe> pipes_of(CoreType type) {
    static const std::vector<Pipe> vector_pipes = pipes_in_lane_order(CoreType::Vector);
    static const std::vector<Pipe> cube_pipes = pipes_in_lane_order(CoreType::Cube);
    return type == CoreType::Vector ? vector_pipes : cube_pipes;
}

}  // namespace npusim
