// Run control: a stop request ends a run cleanly (outcome Interrupted, partial statistics)
// and leaves the simulator usable; the progress callback reports a running simulation.
#include <atomic>
#include <chrono>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "base/errors.h"
#include "sim/kernels/builtin_kernels.h"
#include "sim/simulator.h"
#include "test_support.h"

using namespace npusim;

namespace {

/// The built-in vector_add on `blocks` blocks: run, output checked when it completed.
KernelOutcome vector_add(Simulator& sim, std::uint32_t blocks, std::uint64_t elements,
                         std::uint64_t tile) {
    const KernelDefinition* kernel = find_builtin_kernel("vector_add");
    REQUIRE(kernel != nullptr);
    LaunchSpec launch;
    launch.blocks = blocks;
    const std::map<std::string, std::uint64_t> params{
        {"elements", elements}, {"tile", tile}, {"buffers", 2}};
    return kernel->run(sim, launch, params);
}

// Long enough that a stop request always lands before the end (about 1.5 million
// instructions on 4 cores).
constexpr std::uint64_t kLongElements = 4 * 8 * 65536;
constexpr std::uint64_t kLongTile = 8;

}  // namespace

TEST_CASE("request_stop during a run returns Interrupted and the simulator runs on", "[run]") {
    std::vector<RunProgress> seen;
    Simulator* self = nullptr;
    SimOptions options;
    options.progress_interval = std::chrono::milliseconds(0);  // every poll
    options.progress = [&](const RunProgress& p) {
        seen.push_back(p);
        if (seen.size() == 3 && self != nullptr) self->request_stop();
    };
    Simulator sim(test::small_chip(), options);
    self = &sim;

    const KernelOutcome stopped = vector_add(sim, 4, kLongElements, kLongTile);
    REQUIRE(stopped.run.outcome == RunOutcome::Interrupted);
    CHECK(stopped.run.interrupted());
    CHECK_FALSE(stopped.run.completed());
    CHECK_FALSE(stopped.verified);
    CHECK(stopped.run.stuck.empty());
    REQUIRE(stopped.run.kernels.size() == 1);
    CHECK(stopped.run.kernels[0].blocks_finished < 4);
    CHECK(stopped.run.instructions > 0);
    CHECK_FALSE(stopped.run.cores.empty());
    CHECK(stopped.run.cycles() > 0);
    // Work issued past the stop is not counted: no pipe is busy more than the whole run.
    for (const CoreUsage& core : stopped.run.cores) {
        for (const PipeUsage& pipe : core.pipes) {
            CHECK(pipe.utilization <= 1.0);
            CHECK(pipe.busy_cycles <= stopped.run.cycles());
        }
    }
    // The callback saw a run in progress, forward in simulated time.
    REQUIRE(seen.size() >= 3);
    CHECK(seen[2].cycles >= seen[0].cycles);
    CHECK(seen[2].instructions >= seen[0].instructions);
    CHECK(seen[2].host_seconds >= seen[0].host_seconds);
    CHECK(seen[2].cycles <= stopped.run.cycles());

    // The same simulator: the request was consumed, a new kernel runs to the right result.
    self = nullptr;  // no more stop requests from the callback
    const KernelOutcome again = vector_add(sim, 4, 4 * 4096, 1024);
    CHECK(again.run.completed());
    CHECK(again.verified);
    CHECK(again.run.kernels.at(0).blocks_finished == 4);
}

TEST_CASE("request_stop from another thread interrupts a running simulation", "[run]") {
    Simulator sim(test::small_chip());
    std::thread stopper([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        sim.request_stop();
    });
    const auto started = std::chrono::steady_clock::now();
    const KernelOutcome stopped = vector_add(sim, 4, 4 * kLongElements, kLongTile);
    stopper.join();
    CHECK(stopped.run.interrupted());
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(30));
    const KernelOutcome again = vector_add(sim, 4, 4 * 4096, 1024);
    CHECK(again.run.completed());
    CHECK(again.verified);
}

TEST_CASE("SimOptions::stop_flag stops every run while it is set", "[run]") {
    std::atomic<bool> stop{true};
    SimOptions options;
    options.stop_flag = &stop;
    Simulator sim(test::small_chip(), options);
    const KernelOutcome first = vector_add(sim, 4, kLongElements, kLongTile);
    CHECK(first.run.interrupted());
    CHECK(first.run.kernels.at(0).blocks_finished == 0);
    stop = false;
    const KernelOutcome second = vector_add(sim, 4, 4 * 4096, 1024);
    CHECK(second.run.completed());
    CHECK(second.verified);
}

TEST_CASE("a progress callback that throws ends the run with a KernelError", "[run]") {
    SimOptions options;
    options.progress_interval = std::chrono::milliseconds(0);
    bool armed = true;
    options.progress = [&](const RunProgress&) {
        if (armed) throw std::runtime_error("display went away");
    };
    Simulator sim(test::small_chip(), options);
    CHECK_THROWS_MATCHES(vector_add(sim, 4, kLongElements, kLongTile), KernelError,
                         Catch::Matchers::Message("progress callback threw: display went away"));
    armed = false;
    const KernelOutcome again = vector_add(sim, 4, 4 * 4096, 1024);
    CHECK(again.run.completed());
    CHECK(again.verified);
}
