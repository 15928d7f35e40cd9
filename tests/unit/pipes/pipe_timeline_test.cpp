// PipeTimeline: the queue in front of a pipe, occupancy with overlapping latency, PipeBarrier,
// drained_at and busy-cycle accounting.
#include "pipes/pipe_timeline.h"

#include <catch2/catch.hpp>

using namespace npusim;

TEST_CASE("pipe timeline: queue slots are free until queue_depth instructions are issued",
          "[unit]") {
    PipeTimeline timeline(3);
    CHECK(timeline.queue_depth() == 3);
    CHECK(timeline.queue_slot_free_at() == 0);
    CHECK(timeline.enqueue() == 0);
    CHECK(timeline.enqueue() == 1);
    CHECK(timeline.queue_slot_free_at() == 0);
    CHECK(timeline.enqueue() == 2);
    // Full: the next slot frees when instruction 0 starts, which is not known yet.
    CHECK(timeline.queue_slot_free_at() == PipeTimeline::kNotStarted);
    timeline.mark_started(0, 40);
    CHECK(timeline.queue_slot_free_at() == 40);
    CHECK(timeline.enqueue() == 3);
    // Now waits on instruction 1.
    CHECK(timeline.queue_slot_free_at() == PipeTimeline::kNotStarted);
    timeline.mark_started(1, 55);
    CHECK(timeline.queue_slot_free_at() == 55);
}

TEST_CASE("pipe timeline: a start mark of an instruction that left the ring is ignored", "[unit]") {
    PipeTimeline timeline(2);
    const std::uint64_t first = timeline.enqueue();
    timeline.enqueue();
    timeline.enqueue();  // reuses the slot of `first`
    timeline.mark_started(first, 7);
    // The slot belongs to instruction 2 now, which has not started.
    timeline.mark_started(1, 9);
    timeline.enqueue();
    CHECK(timeline.queue_slot_free_at() == PipeTimeline::kNotStarted);
    timeline.mark_started(2, 11);
    CHECK(timeline.queue_slot_free_at() == 11);
}

TEST_CASE("pipe timeline: latency overlaps the next instruction", "[unit]") {
    PipeTimeline timeline(4);
    CHECK(timeline.free_at() == 0);
    CHECK(timeline.drained_at() == 0);
    timeline.occupy(0, 10, 30);  // busy 10 cycles, results at 30
    CHECK(timeline.free_at() == 10);
    CHECK(timeline.drained_at() == 30);
    timeline.occupy(10, 12, 20);  // a short one finishing before the first
    CHECK(timeline.free_at() == 12);
    CHECK(timeline.drained_at() == 30);  // drained_at never goes back
    CHECK(timeline.instructions() == 2);
}

TEST_CASE("pipe timeline: a barrier makes the next start wait for completion", "[unit]") {
    PipeTimeline timeline(4);
    timeline.occupy(0, 5, 25);
    timeline.barrier();
    CHECK(timeline.free_at() == 25);
    // A barrier on a pipe with nothing outstanding changes nothing.
    PipeTimeline idle(4);
    idle.occupy(0, 8, 8);
    idle.barrier();
    CHECK(idle.free_at() == 8);
}

TEST_CASE("pipe timeline: busy cycles count the union of the start-to-end intervals", "[unit]") {
    PipeTimeline timeline(4);
    timeline.occupy(0, 10, 30);   // [0, 30)
    timeline.occupy(10, 20, 40);  // overlaps: adds [30, 40)
    CHECK(timeline.busy_cycles() == 40);
    timeline.occupy(100, 110, 120);  // a gap is not busy
    CHECK(timeline.busy_cycles() == 60);
    timeline.occupy(105, 106, 115);  // wholly covered: adds nothing
    CHECK(timeline.busy_cycles() == 60);
    timeline.count_instruction();
    CHECK(timeline.instructions() == 5);
    timeline.reset_statistics();
    CHECK(timeline.busy_cycles() == 0);
    CHECK(timeline.instructions() == 0);
    CHECK(timeline.drained_at() == 120);  // timing state survives a statistics reset
}

TEST_CASE("pipe timeline: zero-length instructions count but add no busy time", "[unit]") {
    PipeTimeline timeline(2);
    timeline.occupy(50, 50, 50);
    CHECK(timeline.busy_cycles() == 0);
    CHECK(timeline.instructions() == 1);
    CHECK(timeline.free_at() == 50);
    CHECK(timeline.drained_at() == 50);
}
