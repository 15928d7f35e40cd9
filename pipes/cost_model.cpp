#include "pipes/cost_model.h"

namespace npusim {

namespace {
std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) {
    return (a + b - 1) / b;
}
}  // namespace

std::optional<CopyPath> CostModel::copy_path(MemSpace src, MemSpace dst) const {
    const std::optional<CopyRoute> route = find_copy_route(src, dst);
    if (!route) return std::nullopt;
    const CopyPathParams& params = m_chip.copy_path(*route);
    return CopyPath{route->pipe, params.latency, params.bytes_per_cycle, route->uses_gm()};
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
