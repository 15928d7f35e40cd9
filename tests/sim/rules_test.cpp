// Hardware rules: every violation throws KernelError naming kernel, block, pipe, serial and
// the kernel's source line, and the simulator stays usable afterwards. Host-side misuse
// throws UsageError.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/simulator.h"
#include "test_support.h"

using namespace npusim;
using Catch::Matchers::Contains;

namespace {

/// What a KernelError message must name.
struct Expected {
    std::string kernel;
    std::uint32_t block = 0;
    Pipe pipe = Pipe::S;
    std::uint64_t serial = 0;
    std::string what;
};

/// Launches and runs `body`; returns the KernelError message (fails if nothing is thrown).
std::string kernel_error_of(Simulator& sim, const LaunchSpec& spec, KernelBody body) {
    sim.launch(spec, std::move(body));
    try {
        const RunResult r = sim.run();
        FAIL("expected a KernelError; the run ended with outcome "
             << (r.completed() ? "completed" : "deadlock"));
    } catch (const KernelError& error) {
        return error.what();
    }
    return {};
}

/// `line` is where the kernel made the offending call (captured with __LINE__ beside it).
void check_rule_error(Simulator& sim, const LaunchSpec& spec, KernelBody body, const Expected& want,
                      const int& line) {
    const std::string message = kernel_error_of(sim, spec, std::move(body));
    INFO("message: " << message);
    REQUIRE(line != 0);
    CHECK_THAT(message, Contains("kernel '" + want.kernel + "'"));
    CHECK_THAT(message, Contains("block " + std::to_string(want.block)));
    CHECK_THAT(message, Contains(std::string(to_string(want.pipe))));
    CHECK_THAT(message, Contains("serial " + std::to_string(want.serial)));
    CHECK_THAT(message, Contains(test::location_prefix(__FILE__, line)));
    CHECK_THAT(message, Contains(want.what));
    // The same simulator runs a correct kernel afterwards.
    CHECK(test::run_correct_add(sim) == 0);
}

}  // namespace

TEST_CASE("copy rules: alignment, length, bounds, count, path", "[rules]") {
    Simulator sim(test::small_chip());
    const ChipConfig& chip = sim.chip();
    auto x = sim.allocate<float>(1024, "x");
    int line = 0;

    SECTION("UB address not 32-byte aligned") {
        check_rule_error(
            sim, {.name = "misaligned"},
            [&, x](Block& b) {
                auto ok = b.alloc<float>(MemSpace::UB, 64);
                b.copy(ok, x, 64);
                auto bad = b.local<float>(MemSpace::UB, 4, 8);
                line = __LINE__ + 1;
                b.copy(bad, x, 8);
            },
            {"misaligned", 0, Pipe::MTE2, 2, "UB address 0x4 is not 32-byte aligned"}, line);
    }
    SECTION("UB source of a UB -> GM copy not 32-byte aligned") {
        check_rule_error(
            sim, {.name = "misaligned_out"},
            [&, x](Block& b) {
                auto bad = b.local<float>(MemSpace::UB, 36, 8);
                line = __LINE__ + 1;
                b.copy(x, bad, 8);
            },
            {"misaligned_out", 0, Pipe::MTE3, 1, "not 32-byte aligned"}, line);
    }
    SECTION("length not a multiple of 32 bytes") {
        check_rule_error(
            sim, {.name = "short_copy"},
            [&, x](Block& b) {
                auto ub = b.alloc<float>(MemSpace::UB, 64);
                line = __LINE__ + 1;
                b.copy(ub, x, 7);
            },
            {"short_copy", 0, Pipe::MTE2, 1, "28 bytes is not a multiple of 32 bytes"}, line);
    }
    SECTION("access outside UB") {
        const std::uint64_t near_end = chip.ub_bytes - 128;
        check_rule_error(
            sim, {.name = "past_ub"},
            [&, x, near_end](Block& b) {
                auto bad = b.local<float>(MemSpace::UB, near_end, 64);
                line = __LINE__ + 1;
                b.copy(bad, x, 64);
            },
            {"past_ub", 0, Pipe::MTE2, 1, "outside UB"}, line);
    }
    SECTION("GM range outside GM") {
        const GlobalTensor<float> past_end{chip.gm_bytes - 128, 64};
        check_rule_error(
            sim, {.name = "past_gm"},
            [&, past_end](Block& b) {
                auto ub = b.alloc<float>(MemSpace::UB, 64);
                line = __LINE__ + 1;
                b.copy(ub, past_end, 64);
            },
            {"past_gm", 0, Pipe::MTE2, 1, "outside GM"}, line);
    }
    SECTION("count larger than the tensor") {
        check_rule_error(
            sim, {.name = "too_many"},
            [&, x](Block& b) {
                auto ub = b.alloc<float>(MemSpace::UB, 8);
                line = __LINE__ + 1;
                b.copy(ub, x, 16);
            },
            {"too_many", 0, Pipe::MTE2, 1, "needs 16 elements but its tensor holds 8"}, line);
    }
    SECTION("count larger than the GM tensor") {
        check_rule_error(
            sim, {.name = "too_many_gm"},
            [&, x](Block& b) {
                auto ub = b.alloc<float>(MemSpace::UB, 2048);
                line = __LINE__ + 1;
                b.copy(ub, x, 2048);
            },
            {"too_many_gm", 0, Pipe::MTE2, 1, "needs 2048 elements but its tensor holds 1024"},
            line);
    }
    SECTION("no copy path UB -> L1") {
        check_rule_error(
            sim, {.name = "bad_path"},
            [&](Block& b) {
                auto ub = b.alloc<float>(MemSpace::UB, 64);
                auto l1 = b.local<float>(MemSpace::L1, 0, 64);
                line = __LINE__ + 1;
                b.copy(l1, ub, 64);
            },
            {"bad_path", 0, Pipe::S, 1, "no DataCopy path from UB to L1"}, line);
    }
    SECTION("the error names the failing block, not block 0") {
        check_rule_error(
            sim, {.name = "third_block", .blocks = 3},
            [&, x](Block& b) {
                auto ub = b.alloc<float>(MemSpace::UB, 64);
                b.copy(ub, x, 64);
                b.pipe_barrier(Pipe::ALL);
                if (b.block_idx() == 2) {
                    line = __LINE__ + 1;
                    b.copy(ub, x, 4);
                }
            },
            {"third_block", 2, Pipe::MTE2, 3, "16 bytes is not a multiple of 32 bytes"}, line);
    }
}

TEST_CASE("cube rules: L0 addresses are 512-byte aligned", "[rules]") {
    Simulator sim(test::small_chip());
    int line = 0;
    const LaunchSpec cube{.name = "cube_rule", .type = KernelType::AIC_ONLY};

    SECTION("mmad with a misaligned L0A operand") {
        check_rule_error(
            sim, cube,
            [&](Block& b) {
                auto a = b.local<half>(MemSpace::L0A, 256, 256);
                auto w = b.alloc<half>(MemSpace::L0B, 256);
                auto c = b.alloc<float>(MemSpace::L0C, 256);
                line = __LINE__ + 1;
                b.mmad(c, a, w, 16, 16, 16);
            },
            {"cube_rule", 0, Pipe::M, 1, "L0A address 0x100 is not 512-byte aligned"}, line);
    }
    SECTION("mmad with a misaligned L0C result") {
        check_rule_error(
            sim, cube,
            [&](Block& b) {
                auto a = b.alloc<half>(MemSpace::L0A, 256);
                auto w = b.alloc<half>(MemSpace::L0B, 256);
                auto c = b.local<float>(MemSpace::L0C, 32, 256);
                line = __LINE__ + 1;
                b.mmad(c, a, w, 16, 16, 16);
            },
            {"cube_rule", 0, Pipe::M, 1, "L0C address 0x20 is not 512-byte aligned"}, line);
    }
    SECTION("MTE1 copy into a misaligned L0B address") {
        check_rule_error(
            sim, cube,
            [&](Block& b) {
                auto l1 = b.alloc<half>(MemSpace::L1, 256);
                auto bad = b.local<half>(MemSpace::L0B, 64, 256);
                line = __LINE__ + 1;
                b.copy(bad, l1, 256);
            },
            {"cube_rule", 0, Pipe::MTE1, 1, "L0B address 0x40 is not 512-byte aligned"}, line);
    }
    SECTION("mmad operand larger than its tensor") {
        check_rule_error(
            sim, cube,
            [&](Block& b) {
                auto a = b.alloc<half>(MemSpace::L0A, 256);
                auto w = b.alloc<half>(MemSpace::L0B, 256);
                auto c = b.alloc<float>(MemSpace::L0C, 256);
                line = __LINE__ + 1;
                b.mmad(c, a, w, 16, 16, 32);
            },
            {"cube_rule", 0, Pipe::M, 1, "needs 512 elements but its tensor holds 256"}, line);
    }
}

TEST_CASE("flag and barrier rules", "[rules]") {
    Simulator sim(test::small_chip());
    int line = 0;

    SECTION("SetFlag event id >= 8") {
        check_rule_error(
            sim, {.name = "event_id"},
            [&](Block& b) {
                b.set_flag(Pipe::MTE2, Pipe::V, 7);
                b.wait_flag(Pipe::MTE2, Pipe::V, 7);
                line = __LINE__ + 1;
                b.set_flag(Pipe::MTE2, Pipe::V, 8);
            },
            {"event_id", 0, Pipe::MTE2, 3, "event id 8 is out of range"}, line);
    }
    SECTION("WaitFlag event id >= 8") {
        check_rule_error(
            sim, {.name = "event_id_wait"},
            [&](Block& b) {
                line = __LINE__ + 1;
                b.wait_flag(Pipe::MTE2, Pipe::V, 100);
            },
            {"event_id_wait", 0, Pipe::V, 1, "event id 100 is out of range"}, line);
    }
    SECTION("PipeBarrier(S)") {
        check_rule_error(
            sim, {.name = "barrier_s"},
            [&](Block& b) {
                line = __LINE__ + 1;
                b.pipe_barrier(Pipe::S);
            },
            {"barrier_s", 0, Pipe::S, 1, "PipeBarrier<PIPE_S>"}, line);
    }
    SECTION("SetFlag from a pipe the vector core does not have") {
        check_rule_error(
            sim, {.name = "no_m"},
            [&](Block& b) {
                line = __LINE__ + 1;
                b.set_flag(Pipe::M, Pipe::V, 0);
            },
            {"no_m", 0, Pipe::M, 1, "PIPE_M does not exist on an aiv core"}, line);
    }
    SECTION("WaitFlag on a pipe the cube core does not have") {
        check_rule_error(
            sim, {.name = "no_v", .type = KernelType::AIC_ONLY},
            [&](Block& b) {
                line = __LINE__ + 1;
                b.wait_flag(Pipe::MTE2, Pipe::V, 0);
            },
            {"no_v", 0, Pipe::V, 1, "PIPE_V does not exist on an aic core"}, line);
    }
    SECTION("PipeBarrier on a pipe the vector core does not have") {
        check_rule_error(
            sim, {.name = "no_mte1"},
            [&](Block& b) {
                line = __LINE__ + 1;
                b.pipe_barrier(Pipe::MTE1);
            },
            {"no_mte1", 0, Pipe::MTE1, 1, "does not exist on an aiv core"}, line);
    }
    SECTION("SetFlag with the same source and destination pipe") {
        check_rule_error(
            sim, {.name = "same_pipe"},
            [&](Block& b) {
                line = __LINE__ + 1;
                b.set_flag(Pipe::V, Pipe::V, 0);
            },
            {"same_pipe", 0, Pipe::V, 1, "same"}, line);
    }
}

TEST_CASE("core type rules: vector ops need a vector core, mmad a cube core", "[rules]") {
    Simulator sim(test::small_chip());
    int line = 0;

    SECTION("vector add on a cube core") {
        check_rule_error(
            sim, {.name = "add_on_aic", .type = KernelType::AIC_ONLY},
            [&](Block& b) {
                auto u = b.local<float>(MemSpace::UB, 0, 64);
                line = __LINE__ + 1;
                b.add(u, u, u, 64);
            },
            {"add_on_aic", 0, Pipe::V, 1, "needs a vector core"}, line);
    }
    SECTION("mmad on a vector core") {
        check_rule_error(
            sim, {.name = "mmad_on_aiv"},
            [&](Block& b) {
                auto a = b.local<half>(MemSpace::L0A, 0, 256);
                auto w = b.local<half>(MemSpace::L0B, 0, 256);
                auto c = b.local<float>(MemSpace::L0C, 0, 256);
                line = __LINE__ + 1;
                b.mmad(c, a, w, 16, 16, 16);
            },
            {"mmad_on_aiv", 0, Pipe::M, 1, "needs a cube core"}, line);
    }
    SECTION("vector op operand outside UB") {
        const std::uint64_t near_end = sim.chip().ub_bytes - 64;
        check_rule_error(
            sim, {.name = "vec_past_ub"},
            [&, near_end](Block& b) {
                auto a = b.alloc<float>(MemSpace::UB, 64);
                auto bad = b.local<float>(MemSpace::UB, near_end, 64);
                line = __LINE__ + 1;
                b.add(bad, a, a, 64);
            },
            {"vec_past_ub", 0, Pipe::V, 1, "outside UB"}, line);
    }
    SECTION("vector op count larger than its tensor") {
        check_rule_error(
            sim, {.name = "vec_count"},
            [&](Block& b) {
                auto a = b.alloc<float>(MemSpace::UB, 64);
                auto c = b.alloc<float>(MemSpace::UB, 32);
                b.fill(a, 1.0F, 64);
                line = __LINE__ + 1;
                b.add(c, a, a, 64);
            },
            {"vec_count", 0, Pipe::V, 2, "needs 64 elements but its tensor holds 32"}, line);
    }
}

TEST_CASE("UB allocation overflow is a KernelError naming kernel, block and line", "[rules]") {
    Simulator sim(test::small_chip());
    int line = 0;
    const std::string message = kernel_error_of(sim, {.name = "greedy"}, [&](Block& b) {
        auto a = b.alloc<float>(MemSpace::UB, 32768);  // 128 KiB of 192 KiB
        (void)a;
        line = __LINE__ + 1;
        auto c = b.alloc<float>(MemSpace::UB, 32768);
        (void)c;
    });
    INFO("message: " << message);
    CHECK_THAT(message, Contains("kernel 'greedy'"));
    CHECK_THAT(message, Contains("block 0"));
    CHECK_THAT(message, Contains(test::location_prefix(__FILE__, line)));
    CHECK_THAT(message, Contains("cannot allocate 131072 bytes in UB"));
    CHECK(test::run_correct_add(sim) == 0);
    // Allocations are released at block end: the same allocation succeeds in a new block.
    const RunResult again = sim.run({.name = "fits"}, [](Block& b) {
        auto a = b.alloc<float>(MemSpace::UB, 32768);
        (void)a;
    });
    CHECK(again.completed());
}

TEST_CASE("an exception thrown by kernel code becomes a KernelError", "[rules]") {
    Simulator sim(test::small_chip());
    const std::string message =
        kernel_error_of(sim, {.name = "thrower", .blocks = 2}, [](Block& b) {
            if (b.block_idx() == 1) throw std::runtime_error("kernel gave up");
        });
    CHECK_THAT(message, Contains("kernel 'thrower' block 1"));
    CHECK_THAT(message, Contains("kernel gave up"));
    CHECK(test::run_correct_add(sim) == 0);
}

TEST_CASE("host-side misuse throws UsageError and leaves the simulator usable", "[rules]") {
    Simulator sim(test::small_chip());
    auto noop = [](Block&) {};

    SECTION("launch with 0 blocks") {
        try {
            sim.launch({.name = "empty", .blocks = 0}, noop);
            FAIL("expected a UsageError");
        } catch (const UsageError& error) {
            CHECK_THAT(std::string(error.what()), Contains("'empty'"));
            CHECK_THAT(std::string(error.what()), Contains("0 blocks"));
        }
    }
    SECTION("launch without a body") {
        CHECK_THROWS_AS(sim.launch({.name = "bodiless"}, KernelBody{}), UsageError);
    }
    SECTION("run() without a launch") {
        CHECK_THROWS_AS(sim.run(), UsageError);
        CHECK(test::run_correct_add(sim) == 0);
        CHECK_THROWS_AS(sim.run(), UsageError);  // the launch was consumed by the run
    }
    SECTION("host write overrunning a buffer") {
        auto g = sim.allocate<float>(8, "eight");
        try {
            sim.write(g, std::vector<float>(9, 1.0F));
            FAIL("expected a UsageError");
        } catch (const UsageError& error) {
            CHECK_THAT(std::string(error.what()), Contains("overruns buffer 'eight'"));
        }
        // A write that fits still works and is not affected.
        sim.write(g, std::vector<float>(8, 2.0F));
        CHECK(sim.read(g) == std::vector<float>(8, 2.0F));
    }
    SECTION("host write through a view that overruns the buffer") {
        auto g = sim.allocate<float>(8, "eight");
        CHECK_THROWS_AS(sim.write(g.sub(4, 8), std::vector<float>(8, 1.0F)), UsageError);
    }
    SECTION("reading a freed buffer") {
        auto g = sim.allocate<float>(8, "gone");
        sim.free(g);
        CHECK_THROWS_AS(sim.read(g), UsageError);
    }
    SECTION("a second simulator while one exists") {
        // SystemC has one current context per process: only one simulator at a time.
        CHECK_THROWS_AS(Simulator(test::small_chip()), UsageError);
    }
    CHECK(test::run_correct_add(sim) == 0);
}

TEST_CASE("a chip without cube cores rejects cube launches", "[rules]") {
    ChipConfig chip = test::small_chip();
    chip.cube_cores = 0;
    Simulator sim(chip);
    CHECK_THROWS_AS(sim.launch({.name = "mm", .type = KernelType::AIC_ONLY}, [](Block&) {}),
                    UsageError);
    CHECK(test::run_correct_add(sim) == 0);
}
