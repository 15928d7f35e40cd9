// The attached checker: racecheck, synccheck, memcheck and initcheck over the transactions a
// simulation publishes. It never looks at simulated time: happens-before comes only from
// synchronization, so it flags every *potential* hazard, whether or not this run's timing
// corrupted data.
//
// Happens-before (vector clocks, one agent per pipe of a block, the scalar unit's store
// buffer, and the host):
//   - the scalar unit is sequential; issuing an instruction passes the scalar unit's
//     knowledge to the pipe (what it waited for before issuing is complete);
//   - pipes overlap their instructions, so two instructions of one pipe are ordered only
//     across a PipeBarrier on that pipe or a flag round trip;
//   - SetFlag carries everything its pipe completed; WaitFlag joins it;
//   - PipeBarrier<PIPE_ALL>, hard and soft SyncAll (the soft one's own workspace traffic is
//     not checked), cross-core flags, kernel start (after the host's writes and the previous
//     block on that core) and kernel end (before the host and later kernels);
//   - runtime programs (Simulator::run_host, sync/check/stream_order.h): one agent per
//     stream. An op starts after the host's knowledge when it was queued and everything
//     completed before it on its stream; an event wait adds its record's capture; a kernel
//     op's end flows into its stream, not the host; async copies and memsets access GM as
//     their stream; host synchronization gives the host what the op's stream knew; the
//     host thread's synchronous copies and memsets are the host's accesses. Accesses of two
//     host calls that nothing orders race with scope inter-stream (host: one is the host
//     thread's), whatever the timing.
// Accesses are kept per memory space as intervals (not bytes), each with its last write and
// the reads since, so memory grows with live intervals.
//
//   npusim::Checker checker(sim.global_memory());
//   sim.attach(checker);
//   sim.run(...);
//   for (const npusim::Finding& f : checker.findings()) ...   // or format_findings()
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "base/transaction.h"
#include "memory/global_memory.h"
#include "sync/check/findings.h"
#include "sync/check/vector_clock.h"

namespace npusim {

/// How a report orders two unordered accesses of different blocks (which one is "first",
/// and so RAW or WAR). Within a block it is always issue order (serial numbers).
enum class RaceOrder : std::uint8_t {
    /// The order in which they took effect in this run (a read when it starts, a write when
    /// its data lands): what happened, but another chip or start skew may name it otherwise.
    Timing,
    /// (kernel id, core type with AIC first, block index, serial): the same finding for the
    /// same program whatever the timing. The default.
    Program,
};

struct CheckerOptions {
    bool racecheck = true;
    bool synccheck = true;
    bool memcheck = true;
    bool initcheck = true;
    /// GM buffers with bytes that no kernel, copy, memset or host access ever touched
    /// (check_unused_memory); off by default, as in the vendor sanitizer
    /// (--check-unused-memory), since it costs a range update per GM access.
    bool unused_memory = false;
    /// true: one finding per (kind, space, scope, source-location pair, pipes) with a count
    /// (analysis mode); false: one finding per instance (hazard mode).
    bool deduplicate = true;
    RaceOrder race_order = RaceOrder::Program;
};

/// What the checker holds, to show that it follows what can still race rather than the
/// program's length (tests, npusim-bench).
struct CheckerFootprint {
    std::size_t agents = 0;           // agent ids ever made: the bound on every clock's width
    std::size_t live_kernels = 0;     // kernels whose state is kept (not yet ended and retired)
    std::size_t block_states = 0;     // block states ever made (each reused once released)
    std::size_t free_agent_sets = 0;  // ended blocks' agents waiting for a block ordered after
};

class Checker final : public TransactionObserver {
public:
    explicit Checker(const GlobalMemory& gm, CheckerOptions options = {});
    ~Checker() override;
    Checker(const Checker&) = delete;
    Checker& operator=(const Checker&) = delete;

    void on_kernel_start(const KernelInfo& kernel, Cycle at) override;
    void on_transaction(const Transaction& tx) override;
    void on_kernel_end(const KernelInfo& kernel, Cycle at) override;
    void on_host_write(std::uint64_t address, std::uint64_t bytes) override;
    void on_local_alloc(const LocalAllocation& allocation) override;
    void on_block_stuck(const StuckNote& note) override;
    void on_host_op_queued(const HostOpInfo& op) override;
    void on_host_op_started(std::uint64_t op, Cycle at) override;
    void on_host_op_completed(std::uint64_t op, Cycle at) override;
    void on_host_synchronized(std::uint64_t op) override;
    void on_host_access(const HostAccess& access) override;

    /// Findings, deduplicated by (kind, space, source-location pair) with a count, in the
    /// order first seen.
    const std::vector<Finding>& findings() const { return m_findings; }
    std::size_t error_count() const;
    bool has_errors() const { return error_count() > 0; }
    /// memcheck leaks: one warning per GM buffer that is still live. Call when done.
    void check_leaks();
    /// One warning (FindingKind::UnusedMemory) per GM buffer, live or freed, with bytes no
    /// access touched. Needs CheckerOptions::unused_memory; throws UsageError without it.
    void check_unused_memory();
    CheckerFootprint footprint() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    std::vector<Finding> m_findings;
};

}  // namespace npusim
