// Checker fixes: findings keyed on scope, aborted kernels end in happens-before, and a
// timing-independent order for cross-block pairs (RaceOrder::Program).
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "base/chip_config.h"
#include "base/errors.h"
#include "core/block.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"
#include "sync/check/finding_match.h"
#include "sync/check/findings.h"

using namespace npusim;

namespace {

constexpr std::uint64_t N = 64;  // fp32 elements: 256 bytes

std::vector<float> ramp(std::uint64_t n) {
    std::vector<float> v(n);
    for (std::uint64_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 17);
    return v;
}

std::vector<const Finding*> races(const std::vector<Finding>& findings) {
    std::vector<const Finding*> out;
    for (const Finding& f : findings)
        if (is_race(f.kind)) out.push_back(&f);
    return out;
}

}  // namespace

TEST_CASE("an inter-core race is not folded into an intra-core one of the same lines",
          "[checker][fixes]") {
    Simulator sim(builtin_chip_config("small"));
    // Timing order: every block's loads land before any store, so the cross-block pair is
    // named (load, store) like the intra-block one. RaceOrder::Program (the default) names
    // it (block 0's store, a higher block's load): a RAW with the lines swapped.
    Checker checker(sim.global_memory(), {.race_order = RaceOrder::Timing});
    sim.attach(checker);
    auto g = sim.allocate<float>(N, "g");
    sim.write(g, ramp(N));
    unsigned load = 0, store = 0;
    // Every block loads g (MTE2) and stores over it (MTE3) with nothing ordering the two: the
    // pair races inside each block (inter-pipe) and between blocks (inter-core).
    sim.run({.name = "load_store", .blocks = 4}, [&](Block& b) {
        auto a = b.alloc<float>(MemSpace::UB, N);
        auto t = b.alloc<float>(MemSpace::UB, N);
        b.fill(t, 1.0F, N);
        b.set_flag(Pipe::V, Pipe::MTE3, 0);
        b.wait_flag(Pipe::V, Pipe::MTE3, 0);
        load = __LINE__ + 1;
        b.copy(a, g, N);
        store = __LINE__ + 1;
        b.copy(g, t, N);
    });
    // The same (WAR, GM, load line, store line, MTE2, MTE3) pair in both scopes.
    bool intra_core = false, inter_core = false;
    for (const Finding* f : races(checker.findings())) {
        if (f->kind != FindingKind::RaceWAR) continue;
        REQUIRE(f->sites.size() == 2);
        const std::vector<unsigned> lines{f->sites[0].where.line(), f->sites[1].where.line()};
        if (f->scope == RaceScope::InterPipe) {
            CHECK(f->sites[0].block == f->sites[1].block);
            if (lines == std::vector<unsigned>{load, store}) intra_core = true;
        } else if (f->scope == RaceScope::InterCore) {
            CHECK(f->sites[0].block != f->sites[1].block);
            if (lines == std::vector<unsigned>{load, store}) {
                CHECK_THAT(f->fix, Catch::Contains("SyncAll"));
                inter_core = true;
            }
        }
    }
    CHECK(intra_core);
    CHECK(inter_core);
}

namespace {

// Kernel 1 stores to g and then dies (deadlock or KernelError); kernel 2, launched later on
// the same simulator and checker, loads g properly. The dead kernel's store must be ordered
// before kernel 2, as a finished kernel's would be.
void store_then(Block& b, GlobalTensor<float> g, bool deadlock) {
    auto a = b.alloc<float>(MemSpace::UB, N);
    b.fill(a, 2.0F, N);
    b.set_flag(Pipe::V, Pipe::MTE3, 0);
    b.wait_flag(Pipe::V, Pipe::MTE3, 0);
    b.copy(g, a, N);
    b.pipe_barrier(Pipe::ALL);
    if (deadlock) {
        b.wait_flag(Pipe::V, Pipe::MTE2, 5);  // never set
    } else {
        LocalTensor<float> misaligned{MemSpace::UB, 4, 8};
        b.copy(misaligned, g, 8);  // rejected by the core: KernelError
    }
}

void load(Block& b, GlobalTensor<float> g) {
    auto a = b.alloc<float>(MemSpace::UB, N);
    b.copy(a, g, N);
}

}  // namespace

TEST_CASE("a kernel that deadlocked is over for the kernels after it", "[checker][fixes]") {
    Simulator sim(builtin_chip_config("small"));
    Checker checker(sim.global_memory());
    sim.attach(checker);
    auto g = sim.allocate<float>(N, "g");
    const RunResult dead = sim.run({.name = "dies", .blocks = 1},
                                   [&](Block& b) { store_then(b, g, /*deadlock=*/true); });
    REQUIRE(dead.outcome == RunOutcome::Deadlock);
    const std::size_t before = checker.findings().size();
    // A host write after the abort is ordered after the dead kernel's store.
    sim.write(g, ramp(N));
    CHECK(races(checker.findings()).empty());
    // So is a later kernel (block 1 runs on a core the dead kernel never used).
    auto h = sim.allocate<float>(N, "h");
    sim.run({.name = "dies_again", .blocks = 1},
            [&](Block& b) { store_then(b, h, /*deadlock=*/true); });
    const RunResult next = sim.run({.name = "after", .blocks = 2}, [&](Block& b) {
        load(b, g);
        load(b, h);
    });
    REQUIRE(next.completed());
    CHECK(races(checker.findings()).empty());
    CHECK(checker.findings().size() == before + 1);  // the second deadlock's stuck wait
}

TEST_CASE("a kernel that stopped on a KernelError is over for the kernels after it",
          "[checker][fixes]") {
    Simulator sim(builtin_chip_config("small"));
    Checker checker(sim.global_memory());
    sim.attach(checker);
    auto g = sim.allocate<float>(N, "g");
    CHECK_THROWS_AS(sim.run({.name = "dies", .blocks = 1},
                            [&](Block& b) { store_then(b, g, /*deadlock=*/false); }),
                    KernelError);
    const RunResult next = sim.run({.name = "after", .blocks = 2}, [&](Block& b) { load(b, g); });
    REQUIRE(next.completed());
    CHECK(races(checker.findings()).empty());
}

namespace {

// Block 0 stores g, block 1 loads it, unordered. Which lands first depends on the skew.
std::vector<Finding> skewed_run(std::vector<Cycle> offsets, RaceOrder order, const char* chip,
                                unsigned& store_line, unsigned& load_line) {
    Simulator sim(builtin_chip_config(chip));
    Checker checker(sim.global_memory(), {.race_order = order});
    sim.attach(checker);
    auto g = sim.allocate<float>(N, "g");
    sim.write(g, ramp(N));  // initialised: the only findings are the race
    LaunchSpec spec{.name = "skewed", .blocks = 2};
    spec.start_offsets = std::move(offsets);
    const RunResult r = sim.run(spec, [&](Block& b) {
        auto a = b.alloc<float>(MemSpace::UB, N);
        if (b.block_idx() == 0) {
            b.fill(a, 3.0F, N);
            b.set_flag(Pipe::V, Pipe::MTE3, 0);
            b.wait_flag(Pipe::V, Pipe::MTE3, 0);
            store_line = __LINE__ + 1;
            b.copy(g, a, N);
        } else {
            load_line = __LINE__ + 1;
            b.copy(a, g, N);
        }
    });
    REQUIRE(r.completed());
    return checker.findings();
}

}  // namespace

TEST_CASE("RaceOrder::Program names cross-block pairs the same whatever the timing",
          "[checker][fixes]") {
    unsigned store = 0, load = 0;
    const std::vector<std::vector<Cycle>> skews{{0, 5000}, {5000, 0}, {0, 0}, {1200, 7}};
    std::vector<std::string> described;
    for (const char* chip : {"small", "a2"}) {
        for (const auto& skew : skews) {
            const std::vector<Finding> f = skewed_run(skew, RaceOrder::Program, chip, store, load);
            std::string text;
            for (const Finding& one : f) {
                text += describe(one) + " blocks " + std::to_string(one.sites[0].block);
                if (one.sites.size() > 1) text += "," + std::to_string(one.sites[1].block);
                text += "; ";
            }
            described.push_back(text);
            // Block 0 comes first: its store, then block 1's load: a RAW.
            CHECK(compare_findings(f, {{.kind = FindingKind::RaceRAW,
                                        .space = MemSpace::GM,
                                        .scope = RaceScope::InterCore,
                                        .first_pipe = Pipe::MTE3,
                                        .second_pipe = Pipe::MTE2,
                                        .first_line = store,
                                        .second_line = load}}) == "");
        }
    }
    for (const std::string& d : described) CHECK(d == described.front());

    // RaceOrder::Timing (an option) says what this run did: the late load is a RAW, the
    // early one a WAR.
    const std::vector<Finding> late =
        skewed_run({0, 5000}, RaceOrder::Timing, "small", store, load);
    const std::vector<Finding> early =
        skewed_run({5000, 0}, RaceOrder::Timing, "small", store, load);
    REQUIRE(late.size() == 1);
    REQUIRE(early.size() == 1);
    CHECK(late[0].kind == FindingKind::RaceRAW);
    CHECK(early[0].kind == FindingKind::RaceWAR);
}

TEST_CASE("flags with event ids past 8 pair, duplicate and stay unpaired per id",
          "[checker][fixes]") {
    // Chips may have up to 64 event ids (ChipConfig::event_ids): the checker keeps one queue
    // per (pipe pair, id) for every id, not only the first eight.
    ChipConfig chip = builtin_chip_config("small");
    chip.event_ids = 64;
    Simulator sim(chip);
    Checker checker(sim.global_memory());
    sim.attach(checker);
    auto g = sim.allocate<float>(N, "g");
    sim.write(g, ramp(N));
    unsigned first_set = 0, second_set = 0;
    const RunResult r = sim.run({.name = "high_ids", .blocks = 1}, [&](Block& b) {
        auto a = b.alloc<float>(MemSpace::UB, N);
        auto c = b.alloc<float>(MemSpace::UB, N);
        b.copy(a, g, N);
        b.set_flag(Pipe::MTE2, Pipe::V, 40);
        b.set_flag(Pipe::MTE2, Pipe::V, 0);  // another id: no duplicate of 40
        b.wait_flag(Pipe::MTE2, Pipe::V, 40);
        b.wait_flag(Pipe::MTE2, Pipe::V, 0);
        b.adds(c, a, 1.0F, N);  // ordered after the load by id 40
        first_set = __LINE__ + 1;
        b.set_flag(Pipe::V, Pipe::MTE3, 63);
        second_set = __LINE__ + 1;
        b.set_flag(Pipe::V, Pipe::MTE3, 63);
        b.wait_flag(Pipe::V, Pipe::MTE3, 63);  // takes the first: the second stays unpaired
        b.copy(g, c, N);
    });
    REQUIRE(r.completed());
    CHECK(compare_findings(checker.findings(),
                           {{.kind = FindingKind::DuplicateSetFlag, .first_line = second_set},
                            {.kind = FindingKind::UnpairedSetFlag, .first_line = second_set}}) ==
          "");
    bool named = false;
    for (const Finding& f : checker.findings())
        if (f.kind == FindingKind::DuplicateSetFlag)
            named = f.message.find("SetFlag<V_MTE3>(63)") != std::string::npos &&
                    f.message.find("line " + std::to_string(first_set)) != std::string::npos;
    CHECK(named);
}

TEST_CASE("the Catch2 matcher's message is the whole finding: file:line of each access and the fix",
          "[checker][fixes]") {
    Simulator sim(builtin_chip_config("small"));
    Checker checker(sim.global_memory());
    sim.attach(checker);
    auto g = sim.allocate<float>(N, "g");
    sim.write(g, ramp(N));
    unsigned load = 0;
    sim.run({.name = "unsynced", .blocks = 1}, [&](Block& b) {
        auto a = b.alloc<float>(MemSpace::UB, N);
        load = __LINE__ + 1;
        b.copy(a, g, N);
        b.adds(a, a, 1.0F, N);  // V reads what MTE2 writes, with no flag between them
    });
    const std::vector<Finding> findings = checker.findings();
    REQUIRE_FALSE(NoFindings().match(findings));
    const std::string message = Catch::StringMaker<std::vector<Finding>>::convert(findings);
    CHECK_THAT(message, Catch::Contains("checker_fixes_test.cpp:" + std::to_string(load)));
    CHECK_THAT(message, Catch::Contains("fix: "));
    CHECK_THAT(message, Catch::Contains("RAW"));
}
