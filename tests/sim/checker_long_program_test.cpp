// The checker on long host programs: what it keeps of a finished launch is retired (its
// blocks' agents reused by later blocks ordered after them, its state released), yet every
// race it could report before retirement is still reported after thousands of launches, and
// every ordering (stream order, events) still holds.
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "base/tensor.h"
#include "core/block.h"
#include "sim/host/runtime.h"
#include "sim/simulator.h"
#include "sync/check/checker.h"
#include "sync/check/findings.h"

using namespace npusim;

namespace {

constexpr std::uint64_t N = 64;  // floats
constexpr std::uint32_t kFillerLaunches = 10'000;

/// Four blocks each store over their slice of x; lines recorded for the findings.
unsigned g_write_line = 0;
unsigned g_read_line = 0;

KernelBody writer(GlobalTensor<float> x) {
    return [=](Block& b) {
        auto ub = b.alloc<float>(MemSpace::UB, N);
        b.fill(ub, 1.0F, N);
        b.set_flag(Pipe::V, Pipe::MTE3, 0);
        b.wait_flag(Pipe::V, Pipe::MTE3, 0);
        g_write_line = __LINE__ + 1;
        b.copy(x.sub(b.block_idx() * N, N), ub, N);
    };
}

KernelBody reader(GlobalTensor<float> x, GlobalTensor<float> y) {
    return [=](Block& b) {
        auto ub = b.alloc<float>(MemSpace::UB, N);
        g_read_line = __LINE__ + 1;
        b.copy(ub, x.sub(b.block_idx() * N, N), N);
        b.set_flag(Pipe::MTE2, Pipe::MTE3, 0);
        b.wait_flag(Pipe::MTE2, Pipe::MTE3, 0);
        b.copy(y.sub(b.block_idx() * N, N), ub, N);
    };
}

/// A kernel with no GM traffic: one UB store and load per block.
void filler(Block& b) {
    auto scratch = b.alloc<std::int32_t>(MemSpace::UB, 8);
    b.store(scratch, 0, std::int32_t{0});
    (void)b.load(scratch, 0);
}

struct Outcome {
    std::vector<Finding> findings;
    CheckerFootprint footprint;
    bool completed = false;
};

/// Stream a: the writer, then `kFillerLaunches` fillers. Stream b: the reader, queued after
/// all of them, ordered after the writer by an event only if `ordered`.
Outcome run_program(bool ordered) {
    Simulator sim(builtin_chip_config("small"));
    Checker checker(sim.global_memory());
    sim.attach(checker);
    Outcome out;
    const RunResult r = sim.run_host([&](Runtime& rt) {
        const Stream a = rt.create_stream();
        const Stream b = rt.create_stream();
        const DeviceBuffer x = rt.malloc(4 * N * sizeof(float), "x");
        const DeviceBuffer y = rt.malloc(4 * N * sizeof(float), "y");
        const Event written = rt.create_event(EventFlags::DisableTiming);
        rt.launch(a, {.name = "writer", .blocks = 4}, writer(x.as<float>()));
        if (ordered) rt.record_event(written, a);
        for (std::uint32_t i = 0; i < kFillerLaunches; ++i)
            rt.launch(a, {.name = "filler", .blocks = 4}, filler);
        if (ordered) rt.stream_wait_event(b, written);
        rt.launch(b, {.name = "reader", .blocks = 4}, reader(x.as<float>(), y.as<float>()));
        rt.synchronize_device();
    });
    out.completed = r.completed();
    out.findings = checker.findings();
    out.footprint = checker.footprint();
    return out;
}

}  // namespace

TEST_CASE("long program: a race with a kernel launched 10,000 launches earlier is reported",
          "[checker][streams][scale]") {
    const Outcome out = run_program(false);
    REQUIRE(out.completed);
    std::vector<const Finding*> races;
    for (const Finding& f : out.findings)
        if (is_race(f.kind)) races.push_back(&f);
    REQUIRE(races.size() == 1);
    const Finding& race = *races.front();
    CHECK(race.kind == FindingKind::RaceRAW);
    REQUIRE(race.sites.size() == 2);
    CHECK(race.sites[0].kernel == "writer");
    CHECK(race.sites[1].kernel == "reader");
    CHECK(race.sites[0].where.line() == g_write_line);
    CHECK(race.sites[1].where.line() == g_read_line);
    // The fillers' blocks reused the agents of the blocks before them on their stream: the
    // checker holds a few agent sets, not one per launch.
    CHECK(out.footprint.agents < 200);
    CHECK(out.footprint.block_states < 64);
    CHECK(out.footprint.live_kernels == 0);
}

TEST_CASE("long program: the same kernels ordered by an event do not race",
          "[checker][streams][scale]") {
    const Outcome out = run_program(true);
    REQUIRE(out.completed);
    CHECK(out.findings.empty());
    CHECK(out.footprint.agents < 200);
}
