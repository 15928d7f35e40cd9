#include "pipes/cost_model.h"

namespace npusim {

namespace {
std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
    return (a + b - 1) / b;
}
}  // namespace

std::optional<CopyPath> CostModel::copy_path(MemSpace src, MemSpace dst) const {
    const ChipConfig& c = m_chip;
    if (src == MemSpace::GM && (dst == MemSpace::UB || dst == MemSpace::L1)) {
        return CopyPath{Pipe::MTE2, c.mte2_latency, c.mte2_bytes_per_cycle, true};
    }
    if (src == MemSpace::UB && dst == MemSpace::GM) {
        return CopyPath{Pipe::MTE3, c.mte3_latency, c.mte3_bytes_per_cycle, true};
    }
    if (src == MemSpace::UB && dst == MemSpace::UB) {
        return CopyPath{Pipe::V, c.v_copy_latency, c.v_copy_bytes_per_cycle, false};
    }
    if (src == MemSpace::L1 && (dst == MemSpace::L0A || dst == MemSpace::L0B)) {
        return CopyPath{Pipe::MTE1, c.mte1_latency, c.mte1_bytes_per_cycle, false};
    }
    if (src == MemSpace::L0C && dst == MemSpace::GM) {
        return CopyPath{Pipe::FIX, c.fix_latency, c.fix_bytes_per_cycle, true};
    }
    return std::nullopt;
}

InstructionCost CostModel::local_copy(const CopyPath& path, std::uint64_t bytes) const {
    return {ceil_div(bytes, path.bytes_per_cycle), path.latency};
}

InstructionCost CostModel::vector_op(std::uint64_t bytes) const {
    return {ceil_div(bytes, m_chip.vector_repeat_bytes), m_chip.vector_startup_cycles};
}

InstructionCost CostModel::cube_op(std::uint64_t m, std::uint64_t n, std::uint64_t k) const {
    return {ceil_div(m, 16) * ceil_div(n, 16) * ceil_div(k, 16), m_chip.cube_startup_cycles};
}

}  // namespace npusim
