// A labelled corpus of small kernels for the checker (racecheck, synccheck, memcheck,
// initcheck). Every kernel carries the list of hazards it truly has (empty for the clean
// ones); each one is checked on its own ("[corpus]"), and the summary case runs the whole
// table and measures precision and recall ("[corpus][summary]").
//
// Labels are the truth, not what the checker happens to say: where the two disagree the
// entry keeps its true label and fails, so the failure names the checker bug.
//
// Conventions of the labels:
//   - a race's first access is the earlier one: issue order inside a block; across blocks
//     the order in which the accesses took effect in this run (a read when it starts, a
//     write when its data lands), which the inter-core kernels make unambiguous by skewed
//     starts or long delays and check against the run's timing (TimeLog::before);
//   - one racy pair can be more than one hazard (add(t, ..) then muls(t, t, ..) is a RAW and
//     a WAW on t): all of them are labelled;
//   - single-site findings (synccheck, memcheck, initcheck) name their one line as first.
//
// Coverage of kind x scope x space. Intra-pipe: RAW on UB (V) and L0C (accumulating mmad),
// WAR on UB, WAW on UB (V, MTE2), GM (MTE3), L1 (MTE2), L0A / L0B (MTE1), L0C (M); intra-pipe
// RAW/WAR on GM, L1, L0A, L0B cannot be written (no pipe both reads and writes them, and the
// scalar unit is sequential). Inter-pipe: RAW on UB, GM, L1, L0A, L0B, L0C; WAR on UB, GM,
// L1, L0A, L0C; WAW on UB and GM (WAW on L1/L0A/L0B/L0C needs two pipes writing one space:
// there is one writer each). Inter-core: RAW, WAR, WAW on GM (local memories are per core).
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "core/block.h"
#include "sim/kernels/builtin_kernels.h"
#include "sim/simulator.h"
#include "sync/check/checker.h"
#include "sync/check/finding_match.h"
#include "sync/check/findings.h"
// After <catch2/catch.hpp>: the matchers derive from Catch::MatcherBase.
#include "sync/check/catch_matchers.h"

using namespace npusim;

namespace {

// ---- vocabulary ------------------------------------------------------------------------

constexpr FindingKind RAW = FindingKind::RaceRAW;
constexpr FindingKind WAR = FindingKind::RaceWAR;
constexpr FindingKind WAW = FindingKind::RaceWAW;
constexpr RaceScope Intra = RaceScope::IntraPipe;
constexpr RaceScope Inter = RaceScope::InterPipe;
constexpr RaceScope Cores = RaceScope::InterCore;
constexpr MemSpace GM = MemSpace::GM;
constexpr MemSpace UB = MemSpace::UB;
constexpr MemSpace L1 = MemSpace::L1;
constexpr MemSpace L0A = MemSpace::L0A;
constexpr MemSpace L0B = MemSpace::L0B;
constexpr MemSpace L0C = MemSpace::L0C;

constexpr std::uint64_t N = 64;    // fp32 elements of a UB tile: 256 bytes
constexpr std::uint32_t D = 16;    // mmad m = n = k
constexpr std::uint64_t DD = 256;  // elements of a 16 x 16 matrix (512 B fp16, 1 KiB fp32)

Expected race(FindingKind kind, MemSpace space, RaceScope scope, Pipe first_pipe,
              unsigned first_line, Pipe second_pipe, unsigned second_line) {
    return {.kind = kind,
            .space = space,
            .scope = scope,
            .first_pipe = first_pipe,
            .second_pipe = second_pipe,
            .first_line = first_line,
            .second_line = second_line};
}
Expected single(FindingKind kind, MemSpace space, Pipe pipe, unsigned line) {
    return {.kind = kind,
            .space = space,
            .scope = RaceScope::None,
            .first_pipe = pipe,
            .first_line = line};
}

// ---- running one kernel ----------------------------------------------------------------

struct Outcome {
    std::vector<Finding> findings;
    std::vector<Expected> expected;
    std::string problem;  // non-empty when a functional check of the run failed
};

struct Entry {
    std::string name;
    bool racy = false;  // has at least one true race (clean and synccheck/memcheck/initcheck
                        // kernels are not racy)
    std::function<Outcome()> run;
};

/// Multiples of 0.25 in [-64, 64): sums are exact.
std::vector<float> pattern(std::uint64_t n, std::uint64_t seed) {
    std::vector<float> values(n);
    for (std::uint64_t i = 0; i < n; ++i) {
        values[i] =
            static_cast<float>(static_cast<std::int64_t>((i * 37 + seed * 101) % 512) - 256) *
            0.25F;
    }
    return values;
}

/// When each data instruction read and wrote, by source line: lets an inter-core entry check
/// that its label's order is the simulated-time order of this run.
struct TimeLog final : TransactionObserver {
    struct Access {
        unsigned line = 0;
        std::uint32_t kernel = 0, block = 0;
        CoreType type = CoreType::Vector;
        Cycle start = 0, end = 0;      // reads happen at start, writes land at end
        std::uint64_t lo = 0, hi = 0;  // GM bytes, if any
        bool gm = false, write = false;
    };
    std::vector<Access> accesses;
    void on_transaction(const Transaction& tx) override {
        if (tx.internal) return;
        for (std::uint8_t i = 0; i < tx.access_count; ++i) {
            const MemAccess& a = tx.accesses[i];
            accesses.push_back({tx.where.line(), tx.kernel_id, tx.block, tx.core_type, tx.start,
                                tx.end, a.address, a.address + a.bytes, a.space == MemSpace::GM,
                                a.write});
        }
    }
    /// "" if every GM access at `first` took effect before every GM access at `second`.
    std::string before(unsigned first, unsigned second) const {
        Cycle first_done = 0, second_begins = ~Cycle{0};
        bool any_first = false, any_second = false;
        for (const Access& a : accesses) {
            if (!a.gm) continue;
            if (a.line == first) {
                first_done = std::max(first_done, a.write ? a.end : a.start);
                any_first = true;
            }
            if (a.line == second) {
                second_begins = std::min(second_begins, a.write ? a.end : a.start);
                any_second = true;
            }
        }
        if (!any_first || !any_second)
            return "label check: no GM access at line " +
                   std::to_string(any_first ? second : first) + "; ";
        if (first_done < second_begins) return "";
        return "label check: line " + std::to_string(first) + " took effect until cycle " +
               std::to_string(first_done) + ", line " + std::to_string(second) + " from cycle " +
               std::to_string(second_begins) + ": the labelled order is not this run's; ";
    }
};

/// A simulator with the checker attached, and small GM helpers.
struct Rig {
    Simulator sim;
    Checker checker;
    TimeLog log;
    std::string problem;
    bool expect_deadlock = false;

    explicit Rig(const char* chip = "small")
        : sim(builtin_chip_config(chip)), checker(sim.global_memory()) {
        sim.attach(checker);
        sim.attach(log);
    }
    GlobalTensor<float> input(std::uint64_t n, const char* name, std::uint64_t seed = 1) {
        auto t = sim.allocate<float>(n, name);
        sim.write(t, pattern(n, seed));
        return t;
    }
    GlobalTensor<float> filled(std::uint64_t n, const char* name, float value) {
        auto t = sim.allocate<float>(n, name);
        sim.write(t, std::vector<float>(n, value));
        return t;
    }
    GlobalTensor<half> matrix(const char* name, std::uint64_t seed = 1) {
        std::vector<half> values(DD);
        for (std::uint64_t i = 0; i < DD; ++i) {
            values[i] = half(static_cast<float>((i * 7 + seed * 3) % 9) * 0.25F - 1.0F);
        }
        auto t = sim.allocate<half>(DD, name);
        sim.write(t, values);
        return t;
    }
    GlobalTensor<float> output(std::uint64_t n, const char* name) {
        return sim.allocate<float>(n, name);
    }
    void run(const LaunchSpec& spec, KernelBody body) {
        sim.launch(spec, std::move(body));
        const RunResult r = sim.run();
        if (r.completed() == expect_deadlock) {
            problem += "kernel '" + spec.name +
                       (expect_deadlock ? "' completed" : "' did not complete") + "; ";
        }
    }
    /// Two kernels queued together: they run at the same time on different cores.
    void run_together(const LaunchSpec& a, KernelBody first, const LaunchSpec& b,
                      KernelBody second) {
        sim.launch(a, std::move(first));
        sim.launch(b, std::move(second));
        const RunResult r = sim.run();
        if (!r.completed())
            problem += "kernels '" + a.name + "' and '" + b.name + "' did not complete; ";
    }
    Outcome done(std::vector<Expected> expected) {
        return {checker.findings(), std::move(expected), problem};
    }
};

LaunchSpec aiv(const char* name, std::uint32_t blocks = 1, std::vector<Cycle> offsets = {}) {
    LaunchSpec s;
    s.name = name;
    s.blocks = blocks;
    s.start_offsets = std::move(offsets);
    return s;
}
LaunchSpec aic(const char* name) {
    LaunchSpec s;
    s.name = name;
    s.type = KernelType::AIC_ONLY;
    return s;
}
LaunchSpec mix(const char* name, KernelType type = KernelType::MIX_AIC_1_1) {
    LaunchSpec s;
    s.name = name;
    s.type = type;
    return s;
}

LocalTensor<float> ub(Block& b, std::uint64_t n = N) {
    return b.alloc<float>(MemSpace::UB, n);
}

/// SetFlag + WaitFlag on one (src, dst, id): everything src issued so far is done before dst
/// goes on.
void flag(Block& b, Pipe src, Pipe dst, std::uint32_t id = 0) {
    b.set_flag(src, dst, id);
    b.wait_flag(src, dst, id);
}

/// Long vector work on a private scratch tile, each op behind a PipeBarrier<V>, then V ->
/// MTE2: the block's next loads start some 500+ cycles later. No hazard of its own.
void delay_loads(Block& b, int ops = 60) {
    auto scratch = ub(b);
    b.fill(scratch, 1.0F, N);
    for (int i = 0; i < ops; ++i) {
        b.pipe_barrier(Pipe::V);
        b.add(scratch, scratch, scratch, N);
    }
    flag(b, Pipe::V, Pipe::MTE2, 7);
}

struct CubeTiles {
    LocalTensor<half> l1a, l1b, l0a, l0b;
    LocalTensor<float> l0c;
};
CubeTiles cube_tiles(Block& b) {
    return {b.alloc<half>(MemSpace::L1, DD), b.alloc<half>(MemSpace::L1, DD),
            b.alloc<half>(MemSpace::L0A, DD), b.alloc<half>(MemSpace::L0B, DD),
            b.alloc<float>(MemSpace::L0C, DD)};
}
/// GM -> L1 -> L0A / L0B with the right flags: ready for an mmad.
void cube_load(Block& b, const CubeTiles& c, GlobalTensor<half> ga, GlobalTensor<half> gb) {
    b.copy(c.l1a, ga, DD);
    b.copy(c.l1b, gb, DD);
    flag(b, Pipe::MTE2, Pipe::MTE1);
    b.copy(c.l0a, c.l1a, DD);
    b.copy(c.l0b, c.l1b, DD);
    flag(b, Pipe::MTE1, Pipe::M);
}

/// Line of the first occurrence of `needle` in a library source file (labels for the builtin
/// kernels, so that an edit of builtin_kernel_bodies.cpp does not silently break them).
unsigned source_line(const char* file, const std::string& needle) {
    std::ifstream in(std::string(NPUSIM_SOURCE_DIR) + "/" + file);
    std::string text;
    for (unsigned line = 1; std::getline(in, text); ++line) {
        if (text.find(needle) != std::string::npos) return line;
    }
    return 0;
}

// ---- intra-pipe --------------------------------------------------------------------------

void intra_pipe(std::vector<Entry>& v) {
    v.push_back({"intra-pipe RAW+WAW UB: add then in-place muls without PipeBarrier<V>", true, [] {
                     Rig r;
                     auto x = r.input(2 * N, "x");
                     unsigned L[2]{};
                     r.run(aiv("ip_add_muls"), [&](Block& b) {
                         auto a = ub(b), c = ub(b), t = ub(b);
                         b.copy(a, x.sub(0, N), N);
                         b.copy(c, x.sub(N, N), N);
                         flag(b, Pipe::MTE2, Pipe::V);
                         L[0] = __LINE__ + 1;
                         b.add(t, a, c, N);
                         L[1] = __LINE__ + 1;
                         b.muls(t, t, 2.0F, N);
                     });
                     return r.done({race(RAW, UB, Intra, Pipe::V, L[0], Pipe::V, L[1]),
                                    race(WAW, UB, Intra, Pipe::V, L[0], Pipe::V, L[1])});
                 }});

    v.push_back({"intra-pipe RAW UB: muls reads what add wrote, no PipeBarrier<V>", true, [] {
                     Rig r;
                     auto x = r.input(2 * N, "x");
                     unsigned L[2]{};
                     r.run(aiv("ip_raw"), [&](Block& b) {
                         auto a = ub(b), c = ub(b), t = ub(b), u = ub(b);
                         b.copy(a, x.sub(0, N), N);
                         b.copy(c, x.sub(N, N), N);
                         flag(b, Pipe::MTE2, Pipe::V);
                         L[0] = __LINE__ + 1;
                         b.add(t, a, c, N);
                         L[1] = __LINE__ + 1;
                         b.muls(u, t, 2.0F, N);
                     });
                     return r.done({race(RAW, UB, Intra, Pipe::V, L[0], Pipe::V, L[1])});
                 }});

    v.push_back({"intra-pipe WAR UB: muls overwrites an operand add still reads", true, [] {
                     Rig r;
                     auto x = r.input(2 * N, "x");
                     unsigned L[2]{};
                     r.run(aiv("ip_war"), [&](Block& b) {
                         auto a = ub(b), c = ub(b), t = ub(b);
                         b.copy(a, x.sub(0, N), N);
                         b.copy(c, x.sub(N, N), N);
                         flag(b, Pipe::MTE2, Pipe::V);
                         L[0] = __LINE__ + 1;
                         b.add(t, a, c, N);
                         L[1] = __LINE__ + 1;
                         b.muls(a, c, 2.0F, N);
                     });
                     return r.done({race(WAR, UB, Intra, Pipe::V, L[0], Pipe::V, L[1])});
                 }});

    v.push_back(
        {"intra-pipe WAR UB: a UB->UB copy (PIPE_V) reads what a later add overwrites", true, [] {
             Rig r;
             auto x = r.input(2 * N, "x");
             unsigned L[2]{};
             r.run(aiv("ip_war_copy"), [&](Block& b) {
                 auto a = ub(b), c = ub(b), t = ub(b);
                 b.copy(a, x.sub(0, N), N);
                 b.copy(c, x.sub(N, N), N);
                 flag(b, Pipe::MTE2, Pipe::V);
                 L[0] = __LINE__ + 1;
                 b.copy(t, a, N);
                 L[1] = __LINE__ + 1;
                 b.add(a, c, c, N);
             });
             return r.done({race(WAR, UB, Intra, Pipe::V, L[0], Pipe::V, L[1])});
         }});

    v.push_back({"intra-pipe WAW UB: two fills of one tile", true, [] {
                     Rig r;
                     unsigned L[2]{};
                     r.run(aiv("ip_waw_v"), [&](Block& b) {
                         auto t = ub(b);
                         L[0] = __LINE__ + 1;
                         b.fill(t, 1.0F, N);
                         L[1] = __LINE__ + 1;
                         b.fill(t, 2.0F, N);
                     });
                     return r.done({race(WAW, UB, Intra, Pipe::V, L[0], Pipe::V, L[1])});
                 }});

    v.push_back({"intra-pipe WAW UB: fills overlapping by 32 bytes", true, [] {
                     Rig r;
                     unsigned L[2]{};
                     r.run(aiv("ip_waw_overlap"), [&](Block& b) {
                         auto t = ub(b, 2 * N);
                         L[0] = __LINE__ + 1;
                         b.fill(t.sub(0, N), 1.0F, N);
                         L[1] = __LINE__ + 1;
                         b.fill(t.sub(N - 8, N), 2.0F, N);  // elements [56, 120): 8 shared
                     });
                     return r.done({race(WAW, UB, Intra, Pipe::V, L[0], Pipe::V, L[1])});
                 }});

    v.push_back({"intra-pipe WAW UB: two GM->UB loads into one tile (MTE2)", true, [] {
                     Rig r;
                     auto x = r.input(2 * N, "x");
                     unsigned L[2]{};
                     r.run(aiv("ip_waw_mte2"), [&](Block& b) {
                         auto u = ub(b);
                         L[0] = __LINE__ + 1;
                         b.copy(u, x.sub(0, N), N);
                         L[1] = __LINE__ + 1;
                         b.copy(u, x.sub(N, N), N);
                     });
                     return r.done({race(WAW, UB, Intra, Pipe::MTE2, L[0], Pipe::MTE2, L[1])});
                 }});

    v.push_back({"intra-pipe WAW GM: two UB->GM stores to one range (MTE3)", true, [] {
                     Rig r;
                     auto x = r.input(2 * N, "x");
                     auto z = r.output(N, "z");
                     unsigned L[2]{};
                     r.run(aiv("ip_waw_mte3"), [&](Block& b) {
                         auto a = ub(b), c = ub(b);
                         b.copy(a, x.sub(0, N), N);
                         b.copy(c, x.sub(N, N), N);
                         flag(b, Pipe::MTE2, Pipe::MTE3);
                         L[0] = __LINE__ + 1;
                         b.copy(z, a, N);
                         L[1] = __LINE__ + 1;
                         b.copy(z, c, N);
                     });
                     return r.done({race(WAW, GM, Intra, Pipe::MTE3, L[0], Pipe::MTE3, L[1])});
                 }});

    v.push_back({"intra-pipe WAW L1: two GM->L1 loads into one tile (MTE2, cube)", true, [] {
                     Rig r;
                     auto ga = r.matrix("a", 1), gb = r.matrix("b", 2);
                     unsigned L[2]{};
                     r.run(aic("ip_waw_l1"), [&](Block& b) {
                         auto l1 = b.alloc<half>(MemSpace::L1, DD);
                         L[0] = __LINE__ + 1;
                         b.copy(l1, ga, DD);
                         L[1] = __LINE__ + 1;
                         b.copy(l1, gb, DD);
                     });
                     return r.done({race(WAW, L1, Intra, Pipe::MTE2, L[0], Pipe::MTE2, L[1])});
                 }});

    v.push_back({"intra-pipe WAW L0A: two L1->L0A loads (MTE1)", true, [] {
                     Rig r;
                     auto ga = r.matrix("a", 1), gb = r.matrix("b", 2);
                     unsigned L[2]{};
                     r.run(aic("ip_waw_l0a"), [&](Block& b) {
                         auto c = cube_tiles(b);
                         b.copy(c.l1a, ga, DD);
                         b.copy(c.l1b, gb, DD);
                         flag(b, Pipe::MTE2, Pipe::MTE1);
                         L[0] = __LINE__ + 1;
                         b.copy(c.l0a, c.l1a, DD);
                         L[1] = __LINE__ + 1;
                         b.copy(c.l0a, c.l1b, DD);
                     });
                     return r.done({race(WAW, L0A, Intra, Pipe::MTE1, L[0], Pipe::MTE1, L[1])});
                 }});

    v.push_back({"intra-pipe WAW L0B: two L1->L0B loads (MTE1)", true, [] {
                     Rig r;
                     auto ga = r.matrix("a", 1), gb = r.matrix("b", 2);
                     unsigned L[2]{};
                     r.run(aic("ip_waw_l0b"), [&](Block& b) {
                         auto c = cube_tiles(b);
                         b.copy(c.l1a, ga, DD);
                         b.copy(c.l1b, gb, DD);
                         flag(b, Pipe::MTE2, Pipe::MTE1);
                         L[0] = __LINE__ + 1;
                         b.copy(c.l0b, c.l1a, DD);
                         L[1] = __LINE__ + 1;
                         b.copy(c.l0b, c.l1b, DD);
                     });
                     return r.done({race(WAW, L0B, Intra, Pipe::MTE1, L[0], Pipe::MTE1, L[1])});
                 }});

    v.push_back(
        {"intra-pipe RAW+WAW L0C: mmad then accumulating mmad without PipeBarrier<M>", true, [] {
             // The second mmad reads C (c += a x b) and writes it: a RAW and a WAW on L0C.
             Rig r;
             auto ga = r.matrix("a", 1), gb = r.matrix("b", 2);
             unsigned L[2]{};
             r.run(aic("ip_l0c_acc"), [&](Block& b) {
                 auto c = cube_tiles(b);
                 cube_load(b, c, ga, gb);
                 L[0] = __LINE__ + 1;
                 b.mmad(c.l0c, c.l0a, c.l0b, D, D, D, false);
                 L[1] = __LINE__ + 1;
                 b.mmad(c.l0c, c.l0a, c.l0b, D, D, D, true);
             });
             return r.done({race(RAW, L0C, Intra, Pipe::M, L[0], Pipe::M, L[1]),
                            race(WAW, L0C, Intra, Pipe::M, L[0], Pipe::M, L[1])});
         }});

    v.push_back({"intra-pipe WAW L0C: two overwriting mmads without PipeBarrier<M>", true, [] {
                     Rig r;
                     auto ga = r.matrix("a", 1), gb = r.matrix("b", 2);
                     unsigned L[2]{};
                     r.run(aic("ip_l0c_waw"), [&](Block& b) {
                         auto c = cube_tiles(b);
                         cube_load(b, c, ga, gb);
                         L[0] = __LINE__ + 1;
                         b.mmad(c.l0c, c.l0a, c.l0b, D, D, D, false);
                         L[1] = __LINE__ + 1;
                         b.mmad(c.l0c, c.l0a, c.l0b, D, D, D, false);
                     });
                     return r.done({race(WAW, L0C, Intra, Pipe::M, L[0], Pipe::M, L[1])});
                 }});

    v.push_back({"builtin vector_chain with barrier = 0: RAW+WAW on PIPE_V", true, [] {
                     Rig r;
                     kernels::VectorChainArgs args;
                     args.tile = N;
                     args.barrier = false;
                     args.x = r.input(2 * N, "x");
                     args.out = r.output(2 * N, "out");
                     r.run(aiv("vector_chain_no_barrier"),
                           [args](Block& b) { kernels::vector_chain(b, args); });
                     const unsigned add = source_line("sim/kernels/builtin_kernel_bodies.cpp",
                                                      "b.add(tmp, in, in, n);");
                     const unsigned muls = source_line("sim/kernels/builtin_kernel_bodies.cpp",
                                                       "b.muls(tmp, tmp, 2.0F, n);");
                     return r.done({race(RAW, UB, Intra, Pipe::V, add, Pipe::V, muls),
                                    race(WAW, UB, Intra, Pipe::V, add, Pipe::V, muls)});
                 }});
}

// ---- inter-pipe --------------------------------------------------------------------------

void inter_pipe(std::vector<Entry>& v) {
    v.push_back({"inter-pipe RAW UB: GM->UB load then add, no MTE2->V flag", true, [] {
                     Rig r;
                     auto x = r.input(N, "x");
                     unsigned L[2]{};
                     r.run(aiv("xp_raw_mte2_v"), [&](Block& b) {
                         auto a = ub(b), t = ub(b);
                         L[0] = __LINE__ + 1;
                         b.copy(a, x, N);
                         L[1] = __LINE__ + 1;
                         b.add(t, a, a, N);
                     });
                     return r.done({race(RAW, UB, Inter, Pipe::MTE2, L[0], Pipe::V, L[1])});
                 }});

    v.push_back(
        {"inter-pipe RAW UB: the flag goes to the wrong pipe (MTE2->MTE3, V reads)", true, [] {
             Rig r;
             auto x = r.input(N, "x");
             auto z = r.output(N, "z");
             unsigned L[2]{};
             r.run(aiv("xp_wrong_flag"), [&](Block& b) {
                 auto a = ub(b), t = ub(b);
                 L[0] = __LINE__ + 1;
                 b.copy(a, x, N);
                 flag(b, Pipe::MTE2, Pipe::MTE3);
                 b.copy(z, a, N);  // MTE3 is ordered, fine
                 L[1] = __LINE__ + 1;
                 b.add(t, a, a, N);
             });
             return r.done({race(RAW, UB, Inter, Pipe::MTE2, L[0], Pipe::V, L[1])});
         }});

    v.push_back({"inter-pipe RAW UB: PipeBarrier on the wrong pipe (V) after a load", true, [] {
                     Rig r;
                     auto x = r.input(N, "x");
                     unsigned L[2]{};
                     r.run(aiv("xp_wrong_barrier"), [&](Block& b) {
                         auto a = ub(b), t = ub(b);
                         L[0] = __LINE__ + 1;
                         b.copy(a, x, N);
                         b.pipe_barrier(Pipe::V);
                         L[1] = __LINE__ + 1;
                         b.add(t, a, a, N);
                     });
                     return r.done({race(RAW, UB, Inter, Pipe::MTE2, L[0], Pipe::V, L[1])});
                 }});

    v.push_back(
        {"inter-pipe WAR UB: next load overwrites a tile V still reads, no V->MTE2 flag", true, [] {
             Rig r;
             auto x = r.input(2 * N, "x");
             unsigned L[2]{};
             r.run(aiv("xp_war_v_mte2"), [&](Block& b) {
                 auto a = ub(b), t = ub(b);
                 b.copy(a, x.sub(0, N), N);
                 flag(b, Pipe::MTE2, Pipe::V);
                 L[0] = __LINE__ + 1;
                 b.add(t, a, a, N);
                 b.pipe_barrier(Pipe::MTE2);  // orders the two loads, not V against MTE2
                 L[1] = __LINE__ + 1;
                 b.copy(a, x.sub(N, N), N);
             });
             return r.done({race(WAR, UB, Inter, Pipe::V, L[0], Pipe::MTE2, L[1])});
         }});

    v.push_back(
        {"inter-pipe WAR UB: the reading vector op waits behind a WaitFlag set later", true, [] {
             // In issue order (and in time) add reads `a` before the reload overwrites it: a WAR.
             // The add is held in V's queue until SetFlag<MTE3_V> is issued, after the reload.
             Rig r;
             auto x = r.input(2 * N, "x");
             unsigned L[2]{};
             r.run(aiv("xp_war_stalled"), [&](Block& b) {
                 auto a = ub(b), t = ub(b);
                 b.copy(a, x.sub(0, N), N);
                 flag(b, Pipe::MTE2, Pipe::V);
                 b.wait_flag(Pipe::MTE3, Pipe::V, 1);  // its SetFlag comes below
                 L[0] = __LINE__ + 1;
                 b.add(t, a, a, N);
                 b.pipe_barrier(Pipe::MTE2);
                 L[1] = __LINE__ + 1;
                 b.copy(a, x.sub(N, N), N);
                 b.set_flag(Pipe::MTE3, Pipe::V, 1);
             });
             return r.done({race(WAR, UB, Inter, Pipe::V, L[0], Pipe::MTE2, L[1])});
         }});

    v.push_back(
        {"inter-pipe WAR UB + uninitialized read: a held vector op reads a tile before its load "
         "lands",
         true, [] {
             // add is issued before the load into `a` but published after it (held behind
             // WaitFlag<MTE3_V> until the SetFlag below). It runs at once when released, long
             // before the load lands: it reads never-written UB (t ends up 0, not 2).
             Rig r;
             auto x = r.filled(N, "x", 1.0F);
             auto z = r.output(N, "z");
             unsigned L[2]{};
             r.run(aiv("xp_uninit_held"), [&](Block& b) {
                 auto a = ub(b), t = ub(b);
                 b.wait_flag(Pipe::MTE3, Pipe::V, 1);
                 L[0] = __LINE__ + 1;
                 b.add(t, a, a, N);
                 L[1] = __LINE__ + 1;
                 b.copy(a, x, N);
                 b.set_flag(Pipe::MTE3, Pipe::V, 1);
                 flag(b, Pipe::V, Pipe::MTE3);
                 b.copy(z, t, N);
             });
             if (r.sim.read(z)[0] != 0.0F) r.problem += "label check: add saw the loaded data; ";
             return r.done({race(WAR, UB, Inter, Pipe::V, L[0], Pipe::MTE2, L[1]),
                            single(FindingKind::UninitializedRead, UB, Pipe::V, L[0])});
         }});

    v.push_back({"inter-pipe WAW UB: fill then a load into the same tile", true, [] {
                     Rig r;
                     auto x = r.input(N, "x");
                     unsigned L[2]{};
                     r.run(aiv("xp_waw_v_mte2"), [&](Block& b) {
                         auto t = ub(b);
                         L[0] = __LINE__ + 1;
                         b.fill(t, 0.0F, N);
                         L[1] = __LINE__ + 1;
                         b.copy(t, x, N);
                     });
                     return r.done({race(WAW, UB, Inter, Pipe::V, L[0], Pipe::MTE2, L[1])});
                 }});

    v.push_back({"inter-pipe WAW UB: fill and load overlap by 32 bytes", true, [] {
                     Rig r;
                     auto x = r.input(N, "x");
                     unsigned L[2]{};
                     r.run(aiv("xp_waw_overlap"), [&](Block& b) {
                         auto t = ub(b, 2 * N);
                         L[0] = __LINE__ + 1;
                         b.fill(t.sub(0, N), 0.0F, N);
                         L[1] = __LINE__ + 1;
                         b.copy(t.sub(N - 8, N), x, N);
                     });
                     return r.done({race(WAW, UB, Inter, Pipe::V, L[0], Pipe::MTE2, L[1])});
                 }});

    v.push_back({"inter-pipe RAW UB: store the add's result, no V->MTE3 flag", true, [] {
                     Rig r;
                     auto x = r.input(2 * N, "x");
                     auto z = r.output(N, "z");
                     unsigned L[2]{};
                     r.run(aiv("xp_raw_v_mte3"), [&](Block& b) {
                         auto a = ub(b), c = ub(b), t = ub(b);
                         b.copy(a, x.sub(0, N), N);
                         b.copy(c, x.sub(N, N), N);
                         flag(b, Pipe::MTE2, Pipe::V);
                         L[0] = __LINE__ + 1;
                         b.add(t, a, c, N);
                         L[1] = __LINE__ + 1;
                         b.copy(z, t, N);
                     });
                     return r.done({race(RAW, UB, Inter, Pipe::V, L[0], Pipe::MTE3, L[1])});
                 }});

    v.push_back(
        {"inter-pipe WAR UB: V overwrites a tile MTE3 still stores, no MTE3->V flag", true, [] {
             Rig r;
             auto x = r.input(2 * N, "x");
             auto z = r.output(N, "z");
             unsigned L[2]{};
             r.run(aiv("xp_war_mte3_v"), [&](Block& b) {
                 auto a = ub(b), c = ub(b), t = ub(b);
                 b.copy(a, x.sub(0, N), N);
                 b.copy(c, x.sub(N, N), N);
                 flag(b, Pipe::MTE2, Pipe::V);
                 b.add(t, a, c, N);
                 flag(b, Pipe::V, Pipe::MTE3);
                 L[0] = __LINE__ + 1;
                 b.copy(z, t, N);
                 b.pipe_barrier(Pipe::V);  // orders V against V only
                 L[1] = __LINE__ + 1;
                 b.muls(t, a, 2.0F, N);
             });
             return r.done({race(WAR, UB, Inter, Pipe::MTE3, L[0], Pipe::V, L[1])});
         }});

    v.push_back({"inter-pipe RAW UB: scalar load of a tile MTE2 is still loading", true, [] {
                     Rig r;
                     auto x = r.input(N, "x");
                     unsigned L[2]{};
                     r.run(aiv("xp_raw_mte2_s"), [&](Block& b) {
                         auto a = ub(b);
                         L[0] = __LINE__ + 1;
                         b.copy(a, x, N);
                         L[1] = __LINE__ + 1;
                         (void)b.load(a, 0);
                     });
                     return r.done({race(RAW, UB, Inter, Pipe::MTE2, L[0], Pipe::S, L[1])});
                 }});

    v.push_back(
        {"inter-pipe RAW UB: scalar store then a vector op reads it, no S->V flag", true, [] {
             Rig r;
             auto x = r.input(N, "x");
             unsigned L[2]{};
             r.run(aiv("xp_raw_s_v"), [&](Block& b) {
                 auto a = ub(b), t = ub(b);
                 b.copy(a, x, N);
                 flag(b, Pipe::MTE2, Pipe::S);  // the scalar unit and (through it) V see the load
                 L[0] = __LINE__ + 1;
                 b.store(a, 0, 5.0F);
                 L[1] = __LINE__ + 1;
                 b.add(t, a, a, N);
             });
             return r.done({race(RAW, UB, Inter, Pipe::S, L[0], Pipe::V, L[1])});
         }});

    v.push_back({"inter-pipe RAW GM: store to GM then load it back, no MTE3->MTE2 flag", true, [] {
                     Rig r;
                     auto x = r.input(N, "x");
                     auto g = r.output(N, "g");
                     unsigned L[2]{};
                     r.run(aiv("xp_raw_gm"), [&](Block& b) {
                         auto a = ub(b), c = ub(b);
                         b.copy(a, x, N);
                         flag(b, Pipe::MTE2, Pipe::MTE3);
                         L[0] = __LINE__ + 1;
                         b.copy(g, a, N);
                         L[1] = __LINE__ + 1;
                         b.copy(c, g, N);
                     });
                     return r.done({race(RAW, GM, Inter, Pipe::MTE3, L[0], Pipe::MTE2, L[1])});
                 }});

    v.push_back(
        {"inter-pipe WAR GM: store over GM that a load still reads, no MTE2->MTE3 flag", true, [] {
             Rig r;
             auto x = r.input(N, "x");
             auto g = r.input(N, "g", 2);
             unsigned L[2]{};
             r.run(aiv("xp_war_gm"), [&](Block& b) {
                 auto a = ub(b), c = ub(b);
                 b.copy(c, x, N);
                 flag(b, Pipe::MTE2, Pipe::MTE3);  // c is loaded; the load of g comes after
                 L[0] = __LINE__ + 1;
                 b.copy(a, g, N);
                 L[1] = __LINE__ + 1;
                 b.copy(g, c, N);
             });
             return r.done({race(WAR, GM, Inter, Pipe::MTE2, L[0], Pipe::MTE3, L[1])});
         }});

    v.push_back(
        {"inter-pipe WAW GM: scalar store then a DataCopy over it, no S->MTE3 flag", true, [] {
             Rig r;
             auto x = r.input(N, "x");
             auto g = r.output(N, "g");
             unsigned L[2]{};
             r.run(aiv("xp_waw_gm_s"), [&](Block& b) {
                 auto a = ub(b);
                 b.copy(a, x, N);
                 flag(b, Pipe::MTE2, Pipe::MTE3);
                 L[0] = __LINE__ + 1;
                 b.store(g, 0, 1.0F);
                 L[1] = __LINE__ + 1;
                 b.copy(g, a, N);
             });
             return r.done({race(WAW, GM, Inter, Pipe::S, L[0], Pipe::MTE3, L[1])});
         }});

    v.push_back({"inter-pipe RAW L1: GM->L1 then L1->L0A, no MTE2->MTE1 flag", true, [] {
                     Rig r;
                     auto ga = r.matrix("a");
                     unsigned L[2]{};
                     r.run(aic("xp_raw_l1"), [&](Block& b) {
                         auto c = cube_tiles(b);
                         L[0] = __LINE__ + 1;
                         b.copy(c.l1a, ga, DD);
                         L[1] = __LINE__ + 1;
                         b.copy(c.l0a, c.l1a, DD);
                     });
                     return r.done({race(RAW, L1, Inter, Pipe::MTE2, L[0], Pipe::MTE1, L[1])});
                 }});

    v.push_back(
        {"inter-pipe WAR L1: reload L1 while MTE1 still reads it, no MTE1->MTE2 flag", true, [] {
             Rig r;
             auto ga = r.matrix("a", 1), gb = r.matrix("b", 2);
             unsigned L[2]{};
             r.run(aic("xp_war_l1"), [&](Block& b) {
                 auto c = cube_tiles(b);
                 b.copy(c.l1a, ga, DD);
                 flag(b, Pipe::MTE2, Pipe::MTE1);
                 L[0] = __LINE__ + 1;
                 b.copy(c.l0a, c.l1a, DD);
                 b.pipe_barrier(Pipe::MTE2);
                 L[1] = __LINE__ + 1;
                 b.copy(c.l1a, gb, DD);
             });
             return r.done({race(WAR, L1, Inter, Pipe::MTE1, L[0], Pipe::MTE2, L[1])});
         }});

    v.push_back({"inter-pipe RAW L0A: L1->L0A then mmad, no MTE1->M flag after it", true, [] {
                     Rig r;
                     auto ga = r.matrix("a", 1), gb = r.matrix("b", 2);
                     unsigned L[2]{};
                     r.run(aic("xp_raw_l0a"), [&](Block& b) {
                         auto c = cube_tiles(b);
                         b.copy(c.l1a, ga, DD);
                         b.copy(c.l1b, gb, DD);
                         flag(b, Pipe::MTE2, Pipe::MTE1);
                         b.copy(c.l0b, c.l1b, DD);
                         flag(b, Pipe::MTE1, Pipe::M);  // covers L0B only: L0A is loaded after it
                         L[0] = __LINE__ + 1;
                         b.copy(c.l0a, c.l1a, DD);
                         L[1] = __LINE__ + 1;
                         b.mmad(c.l0c, c.l0a, c.l0b, D, D, D);
                     });
                     return r.done({race(RAW, L0A, Inter, Pipe::MTE1, L[0], Pipe::M, L[1])});
                 }});

    v.push_back({"inter-pipe RAW L0B: L1->L0B then mmad, no MTE1->M flag after it", true, [] {
                     Rig r;
                     auto ga = r.matrix("a", 1), gb = r.matrix("b", 2);
                     unsigned L[2]{};
                     r.run(aic("xp_raw_l0b"), [&](Block& b) {
                         auto c = cube_tiles(b);
                         b.copy(c.l1a, ga, DD);
                         b.copy(c.l1b, gb, DD);
                         flag(b, Pipe::MTE2, Pipe::MTE1);
                         b.copy(c.l0a, c.l1a, DD);
                         flag(b, Pipe::MTE1, Pipe::M);
                         L[0] = __LINE__ + 1;
                         b.copy(c.l0b, c.l1b, DD);
                         L[1] = __LINE__ + 1;
                         b.mmad(c.l0c, c.l0a, c.l0b, D, D, D);
                     });
                     return r.done({race(RAW, L0B, Inter, Pipe::MTE1, L[0], Pipe::M, L[1])});
                 }});

    v.push_back(
        {"inter-pipe WAR L0A: reload L0A while mmad still reads it, no M->MTE1 flag", true, [] {
             Rig r;
             auto ga = r.matrix("a", 1), gb = r.matrix("b", 2);
             unsigned L[2]{};
             r.run(aic("xp_war_l0a"), [&](Block& b) {
                 auto c = cube_tiles(b);
                 cube_load(b, c, ga, gb);
                 L[0] = __LINE__ + 1;
                 b.mmad(c.l0c, c.l0a, c.l0b, D, D, D);
                 b.pipe_barrier(Pipe::MTE1);
                 L[1] = __LINE__ + 1;
                 b.copy(c.l0a, c.l1b, DD);
             });
             return r.done({race(WAR, L0A, Inter, Pipe::M, L[0], Pipe::MTE1, L[1])});
         }});

    v.push_back({"inter-pipe RAW L0C: mmad then L0C->GM, no M->FIX flag", true, [] {
                     Rig r;
                     auto ga = r.matrix("a", 1), gb = r.matrix("b", 2);
                     auto gc = r.output(DD, "c");
                     unsigned L[2]{};
                     r.run(aic("xp_raw_l0c"), [&](Block& b) {
                         auto c = cube_tiles(b);
                         cube_load(b, c, ga, gb);
                         L[0] = __LINE__ + 1;
                         b.mmad(c.l0c, c.l0a, c.l0b, D, D, D);
                         L[1] = __LINE__ + 1;
                         b.copy(gc, c.l0c, DD);
                     });
                     return r.done({race(RAW, L0C, Inter, Pipe::M, L[0], Pipe::FIX, L[1])});
                 }});

    v.push_back({"inter-pipe WAR L0C: next mmad overwrites C while FIX still reads it", true, [] {
                     Rig r;
                     auto ga = r.matrix("a", 1), gb = r.matrix("b", 2);
                     auto gc = r.output(DD, "c");
                     unsigned L[2]{};
                     r.run(aic("xp_war_l0c"), [&](Block& b) {
                         auto c = cube_tiles(b);
                         cube_load(b, c, ga, gb);
                         b.mmad(c.l0c, c.l0a, c.l0b, D, D, D);
                         flag(b, Pipe::M, Pipe::FIX);
                         L[0] = __LINE__ + 1;
                         b.copy(gc, c.l0c, DD);
                         b.pipe_barrier(Pipe::M);
                         L[1] = __LINE__ + 1;
                         b.mmad(c.l0c, c.l0a, c.l0b, D, D, D);
                     });
                     return r.done({race(WAR, L0C, Inter, Pipe::FIX, L[0], Pipe::M, L[1])});
                 }});

    v.push_back({"inter-pipe RAW GM (cube): L0C->GM then GM->L1, no FIX->MTE2 flag", true, [] {
                     Rig r;
                     auto ga = r.matrix("a", 1), gb = r.matrix("b", 2);
                     auto gc = r.output(DD, "c");
                     unsigned L[2]{};
                     r.run(aic("xp_raw_gm_fix"), [&](Block& b) {
                         auto c = cube_tiles(b);
                         auto back = b.alloc<float>(MemSpace::L1, DD);
                         cube_load(b, c, ga, gb);
                         b.mmad(c.l0c, c.l0a, c.l0b, D, D, D);
                         flag(b, Pipe::M, Pipe::FIX);
                         L[0] = __LINE__ + 1;
                         b.copy(gc, c.l0c, DD);
                         L[1] = __LINE__ + 1;
                         b.copy(back, gc, DD);
                     });
                     return r.done({race(RAW, GM, Inter, Pipe::FIX, L[0], Pipe::MTE2, L[1])});
                 }});
}

// ---- inter-core --------------------------------------------------------------------------

/// The SyncAll reduction without SyncAll, where a long stretch of vector work delays every
/// block's reads until all slices are in GM: this run's output is right, the race is still
/// there.
void late_reduction(Block& b, kernels::ReductionArgs args, unsigned* L) {
    const std::uint32_t me = b.block_idx(), blocks = b.block_num();
    const std::uint64_t n = args.elements;
    auto mine = ub(b, n), other = ub(b, n);
    b.copy(mine, args.input.sub(me * n, n), n);
    flag(b, Pipe::MTE2, Pipe::V);
    b.muls(mine, mine, 2.0F, n);
    flag(b, Pipe::V, Pipe::MTE3);
    L[0] = __LINE__ + 1;
    b.copy(args.work.sub(me * n, n), mine, n);
    flag(b, Pipe::MTE3, Pipe::V, 1);  // V may overwrite `mine` after the store read it
    delay_loads(b);                   // ... instead of SyncAll
    for (std::uint32_t k = 1; k < blocks; ++k) {
        const std::uint32_t from = (me + k) % blocks;
        L[1] = __LINE__ + 1;
        b.copy(other, args.work.sub(from * n, n), n);
        flag(b, Pipe::MTE2, Pipe::V);
        b.add(mine, mine, other, n);
        b.pipe_barrier(Pipe::V);
        flag(b, Pipe::V, Pipe::MTE2);
    }
    flag(b, Pipe::V, Pipe::MTE3);
    b.copy(args.output.sub(me * n, n), mine, n);
}

kernels::ReductionArgs reduction_args(Rig& r, std::uint32_t blocks, std::uint32_t sync) {
    kernels::ReductionArgs args;
    args.elements = 32;
    args.sync = sync;
    const std::uint64_t total = args.elements * blocks;
    args.input = r.filled(total, "input", 1.0F);
    args.work = r.output(total, "work");
    args.output = r.output(total, "output");
    args.sync_workspace = r.sim.allocate<std::int32_t>(8ull * blocks, "ws");
    return args;
}

std::string check_reduction(Rig& r, const kernels::ReductionArgs& args, std::uint32_t blocks) {
    for (float value : r.sim.read(args.output)) {
        if (value != 2.0F * static_cast<float>(blocks)) {
            return "reduction output holds " + std::to_string(value) + ", want " +
                   std::to_string(2 * blocks);
        }
    }
    return "";
}

void inter_core(std::vector<Entry>& v) {
    v.push_back({"inter-core WAW GM: two blocks store to the same range", true, [] {
                     Rig r;
                     auto x = r.input(2 * N, "x");
                     auto z = r.output(N, "z");
                     unsigned L[1]{};
                     r.run(aiv("ic_waw", 2), [&](Block& b) {
                         auto a = ub(b);
                         b.copy(a, x.sub(b.block_idx() * N, N), N);
                         flag(b, Pipe::MTE2, Pipe::MTE3);
                         L[0] = __LINE__ + 1;
                         b.copy(z, a, N);
                     });
                     return r.done({race(WAW, GM, Cores, Pipe::MTE3, L[0], Pipe::MTE3, L[0])});
                 }});

    v.push_back({"inter-core WAW GM: two blocks' stores overlap by 32 bytes", true, [] {
                     Rig r;
                     auto x = r.input(2 * N, "x");
                     auto z = r.output(2 * N, "z");
                     unsigned L[1]{};
                     r.run(aiv("ic_waw_overlap", 2), [&](Block& b) {
                         auto a = ub(b);
                         b.copy(a, x.sub(b.block_idx() * N, N), N);
                         flag(b, Pipe::MTE2, Pipe::MTE3);
                         L[0] = __LINE__ + 1;
                         b.copy(z.sub(b.block_idx() * (N - 8), N), a, N);  // [0, 64) and [56, 120)
                     });
                     return r.done({race(WAW, GM, Cores, Pipe::MTE3, L[0], Pipe::MTE3, L[0])});
                 }});

    v.push_back({"inter-core RAW GM: block 1 (started 5000 cycles late) loads what block 0 stored",
                 true, [] {
                     Rig r;
                     auto x = r.input(N, "x");
                     auto g = r.output(N, "g");
                     unsigned L[2]{};
                     r.run(aiv("ic_raw", 2, {0, 5000}), [&](Block& b) {
                         auto a = ub(b);
                         if (b.block_idx() == 0) {
                             b.copy(a, x, N);
                             flag(b, Pipe::MTE2, Pipe::MTE3);
                             L[0] = __LINE__ + 1;
                             b.copy(g, a, N);
                         } else {
                             L[1] = __LINE__ + 1;
                             b.copy(a, g, N);
                         }
                     });
                     r.problem += r.log.before(L[0], L[1]);
                     return r.done({race(RAW, GM, Cores, Pipe::MTE3, L[0], Pipe::MTE2, L[1])});
                 }});

    v.push_back(
        {"inter-core WAR GM: block 1 (started 5000 cycles late) stores over what block 0 loaded",
         true, [] {
             Rig r;
             auto x = r.input(N, "x");
             auto g = r.input(N, "g", 2);
             unsigned L[2]{};
             r.run(aiv("ic_war", 2, {0, 5000}), [&](Block& b) {
                 auto a = ub(b);
                 if (b.block_idx() == 0) {
                     L[0] = __LINE__ + 1;
                     b.copy(a, g, N);
                 } else {
                     b.copy(a, x, N);
                     flag(b, Pipe::MTE2, Pipe::MTE3);
                     L[1] = __LINE__ + 1;
                     b.copy(g, a, N);
                 }
             });
             r.problem += r.log.before(L[0], L[1]);
             return r.done({race(WAR, GM, Cores, Pipe::MTE2, L[0], Pipe::MTE3, L[1])});
         }});

    v.push_back(
        {"inter-core RAW GM: scalar store in block 0, scalar load in block 1 (late)", true, [] {
             Rig r;
             auto g = r.output(8, "g");
             unsigned L[2]{};
             r.run(aiv("ic_raw_scalar", 2, {0, 5000}), [&](Block& b) {
                 if (b.block_idx() == 0) {
                     L[0] = __LINE__ + 1;
                     b.store(g, 0, 42.0F);
                 } else {
                     L[1] = __LINE__ + 1;
                     (void)b.load(g, 0);
                 }
             });
             r.problem += r.log.before(L[0], L[1]);
             return r.done({race(RAW, GM, Cores, Pipe::S, L[0], Pipe::S, L[1])});
         }});

    v.push_back({"inter-core RAW GM: AIV loads what the AIC stored, no cross-core flag", true, [] {
                     Rig r;
                     auto ga = r.matrix("a", 1), gb = r.matrix("b", 2);
                     auto gc = r.output(DD, "c");
                     unsigned L[2]{};
                     r.run(mix("ic_raw_mix"), [&](Block& b) {
                         if (b.core_type() == CoreType::Cube) {
                             auto c = cube_tiles(b);
                             cube_load(b, c, ga, gb);
                             b.mmad(c.l0c, c.l0a, c.l0b, D, D, D);
                             flag(b, Pipe::M, Pipe::FIX);
                             L[0] = __LINE__ + 1;
                             b.copy(gc, c.l0c, DD);
                             return;
                         }
                         auto t = ub(b, DD);
                         delay_loads(b, 120);  // the load starts long after C is in GM
                         L[1] = __LINE__ + 1;
                         b.copy(t, gc, DD);
                     });
                     r.problem += r.log.before(L[0], L[1]);
                     return r.done({race(RAW, GM, Cores, Pipe::FIX, L[0], Pipe::MTE2, L[1])});
                 }});

    v.push_back(
        {"inter-core WAR GM + uninitialized read: a load overtakes another block's in-flight store",
         true, [] {
             // Block 1's store to g starts at ~109 and lands at ~217; block 0's load of g starts at
             // ~118, in between: it reads g before the store lands, i.e. never-written bytes (the
             // value it sees is 0). What this run did is a WAR plus an uninitialized read.
             Rig r;
             auto x = r.filled(N, "x", 1.0F);
             auto g = r.output(N, "g");
             auto seen = r.output(N, "seen");
             unsigned L[2]{};
             r.run(aiv("ic_overtake", 2), [&](Block& b) {
                 auto a = ub(b);
                 b.copy(a, x, N);
                 if (b.block_idx() == 1) {
                     flag(b, Pipe::MTE2, Pipe::MTE3);
                     L[1] = __LINE__ + 1;
                     b.copy(g, a, N);
                     return;
                 }
                 auto c = ub(b);
                 flag(b, Pipe::MTE2, Pipe::V);
                 b.adds(a, a, 0.0F, N);
                 flag(b, Pipe::V, Pipe::MTE2);
                 L[0] = __LINE__ + 1;
                 b.copy(c, g, N);
                 flag(b, Pipe::MTE2, Pipe::MTE3);
                 b.copy(seen, c, N);
             });
             // Label check: the load began while the store was in flight, and saw the old bytes.
             Cycle load = 0, store_start = 0, store_end = 0;
             for (const TimeLog::Access& a : r.log.accesses) {
                 if (a.gm && a.line == L[0]) load = a.start;
                 if (a.gm && a.line == L[1]) store_start = a.start, store_end = a.end;
             }
             if (!(store_start <= load && load < store_end))
                 r.problem += "label check: the load is not inside the store's flight; ";
             if (r.sim.read(seen)[0] != 0.0F)
                 r.problem += "label check: the load saw the stored value; ";
             return r.done({race(WAR, GM, Cores, Pipe::MTE2, L[0], Pipe::MTE3, L[1]),
                            single(FindingKind::UninitializedRead, GM, Pipe::MTE2, L[0])});
         }});

    v.push_back({"inter-core RAW GM: SyncAll over vector cores only does not order the cube core",
                 true, [] {
                     Rig r;
                     auto ga = r.matrix("a", 1), gb = r.matrix("b", 2);
                     auto gc = r.output(DD, "c");
                     unsigned L[2]{};
                     r.run(mix("ic_syncall_vector"), [&](Block& b) {
                         if (b.core_type() == CoreType::Cube) {
                             auto c = cube_tiles(b);
                             cube_load(b, c, ga, gb);
                             b.mmad(c.l0c, c.l0a, c.l0b, D, D, D);
                             flag(b, Pipe::M, Pipe::FIX);
                             L[0] = __LINE__ + 1;
                             b.copy(gc, c.l0c, DD);
                             return;
                         }
                         auto t = ub(b, DD);
                         delay_loads(b, 120);
                         b.sync_all(SyncAllScope::Vector);  // the AIC takes no part
                         L[1] = __LINE__ + 1;
                         b.copy(t, gc, DD);
                     });
                     r.problem += r.log.before(L[0], L[1]);
                     return r.done({race(RAW, GM, Cores, Pipe::FIX, L[0], Pipe::MTE2, L[1])});
                 }});

    v.push_back(
        {"builtin syncall_reduction with sync 0 (no SyncAll)", true, [] {
             Rig r;
             auto args = reduction_args(r, 4, 0);
             r.run(aiv("syncall_reduction_nosync", 4),
                   [args](Block& b) { kernels::syncall_reduction(b, args); });
             const char* file = "sim/kernels/builtin_kernel_bodies.cpp";
             const unsigned store = source_line(file, "b.copy(args.work.sub(me * n, n), mine, n);");
             const unsigned load =
                 source_line(file, "b.copy(other, args.work.sub(from * n, n), n);");
             const unsigned add = source_line(file, "b.add(mine, mine, other, n);");
             // Slices of `work` cross blocks unordered. Which kind each (store, load) pair is
             // depends on this run's timing: a load that began before the slice's store landed
             // read never-written GM (a WAR and an uninitialized read), a later one is a RAW.
             bool raw_pair = false, war_pair = false;
             for (const TimeLog::Access& w : r.log.accesses) {
                 if (w.line != store || !w.gm || !w.write) continue;
                 for (const TimeLog::Access& rd : r.log.accesses) {
                     if (rd.line != load || !rd.gm || rd.write || rd.block == w.block) continue;
                     if (rd.hi <= w.lo || w.hi <= rd.lo) continue;
                     (rd.start < w.end ? war_pair : raw_pair) = true;
                 }
             }
             std::vector<Expected> expected;
             if (raw_pair)
                 expected.push_back(race(RAW, GM, Cores, Pipe::MTE3, store, Pipe::MTE2, load));
             if (war_pair) {
                 expected.push_back(race(WAR, GM, Cores, Pipe::MTE2, load, Pipe::MTE3, store));
                 expected.push_back(single(FindingKind::UninitializedRead, GM, Pipe::MTE2, load));
             }
             if (!raw_pair && !war_pair)
                 r.problem += "label check: no cross-block (store, load) pair; ";
             // Without the SyncAll (which drains the pipes) nothing orders the store's read of
             // `mine` (MTE3) before the adds into it (V).
             expected.push_back(race(WAR, UB, Inter, Pipe::MTE3, store, Pipe::V, add));
             return r.done(std::move(expected));
         }});

    v.push_back(
        {"inter-core WAR GM (program order): block 1 stores at once, block 0 loads after ~600 "
         "cycles of vector work",
         true, [] {
             // Both blocks start at cycle 0; only the vector work orders them in time.
             Rig r;
             auto x = r.input(N, "x");
             auto g = r.output(N, "g");
             unsigned L[2]{};
             r.run(aiv("ic_raw_delayed", 2), [&](Block& b) {
                 auto a = ub(b);
                 if (b.block_idx() == 1) {
                     b.copy(a, x, N);
                     flag(b, Pipe::MTE2, Pipe::MTE3);
                     L[0] = __LINE__ + 1;
                     b.copy(g, a, N);
                     return;
                 }
                 delay_loads(b);
                 L[1] = __LINE__ + 1;
                 b.copy(a, g, N);
             });
             r.problem += r.log.before(L[0], L[1]);
             // Program order names block 0's load first (was RAW only by this run's timing).
             return r.done({race(WAR, GM, Cores, Pipe::MTE2, L[1], Pipe::MTE3, L[0])});
         }});

    v.push_back(
        {"inter-core RAW GM: two kernels launched together, the second loads what the first stores",
         true, [] {
             Rig r;
             auto x = r.input(N, "x");
             auto g = r.output(N, "g");
             unsigned L[2]{};
             r.run_together(
                 aiv("producer"),
                 [&](Block& b) {
                     auto a = ub(b);
                     b.copy(a, x, N);
                     flag(b, Pipe::MTE2, Pipe::MTE3);
                     L[0] = __LINE__ + 1;
                     b.copy(g, a, N);
                 },
                 aiv("consumer", 1, {5000}),
                 [&](Block& b) {
                     auto a = ub(b);
                     L[1] = __LINE__ + 1;
                     b.copy(a, g, N);
                 });
             r.problem += r.log.before(L[0], L[1]);
             return r.done({race(RAW, GM, Cores, Pipe::MTE3, L[0], Pipe::MTE2, L[1])});
         }});

    v.push_back(
        {"reduction without SyncAll, delayed reads: right output, still inter-core RAW and WAR",
         true, [] {
             Rig r;
             const std::uint32_t blocks = 4;
             auto args = reduction_args(r, blocks, 0);
             unsigned L[2]{};
             r.run(aiv("late_reduction", blocks), [&](Block& b) { late_reduction(b, args, L); });
             r.problem += check_reduction(r, args, blocks);
             r.problem += r.log.before(L[0], L[1]);
             // Program order: a lower block's load before a higher block's store is a
             // WAR too (all were RAW only by this run's timing).
             return r.done({race(RAW, GM, Cores, Pipe::MTE3, L[0], Pipe::MTE2, L[1]),
                            race(WAR, GM, Cores, Pipe::MTE2, L[1], Pipe::MTE3, L[0])});
         }});
}

// ---- synccheck, memcheck, initcheck ------------------------------------------------------

void sync_mem_init(std::vector<Entry>& v) {
    v.push_back({"synccheck: SetFlag never waited for", false, [] {
                     Rig r;
                     auto x = r.input(N, "x");
                     unsigned L[1]{};
                     r.run(aiv("unpaired"), [&](Block& b) {
                         auto a = ub(b);
                         b.copy(a, x, N);
                         L[0] = __LINE__ + 1;
                         b.set_flag(Pipe::MTE2, Pipe::V, 3);
                     });
                     return r.done({single(FindingKind::UnpairedSetFlag, GM, Pipe::MTE2, L[0])});
                 }});

    v.push_back(
        {"synccheck: second SetFlag on the same pair and id before its WaitFlag", false, [] {
             Rig r;
             auto x = r.input(N, "x");
             unsigned L[1]{};
             r.run(aiv("duplicate"), [&](Block& b) {
                 auto a = ub(b), t = ub(b);
                 b.copy(a, x, N);
                 b.set_flag(Pipe::MTE2, Pipe::V, 0);
                 L[0] = __LINE__ + 1;
                 b.set_flag(Pipe::MTE2, Pipe::V, 0);
                 b.wait_flag(Pipe::MTE2, Pipe::V, 0);
                 b.wait_flag(Pipe::MTE2, Pipe::V, 0);
                 b.add(t, a, a, N);
             });
             return r.done({single(FindingKind::DuplicateSetFlag, GM, Pipe::MTE2, L[0])});
         }});

    v.push_back({"memcheck: GM load runs past the end of a 64-float buffer", false, [] {
                     Rig r;
                     auto small = r.input(64, "small");
                     unsigned L[1]{};
                     r.run(aiv("oob_gm_read"), [&](Block& b) {
                         auto a = ub(b, 128);
                         L[0] = __LINE__ + 1;
                         b.copy(a, GlobalTensor<float>{small.address, 128}, 128);
                     });
                     // Bytes [256, 512) are the buffer's padding: out of bounds, and never written
                     // either.
                     return r.done({single(FindingKind::OutOfBounds, GM, Pipe::MTE2, L[0]),
                                    single(FindingKind::UninitializedRead, GM, Pipe::MTE2, L[0])});
                 }});

    v.push_back({"memcheck: GM store runs past the end of a 64-float buffer", false, [] {
                     Rig r;
                     auto x = r.input(128, "x");
                     auto small = r.output(64, "small");
                     unsigned L[1]{};
                     r.run(aiv("oob_gm_write"), [&](Block& b) {
                         auto a = ub(b, 128);
                         b.copy(a, x, 128);
                         flag(b, Pipe::MTE2, Pipe::MTE3);
                         L[0] = __LINE__ + 1;
                         b.copy(GlobalTensor<float>{small.address, 128}, a, 128);
                     });
                     return r.done({single(FindingKind::OutOfBounds, GM, Pipe::MTE3, L[0])});
                 }});

    v.push_back({"memcheck: UB load through a sub() view past the end of its tensor", false, [] {
                     Rig r;
                     auto x = r.input(N, "x");
                     unsigned L[1]{};
                     r.run(aiv("oob_ub"), [&](Block& b) {
                         auto t = ub(b);  // 64 floats
                         L[0] = __LINE__ + 1;
                         b.copy(t.sub(32, N), x, N);  // elements [32, 96) of a 64-element tensor
                     });
                     return r.done({single(FindingKind::OutOfBounds, UB, Pipe::MTE2, L[0])});
                 }});

    v.push_back({"memcheck: load of a GM buffer the host already freed", false, [] {
                     Rig r;
                     auto g = r.input(N, "freed");
                     r.sim.free(g);
                     unsigned L[1]{};
                     r.run(aiv("use_after_free"), [&](Block& b) {
                         auto a = ub(b);
                         L[0] = __LINE__ + 1;
                         b.copy(a, g, N);
                     });
                     return r.done({single(FindingKind::UseAfterFree, GM, Pipe::MTE2, L[0])});
                 }});

    v.push_back({"synccheck: WaitFlag whose SetFlag is never issued (deadlock)", false, [] {
                     Rig r;
                     r.expect_deadlock = true;
                     auto x = r.input(N, "x");
                     r.run(aiv("unsatisfiable"), [&](Block& b) {
                         auto a = ub(b), t = ub(b);
                         b.copy(a, x, N);
                         b.wait_flag(Pipe::MTE2, Pipe::V, 2);  // nobody sets (MTE2, V, 2)
                         b.add(t, a, a, N);
                     });
                     // The stuck report names the wait by text; the finding has no source line to
                     // match.
                     return r.done({{.kind = FindingKind::UnsatisfiableWait}});
                 }});

    v.push_back({"initcheck: load of GM that was allocated but never written", false, [] {
                     Rig r;
                     auto g = r.output(N, "never_written");
                     unsigned L[1]{};
                     r.run(aiv("uninit_gm"), [&](Block& b) {
                         auto a = ub(b);
                         L[0] = __LINE__ + 1;
                         b.copy(a, g, N);
                     });
                     return r.done({single(FindingKind::UninitializedRead, GM, Pipe::MTE2, L[0])});
                 }});

    v.push_back({"initcheck: vector op reads a UB tile nobody wrote", false, [] {
                     Rig r;
                     unsigned L[1]{};
                     r.run(aiv("uninit_ub"), [&](Block& b) {
                         auto a = ub(b), t = ub(b);
                         L[0] = __LINE__ + 1;
                         b.add(t, a, a, N);
                     });
                     return r.done({single(FindingKind::UninitializedRead, UB, Pipe::V, L[0])});
                 }});
}

// ---- clean kernels: each must report nothing -------------------------------------------

void clean(std::vector<Entry>& v) {
    v.push_back({"clean: GM->UB->V->UB->GM with flags on the right pipes", false, [] {
                     Rig r;
                     auto x = r.input(2 * N, "x", 1), y = r.input(2 * N, "y", 2);
                     auto z = r.output(2 * N, "z");
                     r.run(aiv("synced_add", 2), [&](Block& b) {
                         const std::uint64_t at = b.block_idx() * N;
                         auto xs = ub(b), ys = ub(b), zs = ub(b);
                         b.copy(xs, x.sub(at, N), N);
                         b.copy(ys, y.sub(at, N), N);
                         flag(b, Pipe::MTE2, Pipe::V);
                         b.add(zs, xs, ys, N);
                         flag(b, Pipe::V, Pipe::MTE3);
                         b.copy(z.sub(at, N), zs, N);
                     });
                     const auto xv = r.sim.read(x), yv = r.sim.read(y), zv = r.sim.read(z);
                     for (std::size_t i = 0; i < zv.size(); ++i) {
                         if (zv[i] != xv[i] + yv[i]) {
                             r.problem += "z != x + y; ";
                             break;
                         }
                     }
                     return r.done({});
                 }});

    v.push_back({"clean: PipeBarrier<V> between add and in-place muls", false, [] {
                     Rig r;
                     auto x = r.input(2 * N, "x");
                     auto z = r.output(N, "z");
                     r.run(aiv("barrier_v"), [&](Block& b) {
                         auto a = ub(b), c = ub(b), t = ub(b);
                         b.copy(a, x.sub(0, N), N);
                         b.copy(c, x.sub(N, N), N);
                         flag(b, Pipe::MTE2, Pipe::V);
                         b.add(t, a, c, N);
                         b.pipe_barrier(Pipe::V);
                         b.muls(t, t, 2.0F, N);
                         flag(b, Pipe::V, Pipe::MTE3);
                         b.copy(z, t, N);
                     });
                     return r.done({});
                 }});

    v.push_back({"clean: PipeBarrier<ALL> instead of flags", false, [] {
                     Rig r;
                     auto x = r.input(N, "x");
                     auto z = r.output(N, "z");
                     r.run(aiv("barrier_all"), [&](Block& b) {
                         auto a = ub(b), t = ub(b);
                         b.copy(a, x, N);
                         b.pipe_barrier(Pipe::ALL);
                         b.add(t, a, a, N);
                         b.pipe_barrier(Pipe::ALL);
                         b.copy(z, t, N);
                         b.pipe_barrier(Pipe::ALL);
                         b.copy(a, z, N);  // reads back what MTE3 stored, overwrites what V read
                     });
                     return r.done({});
                 }});

    v.push_back({"clean: PipeBarrier<MTE2> between two loads into one tile", false, [] {
                     Rig r;
                     auto x = r.input(2 * N, "x");
                     r.run(aiv("barrier_mte2"), [&](Block& b) {
                         auto u = ub(b);
                         b.copy(u, x.sub(0, N), N);
                         b.pipe_barrier(Pipe::MTE2);
                         b.copy(u, x.sub(N, N), N);
                     });
                     return r.done({});
                 }});

    v.push_back({"clean: V->MTE2 flag before reloading a tile V read", false, [] {
                     Rig r;
                     auto x = r.input(2 * N, "x");
                     r.run(aiv("flag_war"), [&](Block& b) {
                         auto a = ub(b), t = ub(b);
                         b.copy(a, x.sub(0, N), N);
                         flag(b, Pipe::MTE2, Pipe::V);
                         b.add(t, a, a, N);
                         flag(b, Pipe::V, Pipe::MTE2);
                         b.copy(a, x.sub(N, N), N);
                     });
                     return r.done({});
                 }});

    v.push_back({"clean: a single in-place vector op (reads and writes the same bytes)", false, [] {
                     Rig r;
                     auto x = r.input(N, "x");
                     r.run(aiv("in_place"), [&](Block& b) {
                         auto a = ub(b);
                         b.copy(a, x, N);
                         flag(b, Pipe::MTE2, Pipe::V);
                         b.muls(a, a, 2.0F, N);
                     });
                     return r.done({});
                 }});

    v.push_back({"clean: WaitFlag<MTE2_S> then scalar load", false, [] {
                     Rig r;
                     auto x = r.filled(N, "x", 3.0F);
                     r.run(aiv("mte2_s"), [&](Block& b) {
                         auto a = ub(b);
                         b.copy(a, x, N);
                         flag(b, Pipe::MTE2, Pipe::S);
                         if (b.load(a, 5) != 3.0F)
                             throw std::runtime_error("scalar load saw a stale value");
                     });
                     return r.done({});
                 }});

    v.push_back({"clean: scalar store, S->MTE3 / S->MTE2 flags, then DataCopies of it", false, [] {
                     Rig r;
                     auto x = r.input(N, "x");
                     auto g = r.output(N, "g");
                     r.run(aiv("scalar_flags"), [&](Block& b) {
                         auto a = ub(b), c = ub(b);
                         b.copy(a, x, N);
                         flag(b, Pipe::MTE2, Pipe::MTE3);
                         b.store(g, 0, 1.0F);
                         flag(b, Pipe::S, Pipe::MTE3);
                         b.copy(g, a, N);
                         flag(b, Pipe::MTE3, Pipe::S);
                         b.store(g, 0, 2.0F);
                         flag(b, Pipe::S, Pipe::MTE2);
                         b.copy(c, g, N);
                     });
                     return r.done({});
                 }});

    v.push_back({"clean: builtin vector_chain with PipeBarrier<V>", false, [] {
                     Rig r;
                     kernels::VectorChainArgs args;
                     args.tile = N;
                     args.barrier = true;
                     args.x = r.input(2 * N, "x");
                     args.out = r.output(2 * N, "out");
                     r.run(aiv("vector_chain"),
                           [args](Block& b) { kernels::vector_chain(b, args); });
                     return r.done({});
                 }});

    v.push_back({"clean: builtin single-buffered vector_add, 4 tiles", false, [] {
                     Rig r;
                     kernels::VectorAddArgs args;
                     args.tile = N;
                     args.x = r.input(4 * N, "x", 1);
                     args.y = r.input(4 * N, "y", 2);
                     args.z = r.output(4 * N, "z");
                     r.run(aiv("vector_add_single", 1),
                           [args](Block& b) { kernels::vector_add_single_buffered(b, args); });
                     return r.done({});
                 }});

    v.push_back(
        {"clean: builtin double-buffered (ping-pong) vector_add, 6 tiles on 2 blocks", false, [] {
             Rig r;
             kernels::VectorAddArgs args;
             args.tile = N;
             args.x = r.input(12 * N, "x", 1);
             args.y = r.input(12 * N, "y", 2);
             args.z = r.output(12 * N, "z");
             r.run(aiv("vector_add_double", 2),
                   [args](Block& b) { kernels::vector_add_double_buffered(b, args); });
             const auto x = r.sim.read(args.x), y = r.sim.read(args.y), z = r.sim.read(args.z);
             for (std::size_t i = 0; i < z.size(); ++i) {
                 if (z[i] != x[i] + y[i]) {
                     r.problem += "z != x + y; ";
                     break;
                 }
             }
             return r.done({});
         }});

    v.push_back(
        {"clean: disjoint GM stores that touch at a boundary ([0,256) and [256,512))", false, [] {
             Rig r;
             auto x = r.input(2 * N, "x");
             auto z = r.output(2 * N, "z");
             r.run(aiv("gm_touch", 2), [&](Block& b) {
                 auto a = ub(b);
                 b.copy(a, x.sub(b.block_idx() * N, N), N);
                 flag(b, Pipe::MTE2, Pipe::MTE3);
                 b.copy(z.sub(b.block_idx() * N, N), a, N);
             });
             return r.done({});
         }});

    v.push_back(
        {"clean: block 0 loads [0,256) while block 1 stores [256,512) of one buffer", false, [] {
             Rig r;
             auto x = r.input(N, "x");
             auto g = r.input(2 * N, "g", 3);
             r.run(aiv("gm_touch_rw", 2), [&](Block& b) {
                 auto a = ub(b);
                 if (b.block_idx() == 0) {
                     b.copy(a, g.sub(0, N), N);
                     return;
                 }
                 b.copy(a, x, N);
                 flag(b, Pipe::MTE2, Pipe::MTE3);
                 b.copy(g.sub(N, N), a, N);
             });
             return r.done({});
         }});

    v.push_back(
        {"clean: V and MTE2 write adjacent halves of one UB tile unsynchronized", false, [] {
             Rig r;
             auto x = r.input(N, "x");
             r.run(aiv("ub_touch"), [&](Block& b) {
                 auto t = ub(b, 2 * N);
                 b.fill(t.sub(0, N), 0.0F, N);
                 b.copy(t.sub(N, N), x, N);
             });
             return r.done({});
         }});

    v.push_back(
        {"clean: reads only (4 blocks load and scalar-load the same GM; V and MTE3 share a tile)",
         false, [] {
             Rig r;
             auto x = r.input(N, "x");
             auto z = r.output(4 * N, "z");
             r.run(aiv("reads_only", 4), [&](Block& b) {
                 auto a = ub(b), t = ub(b);
                 b.copy(a, x, N);
                 (void)b.load(x, 3);
                 b.set_flag(Pipe::MTE2, Pipe::V, 0);
                 b.set_flag(Pipe::MTE2, Pipe::MTE3, 0);
                 b.wait_flag(Pipe::MTE2, Pipe::V, 0);
                 b.wait_flag(Pipe::MTE2, Pipe::MTE3, 0);
                 b.add(t, a, a, N);                          // V reads a
                 b.copy(z.sub(b.block_idx() * N, N), a, N);  // MTE3 reads a at the same time
             });
             return r.done({});
         }});

    v.push_back({"clean: hard SyncAll between storing slices and loading a neighbour's", false, [] {
                     Rig r;
                     auto x = r.input(4 * N, "x");
                     auto work = r.output(4 * N, "work");
                     auto z = r.output(4 * N, "z");
                     r.run(aiv("hard_syncall", 4), [&](Block& b) {
                         const std::uint32_t me = b.block_idx();
                         auto a = ub(b), o = ub(b);
                         b.copy(a, x.sub(me * N, N), N);
                         flag(b, Pipe::MTE2, Pipe::MTE3);
                         b.copy(work.sub(me * N, N), a, N);
                         b.sync_all();
                         b.copy(o, work.sub(((me + 1) % 4) * N, N), N);
                         flag(b, Pipe::MTE2, Pipe::MTE3);
                         b.copy(z.sub(me * N, N), o, N);
                     });
                     return r.done({});
                 }});

    v.push_back({"clean: soft SyncAll between storing slices and loading a neighbour's", false, [] {
                     Rig r;
                     auto x = r.input(4 * N, "x");
                     auto work = r.output(4 * N, "work");
                     auto z = r.output(4 * N, "z");
                     auto ws = r.sim.allocate<std::int32_t>(4 * 8, "ws");
                     r.run(aiv("soft_syncall", 4), [&](Block& b) {
                         const std::uint32_t me = b.block_idx();
                         auto a = ub(b), o = ub(b);
                         auto ub_ws = b.alloc<std::int32_t>(MemSpace::UB, 4 * 8);
                         b.copy(a, x.sub(me * N, N), N);
                         flag(b, Pipe::MTE2, Pipe::MTE3);
                         b.copy(work.sub(me * N, N), a, N);
                         b.sync_all(ws, ub_ws, 4);
                         b.copy(o, work.sub(((me + 1) % 4) * N, N), N);
                         flag(b, Pipe::MTE2, Pipe::MTE3);
                         b.copy(z.sub(me * N, N), o, N);
                     });
                     return r.done({});
                 }});

    v.push_back({"clean: builtin syncall_reduction with hard SyncAll (sync 1)", false, [] {
                     Rig r;
                     auto args = reduction_args(r, 4, 1);
                     r.run(aiv("syncall_reduction_hard", 4),
                           [args](Block& b) { kernels::syncall_reduction(b, args); });
                     r.problem += check_reduction(r, args, 4);
                     return r.done({});
                 }});

    v.push_back({"clean: builtin syncall_reduction with soft SyncAll (sync 2)", false, [] {
                     Rig r;
                     auto args = reduction_args(r, 4, 2);
                     r.run(aiv("syncall_reduction_soft", 4),
                           [args](Block& b) { kernels::syncall_reduction(b, args); });
                     r.problem += check_reduction(r, args, 4);
                     return r.done({});
                 }});

    v.push_back(
        {"clean: cross-core flag mode 0 round between storing and loading slices", false, [] {
             Rig r;
             auto x = r.input(4 * N, "x");
             auto work = r.output(4 * N, "work");
             r.run(aiv("xflag_round", 4), [&](Block& b) {
                 const std::uint32_t me = b.block_idx();
                 auto a = ub(b), o = ub(b);
                 b.copy(a, x.sub(me * N, N), N);
                 flag(b, Pipe::MTE2, Pipe::MTE3);
                 b.copy(work.sub(me * N, N), a, N);
                 b.cross_core_set_flag(0, Pipe::MTE3, 1);
                 b.cross_core_wait_flag(1);
                 b.copy(o, work.sub(((me + 1) % 4) * N, N), N);
             });
             return r.done({});
         }});

    v.push_back({"clean: cross-core flag mode 2, AIC stores C then signals its AIV", false, [] {
                     Rig r;
                     auto ga = r.matrix("a", 1), gb = r.matrix("b", 2);
                     auto gc = r.output(DD, "c");
                     auto z = r.output(DD, "z");
                     r.run(mix("xflag_aic_to_aiv"), [&](Block& b) {
                         if (b.core_type() == CoreType::Cube) {
                             auto c = cube_tiles(b);
                             cube_load(b, c, ga, gb);
                             b.mmad(c.l0c, c.l0a, c.l0b, D, D, D);
                             flag(b, Pipe::M, Pipe::FIX);
                             b.copy(gc, c.l0c, DD);
                             b.cross_core_set_flag(2, Pipe::FIX, 0);
                             return;
                         }
                         auto t = ub(b, DD);
                         b.cross_core_wait_flag(0);
                         b.copy(t, gc, DD);
                         flag(b, Pipe::MTE2, Pipe::V);
                         b.relu(t, t, DD);
                         flag(b, Pipe::V, Pipe::MTE3);
                         b.copy(z, t, DD);
                     });
                     return r.done({});
                 }});

    v.push_back({"clean: cross-core flag mode 2, AIV stores then signals its AIC", false, [] {
                     Rig r;
                     auto x = r.input(DD, "x");
                     auto g = r.output(DD, "g");
                     r.run(mix("xflag_aiv_to_aic"), [&](Block& b) {
                         if (b.core_type() == CoreType::Vector) {
                             auto t = ub(b, DD);
                             b.copy(t, x, DD);
                             flag(b, Pipe::MTE2, Pipe::MTE3);
                             b.copy(g, t, DD);
                             b.cross_core_set_flag(2, Pipe::MTE3, 1);
                             return;
                         }
                         auto l1 = b.alloc<float>(MemSpace::L1, DD);
                         b.cross_core_wait_flag(1);
                         b.copy(l1, g, DD);
                     });
                     return r.done({});
                 }});

    v.push_back(
        {"clean: builtin MIX_AIC_1_2 matmul + post-processing (mode 2 to two AIVs)", false, [] {
             Rig r;
             kernels::MixMatmulArgs args;
             args.m = args.n = args.k = 32;
             std::vector<half> a(32 * 32), bm(32 * 32);
             for (std::size_t i = 0; i < a.size(); ++i) {
                 a[i] = half(static_cast<float>(i % 7) - 3.0F);
                 bm[i] = half(static_cast<float>(i % 5) * 0.25F - 0.5F);
             }
             args.a = r.sim.allocate<half>(32 * 32, "a");
             args.b = r.sim.allocate<half>(32 * 32, "b");
             args.c = r.output(32 * 32, "c");
             args.out = r.output(32 * 32, "out");
             r.sim.write(args.a, a);
             r.sim.write(args.b, bm);
             r.run(mix("mix_matmul", KernelType::MIX_AIC_1_2),
                   [args](Block& b) { kernels::mix_matmul_postprocess(b, args); });
             return r.done({});
         }});

    v.push_back({"clean: cube pipeline MTE2 -> MTE1 -> M -> FIX with flags", false, [] {
                     Rig r;
                     auto ga = r.matrix("a", 1), gb = r.matrix("b", 2);
                     auto gc = r.output(DD, "c");
                     r.run(aic("cube_flags"), [&](Block& b) {
                         auto c = cube_tiles(b);
                         cube_load(b, c, ga, gb);
                         b.mmad(c.l0c, c.l0a, c.l0b, D, D, D);
                         flag(b, Pipe::M, Pipe::FIX);
                         b.copy(gc, c.l0c, DD);
                         flag(b, Pipe::M,
                              Pipe::MTE1);  // mmad done reading L0A before it is reloaded
                         b.pipe_barrier(Pipe::MTE1);
                         b.copy(c.l0a, c.l1b, DD);
                     });
                     return r.done({});
                 }});

    v.push_back({"clean: accumulating mmads with PipeBarrier<M> between", false, [] {
                     Rig r;
                     auto ga = r.matrix("a", 1), gb = r.matrix("b", 2);
                     auto gc = r.output(DD, "c");
                     r.run(aic("mmad_acc_barrier"), [&](Block& b) {
                         auto c = cube_tiles(b);
                         cube_load(b, c, ga, gb);
                         b.mmad(c.l0c, c.l0a, c.l0b, D, D, D, false);
                         b.pipe_barrier(Pipe::M);
                         b.mmad(c.l0c, c.l0a, c.l0b, D, D, D, true);
                         flag(b, Pipe::M, Pipe::FIX);
                         b.copy(gc, c.l0c, DD);
                     });
                     return r.done({});
                 }});

    v.push_back(
        {"clean: two kernels in sequence, the second loads what the first stored", false, [] {
             Rig r;
             auto x = r.input(2 * N, "x");
             auto g = r.output(2 * N, "g");
             r.run(aiv("producer", 2), [&](Block& b) {
                 auto a = ub(b);
                 b.copy(a, x.sub(b.block_idx() * N, N), N);
                 flag(b, Pipe::MTE2, Pipe::MTE3);
                 b.copy(g.sub(b.block_idx() * N, N), a, N);
             });
             r.run(aiv("consumer", 2), [&](Block& b) {
                 auto a = ub(b);
                 b.copy(a, g.sub((1 - b.block_idx()) * N, N), N);
                 flag(b, Pipe::MTE2, Pipe::MTE3);
                 b.copy(g.sub((1 - b.block_idx()) * N, N), a, N);  // and overwrites it
             });
             return r.done({});
         }});

    v.push_back(
        {"clean: two kernels launched together on disjoint GM, both reading one input", false, [] {
             Rig r;
             auto x = r.input(N, "x");
             auto g = r.output(N, "g"), h = r.output(N, "h");
             auto body = [&](GlobalTensor<float> out) {
                 return [&x, out](Block& b) {
                     auto a = ub(b);
                     b.copy(a, x, N);
                     flag(b, Pipe::MTE2, Pipe::MTE3);
                     b.copy(out, a, N);
                 };
             };
             r.run_together(aiv("first"), body(g), aiv("second"), body(h));
             return r.done({});
         }});

    v.push_back(
        {"clean: hard SyncAll (All) in a mixed kernel orders the cube core's store", false, [] {
             Rig r;
             auto ga = r.matrix("a", 1), gb = r.matrix("b", 2);
             auto gc = r.output(DD, "c");
             r.run(mix("syncall_mix"), [&](Block& b) {
                 if (b.core_type() == CoreType::Cube) {
                     auto c = cube_tiles(b);
                     cube_load(b, c, ga, gb);
                     b.mmad(c.l0c, c.l0a, c.l0b, D, D, D);
                     flag(b, Pipe::M, Pipe::FIX);
                     b.copy(gc, c.l0c, DD);
                     b.sync_all();
                     return;
                 }
                 auto t = ub(b, DD);
                 b.sync_all();
                 b.copy(t, gc, DD);
             });
             return r.done({});
         }});

    v.push_back({"clean: cross-core flag mode 1 between the two AIVs of a 1:2 group", false, [] {
                     Rig r;
                     auto x = r.input(N, "x");
                     auto g = r.output(N, "g");
                     r.run(mix("xflag_mode1", KernelType::MIX_AIC_1_2), [&](Block& b) {
                         if (b.core_type() == CoreType::Cube) return;
                         auto a = ub(b);
                         if (b.sub_block_idx() == 0) {
                             b.copy(a, x, N);
                             flag(b, Pipe::MTE2, Pipe::MTE3);
                             b.copy(g, a, N);
                         }
                         b.cross_core_set_flag(1, Pipe::MTE3, 2);
                         b.cross_core_wait_flag(2);
                         if (b.sub_block_idx() == 1) b.copy(a, g, N);
                     });
                     return r.done({});
                 }});

    v.push_back({"clean: scalar store, PipeBarrier<ALL>, then a DataCopy over it", false, [] {
                     Rig r;
                     auto x = r.input(N, "x");
                     auto g = r.output(N, "g");
                     r.run(aiv("store_barrier_all"), [&](Block& b) {
                         auto a = ub(b);
                         b.copy(a, x, N);
                         b.store(g, 0, 1.0F);
                         b.pipe_barrier(Pipe::ALL);
                         b.copy(g, a, N);
                     });
                     return r.done({});
                 }});

    v.push_back({"clean: a V->MTE3->V flag round trip orders V with itself", false, [] {
                     Rig r;
                     auto x = r.input(N, "x");
                     auto z = r.output(N, "z");
                     r.run(aiv("round_trip"), [&](Block& b) {
                         auto a = ub(b), t = ub(b);
                         b.copy(a, x, N);
                         flag(b, Pipe::MTE2, Pipe::V);
                         b.add(t, a, a, N);
                         flag(b, Pipe::V, Pipe::MTE3);
                         b.copy(z, t, N);
                         flag(b, Pipe::MTE3, Pipe::V);
                         b.muls(t, t, 2.0F, N);  // reads and writes t after the round trip
                     });
                     return r.done({});
                 }});

    v.push_back({"clean: 8 blocks on 4 vector cores reuse each core's UB", false, [] {
                     Rig r;
                     auto x = r.input(8 * N, "x");
                     auto z = r.output(8 * N, "z");
                     r.run(aiv("two_rounds", 8), [&](Block& b) {
                         auto a = ub(b), t = ub(b);
                         b.copy(a, x.sub(b.block_idx() * N, N), N);
                         flag(b, Pipe::MTE2, Pipe::V);
                         b.muls(t, a, 2.0F, N);
                         flag(b, Pipe::V, Pipe::MTE3);
                         b.copy(z.sub(b.block_idx() * N, N), t, N);
                     });
                     return r.done({});
                 }});
}

// ---- atomic copy-out (Block::set_atomic) -------------------------------------------------
// The vendor sanitizer's rule: two atomic writes never race each other; an atomic write
// against any other access (a plain store, a load) still does.

/// "" if every element of `got` is `want`, else what differs first.
std::string all_equal(const std::vector<float>& got, float want, const char* what) {
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (got[i] != want) {
            return std::string(what) + "[" + std::to_string(i) + "] = " + std::to_string(got[i]) +
                   ", expected " + std::to_string(want) + "; ";
        }
    }
    return "";
}

void atomic_copy_out(std::vector<Entry>& v) {
    v.push_back({"atomic add: four blocks accumulate into one GM range, no race", false, [] {
                     Rig r;
                     auto x = r.filled(4 * N, "x", 1.5F);
                     auto z = r.filled(N, "z", 10.0F);
                     r.run(aiv("atomic_sum", 4), [&](Block& b) {
                         auto a = ub(b);
                         b.copy(a, x.sub(b.block_idx() * N, N), N);
                         flag(b, Pipe::MTE2, Pipe::MTE3);
                         b.set_atomic<float>(AtomicOp::Add);
                         b.copy(z, a, N);
                         b.clear_atomic();
                     });
                     r.problem += all_equal(r.sim.read(z), 16.0F, "z");
                     return r.done({});
                 }});

    v.push_back({"atomic add twice in one block on MTE3: no intra-pipe race", false, [] {
                     Rig r;
                     auto x = r.filled(N, "x", 2.0F);
                     auto z = r.filled(N, "z", 0.0F);
                     r.run(aiv("atomic_twice"), [&](Block& b) {
                         auto a = ub(b);
                         b.copy(a, x, N);
                         flag(b, Pipe::MTE2, Pipe::MTE3);
                         b.set_atomic<float>(AtomicOp::Add);
                         b.copy(z, a, N);
                         b.copy(z, a, N);
                         b.clear_atomic();
                     });
                     r.problem += all_equal(r.sim.read(z), 4.0F, "z");
                     return r.done({});
                 }});

    v.push_back({"atomic max and min: blocks combine into GM, no race", false, [] {
                     Rig r;
                     auto x = r.input(4 * N, "x");
                     auto hi = r.filled(N, "hi", -1000.0F);
                     auto lo = r.filled(N, "lo", 1000.0F);
                     r.run(aiv("atomic_max_min", 4), [&](Block& b) {
                         auto a = ub(b);
                         b.copy(a, x.sub(b.block_idx() * N, N), N);
                         flag(b, Pipe::MTE2, Pipe::MTE3);
                         b.set_atomic<float>(AtomicOp::Max);
                         b.copy(hi, a, N);
                         b.set_atomic<float>(AtomicOp::Min);
                         b.copy(lo, a, N);
                         b.clear_atomic();
                     });
                     const std::vector<float> xs = pattern(4 * N, 1);
                     const std::vector<float> got_hi = r.sim.read(hi), got_lo = r.sim.read(lo);
                     for (std::uint64_t i = 0; i < N; ++i) {
                         float want_hi = xs[i], want_lo = xs[i];
                         for (std::uint64_t k = 1; k < 4; ++k) {
                             want_hi = std::max(want_hi, xs[k * N + i]);
                             want_lo = std::min(want_lo, xs[k * N + i]);
                         }
                         if (got_hi[i] != want_hi || got_lo[i] != want_lo) {
                             r.problem += "element " + std::to_string(i) + " wrong; ";
                             break;
                         }
                     }
                     return r.done({});
                 }});

    v.push_back({"atomic add, SyncAll, then block 0 reads the sum: no race", false, [] {
                     Rig r;
                     auto x = r.filled(4 * N, "x", 1.0F);
                     auto z = r.filled(N, "z", 0.0F);
                     auto out = r.output(N, "out");
                     r.run(aiv("atomic_then_read", 4), [&](Block& b) {
                         auto a = ub(b);
                         b.copy(a, x.sub(b.block_idx() * N, N), N);
                         flag(b, Pipe::MTE2, Pipe::MTE3);
                         b.set_atomic<float>(AtomicOp::Add);
                         b.copy(z, a, N);
                         b.clear_atomic();
                         b.sync_all();
                         if (b.block_idx() != 0) return;
                         auto s = ub(b);
                         b.copy(s, z, N);
                         flag(b, Pipe::MTE2, Pipe::MTE3);
                         b.copy(out, s, N);
                     });
                     r.problem += all_equal(r.sim.read(out), 4.0F, "out");
                     return r.done({});
                 }});

    v.push_back({"initcheck GM: atomic add onto an output nobody initialized", false, [] {
                     Rig r;
                     auto x = r.filled(2 * N, "x", 1.0F);
                     auto z = r.output(N, "z");  // never written: the mode does not clear GM
                     unsigned L[1]{};
                     r.run(aiv("atomic_uninit", 2), [&](Block& b) {
                         auto a = ub(b);
                         b.copy(a, x.sub(b.block_idx() * N, N), N);
                         flag(b, Pipe::MTE2, Pipe::MTE3);
                         b.set_atomic<float>(AtomicOp::Add);
                         L[0] = __LINE__ + 1;
                         b.copy(z, a, N);
                         b.clear_atomic();
                     });
                     return r.done({single(FindingKind::UninitializedRead, GM, Pipe::MTE3, L[0])});
                 }});

    v.push_back(
        {"inter-core WAW GM: an atomic add against a plain store that another "
         "block's own atomic add follows",
         true, [] {
             Rig r;
             auto x = r.filled(2 * N, "x", 1.0F);
             auto z = r.filled(N, "z", 0.0F);
             unsigned L[2]{};
             r.run(aiv("atomic_after_plain", 2, {0, 5000}), [&](Block& b) {
                 auto a = ub(b);
                 b.copy(a, x.sub(b.block_idx() * N, N), N);
                 flag(b, Pipe::MTE2, Pipe::MTE3);
                 if (b.block_idx() == 0) {
                     L[0] = __LINE__ + 1;
                     b.copy(z, a, N);
                     b.pipe_barrier(Pipe::MTE3);
                 }
                 b.set_atomic<float>(AtomicOp::Add);
                 L[1] = __LINE__ + 1;
                 b.copy(z, a, N);
                 b.clear_atomic();
             });
             r.problem += r.log.before(L[0], L[1]);
             r.problem += all_equal(r.sim.read(z), 3.0F, "z");
             return r.done({race(WAW, GM, Cores, Pipe::MTE3, L[0], Pipe::MTE3, L[1])});
         }});

    v.push_back({"inter-core WAW GM: an atomic add against another block's plain store", true, [] {
                     Rig r;
                     auto x = r.filled(2 * N, "x", 1.0F);
                     auto z = r.filled(N, "z", 0.0F);
                     unsigned L[2]{};
                     r.run(aiv("atomic_vs_plain", 2, {0, 5000}), [&](Block& b) {
                         auto a = ub(b);
                         b.copy(a, x.sub(b.block_idx() * N, N), N);
                         flag(b, Pipe::MTE2, Pipe::MTE3);
                         if (b.block_idx() == 0) {
                             b.set_atomic<float>(AtomicOp::Add);
                             L[0] = __LINE__ + 1;
                             b.copy(z, a, N);
                             b.clear_atomic();
                         } else {
                             L[1] = __LINE__ + 1;
                             b.copy(z, a, N);
                         }
                     });
                     r.problem += r.log.before(L[0], L[1]);
                     return r.done({race(WAW, GM, Cores, Pipe::MTE3, L[0], Pipe::MTE3, L[1])});
                 }});

    v.push_back(
        {"inter-core RAW GM: AIV 3 syncs with AIV 2's atomic add only, not with AIV 0's", true, [] {
             Rig r;
             auto x = r.filled(3 * N, "x", 1.0F);
             auto z = r.filled(N, "z", 0.0F);
             unsigned L[2]{};
             LaunchSpec spec = mix("atomic_partial_order", KernelType::MIX_AIC_1_2);
             spec.blocks = 2;  // AIV 0-3: 0 and 2 add, 3 meets 2 (mode 1) and then loads
             r.run(spec, [&](Block& b) {
                 const std::uint32_t me = b.block_idx();
                 if (b.core_type() == CoreType::Cube || me == 1) return;
                 auto a = ub(b);
                 if (me == 3) {
                     b.cross_core_set_flag(1, Pipe::MTE3, 3);
                     b.cross_core_wait_flag(3);
                     L[1] = __LINE__ + 1;
                     b.copy(a, z, N);
                     return;
                 }
                 if (me == 2) delay_loads(b, 20);  // AIV 2 adds last
                 b.copy(a, x.sub(me * N, N), N);
                 flag(b, Pipe::MTE2, Pipe::MTE3);
                 b.set_atomic<float>(AtomicOp::Add);
                 L[0] = __LINE__ + 1;
                 b.copy(z, a, N);
                 b.clear_atomic();
                 if (me == 2) {
                     b.cross_core_set_flag(1, Pipe::MTE3, 3);
                     b.cross_core_wait_flag(3);
                 }
             });
             r.problem += r.log.before(L[0], L[1]);
             r.problem += all_equal(r.sim.read(z), 2.0F, "z");
             return r.done({race(RAW, GM, Cores, Pipe::MTE3, L[0], Pipe::MTE2, L[1])});
         }});
}

std::vector<Entry> corpus() {
    std::vector<Entry> v;
    intra_pipe(v);
    inter_pipe(v);
    inter_core(v);
    atomic_copy_out(v);
    sync_mem_init(v);
    clean(v);
    return v;
}

// ---- scoring -----------------------------------------------------------------------------

struct Score {
    std::size_t tp = 0, fp = 0, fn = 0;
    double precision() const {
        return tp + fp == 0 ? 1.0 : static_cast<double>(tp) / static_cast<double>(tp + fp);
    }
    double recall() const {
        return tp + fn == 0 ? 1.0 : static_cast<double>(tp) / static_cast<double>(tp + fn);
    }
};

/// Greedy one-to-one matching as compare_findings does it; `races_only` ignores everything
/// that is not a race on both sides.
void score(const Outcome& o, bool races_only, Score& s) {
    std::vector<bool> used(o.findings.size(), false);
    for (const Expected& e : o.expected) {
        if (races_only && !is_race(e.kind)) continue;
        bool found = false;
        for (std::size_t i = 0; i < o.findings.size() && !found; ++i) {
            if (!used[i] && matches(o.findings[i], e)) used[i] = found = true;
        }
        (found ? s.tp : s.fn)++;
    }
    for (std::size_t i = 0; i < o.findings.size(); ++i) {
        if (used[i] || (races_only && !is_race(o.findings[i].kind))) continue;
        ++s.fp;
    }
}

}  // namespace

TEST_CASE("checker corpus: every kernel reports exactly its labelled hazards", "[corpus]") {
    for (const Entry& entry : corpus()) {
        DYNAMIC_SECTION(entry.name) {
            const Outcome o = entry.run();
            CHECK_THAT(o.findings, ExactlyFindings(o.expected));
            INFO(o.problem);
            CHECK(o.problem.empty());
        }
    }
}

TEST_CASE("checker corpus: precision and recall over the labelled table", "[corpus][summary]") {
    const std::vector<Entry> entries = corpus();
    std::size_t racy = 0, labelled_buggy = 0;
    Score races, all;
    std::ostringstream misses;
    for (const Entry& entry : entries) {
        const Outcome o = entry.run();
        if (entry.racy) ++racy;
        if (!o.expected.empty()) ++labelled_buggy;
        score(o, true, races);
        score(o, false, all);
        const std::string diff = compare_findings(o.findings, o.expected);
        if (!diff.empty()) misses << "\n[" << entry.name << "]\n" << diff;
        if (!o.problem.empty()) misses << "\n[" << entry.name << "] " << o.problem;
    }
    std::ostringstream summary;
    summary << entries.size() << " kernels: " << racy << " racy, " << entries.size() - racy
            << " race-free (" << labelled_buggy - racy << " of them with a synccheck/memcheck/"
            << "initcheck finding)\n"
            << "races:        TP " << races.tp << ", FP " << races.fp << ", FN " << races.fn
            << ", precision " << races.precision() << ", recall " << races.recall() << "\n"
            << "all findings: TP " << all.tp << ", FP " << all.fp << ", FN " << all.fn
            << ", precision " << all.precision() << ", recall " << all.recall();
    WARN(summary.str() + misses.str());
    CHECK(entries.size() >= 44);
    CHECK(2 * racy >= entries.size());
    REQUIRE((races.precision() == 1.0 && races.recall() == 1.0));
    REQUIRE((all.precision() == 1.0 && all.recall() == 1.0));
}
