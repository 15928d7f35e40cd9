// The deadlock predictor and the finding texts without a simulation: host ops, kernel starts
// and sync instructions fed by hand; findings of a hand-built wait-for graph.
#include "sync/deadlock/deadlock_predictor.h"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sync/deadlock/deadlock_finding.h"
#include "sync/deadlock/wait_for_graph.h"

using namespace npusim;

namespace {

HostOpInfo kernel_op(std::uint64_t op, std::uint32_t stream, std::string name, std::uint32_t blocks,
                     ScheduleMode mode = ScheduleMode::Normal) {
    HostOpInfo info;
    info.op = op;
    info.kind = HostOpKind::Kernel;
    info.stream = stream;
    info.call = "launch";
    info.where = "host.cpp:" + std::to_string(10 + op);
    info.launch.name = std::move(name);
    info.launch.blocks = blocks;
    info.launch.schedule_mode = mode;
    info.launch.stream = stream;
    info.launch.host_op = op;
    info.launch.launch_site = info.where;
    return info;
}

HostOpInfo event_op(std::uint64_t op, std::uint32_t stream, HostOpKind kind,
                    std::uint64_t waits_for = 0) {
    HostOpInfo info;
    info.op = op;
    info.kind = kind;
    info.stream = stream;
    info.event = 1;
    info.waits_for = waits_for;
    return info;
}

/// Starts kernel `id` for host op `op` and lets it issue a SyncAll.
void start_with_sync(DeadlockPredictor& p, std::uint32_t id, std::uint64_t op, std::string name) {
    KernelInfo k;
    k.id = id;
    k.name = std::move(name);
    k.host_op = op;
    p.on_kernel_start(k, 0);
    Transaction tx;
    tx.kernel_id = id;
    tx.op = Op::SyncAll;
    p.on_transaction(tx);
}

}  // namespace

TEST_CASE("predictor: two unordered sync launches over the cores warn, naming both",
          "[unit][deadlock]") {
    DeadlockPredictor p({48, 24});
    p.on_host_op_queued(kernel_op(1, 1, "A", 30));
    p.on_host_op_queued(kernel_op(2, 2, "B", 30));
    start_with_sync(p, 0, 1, "A");
    start_with_sync(p, 1, 2, "B");
    const auto warnings = p.warnings();
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].kind == DeadlockKind::PossibleDeadlock);
    CHECK_THAT(warnings[0].summary,
               Catch::StartsWith("kernel A (30 blocks, stream 1, launched at host.cpp:11) and "
                                 "kernel B (30 blocks, stream 2, launched at host.cpp:12)") &&
                   Catch::Contains("60 vector cores, the chip has 48"));
    REQUIRE(warnings[0].participants.size() == 2);
    CHECK(warnings[0].participants[0].state == "uses SyncAll");
}

TEST_CASE(
    "predictor: stream order, events, host synchronization, batch mode or fitting blocks "
    "never warn",
    "[unit][deadlock]") {
    SECTION("one stream") {
        DeadlockPredictor p({48, 24});
        p.on_host_op_queued(kernel_op(1, 1, "A", 30));
        p.on_host_op_queued(kernel_op(2, 1, "B", 30));
        start_with_sync(p, 0, 1, "A");
        start_with_sync(p, 1, 2, "B");
        CHECK(p.warnings().empty());
    }
    SECTION("an event between the streams") {
        DeadlockPredictor p({48, 24});
        p.on_host_op_queued(kernel_op(1, 1, "A", 30));
        p.on_host_op_queued(event_op(2, 1, HostOpKind::EventRecord));
        p.on_host_op_queued(event_op(3, 2, HostOpKind::EventWait, 2));
        p.on_host_op_queued(kernel_op(4, 2, "B", 30));
        start_with_sync(p, 0, 1, "A");
        start_with_sync(p, 1, 4, "B");
        CHECK(p.warnings().empty());
    }
    SECTION("the host synchronized the first before queuing the second") {
        DeadlockPredictor p({48, 24});
        p.on_host_op_queued(kernel_op(1, 1, "A", 30));
        p.on_host_synchronized(1);
        p.on_host_op_queued(kernel_op(2, 2, "B", 30));
        start_with_sync(p, 0, 1, "A");
        start_with_sync(p, 1, 2, "B");
        CHECK(p.warnings().empty());
    }
    SECTION("batch mode") {
        DeadlockPredictor p({48, 24});
        p.on_host_op_queued(kernel_op(1, 1, "A", 30, ScheduleMode::Batch));
        p.on_host_op_queued(kernel_op(2, 2, "B", 30, ScheduleMode::Batch));
        start_with_sync(p, 0, 1, "A");
        start_with_sync(p, 1, 2, "B");
        CHECK(p.warnings().empty());
    }
    SECTION("blocks that fit together, or kernels without inter-core sync") {
        DeadlockPredictor p({48, 24});
        p.on_host_op_queued(kernel_op(1, 1, "A", 24));
        p.on_host_op_queued(kernel_op(2, 2, "B", 24));
        p.on_host_op_queued(kernel_op(3, 3, "C", 40));
        start_with_sync(p, 0, 1, "A");
        start_with_sync(p, 1, 2, "B");
        KernelInfo c;
        c.id = 2;
        c.name = "C";
        c.host_op = 3;
        p.on_kernel_start(c, 0);  // C never synchronizes across cores
        CHECK(p.warnings().empty());
    }
}

TEST_CASE("predictor: three launches that fit in pairs but not together warn once",
          "[unit][deadlock]") {
    DeadlockPredictor p({48, 24});
    for (std::uint32_t k = 0; k < 3; ++k) {
        const std::string name(1, static_cast<char>('A' + k));
        p.on_host_op_queued(kernel_op(k + 1, k + 1, name, 20));
        start_with_sync(p, k, k + 1, name);
    }
    const auto warnings = p.warnings();
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].participants.size() == 3);
    CHECK_THAT(warnings[0].summary, Catch::Contains("60 vector cores"));
}

TEST_CASE("findings: an orphan flag wait and its fix from a hand-built graph", "[unit][deadlock]") {
    WaitForGraph g;
    WaitVertex blocks;
    blocks.kind = WaitVertexKind::Blocks;
    blocks.kernel = "k";
    blocks.first = 0;
    blocks.last = 3;
    blocks.what = "at WaitFlag<V_MTE3>(0)";
    blocks.blocked = true;
    WaitVertex flag;
    flag.kind = WaitVertexKind::Flag;
    flag.kernel = "k";
    flag.what = "WaitFlag<V_MTE3>(0)";
    flag.where = "k.cpp:30:5";
    flag.blocked = true;
    const auto b = g.add_vertex(blocks);
    g.add_edge(b, g.add_vertex(flag));
    const auto findings = describe_deadlocks(g, g.analyze(), {48, 24});
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].kind == DeadlockKind::OrphanFlagWait);
    CHECK(findings[0].cycle ==
          "kernel k blocks 0-3 wait at WaitFlag<V_MTE3>(0) line 30 (k.cpp), which no "
          "SetFlag<V_MTE3>(0) on their core ever satisfies");
    CHECK(findings[0].fix ==
          "pair this flag: issue SetFlag<V_MTE3>(0) on the same core before the "
          "WaitFlag<V_MTE3>(0) at k.cpp:30:5, once for every WaitFlag");
    CHECK(format_ranges({0, 1, 2, 5, 7, 8}) == "0-2, 5, 7-8");
}

namespace {
std::vector<LaunchIdentity> equal_kernels(std::uint32_t count, std::uint32_t blocks,
                                          KernelType type = KernelType::AIV_ONLY) {
    std::vector<LaunchIdentity> group(count);
    for (std::uint32_t i = 0; i < count; ++i) {
        group[i].name = "k" + std::to_string(i);
        group[i].blocks = blocks;
        group[i].type = type;
    }
    return group;
}
}  // namespace

TEST_CASE("exact verdict: reachable exactly when sum(blocks - 1) reaches the cores",
          "[deadlock][predictor]") {
    // 3 x 14 on 40 cores: the rule warns (42 > 40), but at most 39 cores can be held.
    const DeadlockVerdict cannot = exact_deadlock_verdict(equal_kernels(3, 14), {40, 20});
    REQUIRE(cannot.reachable.has_value());
    CHECK_FALSE(*cannot.reachable);
    CHECK_THAT(cannot.text, Catch::StartsWith("cannot deadlock: ") &&
                                Catch::Contains("13 + 13 + 13 = 39 < 40 vector cores") &&
                                Catch::Contains("the vendor rule is conservative here"));
    // 2 x 21 on 40: 20 + 20 = 40, every core can be held with a block of each kept back.
    const DeadlockVerdict reach = exact_deadlock_verdict(equal_kernels(2, 21), {40, 20});
    REQUIRE(reach.reachable.has_value());
    CHECK(*reach.reachable);
    CHECK_THAT(reach.text,
               Catch::Contains("20 + 20 = 40 >= 40 vector cores") &&
                   Catch::Contains("20 of the 21 blocks of k0, 20 of the 21 blocks of k1"));
    // Cube kernels count the cube cores; mixed groups get no verdict.
    CHECK(*exact_deadlock_verdict(equal_kernels(2, 11, KernelType::AIC_ONLY), {48, 20}).reachable);
    std::vector<LaunchIdentity> mixed = equal_kernels(2, 30);
    mixed[1].type = KernelType::MIX_AIC_1_2;
    CHECK_FALSE(exact_deadlock_verdict(mixed, {48, 24}).reachable.has_value());
}
