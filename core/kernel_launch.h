// A kernel launch as the cores see it: what to run, and the shared state its blocks
// synchronize through (barriers, cross-core flags). The scheduler in sim/engine/ owns these and
// places blocks on cores; cores know nothing of streams.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "base/kernel_type.h"
#include "base/launch_identity.h"
#include "base/types.h"
#include "core/sync_port.h"

namespace npusim {

class AiCore;

struct KernelLaunch : LaunchIdentity {
    KernelBody body;
    std::vector<Cycle> start_offsets;  // extra start delay per block (group) index
};

/// Shared state of one running kernel: its blocks' synchronization (sync/kernel_sync.h,
/// created by the scheduler) and the event its blocked blocks wait on.
struct KernelRuntime {
    KernelRuntime(const KernelLaunch& launch, std::unique_ptr<CrossBlockSync> kernel_sync)
        : kernel(launch), sync(std::move(kernel_sync)) {}

    const KernelLaunch& kernel;
    std::unique_ptr<CrossBlockSync> sync;
    // Notified (delta) whenever a barrier releases or a cross-core flag is posted; blocked
    // blocks wake and re-check their condition.
    sc_core::sc_event sync_event;
};

struct BlockAssignment {
    const KernelLaunch* kernel = nullptr;
    KernelRuntime* runtime = nullptr;
    std::uint32_t block_idx = 0;
    std::uint32_t sub_block_idx = 0;
    std::uint32_t group = 0;
    Cycle not_before = 0;  // the block begins no earlier (the kernel's device-side launch cost)
};

/// Contract: called only from core threads during simulation, in SystemC process order.
class WorkSource {
public:
    virtual ~WorkSource() = default;
    /// The block ran to its end (all pipes drained) at `end`; the core is free again.
    virtual void block_finished(AiCore& core, const BlockAssignment& work, Cycle end) = 0;
};

}  // namespace npusim
