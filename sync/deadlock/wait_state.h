// What the wait-for analysis reads when a run can make no progress: plain snapshots of who
// holds which core and who waits for one (the device scheduler), what each stuck block waits
// for (the cores), and the streams' heads and the host thread's wait (the host runtime). The
// producers (sim/engine, sim/host) fill them; the analysis (deadlock_analysis.h) takes data,
// never its producers, so it sits below them and is tested without SystemC.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/host_ops.h"
#include "base/kernel_type.h"
#include "base/launch_identity.h"
#include "base/transaction.h"
#include "base/types.h"

namespace npusim {

// ---- the device scheduler's state (sim/engine/scheduler.h: Scheduler::state) -------------

/// A core held by a block.
struct HeldCore {
    CoreType type = CoreType::Vector;
    std::uint32_t core = 0;   // physical index within its type
    std::uint32_t block = 0;  // block_idx() on that core (2g + sub on the AIVs of a 1:2 kernel)
    std::uint32_t group = 0;  // the block (group) the launch counts
    Cycle since = 0;          // when it was placed
};

enum class WaitReason : std::uint8_t {
    NoFreeCore,    // Normal kernel: every core (cluster) of the shape it needs is held
    BatchWaiting,  // Batch kernel: needs `needed` free cores (clusters) at once, `free` are
    BehindBatch,   // a Batch kernel that became ready earlier waits for the same core type
};
std::string_view to_string(WaitReason reason);

/// A kernel's blocks (groups) that have no core yet: [first_block, first_block + count).
struct WaitingBlocks {
    std::uint32_t first_block = 0;
    std::uint32_t count = 0;
    WaitReason reason = WaitReason::NoFreeCore;
    /// The shape of one block: a vector core, a cube core, or a cluster (mixed kernels).
    CoreType core_type = CoreType::Vector;
    bool cluster = false;
    std::uint32_t needed = 0;  // cores (clusters) it needs before the next placement
    std::uint32_t free = 0;    // cores (clusters) of that shape free now
    std::optional<std::uint32_t> behind_kernel;  // BehindBatch: the waiting Batch kernel's id
    std::string describe;                        // one line for a report
};

/// A launched kernel that has not finished.
struct KernelState : LaunchIdentity {
    std::uint32_t blocks_finished = 0;  // groups whose every core finished
    std::vector<HeldCore> held;         // vector cores first, then cube cores, by index
    std::optional<WaitingBlocks> waiting;
};

/// Who holds one core.
struct CoreHolder {
    std::uint32_t kernel_id = 0;
    std::uint32_t block = 0;
    std::uint32_t group = 0;
};
struct CoreState {
    CoreType type = CoreType::Vector;
    std::uint32_t index = 0;
    std::optional<CoreHolder> holder;  // empty: free
};

struct SchedulerState {
    PlacementPolicy placement = PlacementPolicy::LaunchOrder;
    std::vector<KernelState> kernels;  // unfinished kernels in the order they became ready
    std::vector<CoreState> cores;      // every vector core by index, then every cube core
};

// ---- the cores' state (one per stuck block) --------------------------------------------

/// A block that could not make progress when the chip stopped.
struct StuckBlock {
    std::string kernel;
    std::uint32_t block = 0;
    CoreType core_type = CoreType::Vector;
    std::int64_t core = -1;  // -1: never got a core (waiting for one to free up)
    std::string where;       // kernel source location of the blocking call
    std::string reason;
    StuckWait wait;  // what it waits for, structured (Unknown for blocks without a core)
};

// ---- the host runtime's state (sim/host/runtime.h: Runtime::wait_state) ------------------

/// What the host thread waits for.
struct HostWait {
    enum class Kind : std::uint8_t { None, Stream, Event, Device, Copy };
    Kind kind = Kind::None;
    std::uint32_t stream = 0;  // Stream, Copy: the stream; Event: the stream it was recorded on
    std::uint64_t op = 0;      // the op whose completion ends the wait (0: Device, or none)
    std::uint32_t event = 0;   // Event
    std::string call;          // "synchronize_stream", ...
    std::string where;         // its call site
    /// The host does not block but only polls (query_stream: kind Stream; query_event: kind
    /// Event) while no device work can progress; `call` and `where` name the last query.
    bool polling = false;
    std::string event_name;  // Event: the name the program gave it ("": none)
};

/// One stream's position: what its head operation is and, for an event wait, on what.
struct StreamWaitState {
    std::uint32_t stream = 0;
    std::string name;  // the name the program gave it ("": none)
    bool destroyed = false;
    /// An internal stream of a graph launch (a lane of a cross-stream capture): the program
    /// has no handle to it; it counts as destroyed.
    bool graph_internal = false;
    std::size_t queued = 0;  // operations not completed, the head included
    // The head operation (queued > 0)
    std::uint64_t head_op = 0;
    HostOpKind head_kind = HostOpKind::Kernel;
    std::string head_call;
    std::string head_where;
    std::uint32_t kernel_id = 0;     // Kernel head already given to the scheduler (0: not yet)
    std::uint64_t waits_for_op = 0;  // EventWait head: the EventRecord op it waits for
    std::uint32_t waits_for_stream = 0;
    std::uint32_t event = 0;
    std::string event_name;  // the name the program gave it ("": none)
};

/// Who waits for what in the runtime, for the deadlock checker.
struct RuntimeWaitState {
    std::vector<StreamWaitState> streams;  // by stream id, destroyed streams still draining too
    HostWait host;
    bool host_returned = false;
};

}  // namespace npusim
