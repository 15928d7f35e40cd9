// The pipe table: lane order per core type, has_pipe, dense indices and names.
#include "base/pipe_table.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

using namespace npusim;

TEST_CASE("pipe table: pipes of each core type in lane order", "[unit]") {
    const auto vector = pipes_of(CoreType::Vector);
    CHECK(std::vector<Pipe>(vector.begin(), vector.end()) ==
          std::vector<Pipe>{Pipe::S, Pipe::MTE2, Pipe::V, Pipe::MTE3});
    const auto cube = pipes_of(CoreType::Cube);
    CHECK(std::vector<Pipe>(cube.begin(), cube.end()) ==
          std::vector<Pipe>{Pipe::S, Pipe::MTE2, Pipe::MTE1, Pipe::M, Pipe::MTE3, Pipe::FIX});
    for (CoreType type : {CoreType::Vector, CoreType::Cube}) {
        int lane = -1;
        for (Pipe pipe : pipes_of(type)) {
            CHECK(pipe_info(pipe).lane > lane);
            lane = pipe_info(pipe).lane;
        }
    }
}

TEST_CASE("pipe table: has_pipe agrees with pipes_of", "[unit]") {
    for (CoreType type : {CoreType::Vector, CoreType::Cube}) {
        const auto pipes = pipes_of(type);
        for (int slot = 0; slot < kPipeSlots; ++slot) {
            const auto pipe = static_cast<Pipe>(slot);
            const bool listed = std::find(pipes.begin(), pipes.end(), pipe) != pipes.end();
            CHECK(has_pipe(type, pipe) == listed);
        }
    }
    CHECK(has_pipe(CoreType::Vector, Pipe::V));
    CHECK_FALSE(has_pipe(CoreType::Vector, Pipe::M));
    CHECK(has_pipe(CoreType::Cube, Pipe::FIX));
    CHECK(has_pipe(CoreType::Cube, Pipe::MTE3));  // L1 -> GM
    CHECK_FALSE(has_pipe(CoreType::Cube, Pipe::V));
    CHECK_FALSE(has_pipe(CoreType::Vector, Pipe::ALL));
}

TEST_CASE("pipe table: dense indices, real pipes and names", "[unit]") {
    std::set<int> indices, lanes;
    for (std::size_t i = 0; i < kPipeTable.size(); ++i) {
        const PipeInfo& info = kPipeTable[i];
        CHECK(pipe_index(info.pipe) == static_cast<int>(i));
        CHECK(is_real_pipe(info.pipe));
        CHECK(&pipe_info(info.pipe) == &info);
        CHECK(info.name == "PIPE_" + std::string(info.short_name));
        CHECK(to_string(info.pipe) == info.name);
        CHECK((info.on_vector || info.on_cube));
        CHECK(info.lane < kAllPipesLane);
        indices.insert(pipe_index(info.pipe));
        lanes.insert(info.lane);
    }
    CHECK(indices.size() == kPipeCount);
    CHECK(lanes.size() == kPipeCount);
    CHECK(pipe_index(Pipe::ALL) == -1);
    CHECK_FALSE(is_real_pipe(Pipe::ALL));
    CHECK_FALSE(is_real_pipe(static_cast<Pipe>(8)));
    CHECK(pipe_index(static_cast<Pipe>(200)) == -1);
    CHECK(to_string(Pipe::ALL) == "PIPE_ALL");
    CHECK(pipe_info(Pipe::MTE2).short_name == "MTE2");
}
