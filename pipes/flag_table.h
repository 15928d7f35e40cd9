// Intra-core event flags: SetFlag<SRC_DST>(id) / WaitFlag<SRC_DST>(id).
//
// Each (src pipe, dst pipe, id) keeps the SetFlags not yet consumed, oldest first. A WaitFlag
// consumes the oldest one. Counting (rather than a single bit) keeps a duplicate SetFlag from
// silently hiding the next one; the synccheck reports duplicates as errors.
// Flags live on the core, not the block: a SetFlag left unpaired at the end of a block is
// still there for the next block on that core, as on hardware.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "base/types.h"

namespace npusim {

struct FlagSet {
    Cycle time = 0;            // when the SetFlag fired
    std::uint64_t serial = 0;  // serial of the SetFlag instruction
    std::uint32_t block = 0;   // block that set it
};

class FlagTable final {
public:
    explicit FlagTable(std::uint32_t event_ids);

    static bool is_flag_pipe(Pipe pipe);  // pipes that can take part in SetFlag/WaitFlag

    void set(Pipe src, Pipe dst, std::uint32_t id, const FlagSet& set);
    /// Removes and returns the oldest unconsumed SetFlag, if any.
    std::optional<FlagSet> consume(Pipe src, Pipe dst, std::uint32_t id);
    std::size_t outstanding(Pipe src, Pipe dst, std::uint32_t id) const;
    void clear();

private:
    struct Fifo {
        std::vector<FlagSet> items;
        std::size_t head = 0;
    };
    std::size_t key(Pipe src, Pipe dst, std::uint32_t id) const;

    std::uint32_t m_event_ids;
    std::vector<Fifo> m_fifos;
};

}  // namespace npusim
