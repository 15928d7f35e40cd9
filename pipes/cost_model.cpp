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
    return CopyPath{route->pipe,      params.latency,      params.bytes_per_cycle,
                    route->uses_gm(), params.issue_cycles, params.burst_cycles};
}

InstructionCost CostModel::local_copy(const CopyPath& path, std::uint64_t bytes) const {
    return {ceil_div(bytes, path.bytes_per_cycle), path.latency};
}

InstructionCost CostModel::vector_op(std::uint64_t bytes, BankConflicts conflicts) const {
    const std::uint64_t repeats = ceil_div(bytes, m_chip.vector_repeat_bytes);
    std::uint64_t per_repeat = 1;
    if (conflicts.read_read) per_repeat += m_chip.ub_read_read_conflict_cycles;
    if (conflicts.read_write) per_repeat += m_chip.ub_read_write_conflict_cycles;
    return {m_chip.vector_issue_cycles + repeats * per_repeat, m_chip.vector_startup_cycles};
}

std::uint64_t CostModel::gm_bytes_moved(std::uint64_t address, std::uint64_t bytes) const {
    const std::uint64_t granule = m_chip.gm_access_bytes;
    if (granule <= 1 || bytes == 0) return bytes;
    const std::uint64_t touched = (address + bytes - 1) / granule - address / granule + 1;
    const std::uint64_t needed = ceil_div(bytes, granule);
    return bytes + (touched - needed) * granule;
}

BankConflicts ub_bank_conflicts(const std::uint64_t* reads, std::size_t read_count,
                                std::uint64_t write) {
    BankConflicts c;
    for (std::size_t i = 0; i < read_count; ++i) {
        for (std::size_t j = i + 1; j < read_count; ++j) {
            if (reads[i] != reads[j] && UbBanks::groups_overlap(reads[i], reads[j]))
                c.read_read = true;
        }
        // A write exactly onto the source's banks (the same bank group start) pipelines
        // behind the read; shifted by some groups, the two take turns.
        if (UbBanks::bank(reads[i]) == UbBanks::bank(write) &&
            UbBanks::group(reads[i]) != UbBanks::group(write) &&
            UbBanks::groups_overlap(reads[i], write))
            c.read_write = true;
    }
    return c;
}

InstructionCost CostModel::cube_op(std::uint64_t m, std::uint64_t n, std::uint64_t k,
                                   std::uint64_t k0) const {
    return {ceil_div(m, 16) * ceil_div(n, 16) * ceil_div(k, k0), m_chip.cube_startup_cycles};
}

}  // namespace npusim
