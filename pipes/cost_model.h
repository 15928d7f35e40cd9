// Cycle-approximate cost of one instruction, from the chip config. Pure functions: no
// SystemC, unit-testable. Every instruction has two numbers:
//   occupancy: cycles its pipe is busy before it can start the next instruction
//   latency:   further cycles until its results are visible (overlaps the next instruction)
// Formulas (docs/cost-model.md):
//   copy    = issue (or burst) + ceil(bytes / path_bytes_per_cycle), + latency
//             (GM paths share chip bandwidth; a burst straddling one more GM access granule
//             than its length needs moves that granule too)
//   vector  = issue + repeats * (1 + bank-conflict cycles), + startup latency
//   cube    = startup + ceil(m/16) * ceil(n/16) * ceil(k/16)
//   scalar  = cycles_per_call per API call (+ ub/gm latency for scalar loads and stores)
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "base/chip_config.h"
#include "base/types.h"

namespace npusim {

struct CopyPath {
    Pipe pipe = Pipe::MTE2;
    Cycle latency = 0;
    std::uint64_t bytes_per_cycle = 1;
    bool uses_gm = false;    // shares the chip's GM bandwidth
    Cycle issue_cycles = 0;  // first burst of a DMA instruction
    Cycle burst_cycles = 0;  // each further burst (Transaction::dma_continues)
};

/// The UB's banks (the vendor's A2 bank-conflict documentation): 16 bank groups of 3 banks;
/// a bank is 128 rows of 32 bytes. Address bits [8:5] are the bank group, [17:16] the bank
/// within its group. A vector repeat reads or writes 8 consecutive 32-byte blocks: 8
/// consecutive bank groups.
struct UbBanks {
    static constexpr std::uint64_t kGroups = 16;
    static constexpr std::uint64_t kRowBytes = 32;
    static constexpr std::uint64_t kBankShift = 16;
    static constexpr std::uint64_t kBlocksPerRepeat = 8;
    static std::uint64_t group(std::uint64_t address) { return (address / kRowBytes) % kGroups; }
    static std::uint64_t bank(std::uint64_t address) { return address >> kBankShift; }
    /// Whether two repeats' 8-group windows starting at these addresses share a bank group.
    static bool groups_overlap(std::uint64_t a, std::uint64_t b) {
        const std::uint64_t d = (group(b) + kGroups - group(a)) % kGroups;
        return d < kBlocksPerRepeat || d > kGroups - kBlocksPerRepeat;
    }
};

/// Bank conflicts of one vector instruction, from its UB operands' start addresses.
struct BankConflicts {
    bool read_read = false;   // two sources read the same bank groups
    bool read_write = false;  // the destination writes a source's banks, shifted
};
BankConflicts ub_bank_conflicts(const std::uint64_t* reads, std::size_t read_count,
                                std::uint64_t write);

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
    InstructionCost vector_op(std::uint64_t bytes, BankConflicts conflicts = {}) const;
    /// GM bytes a burst of `bytes` at GM `address` moves: its bytes plus one access granule
    /// for each granule it straddles beyond ceil(bytes / granule).
    std::uint64_t gm_bytes_moved(std::uint64_t address, std::uint64_t bytes) const;
    /// Mmad: one cycle per 16 x 16 output fractal and k0 of depth (k0 from the cube type
    /// table, pipes/op_table.h: 16 for fp16/bf16, 32 for int8, 8 for fp32).
    InstructionCost cube_op(std::uint64_t m, std::uint64_t n, std::uint64_t k,
                            std::uint64_t k0 = 16) const;
    Cycle scalar_call() const { return m_chip.scalar_cycles_per_call; }
    Cycle scalar_access(MemSpace space) const {
        return space == MemSpace::GM ? m_chip.scalar_gm_latency : m_chip.scalar_ub_latency;
    }

private:
    const ChipConfig& m_chip;
};

}  // namespace npusim
