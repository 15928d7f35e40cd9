// A kernel launch as the cores see it: what to run, and the shared state its blocks
// synchronize through (barriers, cross-core flags). The scheduler in sim/ owns these and
// places blocks on cores; cores know nothing of streams.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <systemc>

#include "base/kernel_type.h"
#include "base/types.h"
#include "sync/cross_core_flags.h"
#include "sync/hard_barrier.h"

namespace npusim {

class AiCore;

struct KernelLaunch {
    std::uint32_t id = 0;
    std::string name;
    std::uint32_t blocks = 0;  // N: groups for mixed kernels
    KernelType type = KernelType::AIV_ONLY;
    KernelBody body;
    std::vector<Cycle> start_offsets;  // extra start delay per block (group) index
};

/// Shared state of one running kernel.
struct KernelRuntime {
    explicit KernelRuntime(const KernelLaunch& launch)
        : kernel(launch),
          vector_blocks(blocks_on(launch.type, CoreType::Vector, launch.blocks)),
          cube_blocks(blocks_on(launch.type, CoreType::Cube, launch.blocks)),
          barrier_all(vector_blocks + cube_blocks),
          barrier_vector(vector_blocks > 0 ? vector_blocks : 1) {}

    const KernelLaunch& kernel;
    std::uint32_t vector_blocks;
    std::uint32_t cube_blocks;
    HardBarrier barrier_all;     // participants: AIV blocks, then AIC blocks
    HardBarrier barrier_vector;  // participants: AIV blocks
    CrossCoreFlags flags;
    // Notified (delta) whenever a barrier releases or a cross-core flag is posted; blocked
    // blocks wake and re-check their condition.
    sc_core::sc_event sync_event;
    std::set<std::uint64_t> soft_sync_checked;  // GM workspaces checked for zero at first use

    std::uint32_t participant(CoreType type, std::uint32_t block) const {
        return type == CoreType::Vector ? block : vector_blocks + block;
    }
};

struct BlockAssignment {
    const KernelLaunch* kernel = nullptr;
    KernelRuntime* runtime = nullptr;
    std::uint32_t block_idx = 0;
    std::uint32_t sub_block_idx = 0;
    std::uint32_t group = 0;
};

/// Contract: called only from core threads during simulation, in SystemC process order.
class WorkSource {
public:
    virtual ~WorkSource() = default;
    /// The block ran to its end (all pipes drained) at `end`; the core is free again.
    virtual void block_finished(AiCore& core, const BlockAssignment& work, Cycle end) = 0;
};

}  // namespace npusim
