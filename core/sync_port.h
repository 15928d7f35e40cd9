// The seam between an AI core and the synchronization across blocks (sync/): hard and soft
// SyncAll and cross-core flags live in sync/kernel_sync.h, above the core, and reach the core
// only through CorePort; the core reaches them only through CrossBlockSync. Neither side
// includes the other's implementation, so the layers stay one-way (docs/architecture.md).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "base/kernel_type.h"
#include "base/transaction.h"
#include "core/request.h"

namespace npusim {

struct BlockAssignment;
struct ChipResources;
class InstructionDecoder;

/// What a core offers the synchronization library while one of its blocks runs. Contract:
/// called only on that core's scalar thread, during the synchronization call the core made.
class CorePort {
public:
    virtual const BlockAssignment& assignment() const = 0;
    virtual CoreType core_type() const = 0;
    /// block_num() of the running block (blocks of its kernel on this core type).
    virtual std::uint32_t block_num() const = 0;
    virtual const InstructionDecoder& decoder() const = 0;
    virtual ChipResources& chip() = 0;

    /// A new instruction record (identity, next serial, source location) on the scalar unit.
    virtual Transaction begin_record(Pipe pipe, Op op, const Loc& loc) = 0;
    /// Charges the scalar unit for one API call and stamps tx.issue.
    virtual void scalar_issue(Transaction& tx) = 0;
    virtual void publish(const Transaction& tx) = 0;
    /// Publishes the arrival half of a SyncAll (arrival = true, start = end = tx.start).
    virtual void publish_arrival(const Transaction& tx) = 0;
    /// Issues a kernel API call on the block's behalf; with internal set, its records are
    /// marked as the synchronization primitive's own traffic.
    virtual void issue(const Request& request, const Loc& loc) = 0;
    virtual void scalar_load(const Operand& where, void* value, const Loc& loc) = 0;
    virtual void set_internal(bool internal) = 0;

    /// Waits until every pipe of the core has drained (the block is reported stuck if a pipe
    /// waits for a SetFlag that is never issued).
    virtual void drain_pipes(const Loc& loc, const char* what) = 0;
    virtual Cycle local_time() const = 0;
    /// Moves the scalar unit's time forward to `t` (no-op if already later).
    virtual void advance_to(Cycle t) = 0;
    /// Synchronizes with SystemC time at the scalar unit's time: every effect before it is
    /// applied, every other core has issued everything before it.
    virtual void sync_to_local() = 0;
    virtual void maybe_sync() = 0;
    /// Blocks until ready() holds, re-checking whenever notify_kernel() is called; if the chip
    /// gets stuck meanwhile the block is reported with `reason()` and `wait()` (what it waits
    /// for, for the deadlock checker; computed when the report is made).
    virtual void block_until(const std::function<bool()>& ready, const Loc& loc,
                             std::function<std::string()> reason,
                             std::function<StuckWait()> wait) = 0;
    /// The block can never continue: reports it and waits for the run to end (does not return).
    [[noreturn]] virtual void block_stuck(const Loc& loc, std::string reason, StuckWait wait) = 0;
    /// Wakes the blocks of this kernel that wait in block_until.
    virtual void notify_kernel() = 0;

protected:
    ~CorePort() = default;
};

/// A flag in GM between the blocks of one kernel (IBSet / IBWait, NotifyNextBlock /
/// WaitPreBlock): `set` writes `value` into the first int32 of the 32-byte GM `slot` (through
/// `ub`, 32 bytes of UB) once everything the block issued before is complete; a wait polls the
/// slot (a copy into `ub` and a scalar load) until it holds `value` or more.
struct GmFlagCall {
    bool set = false;
    Operand slot;            // GM, 8 int32
    Operand ub;              // UB, 8 int32
    std::int32_t value = 1;  // 1 .. 65535 (a set may write 0)
    std::string name;        // for messages: "IBWait(block 0, event 0)"
};

/// Synchronization across the blocks of one kernel launch, as the core calls it. Implemented
/// by sync/kernel_sync.h; one instance per launch, shared by all its blocks.
class CrossBlockSync {
public:
    virtual ~CrossBlockSync() = default;
    virtual void hard_sync_all(CorePort& core, SyncAllScope scope, const Loc& loc) = 0;
    virtual void soft_sync_all(CorePort& core, const Operand& gm_workspace,
                               const Operand& ub_workspace, std::uint32_t used_cores,
                               const Loc& loc) = 0;
    /// A CrossCoreSetFlag fired at `at` (tx decoded, with its mode and flag id). Throws
    /// KernelError when a receiver's counter overflows.
    virtual void post_cross_core(CorePort& core, const Transaction& tx, Cycle at) = 0;
    /// Waits for and consumes one set of `tx.event_id` for this block; fills tx's partner
    /// fields and returns the cycle the set became visible.
    virtual Cycle take_cross_core(CorePort& core, Transaction& tx, const Loc& loc) = 0;
    virtual void gm_flag(CorePort& core, const GmFlagCall& call, const Loc& loc) = 0;
};

}  // namespace npusim
