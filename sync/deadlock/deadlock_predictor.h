// Deadlock prediction: warns "possible deadlock" when a run's launch pattern can deadlock
// under some timing, whether or not this run's timing did. The rule (docs/deadlocks.md,
// "Prediction"):
//
//   two or more kernel launches that use inter-core sync (hard or soft SyncAll, cross-core
//   flags), that can run at the same time (no stream order, event, or host synchronization
//   orders them), that are not in batch schedule mode, and whose blocks together need more
//   cores of one type than the chip has.
//
// Then each can get some of its cores while its other blocks wait for cores held by the
// other's barrier. Launches ordered by a stream, an event or a host synchronization never
// trigger it, and neither do batch launches (they start whole or not at all).
//
// It is an observer: it learns the launches and their order from the runtime's host-op hooks
// (base/host_ops.h) and which kernels use inter-core sync from their transactions (by kernel
// name: a kernel seen using it in one launch is taken to use it in every launch). Kernels
// queued with Simulator::launch are one run's concurrent launches.
//
//   DeadlockPredictor predictor({48, 24});
//   sim.attach(predictor);
//   sim.run_host(program);
//   for (const DeadlockFinding& w : predictor.warnings()) ...
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/launch_identity.h"
#include "base/transaction.h"
#include "sync/deadlock/deadlock_finding.h"

namespace npusim {

/// The exact verdict for a group of concurrent launches that use inter-core sync, not in
/// batch mode (docs/deadlocks.md, "The exact verdict"). A deadlock needs every core of a type
/// held by blocks whose kernel still waits for one of its own blocks, so a kernel of b blocks
/// holds at most b - 1 there: it is reachable exactly when the sum of (blocks - 1) over the
/// group reaches the cores. Computed for groups of one core type (AIV_ONLY or AIC_ONLY
/// launches); mixed groups get no verdict (`reachable` unset).
struct DeadlockVerdict {
    std::optional<bool> reachable;
    std::string text;  // "deadlock reachable: ..." / "cannot deadlock: ..." with the arithmetic
};
DeadlockVerdict exact_deadlock_verdict(const std::vector<LaunchIdentity>& group,
                                       CoreCapacity capacity);

class DeadlockPredictor final : public TransactionObserver {
public:
    explicit DeadlockPredictor(CoreCapacity capacity) : m_capacity(capacity) {}

    void on_kernel_start(const KernelInfo& kernel, Cycle at) override;
    void on_transaction(const Transaction& tx) override;
    void on_kernel_end(const KernelInfo& kernel, Cycle at) override;
    void on_host_op_queued(const HostOpInfo& op) override;
    void on_host_synchronized(std::uint64_t op) override;

    /// One PossibleDeadlock finding per set of launches that can deadlock together (a
    /// largest set of mutually unordered sync launches over the capacity), in launch order.
    std::vector<DeadlockFinding> warnings() const;

private:
    // What a host op is ordered after, as a vector clock over the program's streams (by the
    // order each stream was first used): entry s is how many ops of stream s it comes after
    // or is (its own stream's entry: its position there). Op a precedes op b exactly when
    // b's clock covers a's position on a's stream: the clocks carry every path of stream
    // order, event waits and host synchronization, at a cost per op bounded by the streams.
    using StreamClock = std::vector<std::uint32_t>;

    struct Launch : LaunchIdentity {
        bool has_stream = false;
        // Ordering: a host op (program epoch, stream slot, position, clock), or a plain
        // launch (run start cycle).
        std::uint64_t epoch = 0;
        std::uint32_t slot = 0;
        std::uint32_t position = 0;
        StreamClock clock;
        Cycle run_start = 0;
    };
    struct StreamTail {
        std::uint32_t slot = 0;
        std::uint64_t last_op = 0;  // 0: none yet
        StreamClock clock;          // the last op's
    };

    /// For each candidate (an index into `candidates`, launches by index): the candidates
    /// it can run at the same time as, sorted. Costs what the concurrency costs, not the
    /// square of the launches.
    std::vector<std::vector<std::size_t>> concurrency(
        const std::vector<std::size_t>& candidates) const;
    static bool precedes(const Launch& a, const Launch& b);
    static void join(StreamClock& into, const StreamClock& other);
    StreamTail& tail_of(std::uint32_t stream);
    /// The clock of op `op` of this program if still known: a stream's last op or an event's
    /// latest record (the ops host synchronization and event waits name). Null otherwise.
    const StreamClock* clock_of(std::uint64_t op) const;

    CoreCapacity m_capacity;
    std::vector<Launch> m_launches;  // compact records of every launch, in launch order
    std::map<std::uint32_t, std::size_t> m_launch_of_kernel;  // running kernel id -> launch
    std::map<std::string, std::string> m_sync_use;            // kernel name -> first sync site
    // The current host program (a new run_host restarts op ids: a new epoch).
    std::uint64_t m_epoch = 0;
    std::uint64_t m_last_op = 0;
    std::map<std::uint32_t, StreamTail> m_tails;             // by stream id
    std::map<std::uint64_t, std::size_t> m_launch_of_op;     // queued kernel ops not started
    std::map<std::uint32_t, std::uint64_t> m_latest_record;  // event -> its latest record op
    std::map<std::uint64_t, StreamClock> m_records;          // record op -> its clock
    StreamClock m_host;  // what the host has seen complete (host synchronization)
};

}  // namespace npusim
