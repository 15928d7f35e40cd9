// The checker wires its components (sync/check/):
//   agents.h          happens-before state: agents, vector clocks, blocks and kernels
//   sync_edges.h      flags, PipeBarrier, SyncAll and cross-core edges; synccheck
//   shadow_memory.h   per-space access intervals (with access_runs.h); racecheck
//   memcheck.h        bounds, use after free, leaks; initcheck reports
//   finding_reporter.h  findings, their text and deduplication
#include "sync/check/checker.h"

#include <algorithm>
#include <bit>

#include "base/errors.h"
#include "sync/check/agents.h"
#include "sync/check/finding_reporter.h"
#include "sync/check/host_calls.h"
#include "sync/check/memcheck.h"
#include "sync/check/scalar_gm_sync.h"
#include "sync/check/shadow_memory.h"
#include "sync/check/site.h"
#include "sync/check/stream_order.h"
#include "sync/check/sync_edges.h"

namespace npusim {

using check::Agent;
using check::Agents;
using check::BlockState;
using check::kScalarSlot;
using check::kStoreSlot;
using check::Site;
using check::View;

struct Checker::Impl {
    Impl(std::vector<Finding>& findings, const GlobalMemory& memory, CheckerOptions opts)
        : gm(memory),
          options(opts),
          reporter(findings, memory, options, calls,
                   [this](std::uint32_t id) -> std::string { return agents.kernel_name(id); }),
          shadows(reporter, options),
          sync(agents, reporter, options),
          memcheck(memory, reporter, options),
          streams(agents) {}

    const GlobalMemory& gm;
    CheckerOptions options;
    Agents agents;
    check::HostCalls calls;
    check::FindingReporter reporter;
    check::ShadowMemory shadows;
    check::SyncEdges sync;
    check::MemCheck memcheck;
    check::StreamOrder streams;
    check::ScalarGmSync gm_flags;  // flags polled in GM: release / acquire through a value
    VectorClock coherent;          // a scalar GM access's view with the stores it observed
    Cycle latest = 0;  // the latest simulated time a hook named (host accesses carry none)

    BlockState& block_of(const check::BlockOf& tx) {
        bool created = false;
        BlockState& b = agents.block_of(tx, created);
        if (created) shadows.reset_local(tx.core_type, tx.core);
        return b;
    }

    // A kernel's work flows into the host (Simulator::launch, or a run that aborted) or into
    // its stream (a stream op, through StreamOrder when the op completes).
    // Then the kernel's synccheck (unless aborted: the reset cores dropped its pending
    // flags), and its state is retired: only its name stays, for reports.
    void end_kernel(check::KernelState& k, bool aborted) {
        const std::uint32_t id = k.info.id;
        memcheck.report_uninitialized(shadows, id);
        reporter.flush_deferred(id);
        gm_flags.forget_kernel(id);
        if (k.info.host_op != 0 && !aborted && !k.done_from_blocks) {
            streams.kernel_ended(k.info.host_op, agents.end_counts(k));
        } else if (k.info.host_op != 0 && !aborted) {
            streams.kernel_ended(k.info.host_op, agents.end_kernel(k));
        } else {
            agents.host().clock.join(agents.end_kernel(k));
        }
        if (aborted) {
            sync.drop_flags(id);
        } else if (options.synccheck) {
            sync.report_unpaired(id);
        }
        sync.forget_kernel(id);
        agents.retire_kernel(id);
    }

    // A run that stopped on a deadlock or a KernelError never ends its kernels, yet the host
    // goes on after it: before the host's next write or launch, every kernel that ran (has
    // blocks) and did not end ends here, and its pending intra-core flags are dropped (the
    // abort reset the cores). Kernels launched but not yet run have no blocks and stay open.
    void end_aborted() {
        for (const std::uint32_t id : agents.kernel_ids()) {
            check::KernelState& k = agents.kernel(id);
            if (!k.ended && !k.blocks.empty()) end_kernel(k, true);
        }
    }

    // The host acts outside a runtime program (Simulator::write or launch): the program that
    // ran before has returned, and the host knows all it did.
    void leave_runtime() {
        if (streams.active()) streams.end();
        end_aborted();
    }

    // A runtime program's op or host access. Op ids restart with each program: a first op
    // that does not follow the last one starts a new program after the previous one.
    void enter_runtime(std::uint64_t op) {
        if (streams.active() && op != 0 && op <= streams.last_op()) streams.end();
        if (streams.active()) return;
        end_aborted();  // a Simulator::run that aborted before this program
        streams.begin();
    }

    // A GM access that is no kernel's instruction: the host (`agent` kHost) or a stream's copy
    // or memset, with the accessor's knowledge `clock` (which covers its own epoch).
    void host_side_access(std::uint32_t launch, AgentId agent, EpochCount epoch,
                          const VectorClock& clock, const GmRange& range, bool write) {
        Site site;
        site.kernel_id = check::kNoKernel;
        site.launch = launch;
        site.agent = agent;
        site.epoch = epoch;
        site.serial = epoch;
        site.time = latest;
        const View view{clock, ~AgentId{0}, 0, agent, epoch};
        memcheck.note_use(range.address, range.bytes);
        shadows.access(MemSpace::GM, shadows.gm(), site, view, range.address,
                       range.address + range.bytes, write);
    }

    check::Shadow& shadow_for(MemSpace space, BlockState& b) {
        if (space == MemSpace::GM) return shadows.gm();
        check::Shadow*& cached = b.local_shadows[static_cast<std::size_t>(space)];
        if (cached == nullptr) cached = &shadows.local(space, b.type, b.core);
        return *cached;
    }

    // A data instruction: the scalar unit's own loads and stores (stores go through its store
    // buffer), or an instruction issued to a pipe.
    void data_instruction(BlockState& b, const Transaction& tx) {
        Site site = check::site_of(tx);
        site.launch = b.launch;
        site.time = tx.start;
        if (tx.pipe == Pipe::S) {
            Agent& scalar = agents.agent(b, kScalarSlot);
            EpochCount& stores = agents.counter(b, kStoreSlot);
            const bool store = tx.op == Op::ScalarStore;
            if (store) {
                site.agent = b.agents[kStoreSlot];
                site.epoch = ++stores;
            } else {
                site.agent = b.agents[kScalarSlot];
                site.epoch = ++scalar.counter;
                scalar.clock.set(b.agents[kScalarSlot], scalar.counter);
            }
            if (tx.accesses[0].space == MemSpace::GM) {
                scalar_gm_access(b, tx, site, scalar, store);
                return;
            }
            const View view{scalar.clock, b.agents[kStoreSlot], stores - (store ? 1 : 0),
                            site.agent, site.epoch};
            run_accesses(b, tx, site, view);
            return;
        }
        if (!gm_flags.empty()) {
            for (unsigned i = 0; i < tx.access_count; ++i) {
                const MemAccess& a = tx.accesses[i];
                if (a.write && a.space == MemSpace::GM)
                    gm_flags.overwrite(a.address, a.row_address(a.rows - 1) + a.bytes);
            }
        }
        const check::Slot slot = check::slot_of(tx.pipe);
        agents.issue_edge(b, slot);
        Agent& pipe = agents.agent(b, slot);
        site.agent = b.agents[slot];
        site.epoch = ++pipe.counter;
        const View view{pipe.clock, ~AgentId{0}, 0, site.agent, site.epoch};
        run_accesses(b, tx, site, view);
    }

    // A scalar GM load or store (docs/checker.md, "Flags polled in GM"). A store publishes
    // the scalar unit's knowledge when the block's earlier stores are done; a load of another
    // block's visible publishing store learns it (acquire) and orders the reads of that
    // location the block's poll made before. Either access of a location comes after the
    // stores there the block observed.
    void scalar_gm_access(BlockState& b, const Transaction& tx, Site& site, Agent& scalar,
                          bool store) {
        const check::GmBlockKey by{tx.kernel_id, tx.block, tx.core_type};
        const MemAccess& a = tx.accesses[0];
        const AgentId store_agent = b.agents[kStoreSlot];
        const EpochCount stores = agents.counter(b, kStoreSlot);
        if (store) {
            Site landing = site;
            landing.time = tx.end;
            const bool drained = scalar.clock.get(store_agent) + 1 >= stores;
            gm_flags.store(by, landing, a.address, a.bytes, drained ? &scalar.clock : nullptr);
        } else if (const auto seen = gm_flags.load(by, a.address, a.bytes, tx.start)) {
            scalar.clock.join(*seen->release);
            Site writer;
            writer.kernel_id = seen->writer.kernel_id;
            writer.block = seen->writer.block;
            writer.core_type = seen->writer.core_type;
            reporter.resolve(site.agent, writer, a.address, a.address + a.bytes);
        }
        const VectorClock* clock = &scalar.clock;
        if (!gm_flags.empty()) {
            coherent = scalar.clock;
            if (gm_flags.raise_seen(by, a.address, coherent)) clock = &coherent;
        }
        const View view{*clock, store_agent, stores - (store ? 1 : 0), site.agent, site.epoch};
        run_accesses(b, tx, site, view);
    }

    // A scalar memory fence: DataSyncBarrier completes the block's earlier scalar stores (the
    // scalar unit knows them done); a clean makes its stores in the line(s) visible.
    void fence(BlockState& b, const Transaction& tx) {
        if (tx.op == Op::DataSyncBarrier) {
            agents.agent(b, kScalarSlot)
                .clock.raise(b.agents[kStoreSlot], agents.counter(b, kStoreSlot));
            return;
        }
        gm_flags.clean({tx.kernel_id, tx.block, tx.core_type}, tx.sync_id, tx.count);
    }

    // `site` is the instruction's, adjusted per access in place (no copy: this is per
    // instruction of every kernel).
    void run_accesses(BlockState& b, const Transaction& tx, Site& site, const View& view) {
        // Reads first: an instruction reads its sources before it writes its destination.
        // A read takes effect at the instruction's start, a write when its data lands (end).
        unsigned writes = 0;  // bit i: access i, a write, visited after the reads
        site.time = tx.start;
        site.atomic = false;
        for (unsigned i = 0; i < tx.access_count; ++i) {
            if (tx.accesses[i].write) {
                writes |= 1U << i;
            } else {
                visit(b, site, view, tx.accesses[i]);
            }
        }
        if (writes == 0) return;
        site.time = tx.end;
        site.atomic = tx.atomic != AtomicOp::None;
        for (; writes != 0; writes &= writes - 1)
            visit(b, site, view, tx.accesses[static_cast<unsigned>(std::countr_zero(writes))]);
    }
    // A strided access (a DMA instruction's rows) is checked row by row.
    void visit(BlockState& b, const Site& site, const View& view, const MemAccess& a) {
        if (a.rows == 1) {  // most accesses: no per-row copy
            memcheck.check_bounds(b, site, a);
            shadows.access(a.space, shadow_for(a.space, b), site, view, a.address,
                           a.address + a.bytes, a.write);
            return;
        }
        for (std::uint32_t row = 0; row < a.rows; ++row) {
            MemAccess one = a;
            one.address = a.row_address(row);
            one.rows = 1;
            memcheck.check_bounds(b, site, one);
            shadows.access(a.space, shadow_for(a.space, b), site, view, one.address,
                           one.address + one.bytes, a.write);
        }
    }
};

Checker::Checker(const GlobalMemory& gm, CheckerOptions options)
    : m_impl(std::make_unique<Impl>(m_findings, gm, options)) {}

Checker::~Checker() = default;

void Checker::on_kernel_start(const KernelInfo& kernel, Cycle at) {
    Impl& impl = *m_impl;
    impl.latest = std::max(impl.latest, at);
    const check::PendingOp* op =
        kernel.host_op != 0 ? impl.streams.pending(kernel.host_op) : nullptr;
    if (op == nullptr) impl.leave_runtime();
    check::KernelState& k = impl.agents.start_kernel(kernel);
    if (op != nullptr) {  // a stream op: its blocks start with what its stream knows
        k.launch = op->launch;
        k.start_clock = impl.agents.agent(impl.streams.stream_agent(op->stream)).clock;
    } else {
        k.info.host_op = 0;
        k.start_clock = impl.agents.host().clock;
    }
    // Each block moves the window onto its agents: from a window no agent is in, that
    // copies no list (VectorClock::kFar; a stream's clock is there already).
    k.start_clock.focus(VectorClock::kFar);
}

void Checker::on_transaction(const Transaction& tx) {
    if (tx.internal) return;  // a sync primitive's own traffic: checked as the primitive
    BlockState& b = m_impl->block_of({tx.kernel_id, tx.block, tx.core_type, tx.core});
    if (tx.op == Op::DataSyncBarrier || tx.op == Op::CacheClean) {
        m_impl->fence(b, tx);
        return;
    }
    if (!tx.access_count) {
        m_impl->sync.instruction(b, tx);
        return;
    }
    m_impl->data_instruction(b, tx);
}

void Checker::on_kernel_end(const KernelInfo& kernel, Cycle at) {
    Impl& impl = *m_impl;
    impl.latest = std::max(impl.latest, at);
    impl.end_kernel(impl.agents.kernel(kernel.id), false);
}

void Checker::on_host_write(std::uint64_t address, std::uint64_t bytes) {
    Impl& impl = *m_impl;
    impl.leave_runtime();
    Agent& host = impl.agents.host();
    Site site;
    site.agent = Agents::kHost;
    site.epoch = ++host.counter;
    site.pipe = Pipe::S;
    host.clock.set(Agents::kHost, host.counter);
    const View view{host.clock};
    impl.memcheck.note_use(address, bytes);
    impl.shadows.access(MemSpace::GM, impl.shadows.gm(), site, view, address, address + bytes,
                        true);
}

void Checker::on_local_alloc(const LocalAllocation& a) {
    m_impl->block_of({a.kernel_id, a.block, a.core_type, a.core})
        .allocations.add(a.space, a.address, a.bytes);
}

void Checker::on_block_stuck(const StuckNote& note) {
    if (!m_impl->options.synccheck) return;
    const bool flag_wait = note.reason.find("WaitFlag") != std::string::npos ||
                           note.reason.find("SetFlag that is never issued") != std::string::npos;
    if (!flag_wait) return;
    Finding f;
    f.kind = FindingKind::UnsatisfiableWait;
    f.severity = Severity::Error;
    AccessSite s;
    s.kernel_id = note.kernel_id;
    s.kernel = note.kernel;
    s.block = note.block;
    s.core_type = note.core_type;
    f.sites.push_back(s);
    f.message = "at " + note.where + ": " + note.reason;
    f.fix = "issue the matching SetFlag (or CrossCoreSetFlag) before the block waits";
    m_findings.push_back(std::move(f));
}

void Checker::on_host_op_queued(const HostOpInfo& op) {
    Impl& impl = *m_impl;
    impl.enter_runtime(op.op);
    std::uint32_t launch = 0;
    const AccessOrigin origin =
        op.kind == HostOpKind::Kernel ? AccessOrigin::Kernel : AccessOrigin::Stream;
    const bool named = op.kind == HostOpKind::Kernel || op.kind == HostOpKind::Copy ||
                       op.kind == HostOpKind::Memset;
    // A loop's launches repeat a few calls: those are found without building a HostCall.
    if (named) launch = impl.calls.recent(origin, op.stream, op.call, op.where, op.launch.name);
    if (named && launch == 0) {
        check::HostCall l;
        l.origin = origin;
        l.order = 2 * op.op;
        l.stream = op.stream;
        l.stream_name = op.stream_name;
        l.call = op.call;
        l.where = op.where;
        l.kernel = op.launch.name;
        launch = impl.calls.intern(std::move(l));
    }
    impl.streams.queued(op, launch);
}

void Checker::on_host_op_started(std::uint64_t op, Cycle at) {
    m_impl->latest = std::max(m_impl->latest, at);
    m_impl->streams.started(op);
}

// A copy or memset accesses GM when its data lands, as its stream's agent: after everything
// its stream knows, unordered with the rest.
void Checker::on_host_op_completed(std::uint64_t op, Cycle at) {
    Impl& impl = *m_impl;
    impl.latest = std::max(impl.latest, at);
    const check::PendingOp* p = impl.streams.pending(op);
    if (p == nullptr) return;
    if (!p->reads.empty() || !p->writes.empty()) {
        impl.streams.started(op);  // (a no-op after its start hook)
        const EpochCount epoch = impl.streams.stream_access(p->stream);
        const AgentId agent = impl.streams.stream_agent(p->stream);
        const VectorClock& clock = impl.agents.agent(agent).clock;
        for (const GmRange& r : p->reads)
            impl.host_side_access(p->launch, agent, epoch, clock, r, false);
        for (const GmRange& r : p->writes)
            impl.host_side_access(p->launch, agent, epoch, clock, r, true);
    }
    impl.streams.completed(op);
}

void Checker::on_host_synchronized(std::uint64_t op) {
    m_impl->streams.host_synchronized(op);
}

// The host thread's synchronous read or write: ordered after what the host knows (its own
// program order, what it synchronized with), unordered with device work it did not wait for.
void Checker::on_host_access(const HostAccess& access) {
    Impl& impl = *m_impl;
    impl.enter_runtime(0);
    check::HostCall l;
    l.origin = AccessOrigin::HostThread;
    l.order = 2 * impl.streams.last_op() + 1;
    l.call = access.call;
    l.where = access.where;
    const std::uint32_t launch = impl.calls.intern(std::move(l));
    Agent& host = impl.agents.host();
    const EpochCount epoch = ++host.counter;
    host.clock.set(Agents::kHost, epoch);
    impl.host_side_access(launch, Agents::kHost, epoch, host.clock, access.range, access.write);
}

std::size_t Checker::error_count() const {
    return static_cast<std::size_t>(
        std::count_if(m_findings.begin(), m_findings.end(),
                      [](const Finding& f) { return f.severity == Severity::Error; }));
}

CheckerFootprint Checker::footprint() const {
    return m_impl->agents.footprint();
}

void Checker::check_leaks() {
    m_impl->memcheck.report_leaks(m_findings);
}

void Checker::check_unused_memory() {
    if (!m_impl->options.unused_memory)
        throw UsageError(
            "check_unused_memory needs CheckerOptions::unused_memory (the checker "
            "records which GM bytes are used only when it is set)");
    m_impl->memcheck.report_unused(m_findings);
}

}  // namespace npusim
