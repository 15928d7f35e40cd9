// The fidelity benchmark's kernels (docs/fidelity.md): one Ascend C kernel per published
// measurement of tools/fidelity/a2-published.csv, written from the structure the vendor's
// best-practice READMEs describe (shape, core split, tile, buffering), run on the simulator
// in data-free timing mode (SimOptions::model_data = false).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace npusim::fidelity {

/// What one case predicts: the kernel's end-to-end cycles and the busiest core's busy cycles
/// of the pipes the vendor publishes (MTE2, V, M).
struct Prediction {
    std::uint64_t cycles = 0;
    std::uint64_t mte2_cycles = 0;
    std::uint64_t vec_cycles = 0;
    std::uint64_t cube_cycles = 0;
    std::uint64_t cube_avg_cycles = 0;  // M pipe busy, averaged over the cube cores
    std::uint64_t instructions = 0;
    std::uint64_t gm_read_bytes = 0;
    std::uint64_t l2_hit_bytes = 0;
    bool compare_cube_busy = false;  // the measurement is the cube busy time, not end to end
    std::string note;                // what the kernel does not follow (said in the output)
};

/// Runs the kernel of case `id` ("C1" ... "B17") on the a2 preset; nullopt when the case is
/// not supported yet, with the reason in `why`.
std::optional<Prediction> run_case(const std::string& id, std::string& why);

}  // namespace npusim::fidelity
