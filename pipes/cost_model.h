// Cycle-approximate cost of one instruction, from the chip config. Pure functions: no
// SystemC, unit-testable. Every instruction has two numbers:
//   occupancy: cycles its pipe is busy before it can start the next instruction
//   latency:   further cycles until its results are visible (overlaps the next instruction)
// Formulas (docs/cost-model.md):
//   copy    = latency + ceil(bytes / path_bytes_per_cycle)   (GM paths share chip bandwidth)
//   vector  = startup + ceil(bytes / repeat_bytes)           (one cycle per repeat)
//   cube    = startup + ceil(m/16) * ceil(n/16) * ceil(k/16)
//   scalar  = cycles_per_call per API call (+ ub/gm latency for scalar loads and stores)
#pragma once

#include <cstdint>
#include <optional>

#include "base/chip_config.h"
#include "base/types.h"

namespace npusim {

struct CopyPath {
    Pipe pipe = Pipe::MTE2;
    Cycle latency = 0;
    std::uint64_t bytes_per_cycle = 1;
    bool uses_gm = false;  // shares the chip's GM bandwidth
};

struct InstructionCost {
    Cycle occupancy = 0;
    Cycle latency = 0;
};

class CostModel final {
public:
    explicit CostModel(const ChipConfig& chip) : m_chip(chip) {}

    /// The pipe and timing that move data from `src` to `dst`; nullopt if no such path.
    std::optional<CopyPath> copy_path(MemSpace src, MemSpace dst) const;
    /// Copy that does not touch GM (its occupancy does not depend on other cores).
    InstructionCost local_copy(const CopyPath& path, std::uint64_t bytes) const;
    InstructionCost vector_op(std::uint64_t bytes) const;
    InstructionCost cube_op(std::uint64_t m, std::uint64_t n, std::uint64_t k) const;
    Cycle scalar_call() const { return m_chip.scalar_cycles_per_call; }
    Cycle scalar_access(MemSpace space) const {
        return space == MemSpace::GM ? m_chip.scalar_gm_latency : m_chip.scalar_ub_latency;
    }

private:
    const ChipConfig& m_chip;
};

}  // namespace npusim
