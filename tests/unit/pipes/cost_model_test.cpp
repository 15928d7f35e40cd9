// CostModel: copy paths from the copy-route table, and the copy, vector, cube and scalar
// cost formulas (docs/cost-model.md), with the small preset's parameters.
#include "pipes/cost_model.h"

#include <catch2/catch.hpp>

#include "base/copy_routes.h"
#include "memory/gm_bandwidth.h"
#include "memory/l2_cache.h"
#include "pipes/op_table.h"
#include "pipes/pipe_unit.h"
#include "unit_support.h"

using namespace npusim;
using npusim::unit::small_chip;

TEST_CASE("cost model: every copy route has a path with its group's timing", "[unit]") {
    const ChipConfig& chip = small_chip();
    const CostModel cost(chip);
    for (const CopyRoute& route : kCopyRoutes) {
        CAPTURE(to_string(route.src), to_string(route.dst));
        const std::optional<CopyPath> path = cost.copy_path(route.src, route.dst);
        REQUIRE(path);
        CHECK(path->pipe == route.pipe);
        CHECK(path->latency == chip.copy_paths[route.group].latency);
        CHECK(path->bytes_per_cycle == chip.copy_paths[route.group].bytes_per_cycle);
        CHECK(path->uses_gm == (route.src == MemSpace::GM || route.dst == MemSpace::GM));
    }
}

TEST_CASE("cost model: the small preset's paths", "[unit]") {
    const CostModel cost(small_chip());
    const auto gm_ub = cost.copy_path(MemSpace::GM, MemSpace::UB);
    REQUIRE(gm_ub);
    CHECK(gm_ub->pipe == Pipe::MTE2);
    CHECK(gm_ub->latency == 100);
    CHECK(gm_ub->bytes_per_cycle == 32);
    CHECK(gm_ub->uses_gm);
    const auto l1_l0b = cost.copy_path(MemSpace::L1, MemSpace::L0B);
    REQUIRE(l1_l0b);
    CHECK(l1_l0b->pipe == Pipe::MTE1);
    CHECK(l1_l0b->latency == 16);
    CHECK(l1_l0b->bytes_per_cycle == 128);
    CHECK_FALSE(l1_l0b->uses_gm);
    const auto l0c_gm = cost.copy_path(MemSpace::L0C, MemSpace::GM);
    REQUIRE(l0c_gm);
    CHECK(l0c_gm->pipe == Pipe::FIX);
    CHECK(l0c_gm->latency == 40);
    CHECK(l0c_gm->uses_gm);
}

TEST_CASE("cost model: a pair of spaces without a route has no path", "[unit]") {
    const CostModel cost(small_chip());
    CHECK_FALSE(cost.copy_path(MemSpace::GM, MemSpace::GM));
    CHECK_FALSE(cost.copy_path(MemSpace::UB, MemSpace::L1));
    CHECK_FALSE(cost.copy_path(MemSpace::L0A, MemSpace::L1));
    CHECK_FALSE(cost.copy_path(MemSpace::GM, MemSpace::L0C));
    for (int s = 0; s < kMemSpaces; ++s) {
        for (int d = 0; d < kMemSpaces; ++d) {
            const auto src = static_cast<MemSpace>(s);
            const auto dst = static_cast<MemSpace>(d);
            CHECK(cost.copy_path(src, dst).has_value() == find_copy_route(src, dst).has_value());
        }
    }
}

TEST_CASE("cost model: a local copy occupies ceil(bytes / rate) and adds the path latency",
          "[unit]") {
    const CostModel cost(small_chip());
    const CopyPath path = *cost.copy_path(MemSpace::UB, MemSpace::UB);  // 128 B/cycle, 8
    CHECK(cost.local_copy(path, 128).occupancy == 1);
    CHECK(cost.local_copy(path, 129).occupancy == 2);
    CHECK(cost.local_copy(path, 4096).occupancy == 32);
    CHECK(cost.local_copy(path, 4096).latency == 8);
    const CopyPath custom{Pipe::MTE1, 3, 7, false};
    CHECK(cost.local_copy(custom, 15).occupancy == 3);
    CHECK(cost.local_copy(custom, 15).latency == 3);
}

TEST_CASE("cost model: a vector op is one cycle per repeat after the startup", "[unit]") {
    const CostModel cost(small_chip());  // 256 bytes per repeat, startup 8
    CHECK(cost.vector_op(1).occupancy == 1);
    CHECK(cost.vector_op(256).occupancy == 1);
    CHECK(cost.vector_op(257).occupancy == 2);
    CHECK(cost.vector_op(8192).occupancy == 32);
    CHECK(cost.vector_op(8192).latency == 8);
}

TEST_CASE("cost model: a cube op is one cycle per 16x16x16 fractal after the startup", "[unit]") {
    const CostModel cost(small_chip());  // startup 16
    CHECK(cost.cube_op(16, 16, 16).occupancy == 1);
    CHECK(cost.cube_op(1, 1, 1).occupancy == 1);
    CHECK(cost.cube_op(17, 16, 16).occupancy == 2);
    CHECK(cost.cube_op(32, 48, 64).occupancy == 2 * 3 * 4);
    CHECK(cost.cube_op(32, 48, 64).latency == 16);
    // The depth per cycle of each cube type (pipes/op_table.h): int8 32, fp32 8.
    CHECK(cost.cube_op(32, 48, 64, cube_type(DType::I8)->k0).occupancy == 2 * 3 * 2);
    CHECK(cost.cube_op(32, 48, 64, cube_type(DType::F32)->k0).occupancy == 2 * 3 * 8);
    CHECK(cost.cube_op(32, 48, 64, cube_type(DType::BF16)->k0).occupancy == 2 * 3 * 4);
    CHECK(cube_type(DType::U8) == nullptr);
}

TEST_CASE("cost model: scalar calls and scalar memory accesses", "[unit]") {
    const ChipConfig& chip = small_chip();
    const CostModel cost(chip);
    CHECK(cost.scalar_call() == chip.scalar_cycles_per_call);
    CHECK(cost.scalar_call() == 1);
    CHECK(cost.scalar_access(MemSpace::GM) == 100);
    CHECK(cost.scalar_access(MemSpace::UB) == 4);
}

TEST_CASE("cost model: reads the chip it was given, not a copy", "[unit]") {
    ChipConfig chip = small_chip();
    const CostModel cost(chip);
    chip.vector_repeat_bytes = 64;
    chip.cube_startup_cycles = 3;
    CHECK(cost.vector_op(256).occupancy == 4);
    CHECK(cost.cube_op(16, 16, 16).latency == 3);
}

// The a2 preset's fixed costs, bank conflicts and GM granules (docs/cost-model.md), pinned to
// the cycle counts the documentation derives by hand.
TEST_CASE("cost model: a2 vector instruction cost with and without UB bank conflicts", "[unit]") {
    const ChipConfig chip = builtin_chip_config("a2");
    const CostModel cost(chip);
    // 4096 fp32 = 16 KiB = 64 repeats of 256 bytes; 16 issue cycles (calibration case C1).
    CHECK(cost.vector_op(16384).occupancy == 16 + 64);
    // The vendor's bank_conflict_ub addresses: scenario 1 none, 2 read-read, 5 read-write,
    // 4 and 6 (a write onto a source's own banks) none.
    const std::uint64_t s1[2] = {0x0, 0x10100};
    const BankConflicts none = ub_bank_conflicts(s1, 2, 0x20000);
    CHECK_FALSE(none.read_read);
    CHECK_FALSE(none.read_write);
    const std::uint64_t s2[2] = {0x0, 0x4000};
    CHECK(ub_bank_conflicts(s2, 2, 0x10000).read_read);
    CHECK_FALSE(ub_bank_conflicts(s1, 2, 0x4000).read_write);
    CHECK(ub_bank_conflicts(s1, 2, 0x4020).read_write);
    CHECK_FALSE(ub_bank_conflicts(s1, 2, 0x10100).read_write);
    CHECK(cost.vector_op(16384, {.read_read = true}).occupancy == 16 + 64 * 2);
    CHECK(cost.vector_op(16384, {.read_write = true}).occupancy == 16 + 64 * 2);
}

TEST_CASE("cost model: a2 GM bursts move whole 512-byte granules they straddle", "[unit]") {
    const ChipConfig chip = builtin_chip_config("a2");
    const CostModel cost(chip);
    CHECK(cost.gm_bytes_moved(0, 2048) == 2048);            // aligned: 4 granules
    CHECK(cost.gm_bytes_moved(24574, 2046) == 2046 + 512);  // unaligned row: 5 granules
    CHECK(cost.gm_bytes_moved(24574, 512) == 1024);         // a 512-byte row over 2 granules
    CHECK(cost.gm_bytes_moved(128, 128) == 128);            // inside one granule
    const auto mte2 = cost.copy_path(MemSpace::GM, MemSpace::UB);
    REQUIRE(mte2);
    CHECK(mte2->issue_cycles == 16);
    CHECK(mte2->burst_cycles == 1);
    // The small preset keeps the old model: granule 1, no fixed costs.
    CHECK(CostModel(small_chip()).gm_bytes_moved(24574, 2046) == 2046);
    CHECK(CostModel(small_chip()).vector_op(16384).occupancy == 64);
}

TEST_CASE("pipe unit: an a2 GM -> UB copy that misses L2, then hits it", "[unit]") {
    const ChipConfig chip = builtin_chip_config("a2");
    const CostModel cost(chip);
    GmBandwidth hbm(chip.gm_bytes_per_cycle, chip.gm_window_cycles);
    GmBandwidth l2_bandwidth(chip.l2_bytes_per_cycle, chip.gm_window_cycles);
    L2Cache cache(chip.l2_bytes, chip.l2_line_bytes, chip.l2_ways);
    const L2Path l2{&cache, &l2_bandwidth, chip.l2_read_bytes_per_cycle,
                    chip.l2_write_bytes_per_cycle};
    L2Statistics stats;
    PipeUnit unit(Pipe::MTE2, chip.queue_depth);
    const auto copy = [&](Cycle start) {
        PipeInstruction ins;
        ins.tx.op = Op::Copy;
        ins.tx.pipe = Pipe::MTE2;
        ins.tx.issue = start;
        ins.tx.add_access(MemSpace::GM, false, 0, 4096);
        ins.tx.add_access(MemSpace::UB, true, 0, 4096);
        ins.path = *cost.copy_path(MemSpace::GM, MemSpace::UB);
        ins.queue_index = unit.timeline().enqueue();
        unit.start_data(ins, start, cost, hbm, l2, stats);
        return ins.tx;
    };
    // Miss: 16 issue cycles, then 4096 bytes from HBM at the core's 32 bytes/cycle.
    const Transaction miss = copy(0);
    CHECK(miss.pipe_free == 16 + 4096 / 32);
    CHECK(miss.end == miss.pipe_free + 200);
    // Hit: 16 issue cycles, then 4096 bytes from L2 at 110 bytes/cycle (38 cycles).
    const Transaction hit = copy(miss.pipe_free);
    CHECK(hit.pipe_free == miss.pipe_free + 16 + 38);
    CHECK(stats.read_bytes == 8192);
    CHECK(stats.hit_bytes == 4096);
}

TEST_CASE("pipe unit: an a2 strided copy of unaligned rows is one DMA instruction", "[unit]") {
    // 64 rows of 2046 bytes, 24574 bytes apart in GM (the [12288, 12287] fp16 matrix's tail
    // tile), into UB rows 2048 bytes apart; no L2 here.
    ChipConfig chip = builtin_chip_config("a2");
    chip.l2_bytes = 0;
    const CostModel cost(chip);
    GmBandwidth hbm(chip.gm_bytes_per_cycle, chip.gm_window_cycles);
    L2Statistics stats;
    PipeUnit unit(Pipe::MTE2, chip.queue_depth);
    PipeInstruction ins;
    ins.tx.op = Op::Copy;
    ins.tx.pipe = Pipe::MTE2;
    ins.tx.kernel_id = 3;
    ins.tx.add_access(MemSpace::GM, false, 24574, 2046, 64, 24574);
    ins.tx.add_access(MemSpace::UB, true, 0, 2046, 64, 2048);
    ins.path = *cost.copy_path(MemSpace::GM, MemSpace::UB);
    ins.queue_index = unit.timeline().enqueue();
    unit.start_data(ins, 0, cost, hbm, L2Path{}, stats);
    std::uint64_t moved = 0;
    for (std::uint64_t row = 0; row < 64; ++row)
        moved += cost.gm_bytes_moved(24574 * (row + 1), 2046);
    // Issue once, one burst cycle per further row, then every row's granules at 32 bytes/cycle.
    CHECK(ins.tx.pipe_free == 16 + 63 * 1 + (moved + 31) / 32);
    CHECK(moved > 64 * 2046);  // rows straddle granules
    CHECK(hbm.total_bytes() == moved);
}

TEST_CASE("L2 statistics count reads per kernel", "[unit]") {
    L2Statistics stats;
    stats.add(2, 100, 40);
    stats.add(0, 10, 0);
    stats.add(2, 50, 50);
    CHECK(stats.read_bytes == 160);
    CHECK(stats.hit_bytes == 90);
    REQUIRE(stats.by_kernel.size() == 3);
    CHECK(stats.by_kernel[2].read_bytes == 150);
    CHECK(stats.by_kernel[2].hit_bytes == 90);
    CHECK(stats.by_kernel[1].read_bytes == 0);
}
