#include "sync/deadlock/deadlock_predictor.h"

#include <algorithm>
#include <functional>

namespace npusim {

namespace {

bool uses_inter_core_sync(Op op) {
    switch (op) {
        case Op::SyncAll:
        case Op::SoftSyncAll:
        case Op::CrossCoreSetFlag:
        case Op::CrossCoreWaitFlag:
            return true;
        default:
            return false;
    }
}

const char* sync_name(Op op) {
    switch (op) {
        case Op::SyncAll:
            return "SyncAll";
        case Op::SoftSyncAll:
            return "soft SyncAll";
        case Op::CrossCoreSetFlag:
            return "CrossCoreSetFlag";
        case Op::CrossCoreWaitFlag:
            return "CrossCoreWaitFlag";
        default:
            return "?";
    }
}

}  // namespace

void DeadlockPredictor::on_host_op_queued(const HostOpInfo& info) {
    if (info.op <= m_last_op) {
        // A new host program: op ids start again, and nothing orders it with the last one's
        // ops except that it runs after them.
        ++m_epoch;
        m_stream_tail.clear();
        m_synchronized.clear();
        m_stream_of_op.clear();
    }
    m_last_op = info.op;
    Op& op = m_ops[{m_epoch, info.op}];
    op.stream = info.stream;
    const auto tail = m_stream_tail.find(info.stream);
    if (tail != m_stream_tail.end()) op.after.push_back(tail->second);
    if (info.kind == HostOpKind::EventWait && info.waits_for != 0)
        op.after.push_back(info.waits_for);
    // What the host knew had completed when it queued this op.
    for (const auto& [stream, done] : m_synchronized) op.after.push_back(done);
    m_stream_tail[info.stream] = info.op;
    m_stream_of_op[info.op] = info.stream;
    if (info.kind != HostOpKind::Kernel) return;
    Launch launch;
    launch.identity() = info.launch;
    launch.has_stream = true;
    launch.epoch = m_epoch;
    m_launch_of_op[{m_epoch, info.op}] = m_launches.size();
    m_launches.push_back(std::move(launch));
}

void DeadlockPredictor::on_host_synchronized(std::uint64_t op) {
    const auto it = m_stream_of_op.find(op);
    if (it == m_stream_of_op.end()) return;
    std::uint64_t& done = m_synchronized[it->second];
    done = std::max(done, op);
}

void DeadlockPredictor::on_kernel_start(const KernelInfo& kernel, Cycle at) {
    if (kernel.host_op != 0) {
        const auto it = m_launch_of_op.find({m_epoch, kernel.host_op});
        if (it != m_launch_of_op.end()) m_launch_of_kernel[kernel.id] = it->second;
        return;
    }
    Launch launch;
    launch.identity() = kernel.identity();
    launch.run_start = at;
    m_launch_of_kernel[kernel.id] = m_launches.size();
    m_launches.push_back(std::move(launch));
}

void DeadlockPredictor::on_transaction(const Transaction& tx) {
    if (!uses_inter_core_sync(tx.op) || tx.internal) return;
    const auto it = m_launch_of_kernel.find(tx.kernel_id);
    if (it == m_launch_of_kernel.end()) return;
    const std::string& name = m_launches[it->second].name;
    if (m_sync_use.count(name) == 0) {
        m_sync_use.emplace(name,
                           std::string(sync_name(tx.op)) + " at " + format_location(tx.where));
    }
}

bool DeadlockPredictor::happens_before(std::uint64_t epoch, std::uint64_t before,
                                       std::uint64_t after) const {
    if (before >= after) return false;  // an op only waits for ops queued before it
    std::set<std::uint64_t> seen;
    std::vector<std::uint64_t> stack{after};
    while (!stack.empty()) {
        const std::uint64_t op = stack.back();
        stack.pop_back();
        const auto it = m_ops.find({epoch, op});
        if (it == m_ops.end()) continue;
        for (std::uint64_t p : it->second.after) {
            if (p == before) return true;
            if (p > before && seen.insert(p).second) stack.push_back(p);
        }
    }
    return false;
}

bool DeadlockPredictor::ordered(const Launch& a, const Launch& b) const {
    const bool host_a = a.host_op != 0, host_b = b.host_op != 0;
    if (host_a != host_b) return true;  // a host program and a plain run() never overlap
    if (!host_a) return a.run_start != b.run_start;
    if (a.epoch != b.epoch) return true;
    return happens_before(a.epoch, a.host_op, b.host_op) ||
           happens_before(a.epoch, b.host_op, a.host_op);
}

std::vector<DeadlockFinding> DeadlockPredictor::warnings() const {
    // Candidates: normal-mode launches of kernels that use inter-core sync.
    std::vector<std::size_t> candidates;
    for (std::size_t i = 0; i < m_launches.size(); ++i) {
        const Launch& l = m_launches[i];
        if (l.schedule_mode == ScheduleMode::Normal && m_sync_use.count(l.name) != 0) {
            candidates.push_back(i);
        }
    }
    const std::size_t n = candidates.size();
    std::vector<std::vector<bool>> concurrent(n, std::vector<bool>(n, false));
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = i + 1; j < n; ++j) {
            const bool c = !ordered(m_launches[candidates[i]], m_launches[candidates[j]]);
            concurrent[i][j] = concurrent[j][i] = c;
        }
    }
    const auto over = [&](const std::vector<std::size_t>& set) {
        std::uint64_t vector = 0, cube = 0;
        for (std::size_t i : set) {
            const Launch& l = m_launches[candidates[i]];
            vector += std::uint64_t{l.blocks} * vector_cores_per_block(l.type);
            cube += std::uint64_t{l.blocks} * cube_cores_per_block(l.type);
        }
        return vector > m_capacity.vector_cores || cube > m_capacity.cube_cores;
    };
    // Maximal sets of mutually concurrent candidates (Bron-Kerbosch, in candidate order),
    // bounded so a pathological program cannot stall the report.
    std::vector<std::vector<std::size_t>> sets;
    std::size_t budget = 100'000;
    std::function<void(std::vector<std::size_t>, std::vector<std::size_t>,
                       std::vector<std::size_t>)>
        extend = [&](std::vector<std::size_t> r, std::vector<std::size_t> p,
                     std::vector<std::size_t> x) {
            if (budget == 0) return;
            --budget;
            if (p.empty() && x.empty()) {
                if (r.size() >= 2 && over(r)) sets.push_back(r);
                return;
            }
            while (!p.empty()) {
                const std::size_t v = p.front();
                std::vector<std::size_t> r2 = r, p2, x2;
                r2.push_back(v);
                for (std::size_t w : p) {
                    if (w != v && concurrent[v][w]) p2.push_back(w);
                }
                for (std::size_t w : x) {
                    if (concurrent[v][w]) x2.push_back(w);
                }
                extend(r2, p2, x2);
                p.erase(p.begin());
                x.push_back(v);
            }
        };
    std::vector<std::size_t> all(n);
    for (std::size_t i = 0; i < n; ++i) all[i] = i;
    extend({}, all, {});
    std::sort(sets.begin(), sets.end());

    std::vector<DeadlockFinding> findings;
    for (const auto& set : sets) {
        DeadlockFinding f;
        f.kind = DeadlockKind::PossibleDeadlock;
        std::string names;
        std::uint64_t vector = 0, cube = 0;
        for (std::size_t k = 0; k < set.size(); ++k) {
            const Launch& l = m_launches[candidates[set[k]]];
            vector += std::uint64_t{l.blocks} * vector_cores_per_block(l.type);
            cube += std::uint64_t{l.blocks} * cube_cores_per_block(l.type);
            std::string name = "kernel " + l.name + " (" + std::to_string(l.blocks) + " blocks";
            if (l.has_stream) name += ", stream " + std::to_string(l.stream);
            if (!l.launch_site.empty()) name += ", launched at " + l.launch_site;
            name += ")";
            names += (k == 0 ? "" : k + 1 == set.size() ? " and " : ", ") + name;
            DeadlockParticipant p;
            p.kernel = l.name;
            if (l.has_stream) p.stream = l.stream;
            p.blocks = l.blocks == 1 ? "0" : "0-" + std::to_string(l.blocks - 1);
            p.state = "uses " + m_sync_use.at(l.name).substr(0, m_sync_use.at(l.name).find(" at "));
            p.where = m_sync_use.at(l.name).substr(m_sync_use.at(l.name).find(" at ") + 4);
            p.launch = l.launch_site;
            f.participants.push_back(std::move(p));
        }
        const bool vector_over = vector > m_capacity.vector_cores;
        const std::string need = vector_over
                                     ? std::to_string(vector) + " vector cores, the chip has " +
                                           std::to_string(m_capacity.vector_cores)
                                     : std::to_string(cube) + " cube cores, the chip has " +
                                           std::to_string(m_capacity.cube_cores);
        f.summary = names + " use inter-core sync, can run at the same time and together need " +
                    need +
                    ": some blocks of each can start while the rest wait for cores the "
                    "others' barriers hold";
        f.cycle =
            "rule: two or more launches that use inter-core sync (SyncAll, cross-core "
            "flags), that no stream order, event or host synchronization orders, that are "
            "not in batch schedule mode, and whose blocks together exceed the physical "
            "cores of the type they need, can deadlock (docs/deadlocks.md, Prediction)";
        f.fix =
            "launch them in batch schedule mode (LaunchSpec::schedule_mode = "
            "ScheduleMode::Batch, SetScheduleMode(1)), or order them (one stream, or "
            "record_event + stream_wait_event), or keep their blocks together within " +
            (vector_over ? std::to_string(m_capacity.vector_cores) + " vector cores"
                         : std::to_string(m_capacity.cube_cores) + " cube cores");
        std::string signature = std::string(to_string(f.kind));
        for (const DeadlockParticipant& p : f.participants) {
            signature += "#" + p.kernel + "@" + p.launch;
        }
        f.signature = signature;
        findings.push_back(std::move(f));
    }
    return findings;
}

}  // namespace npusim
