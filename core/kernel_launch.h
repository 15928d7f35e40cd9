// A kernel launch as the cores see it, and the interface through which a core asks for
// work. The scheduler in sim/ implements WorkSource; cores know nothing of streams.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "core/types.h"

namespace npusim {

class Block;

using KernelBody = std::function<void(Block&)>;

struct KernelLaunch {
    std::uint32_t id = 0;
    std::string name;
    std::uint32_t blocks = 0;
    CoreType core_type = CoreType::Vector;
    KernelBody body;
};

struct BlockAssignment {
    const KernelLaunch* kernel = nullptr;
    std::uint32_t block_idx = 0;
};

/// Contract: called only from core threads during simulation, in SystemC process order.
class WorkSource {
public:
    virtual ~WorkSource() = default;
    /// Hands the core its next block, or returns false when there is nothing for it now.
    virtual bool next_block(CoreType type, std::uint32_t core, BlockAssignment& out) = 0;
    /// The block ran to its end (all pipes drained) at `end`.
    virtual void block_finished(const BlockAssignment& work, Cycle end) = 0;
};

}  // namespace npusim
