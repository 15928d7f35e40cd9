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
#include <set>
#include <string>
#include <vector>

#include "base/launch_identity.h"
#include "base/transaction.h"
#include "sync/deadlock/deadlock_finding.h"

namespace npusim {

class DeadlockPredictor final : public TransactionObserver {
public:
    explicit DeadlockPredictor(CoreCapacity capacity) : m_capacity(capacity) {}

    void on_kernel_start(const KernelInfo& kernel, Cycle at) override;
    void on_transaction(const Transaction& tx) override;
    void on_host_op_queued(const HostOpInfo& op) override;
    void on_host_synchronized(std::uint64_t op) override;

    /// One PossibleDeadlock finding per set of launches that can deadlock together (a
    /// largest set of mutually unordered sync launches over the capacity), in launch order.
    std::vector<DeadlockFinding> warnings() const;

private:
    struct Launch : LaunchIdentity {
        bool has_stream = false;
        // Ordering: a host op (program epoch, host_op), or a plain launch (run start cycle).
        std::uint64_t epoch = 0;
        Cycle run_start = 0;
    };
    struct Op {
        std::uint32_t stream = 0;
        std::vector<std::uint64_t> after;  // ops it directly happens after
    };

    bool ordered(const Launch& a, const Launch& b) const;
    /// Op `before` happens before op `after` (same epoch): a path of direct orderings.
    bool happens_before(std::uint64_t epoch, std::uint64_t before, std::uint64_t after) const;

    CoreCapacity m_capacity;
    std::vector<Launch> m_launches;
    std::map<std::uint32_t, std::size_t> m_launch_of_kernel;  // kernel id -> launch
    std::map<std::string, std::string> m_sync_use;            // kernel name -> first sync site
    // Host ops per program epoch (a new run_host restarts op ids).
    std::uint64_t m_epoch = 0;
    std::uint64_t m_last_op = 0;
    std::map<std::pair<std::uint64_t, std::uint64_t>, Op> m_ops;
    std::map<std::pair<std::uint64_t, std::uint64_t>, std::size_t> m_launch_of_op;
    std::map<std::uint32_t, std::uint64_t> m_stream_tail;   // stream -> last op queued
    std::map<std::uint32_t, std::uint64_t> m_synchronized;  // stream -> last op the host saw end
    std::map<std::uint64_t, std::uint32_t> m_stream_of_op;  // this epoch's ops
};

}  // namespace npusim
