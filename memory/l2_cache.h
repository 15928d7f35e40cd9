// The L2 cache between the cores and HBM (docs/cost-model.md, "L2 cache"): set-associative,
// LRU within each set, write-back and write-allocate, over lines of `line_bytes`. Pure (no
// SystemC, no timing): it answers which bytes of a GM transfer hit, which go to HBM, and
// which dirty lines an allocation evicts (written back to HBM). Lines are numbered in 31
// bits (GM up to 256 GiB with 128-byte lines); the array of 4 bytes per line is allocated
// on the first access, so a chip that never copies costs nothing.
//
//   read,  hit:   L2 only
//   read,  miss:  HBM -> L2 (allocates a line; a dirty victim is written back to HBM)
//   read,  miss with the bypass hint (GlobalTensor::SetL2CacheHint(CACHE_MODE_DISABLE)):
//                 HBM, nothing allocated
//   write:        into L2 (allocates without fetching; the line becomes dirty); a dirty
//                 victim is written back. Dirty lines still in L2 when the run ends are not
//                 written back within the run.
#pragma once

#include <cstdint>
#include <memory>

namespace npusim {

struct L2Access {
    std::uint64_t hit_bytes = 0;        // read bytes served by L2
    std::uint64_t miss_bytes = 0;       // read from HBM
    std::uint64_t writeback_bytes = 0;  // dirty victims written to HBM
};

class L2Cache final {
public:
    /// capacity 0: no L2 (every access misses, nothing allocated).
    L2Cache(std::uint64_t capacity_bytes, std::uint64_t line_bytes, std::uint64_t ways);

    bool enabled() const { return m_sets != 0; }
    L2Access access(std::uint64_t address, std::uint64_t bytes, bool write, bool bypass);

    std::uint64_t sets() const { return m_sets; }

private:
    // A way is one word: the line number + 1 (0: empty) with the dirty flag in the top bit.
    // Each set keeps its ways in recency order, most recent first: the victim is the last.
    static constexpr std::uint32_t kDirty = 0x8000'0000U;
    struct FreeDeleter {
        void operator()(std::uint32_t* p) const;
    };
    std::uint64_t set_of(std::uint64_t line) const;

    std::uint64_t m_line_bytes;
    std::uint64_t m_ways;
    std::uint64_t m_sets = 0;
    // m_sets * m_ways words, allocated zeroed on the first access (calloc: the pages a run
    // never touches cost no memory).
    std::unique_ptr<std::uint32_t[], FreeDeleter> m_lines;
};

}  // namespace npusim
