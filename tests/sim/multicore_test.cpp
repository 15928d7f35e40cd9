// Multi-core kernels: hard and soft SyncAll, kernel types and placement, cross-core flags,
// stuck reports, GM contention from barrier polling.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "base/errors.h"
#include "base/transaction.h"
#include "sim/kernels/builtin_kernels.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"

using namespace npusim;

namespace {

struct Recorder final : TransactionObserver {
    std::vector<Transaction> txs;
    void on_transaction(const Transaction& tx) override { txs.push_back(tx); }
    std::vector<Transaction> of(Op op) const {
        std::vector<Transaction> out;
        for (const Transaction& tx : txs) {
            if (tx.op == op) out.push_back(tx);
        }
        return out;
    }
};

struct Reduction {
    kernels::ReductionArgs args;
    std::uint32_t blocks;
    Reduction(Simulator& sim, std::uint32_t block_count, std::uint32_t sync) : blocks(block_count) {
        args.elements = 32;
        args.sync = sync;
        const std::uint64_t total = 32ull * blocks;
        args.input = sim.allocate<float>(total, "input");
        args.work = sim.allocate<float>(total, "work");
        args.output = sim.allocate<float>(total, "output");
        args.sync_workspace = sim.allocate<std::int32_t>(8ull * blocks, "ws");
        sim.write(args.input, std::vector<float>(total, 1.0F));
    }
    RunResult run(Simulator& sim, LaunchSpec spec = {}) {
        spec.name = "reduction";
        spec.blocks = blocks;
        return sim.run(spec, kernels::syncall_reduction, args);
    }
    bool all_equal(Simulator& sim, float want) {
        const auto out = sim.read(args.output);
        return std::all_of(out.begin(), out.end(), [&](float v) { return v == want; });
    }
};

}  // namespace

TEST_CASE("SyncAll reduction gives 16.0 everywhere with hard and soft SyncAll", "[multicore]") {
    for (std::uint32_t sync : {1u, 2u}) {
        Simulator sim(builtin_chip_config("a2"));
        Reduction r(sim, 8, sync);
        const RunResult result = r.run(sim);
        INFO("sync mode " << sync);
        REQUIRE(result.completed());
        CHECK(r.all_equal(sim, 16.0F));
    }
}

TEST_CASE("reduction without SyncAll is wrong when one block starts late", "[multicore]") {
    Simulator sim(builtin_chip_config("a2"));
    Reduction r(sim, 8, 0);
    LaunchSpec spec;
    spec.start_offsets = {0, 0, 0, 0, 0, 0, 0, 20000};  // block 7 writes its slice far too late
    const RunResult result = r.run(sim, spec);
    REQUIRE(result.completed());
    CHECK_FALSE(r.all_equal(sim, 16.0F));
}

TEST_CASE("the same skew with the barrier gives the right output", "[multicore]") {
    Simulator sim(builtin_chip_config("a2"));
    Reduction fixed(sim, 8, 1);
    LaunchSpec spec;
    spec.start_offsets = {0, 0, 0, 0, 0, 0, 0, 20000};
    REQUIRE(fixed.run(sim, spec).completed());
    CHECK(fixed.all_equal(sim, 16.0F));
}

TEST_CASE("seeded start jitter is deterministic", "[multicore]") {
    auto cycles_with_seed = [](std::uint64_t seed) {
        Simulator sim(builtin_chip_config("a2"));
        Reduction r(sim, 8, 1);
        LaunchSpec spec;
        spec.start_jitter_cycles = 5000;
        spec.jitter_seed = seed;
        return r.run(sim, spec).cycles();
    };
    CHECK(cycles_with_seed(7) == cycles_with_seed(7));
    CHECK(cycles_with_seed(7) != cycles_with_seed(8));
}

TEST_CASE("hard SyncAll releases latency cycles after the slowest arrival", "[multicore]") {
    Simulator sim(builtin_chip_config("a2"));
    Recorder rec;
    sim.attach(rec);
    Reduction r(sim, 8, 1);
    LaunchSpec spec;
    spec.start_offsets = {0, 100, 200, 300, 400, 500, 600, 3000};
    REQUIRE(r.run(sim, spec).completed());
    std::vector<Transaction> syncs;
    for (const Transaction& tx : rec.of(Op::SyncAll)) {
        if (!tx.arrival) syncs.push_back(tx);
    }
    REQUIRE(syncs.size() == 8);
    Cycle last_arrival = 0;
    for (const Transaction& tx : syncs) last_arrival = std::max(last_arrival, tx.start);
    for (const Transaction& tx : syncs) {
        CHECK(tx.end == last_arrival + sim.chip().syncall_latency);
        CHECK(tx.sync_id == syncs.front().sync_id);
    }
}

TEST_CASE("repeated SyncAll in a loop works, hard and soft", "[multicore]") {
    for (std::uint32_t sync : {1u, 2u}) {
        Simulator sim(builtin_chip_config("small"));
        auto counter = sim.allocate<std::int32_t>(4 * 8, "counter");
        auto ws = sim.allocate<std::int32_t>(4 * 8, "ws");
        auto kernel = [sync](Block& b, GlobalTensor<std::int32_t> c, GlobalTensor<std::int32_t> w) {
            auto ub = b.alloc<std::int32_t>(MemSpace::UB, 32);
            for (int round = 0; round < 5; ++round) {
                // Block 0 reads everyone's value written before the barrier.
                b.store(c, b.block_idx() * 8, round + 1);
                if (sync == 1)
                    b.sync_all();
                else
                    b.sync_all(w, ub, 4);
                if (b.block_idx() == 0) {
                    for (std::uint32_t i = 0; i < 4; ++i) {
                        if (b.load(c, i * 8) != round + 1)
                            throw std::runtime_error("barrier leaked");
                    }
                }
                if (sync == 1)
                    b.sync_all();
                else
                    b.sync_all(w, ub, 4);
            }
        };
        INFO("sync mode " << sync);
        const RunResult r = sim.run({.name = "loop", .blocks = 4}, kernel, counter, ws);
        CHECK(r.completed());
    }
}

TEST_CASE("soft SyncAll costs more with more blocks (GM traffic)", "[multicore]") {
    auto barrier_cost = [](std::uint32_t blocks) {
        Simulator sim(builtin_chip_config("a2"));
        Recorder rec;
        sim.attach(rec);
        Reduction r(sim, blocks, 2);
        REQUIRE(r.run(sim).completed());
        Cycle longest = 0;
        for (const Transaction& tx : rec.of(Op::SoftSyncAll))
            longest = std::max(longest, tx.end - tx.start);
        return longest;
    };
    const Cycle c4 = barrier_cost(4), c16 = barrier_cost(16), c48 = barrier_cost(48);
    INFO("soft SyncAll cycles: 4 blocks " << c4 << ", 16 blocks " << c16 << ", 48 blocks " << c48);
    CHECK(c4 < c16);
    CHECK(c16 < c48);
}

TEST_CASE("soft SyncAll rule violations name the call's line", "[multicore][rules]") {
    struct Case {
        const char* what;
        std::uint64_t gm_slots;
        std::uint64_t ub_slots;
        std::uint32_t used;
        bool dirty;
        const char* expect;
    };
    const Case cases[] = {
        {"GM too small", 3, 4, 4, false, "GM workspace holds 96 bytes, needs usedCores x 32 = 128"},
        {"UB too small", 4, 2, 4, false,
         "UB workspace must be in UB and hold usedCores x 32 = 128"},
        {"usedCores > blocks", 8, 8, 5, false,
         "usedCores 5 must be between 1 and the kernel's block count 4"},
        {"not zero", 4, 4, 4, true, "GM workspace is not zero before first use"},
    };
    for (const Case& c : cases) {
        Simulator sim(builtin_chip_config("small"));
        auto ws = sim.allocate<std::int32_t>(c.gm_slots * 8, "ws");
        if (c.dirty) sim.write(ws, std::vector<std::int32_t>(c.gm_slots * 8, 3));
        int line = 0;
        auto kernel = [&](Block& b) {
            auto ub = b.alloc<std::int32_t>(MemSpace::UB, c.ub_slots * 8);
            line = __LINE__ + 1;
            b.sync_all(ws, ub, c.used);
        };
        INFO(c.what);
        try {
            sim.run({.name = "soft", .blocks = 4}, kernel);
            FAIL("expected a KernelError");
        } catch (const KernelError& e) {
            const std::string message = e.what();
            CHECK_THAT(message, Catch::Contains(c.expect));
            CHECK_THAT(message, Catch::Contains("multicore_test.cpp:" + std::to_string(line)));
            CHECK_THAT(message, Catch::Contains("kernel 'soft'"));
        }
    }
    // On a cube core.
    Simulator sim(builtin_chip_config("small"));
    auto ws = sim.allocate<std::int32_t>(16, "ws");
    auto kernel = [&](Block& b) {
        b.sync_all(ws, LocalTensor<std::int32_t>{MemSpace::UB, 0, 16}, 1);
    };
    CHECK_THROWS_WITH(sim.run({.name = "cube", .blocks = 1, .type = KernelType::AIC_ONLY}, kernel),
                      Catch::Contains("vector cores only"));
}

TEST_CASE("SyncAll with 50 blocks on 48 cores stops with the stuck report",
          "[multicore][deadlock]") {
    for (std::uint32_t sync : {1u, 2u}) {
        Simulator sim(builtin_chip_config("a2"));
        Reduction r(sim, 50, sync);
        const RunResult result = r.run(sim);
        INFO("sync mode " << sync);
        REQUIRE(result.outcome == RunOutcome::Deadlock);
        std::size_t waiting = 0, unstarted = 0;
        for (const StuckBlock& s : result.stuck) {
            if (s.core < 0) {
                ++unstarted;
                CHECK(s.block >= 48);
                CHECK_THAT(s.reason, Catch::Contains("never started"));
            } else {
                ++waiting;
                CHECK_THAT(s.where, Catch::Contains("builtin_kernel_bodies.cpp:"));
                CHECK_THAT(s.reason, Catch::Contains("48"));
                CHECK_THAT(s.reason, Catch::Contains("49"));
            }
        }
        CHECK(waiting == 48);
        CHECK(unstarted == 2);
        // The simulator is usable afterwards.
        Reduction ok(sim, 8, sync);
        CHECK(ok.run(sim).completed());
        CHECK(ok.all_equal(sim, 16.0F));
    }
}

TEST_CASE("1:2 mixed kernel: cube matmul, cross-core flag, vector post-processing",
          "[multicore][mix]") {
    Simulator sim(builtin_chip_config("a2"));
    const KernelDefinition* k = find_builtin_kernel("mix_matmul");
    REQUIRE(k != nullptr);
    LaunchSpec launch;
    launch.blocks = 1;
    const KernelOutcome out = k->run(sim, launch, {{"m", 32}, {"n", 32}, {"k", 32}});
    REQUIRE(out.run.completed());
    CHECK(out.verified);
    CHECK(out.run.cores.size() == 3);  // one AIC, two AIVs
}

TEST_CASE("block index semantics of every kernel type", "[multicore][mix]") {
    struct Expect {
        KernelType type;
        std::uint32_t vector_blocks;
        std::uint32_t cube_blocks;
    };
    for (const Expect e :
         {Expect{KernelType::AIV_ONLY, 3, 0}, Expect{KernelType::AIC_ONLY, 0, 3},
          Expect{KernelType::MIX_AIV_1_0, 3, 0}, Expect{KernelType::MIX_AIC_1_0, 0, 3},
          Expect{KernelType::MIX_AIC_1_1, 3, 3}, Expect{KernelType::MIX_AIC_1_2, 6, 3}}) {
        Simulator sim(builtin_chip_config("a2"));
        std::vector<std::string> seen;
        auto kernel = [&](Block& b) {
            seen.push_back(std::string(to_string(b.core_type())) + ":" +
                           std::to_string(b.block_idx()) + "/" + std::to_string(b.block_num()) +
                           " sub " + std::to_string(b.sub_block_idx()) + " group " +
                           std::to_string(b.group_idx()));
        };
        INFO(to_string(e.type));
        REQUIRE(sim.run({.name = "idx", .blocks = 3, .type = e.type}, kernel).completed());
        std::sort(seen.begin(), seen.end());
        std::vector<std::string> want;
        for (std::uint32_t i = 0; i < e.cube_blocks; ++i) {
            want.push_back("aic:" + std::to_string(i) + "/3 sub 0 group " + std::to_string(i));
        }
        for (std::uint32_t i = 0; i < e.vector_blocks; ++i) {
            const std::uint32_t per = e.vector_blocks / 3;
            want.push_back("aiv:" + std::to_string(i) + "/" + std::to_string(e.vector_blocks) +
                           " sub " + std::to_string(per == 2 ? i % 2 : 0) + " group " +
                           std::to_string(i / per));
        }
        std::sort(want.begin(), want.end());
        CHECK(seen == want);
    }
}

TEST_CASE("cross-core flags: mode 0 round, counter overflow, misuse", "[multicore][xflag]") {
    SECTION("mode 0 makes every AIV wait for all of them") {
        Simulator sim(builtin_chip_config("small"));
        Recorder rec;
        sim.attach(rec);
        LaunchSpec spec{.name = "round", .blocks = 4};
        spec.start_offsets = {0, 0, 0, 2000};
        auto kernel = [](Block& b) {
            b.cross_core_set_flag(0, Pipe::S, 3);
            b.cross_core_wait_flag(3);
        };
        REQUIRE(sim.run(spec, kernel).completed());
        for (const Transaction& tx : rec.of(Op::CrossCoreWaitFlag)) CHECK(tx.end >= 2000);
    }
    SECTION("a 17th set without a wait overflows the counter") {
        Simulator sim(builtin_chip_config("small"));
        auto kernel = [](Block& b) {
            if (b.core_type() == CoreType::Cube) {
                for (int i = 0; i < 17; ++i) b.cross_core_set_flag(2, Pipe::S, 1);
            }
        };
        CHECK_THROWS_WITH(
            sim.run({.name = "ovf", .blocks = 1, .type = KernelType::MIX_AIC_1_1}, kernel),
            Catch::Contains("overflows") && Catch::Contains("16 sets"));
    }
    SECTION("flag id and mode checks") {
        Simulator sim(builtin_chip_config("small"));
        CHECK_THROWS_WITH(sim.run({.name = "id", .blocks = 1},
                                  [](Block& b) { b.cross_core_set_flag(0, Pipe::S, 16); }),
                          Catch::Contains("flag id must be 0-15"));
        CHECK_THROWS_WITH(
            sim.run({.name = "id", .blocks = 1}, [](Block& b) { b.cross_core_wait_flag(16); }),
            Catch::Contains("CrossCoreWaitFlag(16): flag id must be 0-15"));
        CHECK_THROWS_WITH(sim.run({.name = "m1", .blocks = 1},
                                  [](Block& b) { b.cross_core_set_flag(1, Pipe::S, 0); }),
                          Catch::Contains("mode 1"));
        CHECK_THROWS_WITH(sim.run({.name = "m2", .blocks = 1},
                                  [](Block& b) { b.cross_core_set_flag(2, Pipe::V, 0); }),
                          Catch::Contains("mode 2"));
    }
    SECTION("a wait nobody sets is reported as stuck") {
        Simulator sim(builtin_chip_config("small"));
        int line = 0;
        auto kernel = [&](Block& b) {
            line = __LINE__ + 1;
            b.cross_core_wait_flag(4);
        };
        const RunResult r = sim.run({.name = "lonely", .blocks = 1}, kernel);
        REQUIRE(r.outcome == RunOutcome::Deadlock);
        REQUIRE(r.stuck.size() == 1);
        CHECK_THAT(r.stuck[0].where,
                   Catch::StartsWith("multicore_test.cpp:" + std::to_string(line) + ":"));
        CHECK_THAT(r.stuck[0].reason, Catch::Contains("CrossCoreWaitFlag(4)"));
    }
}

TEST_CASE("cross-core flag ids 0-15, and the ids 11-14 that hard SyncAll reserves",
          "[multicore][xflag]") {
    // Block 0 sends a value to block 1 through GM, ordered by a cross-core flag `id`
    // (mode 2 between the AIC and the AIV of a MIX_AIC_1_1 group: AIC stores, AIV loads).
    // `sync`: 0 none, 1 hard SyncAll first, 2 soft SyncAll first (AIV only).
    struct Lines {
        int set = 0;
        int wait = 0;
        int sync_all = 0;
    };
    auto run = [](std::uint32_t id, int sync, bool sync_after, Lines& lines) {
        Simulator sim(builtin_chip_config("small"));
        Checker checker(sim.global_memory());
        sim.attach(checker);
        auto data = sim.allocate<std::int32_t>(8, "data");
        auto ws = sim.allocate<std::int32_t>(8 * 8, "ws");
        sim.write(data, std::vector<std::int32_t>(8, 0));
        sim.write(ws, std::vector<std::int32_t>(8 * 8, 0));
        auto sync_all = [&](Block& b) {
            if (sync == 1) {
                lines.sync_all = __LINE__ + 1;
                b.sync_all(SyncAllScope::All);
            } else if (sync == 2 && b.core_type() == CoreType::Vector) {
                auto ub = b.alloc<std::int32_t>(MemSpace::UB, 8 * 8);
                b.sync_all(ws, ub, 1);
            }
        };
        auto kernel = [&](Block& b) {
            if (!sync_after) sync_all(b);
            if (b.core_type() == CoreType::Cube) {
                b.store(data, 0, 42);
                lines.set = __LINE__ + 1;
                b.cross_core_set_flag(2, Pipe::S, id);
            } else {
                lines.wait = __LINE__ + 1;
                b.cross_core_wait_flag(id);
                const std::int32_t got = b.load(data, 0);
                b.store(data, 1, got + 1);
            }
            if (sync_after) sync_all(b);
        };
        const RunResult r =
            sim.run({.name = "xflag", .blocks = 1, .type = KernelType::MIX_AIC_1_1}, kernel);
        CHECK(r.completed());
        CHECK_THAT(checker.findings(), NoFindings());
        return sim.read(data)[1];
    };
    Lines lines;
    SECTION("id 15 orders two blocks") {
        CHECK(run(15, 0, false, lines) == 43);
    }
    SECTION("id 15 with hard SyncAll") {
        CHECK(run(15, 1, false, lines) == 43);
    }
    SECTION("id 12 in a kernel without SyncAll") {
        CHECK(run(12, 0, false, lines) == 43);
    }
    SECTION("id 12 with soft SyncAll, which uses no flags") {
        CHECK(run(12, 2, false, lines) == 43);
    }
    SECTION("id 12 with hard SyncAll is a hardware-rule error naming both lines") {
        for (const bool sync_after : {false, true}) {
            INFO((sync_after ? "flag first" : "SyncAll first"));
            std::string message;
            try {
                run(12, 1, sync_after, lines);
            } catch (const KernelError& error) {
                message = error.what();
            }
            // Whichever flag call met the rule first: the AIC's set or the AIV's wait.
            const auto at = [](int line) {
                return Catch::Contains("multicore_test.cpp:" + std::to_string(line) + ":");
            };
            CHECK_THAT(message, at(lines.set) || at(lines.wait));
            CHECK_THAT(message, at(lines.sync_all));
            CHECK_THAT(message, Catch::Contains("use ids 0-10 or 15 in kernels that call hard "
                                                "SyncAll; hard SyncAll uses 11-14 internally"));
        }
    }
    SECTION("a wait for id 13 meets the rule too") {
        Simulator sim(builtin_chip_config("small"));
        int wait_line = 0, sync_line = 0;
        auto kernel = [&](Block& b) {
            sync_line = __LINE__ + 1;
            b.sync_all(SyncAllScope::All);
            wait_line = __LINE__ + 1;
            b.cross_core_wait_flag(13);
        };
        std::string message;
        try {
            sim.run({.name = "xwait", .blocks = 2}, kernel);
        } catch (const KernelError& error) {
            message = error.what();
        }
        CHECK_THAT(message, Catch::Contains("CrossCoreWaitFlag(13) uses a flag id that hard "
                                            "SyncAll reserves"));
        CHECK_THAT(message, Catch::Contains(":" + std::to_string(wait_line) + ":"));
        CHECK_THAT(message, Catch::Contains(":" + std::to_string(sync_line) + ":"));
    }
}

TEST_CASE("soft SyncAll polling slows another kernel's GM copies", "[multicore][contention]") {
    auto copy_kernel_end = [](bool with_pollers) {
        // A narrow GM (64 B/cycle) that the pollers' traffic alone nearly fills. Bandwidth is
        // shared first come, first served in issue order, so the copier issues one copy at a
        // time (as a kernel that consumes each tile would) and meets the polls.
        ChipConfig chip = builtin_chip_config("a2");
        chip.gm_bytes_per_cycle = 64;
        chip.l2_bytes = 0;  // no L2: the polls' hot lines would be served there
        Simulator sim(chip);
        const std::uint64_t n = 16384;  // 64 KiB per block
        auto src = sim.allocate<float>(4 * n, "src");
        auto ws = sim.allocate<std::int32_t>(44 * 8, "ws");
        auto copier = [n](Block& b, GlobalTensor<float> s) {
            auto ub = b.alloc<float>(MemSpace::UB, n / 2);
            for (std::uint64_t at = 0; at < n; at += 512) {
                b.copy(ub.sub(0, 512), s.sub(b.block_idx() * n + at, 512), 512);
                b.set_flag(Pipe::MTE2, Pipe::S, 0);
                b.wait_flag(Pipe::MTE2, Pipe::S, 0);
            }
        };
        sim.launch({.name = "copier", .blocks = 4}, [&](Block& b) { copier(b, src); });
        if (with_pollers) {
            // 44 blocks spin in a soft SyncAll that one of them reaches late.
            LaunchSpec spec{.name = "pollers", .blocks = 44};
            spec.start_offsets.assign(44, 0);
            spec.start_offsets[43] = 30000;
            sim.launch(spec, [&](Block& b) {
                auto ub = b.alloc<std::int32_t>(MemSpace::UB, 44 * 8);
                b.sync_all(ws, ub, 44);
            });
        }
        const RunResult r = sim.run();
        REQUIRE(r.completed());
        return r.kernels.front().end;
    };
    const Cycle alone = copy_kernel_end(false);
    const Cycle contended = copy_kernel_end(true);
    INFO("copier alone " << alone << " cycles, with pollers " << contended);
    CHECK(contended > alone);
}

TEST_CASE("the checker reports nothing on the correct built-in kernels", "[multicore][checker]") {
    struct Case {
        const char* kernel;
        std::uint32_t blocks;
        std::map<std::string, std::uint64_t> params;
    };
    const Case cases[] = {
        {"vector_add", 8, {{"elements", 8 * 2048 * 4}, {"tile", 2048}, {"buffers", 2}}},
        {"vector_add", 4, {{"elements", 4 * 2048 * 2}, {"tile", 2048}, {"buffers", 1}}},
        {"syncall_reduction", 8, {{"elements", 32}, {"sync", 1}}},
        {"syncall_reduction", 8, {{"elements", 32}, {"sync", 2}}},
        {"mix_matmul", 1, {{"m", 32}, {"n", 32}, {"k", 32}}},
        {"vector_chain", 4, {{"elements", 8192}, {"tile", 256}, {"barrier", 1}}},
    };
    for (const Case& c : cases) {
        Simulator sim(builtin_chip_config("a2"));
        Checker checker(sim.global_memory());
        sim.attach(checker);
        LaunchSpec launch;
        launch.blocks = c.blocks;
        const KernelOutcome out = find_builtin_kernel(c.kernel)->run(sim, launch, c.params);
        INFO(c.kernel << " " << out.verification);
        CHECK(out.verified);
        CHECK_THAT(checker.findings(), NoFindings());
    }
}

TEST_CASE("hazard mode reports every instance, analysis mode folds them", "[multicore][checker]") {
    auto findings = [](bool deduplicate) {
        Simulator sim(builtin_chip_config("a2"));
        CheckerOptions options;
        options.deduplicate = deduplicate;
        Checker checker(sim.global_memory(), options);
        sim.attach(checker);
        LaunchSpec launch;
        launch.blocks = 4;
        find_builtin_kernel("vector_chain")
            ->run(sim, launch, {{"elements", 8192}, {"tile", 256}, {"barrier", 0}});
        return checker.findings();
    };
    const auto folded = findings(true);
    const auto all = findings(false);
    REQUIRE(folded.size() == 2);   // RAW and WAW between the same two lines
    CHECK(folded[0].count == 32);  // 8 tiles x 4 blocks
    CHECK(all.size() == 64);
}
