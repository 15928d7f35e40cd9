// Timing of the core model: the cost model on isolated instructions (exact numbers from the
// "small" preset), in-order pipes and queue depth, GM bandwidth contention (a2 preset), and
// the statistics a RunResult reports.
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/simulator.h"
#include "test_support.h"

using namespace npusim;
using npusim::test::Recorder;

namespace {

// The small preset's timing parameters (configs/chips/small.json), spelled out so that a test
// failure shows which formula moved.
constexpr Cycle kScalarCall = 1;
constexpr Cycle kMte2Latency = 100;
constexpr Cycle kMte3Latency = 100;
constexpr Cycle kVCopyLatency = 8;
constexpr Cycle kMte1Latency = 16;
constexpr Cycle kFixLatency = 40;
constexpr Cycle kVectorStartup = 8;
constexpr Cycle kCubeStartup = 16;
constexpr Cycle kScalarUbLatency = 4;
constexpr Cycle kScalarGmLatency = 100;

Cycle ceil_div(std::uint64_t a, std::uint64_t b) {
    return (a + b - 1) / b;
}

/// A single-instruction measurement: the one transaction of `op` the kernel issued.
Transaction only(const Recorder& rec, Op op) {
    const std::vector<Transaction> txs = rec.of(op);
    REQUIRE(txs.size() == 1);
    return txs.front();
}

void check_chip_is_as_documented(const ChipConfig& c) {
    // Guards the constants above: if the preset changes, fix the constants, not the model.
    REQUIRE(c.scalar_cycles_per_call == kScalarCall);
    REQUIRE(c.copy_group("mte2").latency == kMte2Latency);
    REQUIRE(c.copy_group("mte2").bytes_per_cycle == 32);
    REQUIRE(c.copy_group("mte3").latency == kMte3Latency);
    REQUIRE(c.copy_group("mte3").bytes_per_cycle == 32);
    REQUIRE(c.copy_group("v").latency == kVCopyLatency);
    REQUIRE(c.copy_group("v").bytes_per_cycle == 128);
    REQUIRE(c.copy_group("mte1").latency == kMte1Latency);
    REQUIRE(c.copy_group("mte1").bytes_per_cycle == 128);
    REQUIRE(c.copy_group("fix").latency == kFixLatency);
    REQUIRE(c.copy_group("fix").bytes_per_cycle == 64);
    REQUIRE(c.vector_startup_cycles == kVectorStartup);
    REQUIRE(c.vector_repeat_bytes == 256);
    REQUIRE(c.cube_startup_cycles == kCubeStartup);
    REQUIRE(c.scalar_ub_latency == kScalarUbLatency);
    REQUIRE(c.scalar_gm_latency == kScalarGmLatency);
    REQUIRE(c.gm_bytes_per_cycle == 64);
    REQUIRE(c.queue_depth == 16);
}

/// An instruction on an idle pipe: starts at its issue, occupies ceil(bytes / rate) cycles,
/// then its results land `latency` cycles later.
void check_idle_timing(const Transaction& tx, Pipe pipe, std::uint64_t bytes, std::uint64_t rate,
                       Cycle latency) {
    CHECK(tx.pipe == pipe);
    CHECK(tx.start == tx.issue);
    CHECK(tx.pipe_free - tx.start == ceil_div(bytes, rate));
    CHECK(tx.end - tx.pipe_free == latency);
}

}  // namespace

TEST_CASE("the small preset has the timing parameters these tests assume", "[timing]") {
    check_chip_is_as_documented(test::small_chip());
}

TEST_CASE("copies cost latency + bytes / path rate on an idle chip", "[timing][engine]") {
    Recorder rec;  // outlives the simulator it is attached to
    Simulator sim(test::small_chip());
    sim.attach(rec);

    SECTION("GM -> UB on MTE2") {
        for (const std::uint64_t elements : {8u, 2048u, 1032u}) {
            rec.clear();
            auto x = sim.allocate<float>(elements);
            const RunResult r = sim.run({.name = "gm_to_ub"}, [=](Block& b) {
                auto ub = b.alloc<float>(MemSpace::UB, elements);
                b.copy(ub, x, elements);
            });
            REQUIRE(r.completed());
            const Transaction tx = only(rec, Op::Copy);
            INFO("elements " << elements);
            check_idle_timing(tx, Pipe::MTE2, elements * 4, 32, kMte2Latency);
            CHECK(r.gm_bytes == elements * 4);
        }
    }
    SECTION("UB -> GM on MTE3") {
        for (const std::uint64_t elements : {8u, 4096u, 1000u}) {
            rec.clear();
            auto z = sim.allocate<float>(elements);
            const RunResult r = sim.run({.name = "ub_to_gm"}, [=](Block& b) {
                auto ub = b.alloc<float>(MemSpace::UB, elements);
                b.copy(z, ub, elements);
            });
            REQUIRE(r.completed());
            const Transaction tx = only(rec, Op::Copy);
            INFO("elements " << elements);
            check_idle_timing(tx, Pipe::MTE3, elements * 4, 32, kMte3Latency);
        }
    }
    SECTION("UB -> UB on V, rounded up to whole cycles") {
        for (const std::uint64_t elements : {8u, 2048u, 2056u, 40u}) {
            rec.clear();
            const RunResult r = sim.run({.name = "ub_to_ub"}, [=](Block& b) {
                auto a = b.alloc<float>(MemSpace::UB, elements);
                auto c = b.alloc<float>(MemSpace::UB, elements);
                b.copy(c, a, elements);
            });
            REQUIRE(r.completed());
            const Transaction tx = only(rec, Op::Copy);
            INFO("elements " << elements);
            check_idle_timing(tx, Pipe::V, elements * 4, 128, kVCopyLatency);
            CHECK(r.gm_bytes == 0);
        }
    }
    SECTION("L1 -> L0A / L0B on MTE1 (cube core)") {
        for (const std::uint64_t elements : {1024u, 1040u, 16u}) {
            rec.clear();
            const RunResult r =
                sim.run({.name = "l1_to_l0", .type = KernelType::AIC_ONLY}, [=](Block& b) {
                    auto l1 = b.alloc<half>(MemSpace::L1, elements);
                    auto l0a = b.alloc<half>(MemSpace::L0A, elements);
                    auto l0b = b.alloc<half>(MemSpace::L0B, elements);
                    b.copy(l0a, l1, elements);
                    b.copy(l0b, l1, elements);
                });
            REQUIRE(r.completed());
            const std::vector<Transaction> txs = rec.of(Op::Copy);
            REQUIRE(txs.size() == 2);
            INFO("elements " << elements);
            const Cycle occupancy = ceil_div(elements * 2, 128);
            for (const Transaction& tx : txs) {
                CHECK(tx.pipe == Pipe::MTE1);
                CHECK(tx.pipe_free - tx.start == occupancy);
                CHECK(tx.end - tx.pipe_free == kMte1Latency);
            }
            // Same pipe: the second starts when the first frees the pipe, not when it ends.
            CHECK(txs[0].start == txs[0].issue);
            CHECK(txs[1].start == txs[0].pipe_free);
        }
    }
    SECTION("L0C -> GM on FIX (cube core)") {
        for (const std::uint64_t elements : {1024u, 8u, 1032u}) {
            rec.clear();
            auto z = sim.allocate<float>(elements);
            const RunResult r =
                sim.run({.name = "l0c_to_gm", .type = KernelType::AIC_ONLY}, [=](Block& b) {
                    auto l0c = b.alloc<float>(MemSpace::L0C, elements);
                    b.copy(z, l0c, elements);
                });
            REQUIRE(r.completed());
            const Transaction tx = only(rec, Op::Copy);
            INFO("elements " << elements);
            check_idle_timing(tx, Pipe::FIX, elements * 4, 64, kFixLatency);
            CHECK(r.gm_bytes == elements * 4);
        }
    }
}

TEST_CASE("vector ops cost startup + ceil(widest operand bytes / 256)", "[timing][engine]") {
    Recorder rec;  // outlives the simulator it is attached to
    Simulator sim(test::small_chip());
    sim.attach(rec);

    SECTION("fp32 add at several sizes, including sizes that are not a multiple of 256 bytes") {
        for (const std::uint64_t elements : {8u, 64u, 65u, 250u, 256u, 1000u, 4096u}) {
            rec.clear();
            const RunResult r = sim.run({.name = "vadd"}, [=](Block& b) {
                auto a = b.alloc<float>(MemSpace::UB, elements);
                auto c = b.alloc<float>(MemSpace::UB, elements);
                b.add(c, a, a, elements);
            });
            REQUIRE(r.completed());
            const Transaction tx = only(rec, Op::Add);
            INFO("elements " << elements);
            check_idle_timing(tx, Pipe::V, elements * 4, 256, kVectorStartup);
            CHECK(tx.count == elements);
        }
    }
    SECTION("fp16 add: bytes, not elements, set the cost") {
        rec.clear();
        const RunResult r = sim.run({.name = "vadd16"}, [](Block& b) {
            auto a = b.alloc<half>(MemSpace::UB, 130);
            b.add(a, a, a, 130);  // 260 bytes -> 2 repeats
        });
        REQUIRE(r.completed());
        const Transaction tx = only(rec, Op::Add);
        CHECK(tx.pipe_free - tx.start == 2);
        CHECK(tx.end - tx.pipe_free == kVectorStartup);
    }
    SECTION("cast: the widest operand counts") {
        rec.clear();
        const RunResult r = sim.run({.name = "vcast"}, [](Block& b) {
            auto h = b.alloc<half>(MemSpace::UB, 128);   // 256 bytes
            auto f = b.alloc<float>(MemSpace::UB, 128);  // 512 bytes
            b.cast(f, h, 128);
        });
        REQUIRE(r.completed());
        const Transaction tx = only(rec, Op::Cast);
        CHECK(tx.pipe_free - tx.start == 2);
        CHECK(tx.dtype == DType::F32);
        CHECK(tx.src_dtype == DType::F16);
    }
    SECTION("reduce_sum reads n elements and writes one") {
        rec.clear();
        const RunResult r = sim.run({.name = "vreduce"}, [](Block& b) {
            auto a = b.alloc<float>(MemSpace::UB, 192);  // 768 bytes -> 3 repeats
            auto s = b.alloc<float>(MemSpace::UB, 8);
            b.reduce_sum(s, a, 192);
        });
        REQUIRE(r.completed());
        const Transaction tx = only(rec, Op::ReduceSum);
        CHECK(tx.pipe_free - tx.start == 3);
        CHECK(tx.end - tx.pipe_free == kVectorStartup);
    }
}

TEST_CASE("mmad costs startup + ceil(m/16) ceil(n/16) ceil(k/16)", "[timing][engine]") {
    Recorder rec;  // outlives the simulator it is attached to
    Simulator sim(test::small_chip());
    sim.attach(rec);
    struct Shape {
        std::uint32_t m, n, k;
        Cycle fractals;
    };
    for (const Shape s : {Shape{32, 32, 32, 8}, Shape{16, 16, 16, 1}, Shape{17, 16, 16, 2},
                          Shape{48, 32, 64, 24}, Shape{1, 1, 1, 1}}) {
        rec.clear();
        const RunResult r = sim.run({.name = "mmad", .type = KernelType::AIC_ONLY}, [=](Block& b) {
            auto a = b.alloc<half>(MemSpace::L0A, std::uint64_t{s.m} * s.k);
            auto w = b.alloc<half>(MemSpace::L0B, std::uint64_t{s.k} * s.n);
            auto c = b.alloc<float>(MemSpace::L0C, std::uint64_t{s.m} * s.n);
            b.mmad(c, a, w, s.m, s.n, s.k);
        });
        REQUIRE(r.completed());
        const Transaction tx = only(rec, Op::Mmad);
        INFO("m n k = " << s.m << " " << s.n << " " << s.k);
        CHECK(tx.pipe == Pipe::M);
        CHECK(tx.start == tx.issue);
        CHECK(tx.pipe_free - tx.start == s.fractals);
        CHECK(tx.end - tx.pipe_free == kCubeStartup);
        CHECK(r.cycles() == tx.end - r.start_cycle);
    }
}

TEST_CASE("scalar calls cost cycles_per_call: loads wait and stores are buffered",
          "[timing][engine]") {
    Recorder rec;  // outlives the simulator it is attached to
    Simulator sim(test::small_chip());
    sim.attach(rec);
    auto g = sim.allocate<float>(8, "g");
    sim.write(g, std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
    Cycle after_load = 0, after_store = 0, after_ub_load = 0;
    const RunResult r = sim.run({.name = "scalar"}, [&](Block& b) {
        auto ub = b.alloc<float>(MemSpace::UB, 8);
        (void)b.load(g, 3);
        after_load = b.now();
        b.store(ub, 0, 2.5F);
        after_store = b.now();
        (void)b.load(ub, 8);
        after_ub_load = b.now();
        b.store(g, 7, 9.0F);
    });
    REQUIRE(r.completed());
    const std::vector<Transaction> loads = rec.of(Op::ScalarLoad);
    const std::vector<Transaction> stores = rec.of(Op::ScalarStore);
    REQUIRE(loads.size() == 2);
    REQUIRE(stores.size() == 2);
    for (const Transaction& tx : rec.transactions) CHECK(tx.pipe == Pipe::S);

    // GM load: one call, then the scalar unit waits for the GM latency.
    CHECK(loads[0].issue == r.start_cycle + kScalarCall);
    CHECK(loads[0].start == loads[0].issue);
    CHECK(loads[0].end - loads[0].start == kScalarGmLatency);
    CHECK(loads[0].scalar == 4.0);
    CHECK(after_load == loads[0].end);
    // UB store: one call; the data lands after the UB latency, the scalar unit goes on.
    CHECK(stores[0].issue == after_load + kScalarCall);
    CHECK(stores[0].end - stores[0].start == kScalarUbLatency);
    CHECK(after_store == stores[0].issue);
    // UB load.
    CHECK(loads[1].issue == after_store + kScalarCall);
    CHECK(loads[1].end - loads[1].start == kScalarUbLatency);
    CHECK(after_ub_load == loads[1].end);
    // GM store: visible after the GM latency; the block ends when it is visible.
    CHECK(stores[1].end - stores[1].start == kScalarGmLatency);
    CHECK(r.end_cycle == stores[1].end);
    CHECK(sim.read(g)[7] == 9.0F);
}

TEST_CASE("a one-instruction kernel runs exactly issue + occupancy + latency cycles",
          "[timing][engine]") {
    Recorder rec;  // outlives the simulator it is attached to
    Simulator sim(test::small_chip());
    sim.attach(rec);

    SECTION("vector fill") {
        const RunResult r = sim.run({.name = "one_fill"}, [](Block& b) {
            auto a = b.alloc<float>(MemSpace::UB, 64);
            b.fill(a, 1.0F, 64);
        });
        REQUIRE(r.completed());
        CHECK(r.start_cycle == 0);
        CHECK(r.cycles() == kScalarCall + 1 + kVectorStartup);  // 10
        CHECK(r.instructions == 1);
        REQUIRE(r.kernels.size() == 1);
        CHECK(r.kernels[0].start == 0);
        CHECK(r.kernels[0].end == r.end_cycle);
        CHECK(r.simulated_seconds() == Approx(10e-9));
    }
    SECTION("GM -> UB copy of 8 KiB") {
        auto x = sim.allocate<float>(2048);
        const RunResult r = sim.run({.name = "one_copy"}, [=](Block& b) {
            auto a = b.alloc<float>(MemSpace::UB, 2048);
            b.copy(a, x, 2048);
        });
        REQUIRE(r.completed());
        CHECK(r.cycles() == kScalarCall + 8192 / 32 + kMte2Latency);  // 357
    }
    SECTION("a second run starts where the first ended and costs the same") {
        auto kernel = [](Block& b) {
            auto a = b.alloc<float>(MemSpace::UB, 64);
            b.fill(a, 1.0F, 64);
        };
        const RunResult first = sim.run({.name = "fill1"}, kernel);
        const RunResult second = sim.run({.name = "fill2"}, kernel);
        REQUIRE(second.completed());
        CHECK(second.start_cycle == first.end_cycle);
        CHECK(second.cycles() == first.cycles());
    }
}

TEST_CASE("same-pipe instructions overlap by their latency but not across a barrier",
          "[timing][engine]") {
    Recorder rec;  // outlives the simulator it is attached to
    Simulator sim(test::small_chip());
    sim.attach(rec);
    const RunResult r = sim.run({.name = "overlap"}, [](Block& b) {
        auto a = b.alloc<float>(MemSpace::UB, 1024);  // 4 KiB: 16 repeats
        b.add(a, a, a, 1024);
        b.add(a, a, a, 1024);
        b.pipe_barrier(Pipe::V);
        b.add(a, a, a, 1024);
    });
    REQUIRE(r.completed());
    const std::vector<Transaction> adds = rec.of(Op::Add);
    REQUIRE(adds.size() == 3);
    CHECK(adds[0].start == 1);
    CHECK(adds[0].pipe_free == 17);
    CHECK(adds[0].end == 25);
    CHECK(adds[1].issue == 2);
    CHECK(adds[1].start == adds[0].pipe_free);  // overlaps the latency of the first
    CHECK(adds[2].start == adds[1].end);        // the barrier waits for completion
    const Transaction barrier = only(rec, Op::PipeBarrier);
    CHECK(barrier.pipe == Pipe::V);
    CHECK(barrier.start == barrier.end);
}

TEST_CASE("a full pipe queue stalls the scalar unit until the oldest entry starts",
          "[timing][engine]") {
    Recorder rec;  // outlives the simulator it is attached to
    Simulator sim(test::small_chip());
    sim.attach(rec);
    constexpr int kOps = 20;
    const RunResult r = sim.run({.name = "queue"}, [](Block& b) {
        auto a = b.alloc<float>(MemSpace::UB, 4096);  // 16 KiB: 64 repeats each
        for (int i = 0; i < kOps; ++i) b.add(a, a, a, 4096);
    });
    REQUIRE(r.completed());
    const std::vector<Transaction> adds = rec.of(Op::Add);
    REQUIRE(adds.size() == kOps);
    const std::uint64_t depth = sim.chip().queue_depth;  // 16
    for (std::size_t i = 0; i < adds.size(); ++i) {
        INFO("add " << i);
        CHECK(adds[i].start == 1 + 64 * i);
        if (i <= depth) {
            CHECK(adds[i].issue == i + 1);  // room in the queue: one call each
        } else {
            // Issued when the instruction queue_depth places earlier started.
            CHECK(adds[i].issue == adds[i - depth].start);
        }
    }
}

TEST_CASE("RunResult statistics match what the kernel issued", "[timing][engine]") {
    Recorder rec;  // outlives the simulator it is attached to
    Simulator sim(test::small_chip());
    sim.attach(rec);
    constexpr std::uint32_t kBlocks = 8;  // two rounds on the 4 vector cores
    const test::AddBuffers buf = test::make_add_buffers(sim, kBlocks, 512);
    auto scratch = sim.allocate<float>(kBlocks * 8, "scratch");
    const RunResult r = sim.run({.name = "stats", .blocks = kBlocks}, [=](Block& b) {
        test::synced_add_kernel(b, buf);
        // + 2 scalar instructions per block
        b.store(scratch, b.block_idx() * 8, b.load(buf.x, b.block_idx() * 512));
    });
    REQUIRE(r.completed());
    CHECK(test::add_mismatches(sim, buf) == 0);

    // Per block: MTE2 = 2 copies + SetFlag; V = WaitFlag + add + SetFlag; MTE3 = WaitFlag +
    // copy; S = load + store.
    CHECK(r.instructions == kBlocks * (3 + 3 + 2 + 2));
    CHECK(r.instructions == rec.transactions.size());
    CHECK(r.gm_bytes == kBlocks * 512 * 4 * 3);
    REQUIRE(r.kernels.size() == 1);
    CHECK(r.kernels[0].blocks_finished == kBlocks);
    CHECK(r.kernels[0].end == r.end_cycle);
    REQUIRE(r.cores.size() == 4);
    const double span = static_cast<double>(r.cycles());
    for (const CoreUsage& core : r.cores) {
        INFO("core " << core.index);
        CHECK(core.type == CoreType::Vector);
        CHECK(core.blocks == 2);
        REQUIRE(core.pipes.size() == 4);
        for (const PipeUsage& p : core.pipes) {
            INFO("pipe " << to_string(p.pipe));
            std::vector<Transaction> txs;
            for (const Transaction& tx : rec.transactions) {
                if (tx.core == core.index && tx.pipe == p.pipe) txs.push_back(tx);
            }
            CHECK(p.instructions == txs.size());
            const std::uint64_t expected = p.pipe == Pipe::MTE2   ? 6
                                           : p.pipe == Pipe::V    ? 6
                                           : p.pipe == Pipe::MTE3 ? 4
                                                                  : 4;
            CHECK(p.instructions == expected);
            if (p.pipe != Pipe::S) {
                CHECK(p.busy_cycles == test::busy_union(txs));
                CHECK(p.busy_cycles > 0);
                CHECK(p.utilization == Approx(static_cast<double>(p.busy_cycles) / span));
                CHECK(p.utilization <= 1.0);
            }
        }
    }
}

TEST_CASE("GM bandwidth: one core copies at its path rate, 48 cores saturate the chip",
          "[timing][engine][contention]") {
    ChipConfig chip = test::a2_chip();
    chip.copy_paths[0].issue_cycles = 0;  // the MTE2 group: bandwidth alone, no issue cost
    REQUIRE(kCopyGroups[0].key == "mte2");
    REQUIRE(chip.vector_cores == 48);
    REQUIRE(chip.gm_bytes_per_cycle == 806);
    REQUIRE(chip.copy_group("mte2").bytes_per_cycle == 32);
    constexpr std::uint64_t kElements = 16384;  // 64 KiB per core
    constexpr std::uint64_t kBytes = kElements * 4;

    auto measure = [&](std::uint32_t blocks) {
        Recorder rec;
        Simulator sim(chip);
        sim.attach(rec);
        auto x = sim.allocate<float>(kElements * blocks, "x");
        const RunResult r = sim.run({.name = "stream_in", .blocks = blocks}, [=](Block& b) {
            auto ub = b.alloc<float>(MemSpace::UB, kElements);
            b.copy(ub, x.sub(b.block_idx() * kElements, kElements), kElements);
        });
        REQUIRE(r.completed());
        const std::vector<Transaction> copies = rec.of(Op::Copy);
        REQUIRE(copies.size() == blocks);
        Cycle first = copies.front().start, last = 0;
        for (const Transaction& tx : copies) {
            first = std::min(first, tx.start);
            last = std::max(last, tx.pipe_free);
            // No transfer is faster than its own path.
            CHECK(tx.pipe_free - tx.start >= kBytes / 32);
        }
        CHECK(r.gm_bytes == kBytes * blocks);
        return static_cast<double>(kBytes * blocks) / static_cast<double>(last - first);
    };

    SECTION("one core: exactly the MTE2 path rate") {
        CHECK(measure(1) == 32.0);
    }
    SECTION("48 cores: the chip rate, within 2%") {
        const double rate = measure(48);
        INFO("48-core aggregate GM rate: " << rate << " B/cycle (chip: 806)");
        CHECK(rate == Approx(806.0).epsilon(0.02));
        CHECK(rate <= 806.0 * 1.001);  // window accounting: at most a rounding above
    }
    SECTION("48 cores, fair share (a2 gm/fair_share 1): every copy moves at 806 / 48") {
        REQUIRE(chip.gm_fair_share == 1);
        Recorder rec;
        Simulator sim(chip);
        sim.attach(rec);
        auto x = sim.allocate<float>(kElements * 48, "x");
        REQUIRE(sim.run({.name = "stream_in", .blocks = 48},
                        [=](Block& b) {
                            auto ub = b.alloc<float>(MemSpace::UB, kElements);
                            b.copy(ub, x.sub(b.block_idx() * kElements, kElements), kElements);
                        })
                    .completed());
        // ceil(65536 * 48 / 806) = 3903 cycles each, none first come first served.
        for (const Transaction& tx : rec.of(Op::Copy)) CHECK(tx.pipe_free - tx.start == 3903);
    }
    SECTION("48 cores, first come first served (gm/fair_share 0): issue order decides") {
        chip.gm_fair_share = 0;
        Recorder rec;
        Simulator sim(chip);
        sim.attach(rec);
        auto x = sim.allocate<float>(kElements * 48, "x");
        REQUIRE(sim.run({.name = "stream_in", .blocks = 48},
                        [=](Block& b) {
                            auto ub = b.alloc<float>(MemSpace::UB, kElements);
                            b.copy(ub, x.sub(b.block_idx() * kElements, kElements), kElements);
                        })
                    .completed());
        Cycle shortest = ~Cycle{0};
        for (const Transaction& tx : rec.of(Op::Copy))
            shortest = std::min(shortest, tx.pipe_free - tx.start);
        CHECK(shortest == kBytes / 32);  // the first copies run at their path rate
    }
}
