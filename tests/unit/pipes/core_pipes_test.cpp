// CorePipes and PipeUnit with a fake PipeClient: in-order starts, WaitFlag stalls, SetFlag
// after its pipe drained, PipeBarrier, CrossCoreSetFlag at drain, and a queue that fills
// behind a stalled WaitFlag. Small preset: a vector repeat is 256 bytes (1 cycle, startup 8),
// MTE2/MTE3 move 32 bytes per cycle with latency 100, queue depth 16.
#include "pipes/core_pipes.h"

#include <deque>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "unit_support.h"

using namespace npusim;
using npusim::unit::small_chip;

namespace {

/// Records what the pipes report, in order.
class FakeClient final : public PipeClient {
public:
    void on_data_started(PipeInstruction& instruction) override {
        data.push_back(instruction.tx);
        order.push_back(instruction.tx.serial);
    }
    void on_zero_length_done(PipeInstruction& instruction) override {
        zero_length.push_back(instruction.tx);
        order.push_back(instruction.tx.serial);
    }
    void on_cross_core_set(const Transaction& tx, Cycle at) override {
        cross_core.emplace_back(tx, at);
    }

    std::vector<Transaction> data;
    std::vector<Transaction> zero_length;
    std::vector<std::pair<Transaction, Cycle>> cross_core;
    std::vector<std::uint64_t> order;  // serials, in the order they were reported
};

/// One core's pipes on the small chip, and builders for the instructions the core issues.
struct Pipes {
    const ChipConfig& chip = small_chip();
    CostModel cost{chip};
    GmBandwidth bandwidth{chip.gm_bytes_per_cycle, chip.gm_window_cycles};
    FakeClient client;
    CorePipes pipes{chip, cost, bandwidth, client};
    std::deque<PipeInstruction> storage;  // stable addresses, as the core keeps them
    std::uint64_t next_serial = 1;

    PipeInstruction& make(Pipe pipe, Op op, Cycle issue) {
        PipeInstruction& instruction = storage.emplace_back();
        instruction.tx.pipe = pipe;
        instruction.tx.op = op;
        instruction.tx.issue = issue;
        instruction.tx.serial = next_serial++;
        return instruction;
    }
    std::uint64_t enqueue(PipeInstruction& instruction) {
        pipes.enqueue(&instruction);
        return instruction.tx.serial;
    }
    std::uint64_t vector_add(Cycle issue, std::uint64_t bytes = 256) {
        PipeInstruction& i = make(Pipe::V, Op::Add, issue);
        i.tx.add_access(MemSpace::UB, false, 0, bytes);
        i.tx.add_access(MemSpace::UB, false, 0, bytes);
        i.tx.add_access(MemSpace::UB, true, 0, bytes);
        i.write_access = 2;
        return enqueue(i);
    }
    std::uint64_t copy(MemSpace src, MemSpace dst, Cycle issue, std::uint64_t bytes) {
        const CopyPath path = *cost.copy_path(src, dst);
        PipeInstruction& i = make(path.pipe, Op::Copy, issue);
        i.path = path;
        i.tx.add_access(src, false, 0, bytes);
        i.tx.add_access(dst, true, 0, bytes);
        i.write_access = 1;
        return enqueue(i);
    }
    std::uint64_t flag(Op op, Pipe src, Pipe dst, std::uint32_t id, Cycle issue) {
        PipeInstruction& i = make(op == Op::SetFlag ? src : dst, op, issue);
        i.tx.flag_src = src;
        i.tx.flag_dst = dst;
        i.tx.event_id = id;
        return enqueue(i);
    }
    std::uint64_t barrier(Pipe pipe, Cycle issue) {
        return enqueue(make(pipe, Op::PipeBarrier, issue));
    }
    std::uint64_t cross_core_set(Pipe pipe, Cycle issue) {
        return enqueue(make(pipe, Op::CrossCoreSetFlag, issue));
    }

    const Transaction& data_tx(std::uint64_t serial) const {
        for (const Transaction& tx : client.data) {
            if (tx.serial == serial) return tx;
        }
        FAIL("serial " << serial << " was not reported started");
        return client.data.front();
    }
    const Transaction& zero_tx(std::uint64_t serial) const {
        for (const Transaction& tx : client.zero_length) {
            if (tx.serial == serial) return tx;
        }
        FAIL("serial " << serial << " was not reported done");
        return client.zero_length.front();
    }
};

}  // namespace

TEST_CASE("core pipes: a pipe starts its instructions in issue order", "[unit]") {
    Pipes p;
    const auto a = p.vector_add(0, 512);  // 2 repeats
    const auto b = p.vector_add(0, 512);
    const auto c = p.vector_add(10, 256);
    CHECK(p.client.order == std::vector<std::uint64_t>{a, b, c});
    CHECK(p.data_tx(a).start == 0);
    CHECK(p.data_tx(a).pipe_free == 2);
    CHECK(p.data_tx(a).end == 10);    // + vector startup latency
    CHECK(p.data_tx(b).start == 2);   // after a's occupancy, overlapping its latency
    CHECK(p.data_tx(c).start == 10);  // not before its issue
    CHECK(p.pipes.drained_at(Pipe::V) == 19);
    CHECK(p.pipes.stalled_head(Pipe::V) == nullptr);
}

TEST_CASE("core pipes: data instructions are timed by the cost model", "[unit]") {
    Pipes p;
    const auto gm_copy = p.copy(MemSpace::GM, MemSpace::UB, 0, 1024);
    const auto local_copy = p.copy(MemSpace::UB, MemSpace::UB, 0, 1024);
    CHECK(p.data_tx(gm_copy).pipe_free == 32);  // 1024 B at 32 B/cycle
    CHECK(p.data_tx(gm_copy).end == 132);
    CHECK(p.data_tx(local_copy).pipe == Pipe::V);
    CHECK(p.data_tx(local_copy).pipe_free == 8);  // 1024 B at 128 B/cycle
    CHECK(p.data_tx(local_copy).end == 16);
    CHECK(p.bandwidth.total_bytes() == 1024);  // only the GM copy drew on GM bandwidth

    PipeInstruction& mmad = p.make(Pipe::M, Op::Mmad, 0);
    mmad.tx.m = mmad.tx.n = mmad.tx.k = 32;
    mmad.tx.src_dtype = DType::F16;
    p.enqueue(mmad);
    CHECK(p.data_tx(mmad.tx.serial).pipe_free == 8);  // 2 * 2 * 2 fractals
    CHECK(p.data_tx(mmad.tx.serial).end == 24);
}

TEST_CASE("core pipes: a WaitFlag stalls its pipe until the SetFlag fires", "[unit]") {
    Pipes p;
    const auto wait = p.flag(Op::WaitFlag, Pipe::MTE2, Pipe::V, 0, 0);
    const auto add = p.vector_add(1);
    CHECK(p.client.order.empty());  // both wait
    REQUIRE(p.pipes.stalled_head(Pipe::V) != nullptr);
    CHECK(p.pipes.stalled_head(Pipe::V)->tx.serial == wait);
    CHECK(p.pipes.unit(Pipe::V).stalled().size() == 2);
    // Other pipes are not held up.
    const auto copy = p.copy(MemSpace::GM, MemSpace::UB, 2, 1024);  // ends at 2 + 32 + 100
    CHECK(p.data_tx(copy).end == 134);
    const auto set = p.flag(Op::SetFlag, Pipe::MTE2, Pipe::V, 0, 3);
    CHECK(p.client.order == std::vector<std::uint64_t>{copy, set, wait, add});
    CHECK(p.zero_tx(set).end == 134);  // after everything earlier on MTE2 completed
    CHECK(p.zero_tx(wait).end == 134);
    CHECK(p.zero_tx(wait).partner_serial == set);
    CHECK(p.data_tx(add).start == 134);
    CHECK(p.pipes.stalled_head(Pipe::V) == nullptr);
}

TEST_CASE("core pipes: a SetFlag issued first lets the WaitFlag pass at its time", "[unit]") {
    Pipes p;
    p.copy(MemSpace::GM, MemSpace::UB, 0, 64);  // ends at 2 + 100
    const auto set = p.flag(Op::SetFlag, Pipe::MTE2, Pipe::V, 3, 1);
    const auto wait = p.flag(Op::WaitFlag, Pipe::MTE2, Pipe::V, 3, 1);
    const auto add = p.vector_add(2);
    CHECK(p.zero_tx(set).end == 102);
    CHECK(p.zero_tx(wait).end == 102);
    CHECK(p.data_tx(add).start == 102);
    // Another id is independent: it still stalls.
    p.flag(Op::WaitFlag, Pipe::MTE2, Pipe::V, 4, 3);
    CHECK(p.pipes.stalled_head(Pipe::V) != nullptr);
}

TEST_CASE("core pipes: flags from and to the scalar unit", "[unit]") {
    Pipes p;
    const auto wait = p.flag(Op::WaitFlag, Pipe::S, Pipe::MTE3, 1, 0);
    const auto copy = p.copy(MemSpace::UB, MemSpace::GM, 0, 64);
    CHECK(p.pipes.stalled_head(Pipe::MTE3) != nullptr);
    p.pipes.scalar_set_flag(Pipe::MTE3, 1, {50, 99, 0});
    CHECK(p.zero_tx(wait).end == 50);
    CHECK(p.zero_tx(wait).partner_serial == 99);
    CHECK(p.data_tx(copy).start == 50);

    CHECK_FALSE(p.pipes.scalar_consume_flag(Pipe::V, 2));
    const auto add = p.vector_add(0);
    const auto set = p.flag(Op::SetFlag, Pipe::V, Pipe::S, 2, 0);
    const auto seen = p.pipes.scalar_consume_flag(Pipe::V, 2);
    REQUIRE(seen);
    CHECK(seen->serial == set);
    CHECK(seen->time == p.data_tx(add).end);
    CHECK_FALSE(p.pipes.scalar_consume_flag(Pipe::V, 2));
}

TEST_CASE("core pipes: PipeBarrier makes later instructions wait for completion", "[unit]") {
    Pipes without;
    without.vector_add(0);
    const auto next = without.vector_add(0);
    CHECK(without.data_tx(next).start == 1);  // overlaps the first one's latency

    Pipes with;
    with.vector_add(0);  // [0, 1), results at 9
    const auto bar = with.barrier(Pipe::V, 0);
    const auto after = with.vector_add(0);
    CHECK(with.zero_tx(bar).end == 9);
    CHECK(with.data_tx(after).start == 9);
    // A barrier on another pipe changes nothing here.
    with.barrier(Pipe::MTE2, 0);
    CHECK(with.data_tx(with.vector_add(0)).start == 10);
}

TEST_CASE("core pipes: a CrossCoreSetFlag fires when its pipe has drained", "[unit]") {
    Pipes p;
    p.copy(MemSpace::UB, MemSpace::GM, 0, 1024);  // MTE3: 32 cycles, results at 132
    const auto set = p.cross_core_set(Pipe::MTE3, 5);
    REQUIRE(p.client.cross_core.size() == 1);
    CHECK(p.client.cross_core[0].first.serial == set);
    CHECK(p.client.cross_core[0].second == 132);
    CHECK(p.zero_tx(set).end == 132);
    // On an idle pipe it fires at its issue.
    const auto idle = p.cross_core_set(Pipe::S, 7);
    CHECK(p.client.cross_core.back().first.serial == idle);
    CHECK(p.client.cross_core.back().second == 7);
}

TEST_CASE("core pipes: a queue full behind a stalled WaitFlag has no free slot", "[unit]") {
    Pipes p;
    REQUIRE(p.chip.queue_depth == 16);
    CHECK(p.pipes.queue_slot_free_at(Pipe::V) == 0);
    p.flag(Op::WaitFlag, Pipe::S, Pipe::V, 0, 0);
    for (int i = 0; i < 14; ++i) p.vector_add(1);
    CHECK(p.pipes.queue_slot_free_at(Pipe::V) == 0);  // 15 issued, one slot left
    p.vector_add(1);
    CHECK(p.pipes.queue_slot_free_at(Pipe::V) == PipeTimeline::kNotStarted);
    CHECK(p.client.order.empty());
    CHECK(p.pipes.queue_slot_free_at(Pipe::MTE2) == 0);  // other pipes are unaffected
    // The flag frees the head: the next slot is free when the WaitFlag started.
    p.pipes.scalar_set_flag(Pipe::V, 0, {40, 1, 0});
    CHECK(p.pipes.queue_slot_free_at(Pipe::V) == 40);
    REQUIRE(p.client.data.size() == 15);
    for (std::size_t i = 0; i < p.client.data.size(); ++i) CHECK(p.client.data[i].start == 40 + i);
}

TEST_CASE("core pipes: reset drops stalled instructions, timing and flags", "[unit]") {
    Pipes p;
    p.vector_add(0);
    const auto wait = p.flag(Op::WaitFlag, Pipe::MTE2, Pipe::V, 0, 0);
    const auto add = p.vector_add(0);
    p.flag(Op::SetFlag, Pipe::MTE3, Pipe::V, 1, 0);  // a set nobody consumed
    std::vector<std::uint64_t> dropped;
    p.pipes.reset([&](PipeInstruction* instruction) { dropped.push_back(instruction->tx.serial); });
    CHECK(dropped == std::vector<std::uint64_t>{wait, add});
    CHECK(p.pipes.stalled_head(Pipe::V) == nullptr);
    CHECK(p.pipes.drained_at(Pipe::V) == 0);
    CHECK(p.pipes.unit(Pipe::V).timeline().instructions() == 0);
    // The unconsumed SetFlag<MTE3_V>(1) is gone: its WaitFlag stalls.
    p.flag(Op::WaitFlag, Pipe::MTE3, Pipe::V, 1, 0);
    CHECK(p.pipes.stalled_head(Pipe::V) != nullptr);
}

TEST_CASE("core pipes: statistics count instructions and busy cycles per pipe", "[unit]") {
    Pipes p;
    p.vector_add(0, 512);                            // [0, 10)
    p.vector_add(0, 256);                            // [2, 11)
    p.flag(Op::SetFlag, Pipe::V, Pipe::MTE3, 0, 0);  // zero length at 11
    const PipeTimeline& v = p.pipes.unit(Pipe::V).timeline();
    CHECK(v.instructions() == 3);
    CHECK(v.busy_cycles() == 11);
    CHECK(p.pipes.unit(Pipe::MTE2).timeline().instructions() == 0);
    p.pipes.reset_statistics();
    CHECK(v.instructions() == 0);
    CHECK(v.busy_cycles() == 0);
    CHECK(p.pipes.drained_at(Pipe::V) == 11);
}
