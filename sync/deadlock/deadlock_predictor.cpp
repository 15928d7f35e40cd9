#include "sync/deadlock/deadlock_predictor.h"

#include <algorithm>
#include <functional>
#include <tuple>

namespace npusim {

namespace {

bool uses_inter_core_sync(Op op) {
    switch (op) {
        case Op::SyncAll:
        case Op::SoftSyncAll:
        case Op::CrossCoreSetFlag:
        case Op::CrossCoreWaitFlag:
        case Op::GmFlagSet:
        case Op::GmFlagWait:
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
        case Op::GmFlagSet:
            return "a flag set in GM (IBSet, NotifyNextBlock)";
        case Op::GmFlagWait:
            return "a wait for a flag in GM (IBWait, WaitPreBlock)";
        default:
            return "?";
    }
}

}  // namespace

void DeadlockPredictor::join(StreamClock& into, const StreamClock& other) {
    if (into.size() < other.size()) into.resize(other.size(), 0);
    for (std::size_t i = 0; i < other.size(); ++i) into[i] = std::max(into[i], other[i]);
}

DeadlockPredictor::StreamTail& DeadlockPredictor::tail_of(std::uint32_t stream) {
    const auto it = m_tails.find(stream);
    if (it != m_tails.end()) return it->second;
    StreamTail& t = m_tails[stream];
    t.slot = static_cast<std::uint32_t>(m_tails.size() - 1);
    return t;
}

const DeadlockPredictor::StreamClock* DeadlockPredictor::clock_of(std::uint64_t op) const {
    const auto record = m_records.find(op);
    if (record != m_records.end()) return &record->second;
    for (const auto& [stream, t] : m_tails) {
        if (t.last_op == op) return &t.clock;
    }
    return nullptr;
}

void DeadlockPredictor::on_host_op_queued(const HostOpInfo& info) {
    if (info.op <= m_last_op) {
        // A new host program: op ids start again, and nothing orders it with the last one's
        // ops except that it runs after them.
        ++m_epoch;
        m_tails.clear();
        m_launch_of_op.clear();
        m_latest_record.clear();
        m_records.clear();
        m_host.clear();
    }
    m_last_op = info.op;
    StreamTail& tail = tail_of(info.stream);
    // After the op before it on its stream, what the host has seen complete, and the
    // record an event wait waits for.
    StreamClock clock = tail.clock;
    join(clock, m_host);
    if (info.kind == HostOpKind::EventWait && info.waits_for != 0) {
        if (const StreamClock* record = clock_of(info.waits_for)) join(clock, *record);
    }
    if (clock.size() <= tail.slot) clock.resize(tail.slot + 1, 0);
    const std::uint32_t position = ++clock[tail.slot];
    tail.last_op = info.op;
    tail.clock = clock;
    if (info.kind == HostOpKind::EventRecord) {
        std::uint64_t& latest = m_latest_record[info.event];
        if (latest != 0) m_records.erase(latest);  // re-recorded: waits name the new one
        latest = info.op;
        m_records[info.op] = clock;
    }
    if (info.kind != HostOpKind::Kernel) return;
    Launch launch;
    launch.identity() = info.launch;
    launch.has_stream = true;
    launch.epoch = m_epoch;
    launch.slot = tail.slot;
    launch.position = position;
    launch.clock = std::move(clock);
    m_launch_of_op[info.op] = m_launches.size();
    m_launches.push_back(std::move(launch));
}

// The runtime names a drained stream's last op or an event's latest record; an op it no
// longer knows teaches nothing, which keeps every warning.
void DeadlockPredictor::on_host_synchronized(std::uint64_t op) {
    if (const StreamClock* clock = clock_of(op)) join(m_host, *clock);
}

void DeadlockPredictor::on_kernel_start(const KernelInfo& kernel, Cycle at) {
    if (kernel.host_op != 0) {
        const auto it = m_launch_of_op.find(kernel.host_op);
        if (it != m_launch_of_op.end()) {
            m_launch_of_kernel[kernel.id] = it->second;
            m_launch_of_op.erase(it);
        }
        return;
    }
    Launch launch;
    launch.identity() = kernel.identity();
    launch.run_start = at;
    m_launch_of_kernel[kernel.id] = m_launches.size();
    m_launches.push_back(std::move(launch));
}

void DeadlockPredictor::on_kernel_end(const KernelInfo& kernel, Cycle) {
    m_launch_of_kernel.erase(kernel.id);
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

bool DeadlockPredictor::precedes(const Launch& a, const Launch& b) {
    return a.slot < b.clock.size() && b.clock[a.slot] >= a.position;
}

std::vector<std::vector<std::size_t>> DeadlockPredictor::concurrency(
    const std::vector<std::size_t>& candidates) const {
    // Groups that are ordered inside: one stream of one host program (stream order), or
    // one plain run (all concurrent; different runs never overlap).
    struct Group {
        bool host = false;
        std::uint64_t epoch = 0;
        std::uint32_t slot = 0;
        Cycle run_start = 0;
        std::vector<std::size_t> members;  // candidate indices, in launch (stream) order
    };
    std::vector<Group> groups;
    std::map<std::tuple<bool, std::uint64_t, std::uint64_t>, std::size_t> group_of;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const Launch& l = m_launches[candidates[i]];
        const bool host = l.host_op != 0;
        const auto key = host ? std::tuple{true, l.epoch, std::uint64_t{l.slot}}
                              : std::tuple{false, std::uint64_t{0}, l.run_start};
        const auto [it, added] = group_of.emplace(key, groups.size());
        if (added) groups.push_back({host, l.epoch, l.slot, l.run_start, {}});
        groups[it->second].members.push_back(i);
    }
    std::vector<std::vector<std::size_t>> concurrent(candidates.size());
    const auto launch = [&](std::size_t i) -> const Launch& { return m_launches[candidates[i]]; };
    for (const Group& a : groups) {
        if (!a.host) {
            for (std::size_t i : a.members) {
                for (std::size_t j : a.members) {
                    if (i != j) concurrent[i].push_back(j);
                }
            }
            continue;
        }
        for (const Group& b : groups) {
            if (&a == &b || !b.host || a.epoch != b.epoch) continue;
            for (std::size_t i : a.members) {
                const Launch& la = launch(i);
                // b's launches la does not come after: positions past what la knows of b's
                // stream; of those, the ones that do not come after la: a prefix of b's
                // stream, whose knowledge of la's stream only grows along it.
                const std::uint32_t known = b.slot < la.clock.size() ? la.clock[b.slot] : 0;
                const auto first = std::partition_point(
                    b.members.begin(), b.members.end(),
                    [&](std::size_t j) { return launch(j).position <= known; });
                const auto last = std::partition_point(first, b.members.end(), [&](std::size_t j) {
                    return !precedes(la, launch(j));
                });
                concurrent[i].insert(concurrent[i].end(), first, last);
            }
        }
    }
    for (auto& list : concurrent) std::sort(list.begin(), list.end());
    return concurrent;
}

DeadlockVerdict exact_deadlock_verdict(const std::vector<LaunchIdentity>& group,
                                       CoreCapacity capacity) {
    DeadlockVerdict verdict;
    if (group.empty()) return verdict;
    const KernelType type = group.front().type;
    const bool one_type = std::all_of(group.begin(), group.end(), [&](const LaunchIdentity& l) {
        return l.type == type && (type == KernelType::AIV_ONLY || type == KernelType::AIC_ONLY);
    });
    if (!one_type) {
        verdict.text = "no exact verdict for groups with mixed (cube + vector) kernels";
        return verdict;
    }
    const bool vector = type == KernelType::AIV_ONLY;
    const std::uint64_t cores = vector ? capacity.vector_cores : capacity.cube_cores;
    const std::string noun = vector ? " vector cores" : " cube cores";
    std::uint64_t held = 0;
    std::string sum;
    for (const LaunchIdentity& l : group) {
        const std::uint64_t most = l.blocks == 0 ? 0 : l.blocks - 1;
        held += most;
        sum += (sum.empty() ? "" : " + ") + std::to_string(most);
    }
    verdict.reachable = held >= cores;
    if (*verdict.reachable) {
        // The witness: kernels in turn take as many cores as they can while keeping a block
        // back, until every core is held.
        std::string placement;
        std::uint64_t left = cores;
        for (const LaunchIdentity& l : group) {
            const std::uint64_t take = std::min<std::uint64_t>(left, l.blocks - 1);
            left -= take;
            if (take == 0) continue;
            placement += (placement.empty() ? "" : ", ") + std::to_string(take) + " of the " +
                         std::to_string(l.blocks) + " blocks of " + l.name +
                         (l.host_op != 0 ? " on " + stream_label(l.stream, l.stream_name) : "");
        }
        verdict.text =
            "deadlock reachable: while each kernel still waits for one of its own "
            "blocks they can hold " +
            sum + " = " + std::to_string(held) + " >= " + std::to_string(cores) + noun + "; e.g. " +
            placement +
            " start first and fill every core with barriers that wait for blocks "
            "that cannot start (placement \"hold_last\" does this when the kernels are "
            "ready together)";
    } else {
        verdict.text =
            "cannot deadlock: while each kernel still waits for one of its own blocks "
            "they hold at most " +
            sum + " = " + std::to_string(held) + " < " + std::to_string(cores) + noun +
            ", so a core stays free for a waiting block; the vendor rule is "
            "conservative here";
    }
    return verdict;
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
    const std::vector<std::vector<std::size_t>> concurrent = concurrency(candidates);
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
    // bounded so a pathological program cannot stall the report. `p` and `x` are sorted;
    // each step looks at the chosen launch's concurrent ones only, so a long program of
    // mostly ordered launches costs what its concurrency costs.
    std::vector<std::vector<std::size_t>> sets;
    std::size_t budget = 100'000;
    std::function<void(const std::vector<std::size_t>&, const std::vector<std::size_t>&,
                       const std::vector<std::size_t>&)>
        extend = [&](const std::vector<std::size_t>& r, const std::vector<std::size_t>& p,
                     const std::vector<std::size_t>& x) {
            if (budget == 0) return;
            --budget;
            if (p.empty() && x.empty()) {
                if (r.size() >= 2 && over(r)) sets.push_back(r);
                return;
            }
            for (std::size_t i = 0; i < p.size(); ++i) {
                const std::size_t v = p[i];
                std::vector<std::size_t> r2 = r, p2, x2;
                r2.push_back(v);
                // Neighbours of v still to choose (after it in p) or excluded (x, or before
                // it in p).
                for (std::size_t w : concurrent[v]) {
                    const auto at = std::lower_bound(p.begin(), p.end(), w);
                    if (at != p.end() && *at == w) {
                        (static_cast<std::size_t>(at - p.begin()) > i ? p2 : x2).push_back(w);
                    } else if (std::binary_search(x.begin(), x.end(), w)) {
                        x2.push_back(w);
                    }
                }
                std::sort(x2.begin(), x2.end());
                if (r2.size() < 2 && p2.empty()) continue;  // alone: no set to find
                extend(r2, p2, x2);
                if (budget == 0) return;
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
            if (l.has_stream) name += ", " + stream_label(l.stream, l.stream_name);
            if (!l.launch_site.empty()) name += ", launched at " + l.launch_site;
            name += ")";
            names += (k == 0 ? "" : k + 1 == set.size() ? " and " : ", ") + name;
            DeadlockParticipant p;
            p.kernel = l.name;
            if (l.has_stream) p.stream = l.stream;
            p.stream_name = l.stream_name;
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
        const std::string& site = m_launches[candidates[set.front()]].launch_site;
        f.fix = "launch them in batch schedule mode (" + batch_mode_remedy(site) +
                "), or order them (" + ordering_remedy(site) +
                "), or keep their blocks together within " +
                (vector_over ? std::to_string(m_capacity.vector_cores) + " vector cores"
                             : std::to_string(m_capacity.cube_cores) + " cube cores");
        std::vector<LaunchIdentity> group;
        for (std::size_t k : set) group.push_back(m_launches[candidates[k]].identity());
        DeadlockVerdict verdict = exact_deadlock_verdict(group, m_capacity);
        f.reachable = verdict.reachable;
        f.verdict = std::move(verdict.text);
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
