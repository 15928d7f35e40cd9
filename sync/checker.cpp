// The checker wires its components (sync/check/):
//   agents.h          happens-before state: agents, vector clocks, blocks and kernels
//   sync_edges.h      flags, PipeBarrier, SyncAll and cross-core edges; synccheck
//   shadow_memory.h   per-space access intervals (with access_runs.h); racecheck
//   memcheck.h        bounds, use after free, leaks; initcheck reports
//   finding_reporter.h  findings, their text and deduplication
#include "sync/checker.h"

#include <algorithm>

#include "sync/check/agents.h"
#include "sync/check/finding_reporter.h"
#include "sync/check/memcheck.h"
#include "sync/check/shadow_memory.h"
#include "sync/check/site.h"
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
          reporter(findings, memory, options,
                   [this](std::uint32_t id) -> std::string {
                       const check::KernelState* k = agents.find_kernel(id);
                       return k != nullptr ? k->info.name : "?";
                   }),
          shadows(reporter, options),
          sync(agents, reporter, options),
          memcheck(memory, reporter, options) {}

    const GlobalMemory& gm;
    CheckerOptions options;
    Agents agents;
    check::FindingReporter reporter;
    check::ShadowMemory shadows;
    check::SyncEdges sync;
    check::MemCheck memcheck;
    std::map<std::uint64_t, std::vector<GmRange>> pending_writes;  // by host op

    BlockState& block_of(const Transaction& tx) {
        bool created = false;
        BlockState& b = agents.block_of(tx, created);
        if (created) shadows.reset_local(tx.core_type, tx.core);
        return b;
    }

    void end_kernel(check::KernelState& k) {
        memcheck.report_uninitialized(shadows, k.info.kernel_id);
        agents.end_kernel(k);
    }

    // A run that stopped on a deadlock or a KernelError never ends its kernels, yet the host
    // goes on after it: before the host's next write or launch, every kernel that ran (has
    // blocks) and did not end ends here, and its pending intra-core flags are dropped (the
    // abort reset the cores). Kernels launched but not yet run have no blocks and stay open.
    void end_aborted() {
        for (auto& [id, k] : agents.kernels()) {
            if (k.ended || k.blocks.empty()) continue;
            end_kernel(k);
            sync.drop_flags(id);
        }
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
        Site site{tx.kernel_id, tx.block, tx.core_type, tx.pipe, tx.serial, tx.where, 0, 0,
                  tx.start};
        if (tx.pipe == Pipe::S) {
            Agent& scalar = agents.agent(b, kScalarSlot);
            Agent& stores = agents.agent(b, kStoreSlot);
            const bool store = tx.op == Op::ScalarStore;
            if (store) {
                site.agent = b.agents[kStoreSlot];
                site.epoch = ++stores.counter;
            } else {
                site.agent = b.agents[kScalarSlot];
                site.epoch = ++scalar.counter;
                scalar.clock.set(b.agents[kScalarSlot], scalar.counter);
            }
            const View view{scalar.clock, b.agents[kStoreSlot], stores.counter - (store ? 1 : 0),
                            site.agent, site.epoch};
            run_accesses(b, tx, site, view);
            return;
        }
        const check::Slot slot = check::slot_of(tx.pipe);
        agents.issue_edge(b, slot);
        Agent& pipe = agents.agent(b, slot);
        site.agent = b.agents[slot];
        site.epoch = ++pipe.counter;
        const View view{pipe.clock, ~AgentId{0}, 0, site.agent, site.epoch};
        run_accesses(b, tx, site, view);
    }

    void run_accesses(BlockState& b, const Transaction& tx, Site site, const View& view) {
        // Reads first: an instruction reads its sources before it writes its destination.
        // A read takes effect at the instruction's start, a write when its data lands (end).
        for (int pass = 0; pass < 2; ++pass) {
            for (std::uint8_t i = 0; i < tx.access_count; ++i) {
                const MemAccess& a = tx.accesses[i];
                if (a.write != (pass == 1)) continue;
                site.time = a.write ? tx.end : tx.start;
                memcheck.check_bounds(b, site, a);
                shadows.access(a.space, shadow_for(a.space, b), site, view, a.address,
                               a.address + a.bytes, a.write);
            }
        }
    }
};

Checker::Checker(const GlobalMemory& gm, CheckerOptions options)
    : m_impl(std::make_unique<Impl>(m_findings, gm, options)) {}

Checker::~Checker() = default;

void Checker::on_kernel_start(const KernelInfo& kernel, Cycle /*at*/) {
    m_impl->end_aborted();
    check::KernelState& k = m_impl->agents.kernel(kernel.kernel_id);
    k.info = kernel;
    k.start_clock = m_impl->agents.host().clock;
}

void Checker::on_transaction(const Transaction& tx) {
    if (tx.internal) return;  // a sync primitive's own traffic: checked as the primitive
    BlockState& b = m_impl->block_of(tx);
    if (!tx.access_count) {
        m_impl->sync.instruction(b, tx);
        return;
    }
    m_impl->data_instruction(b, tx);
}

void Checker::on_kernel_end(const KernelInfo& kernel, Cycle /*at*/) {
    Impl& impl = *m_impl;
    impl.end_kernel(impl.agents.kernel(kernel.kernel_id));
    if (impl.options.synccheck) impl.sync.report_unpaired(kernel.kernel_id);
}

void Checker::on_host_write(std::uint64_t address, std::uint64_t bytes) {
    Impl& impl = *m_impl;
    impl.end_aborted();
    Agent& host = impl.agents.host();
    Site site;
    site.agent = Agents::kHost;
    site.epoch = ++host.counter;
    site.pipe = Pipe::S;
    host.clock.set(Agents::kHost, host.counter);
    const View view{host.clock};
    impl.shadows.access(MemSpace::GM, impl.shadows.gm(), site, view, address, address + bytes,
                        true);
}

void Checker::on_local_alloc(const LocalAllocation& a) {
    Transaction probe;
    probe.kernel_id = a.kernel_id;
    probe.block = a.block;
    probe.core_type = a.core_type;
    probe.core = a.core;
    m_impl->block_of(probe).allocations.push_back({a.space, {a.address, a.bytes}});
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

// Until the checker orders stream operations (inter-stream happens-before), GM bytes the
// runtime writes count as host writes when they land, as Simulator::write does.
void Checker::on_host_op_queued(const HostOpInfo& op) {
    if (!op.writes.empty()) m_impl->pending_writes[op.op] = op.writes;
}

void Checker::on_host_op_completed(std::uint64_t op, Cycle /*at*/) {
    const auto it = m_impl->pending_writes.find(op);
    if (it == m_impl->pending_writes.end()) return;
    for (const GmRange& r : it->second) on_host_write(r.address, r.bytes);
    m_impl->pending_writes.erase(it);
}

void Checker::on_host_access(const HostAccess& access) {
    if (access.write) on_host_write(access.range.address, access.range.bytes);
}

std::size_t Checker::error_count() const {
    return static_cast<std::size_t>(
        std::count_if(m_findings.begin(), m_findings.end(),
                      [](const Finding& f) { return f.severity == Severity::Error; }));
}

void Checker::check_leaks() {
    m_impl->memcheck.report_leaks(m_findings);
}

}  // namespace npusim
