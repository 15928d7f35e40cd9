// The advanced-API tests' harness: a kernel of two GM buffers (input, output) on the small
// chip with the checker attached, and a deterministic input pattern.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include <catch2/catch.hpp>

#include "kernel_operator.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"

namespace adv_test {

/// n values of a fixed pattern in [-50, 50] x scale.
inline std::vector<float> input(std::uint32_t n, float scale) {
    std::vector<float> x(n);
    for (std::uint32_t i = 0; i < n; ++i) x[i] = (float((i * 37) % 101) - 50.0F) * scale;
    return x;
}

/// Runs kernel(in, out) on one block and returns out (out_count elements). The checker's
/// findings go to `findings` when given, else the run must have none.
template <class In, class Out = In, class Kernel>
std::vector<Out> run(Kernel kernel, const std::vector<In>& in, std::uint32_t out_count,
                     std::vector<npusim::Finding>* findings = nullptr) {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto x = sim.allocate<In>(in.size(), "in");
    auto out = sim.allocate<Out>(out_count, "out");
    sim.write(x, in);
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "adv"}, npusim::ascendc::bind_kernel(kernel, gm_addr(x), gm_addr(out)));
    REQUIRE(sim.run().completed());
    if (findings != nullptr) {
        *findings = checker.findings();
    } else {
        CHECK_THAT(checker.findings(), npusim::NoFindings());
    }
    return sim.read(out);
}

/// The races of a kernel whose UB load (on MTE2, at load_line) lost its flag to the vector
/// instructions reading it: one inter-pipe RAW per reader, at first_reader_line + each offset.
inline std::vector<npusim::Expected> load_races(unsigned load_line, unsigned first_reader_line,
                                                std::initializer_list<unsigned> offsets) {
    std::vector<npusim::Expected> want;
    for (const unsigned offset : offsets) {
        want.push_back({.kind = npusim::FindingKind::RaceRAW,
                        .space = npusim::MemSpace::UB,
                        .scope = npusim::RaceScope::InterPipe,
                        .first_pipe = npusim::Pipe::MTE2,
                        .second_pipe = npusim::Pipe::V,
                        .first_line = load_line,
                        .second_line = first_reader_line + offset});
    }
    return want;
}

}  // namespace adv_test
