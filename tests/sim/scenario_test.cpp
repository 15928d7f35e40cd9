// Scenario files: the shipped default parses, a small scenario runs with verified output, and
// every kind of mistake is a ConfigError whose problems name the origin and JSON pointer.
#include "sim/scenario/scenario.h"

#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "base/errors.h"
#include "sim/kernels/builtin_kernels.h"
#include "test_support.h"

using namespace npusim;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

const std::filesystem::path kSourceDir = NPUSIM_SOURCE_DIR;
const std::filesystem::path kScenarioDir = kSourceDir / "configs" / "scenarios";

/// Every problem reported for `text` (origin "test.json", base dir configs/scenarios).
std::vector<std::string> problems_of(const std::string& text) {
    try {
        parse_scenario(text, "test.json", kScenarioDir);
    } catch (const ConfigError& error) {
        REQUIRE_FALSE(error.problems().empty());
        CHECK_THAT(std::string(error.what()), Contains(error.problems().front()));
        return error.problems();
    }
    FAIL("expected a ConfigError for: " << text);
    return {};
}

/// The one problem that starts with `prefix` ("test.json:/pointer:"); fails if none does.
std::string problem_at(const std::vector<std::string>& problems, const std::string& prefix) {
    for (const std::string& p : problems) {
        if (p.starts_with(prefix)) return p;
    }
    FAIL("no problem starts with '" << prefix << "'; got " << Catch::Detail::stringify(problems));
    return {};
}

/// A valid small scenario with one member replaced (as raw JSON text).
std::string small_scenario(
    const std::string& chip = R"("small")",
    const std::string& params = R"({ "elements": 65536, "tile": 2048, "buffers": 2 })",
    const std::string& blocks = "4") {
    return R"({ "description": "test", "chip": )" + chip + R"(, "kernel": "vector_add", )" +
           R"("blocks": )" + blocks + R"(, "params": )" + params + " }";
}

}  // namespace

TEST_CASE("the shipped default scenario parses", "[scenario]") {
    const std::filesystem::path file = kScenarioDir / "default.json";
    const Scenario s = load_scenario(file);
    CHECK(s.source == file.string());
    CHECK_FALSE(s.description.empty());
    CHECK(s.chip.name == "a2");
    CHECK(s.chip.vector_cores == 48);
    CHECK(s.kernel == "vector_add");
    CHECK(s.blocks == 48);
    CHECK(s.params.at("elements") == 3145728);
    CHECK(s.params.at("tile") == 2048);
    CHECK(s.params.at("buffers") == 2);
    REQUIRE(find_builtin_kernel(s.kernel) != nullptr);
}

TEST_CASE("a small scenario runs on the small chip with verified output", "[scenario][engine]") {
    const std::string buffers = GENERATE("1", "2");
    const Scenario s = parse_scenario(
        small_scenario(R"("small")",
                       R"({ "elements": 65536, "tile": 2048, "buffers": )" + buffers + " }"),
        "test.json", kScenarioDir);
    CHECK(s.chip.name == "small");
    CHECK(s.blocks == 4);
    test::Recorder rec;
    const ScenarioOutcome checked = run_scenario(s, {&rec});
    CHECK(checked.checked);
    CHECK(checked.findings.empty());
    const KernelOutcome& outcome = checked.kernel;
    INFO(outcome.verification);
    CHECK(outcome.run.completed());
    CHECK(outcome.verified);
    CHECK_THAT(outcome.verification, Contains("65536"));
    CHECK(outcome.run.gm_bytes == 65536 * 4 * 3);
    CHECK(outcome.run.instructions == rec.transactions.size());
    REQUIRE(outcome.run.kernels.size() == 1);
    CHECK(outcome.run.kernels[0].blocks == 4);
}

TEST_CASE("parameters left out take their defaults and a chip path is relative to the file",
          "[scenario]") {
    const Scenario s =
        parse_scenario(R"({ "chip": "../chips/small.json", "kernel": "vector_add", "blocks": 2 })",
                       "test.json", kScenarioDir);
    CHECK(s.chip.name == "small");
    const KernelDefinition* kernel = find_builtin_kernel("vector_add");
    REQUIRE(kernel != nullptr);
    for (const KernelParameter& p : kernel->parameters) {
        CHECK(s.params.at(p.name) == p.default_value);
    }
}

TEST_CASE("scenario problems name the origin and the JSON pointer", "[scenario][config]") {
    SECTION("unknown key, with a suggestion") {
        const auto problems =
            problems_of(R"({ "chip": "small", "kernel": "vector_add", "blocks": 1, "param": {} })");
        const std::string p = problem_at(problems, "test.json:/param:");
        CHECK_THAT(p, Contains("unknown key 'param'"));
        CHECK_THAT(p, Contains("did you mean 'params'?"));
    }
    SECTION("unknown kernel") {
        const auto problems =
            problems_of(R"({ "chip": "small", "kernel": "vector_ad", "blocks": 1 })");
        const std::string p = problem_at(problems, "test.json:/kernel:");
        CHECK_THAT(p, Contains("unknown kernel 'vector_ad'"));
        CHECK_THAT(p, Contains("did you mean 'vector_add'?"));
        CHECK_THAT(p, Contains("vector_add"));
    }
    SECTION("missing kernel") {
        const auto problems = problems_of(R"({ "chip": "small", "blocks": 1 })");
        CHECK_THAT(problem_at(problems, "test.json:/kernel:"), Contains("missing"));
    }
    SECTION("unknown parameter") {
        const auto problems = problems_of(small_scenario(R"("small")", R"({ "tiles": 2048 })"));
        const std::string p = problem_at(problems, "test.json:/params/tiles:");
        CHECK_THAT(p, Contains("unknown key 'tiles'"));
        CHECK_THAT(p, Contains("did you mean 'tile'?"));
    }
    SECTION("parameter out of range") {
        const auto problems = problems_of(small_scenario(R"("small")", R"({ "tile": 4 })"));
        const std::string p = problem_at(problems, "test.json:/params/tile:");
        CHECK_THAT(p, Contains("8..2097152"));
        CHECK_THAT(p, Contains("got 4"));
    }
    SECTION("parameter of the wrong type") {
        const auto problems = problems_of(small_scenario(R"("small")", R"({ "buffers": "2" })"));
        const std::string p = problem_at(problems, "test.json:/params/buffers:");
        CHECK_THAT(p, Contains("expected an unsigned integer"));
    }
    SECTION("missing blocks") {
        const auto problems = problems_of(R"({ "chip": "small", "kernel": "vector_add" })");
        CHECK_THAT(problem_at(problems, "test.json:/blocks:"), Contains("missing"));
    }
    SECTION("blocks out of range") {
        const auto problems = problems_of(small_scenario(R"("small")", R"({ "tile": 2048 })", "0"));
        const std::string p = problem_at(problems, "test.json:/blocks:");
        CHECK_THAT(p, Contains("1..65535"));
        CHECK_THAT(p, Contains("got 0"));
    }
    SECTION("chip file not found") {
        const auto problems = problems_of(small_scenario(R"("no_such_chip.json")"));
        const std::string p = problem_at(problems, "test.json:/chip:");
        CHECK_THAT(p, Contains("no_such_chip.json"));
        CHECK_THAT(p, Contains("cannot read file"));
    }
    SECTION("unknown chip preset") {
        const auto problems = problems_of(small_scenario(R"("smal")"));
        const std::string p = problem_at(problems, "test.json:/chip:");
        CHECK_THAT(p, Contains("unknown chip preset 'smal'"));
        CHECK_THAT(p, Contains("did you mean 'small'?"));
    }
    SECTION("invalid JSON") {
        const auto problems = problems_of(R"({ "chip": "small", "kernel": )");
        REQUIRE(problems.size() == 1);
        CHECK_THAT(problems[0], StartsWith("test.json: invalid JSON:"));
    }
    SECTION("not an object") {
        const auto problems = problems_of("[1, 2]");
        REQUIRE(problems.size() == 1);
        CHECK_THAT(problems[0], StartsWith("test.json:"));
        CHECK_THAT(problems[0], Contains("expected an object"));
    }
    SECTION("every problem at once") {
        const auto problems = problems_of(
            R"({ "chip": "smal", "kernel": "vector_add", "params": { "tile": 1, "x": 1 },
                 "colour": 1 })");
        CHECK(problems.size() == 5);
        problem_at(problems, "test.json:/chip:");
        problem_at(problems, "test.json:/params/tile:");
        problem_at(problems, "test.json:/params/x:");
        problem_at(problems, "test.json:/colour:");
        problem_at(problems, "test.json:/blocks:");
    }
}

TEST_CASE("a scenario file that does not exist is a ConfigError naming the file",
          "[scenario][config]") {
    const std::filesystem::path file = kScenarioDir / "no_such_scenario.json";
    try {
        load_scenario(file);
        FAIL("expected a ConfigError");
    } catch (const ConfigError& error) {
        REQUIRE(error.problems().size() == 1);
        CHECK_THAT(error.problems()[0], StartsWith(file.string() + ":"));
    }
}

TEST_CASE("a scenario whose elements do not split into blocks x tile names the parameter",
          "[scenario]") {
    const auto problems =
        problems_of(small_scenario(R"("small")", R"({ "elements": 65536, "tile": 2048 })", "3"));
    REQUIRE(problems.size() == 1);
    CHECK(problems[0] ==
          "test.json:/params/elements: must be a multiple of blocks x tile (6144), got 65536");
}

// check_range() writes "expected <min>..<max> <unit>, got <value>"; a parameter without a
// unit (kernel parameters) must not leave a stray space before the comma.
TEST_CASE("range messages read cleanly when the parameter has no unit", "[scenario][config]") {
    const auto problems = problems_of(small_scenario(R"("small")", R"({ "tile": 4 })"));
    const std::string p = problem_at(problems, "test.json:/params/tile:");
    CHECK_THAT(p, Contains("expected 8..2097152, got 4"));
}

// ---- kernel needs checked against the chip (sim/kernels/resource_estimate.h)
// ----------------------

TEST_CASE("a tile larger than UB is reported at /params/tile with the chip's UB pointer",
          "[scenario][config]") {
    const auto problems = problems_of(
        small_scenario(R"("a2")", R"({ "elements": 65536, "tile": 65536, "buffers": 2 })", "1"));
    REQUIRE(problems.size() == 1);
    CHECK(problems[0] ==
          "test.json:/params/tile: tile 65536 x 4 bytes x 3 buffers (x, y, z) x 2 "
          "= 1572864 bytes of UB needed, the chip 'a2' "
          "(configs/chips/a2.json:/memory/ub_bytes) has 196608");
}

TEST_CASE("elements whose buffers exceed GM are reported at /params/elements",
          "[scenario][config]") {
    const std::string text = R"({ "chip": "small", "kernel": "vector_add", "blocks": 4,
        "params": { "elements": 134217728, "tile": 2048 } })";
    const std::string p = problem_at(problems_of(text), "test.json:/params/elements:");
    CHECK_THAT(p, Contains("bytes of GM needed"));
    CHECK_THAT(p, Contains("(configs/chips/small.json:/memory/gm_bytes) has 1073741824"));
}

TEST_CASE("kernel parameter ranges are what a chip and a host can hold", "[scenario][config]") {
    const auto problems = problems_of(small_scenario(
        R"("a2")", R"({ "elements": 17179869184, "tile": 2048, "buffers": 2 })", "48"));
    CHECK_THAT(problem_at(problems, "test.json:/params/elements:"),
               Contains("expected 8..268435456, got 17179869184"));
    const std::string reduction =
        R"({ "chip": "a2", "kernel": "syncall_reduction", "blocks": 4096 })";
    CHECK_THAT(problem_at(problems_of(reduction), "test.json:/blocks:"),
               Contains("expected 1..1024 blocks, got 4096"));
}

TEST_CASE("a chip without the kernel's core type is reported at /kernel", "[scenario][config]") {
    const ChipConfig small = builtin_chip_config("small");
    KernelNeeds needs =
        find_builtin_kernel("mix_matmul")->needs(1, {{"m", 32}, {"n", 32}, {"k", 32}});
    ChipConfig no_cube = small;
    no_cube.cube_cores = 0;
    const auto problems = check_kernel_needs(no_cube, needs);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].first == "/kernel");
    CHECK_THAT(problems[0].second,
               Contains("mix_matmul (MIX_AIC_1_2) needs 1 cube core per block, the chip 'small' "
                        "(configs/chips/small.json:/cores/cube) has 0"));
    ChipConfig tiny_l0a = small;
    tiny_l0a.l0a_bytes = 1024;
    const auto l0a = check_kernel_needs(tiny_l0a, needs);
    REQUIRE(l0a.size() == 1);
    CHECK(l0a[0].first == "/params/k");
    CHECK_THAT(l0a[0].second, Contains("2048 bytes of L0A needed"));
}

TEST_CASE("double buffering on a chip with one event id is reported at /params/buffers",
          "[scenario][config]") {
    ChipConfig chip = builtin_chip_config("small");
    chip.event_ids = 1;
    const KernelNeeds needs = find_builtin_kernel("vector_add")
                                  ->needs(4, {{"elements", 65536}, {"tile", 2048}, {"buffers", 2}});
    const auto problems = check_kernel_needs(chip, needs);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].first == "/params/buffers");
    CHECK_THAT(problems[0].second, Contains("2 event ids per pipe pair needed"));
    CHECK_THAT(problems[0].second, Contains("/pipes/event_ids) has 1"));
}

TEST_CASE("every shipped scenario fits its chip and has a host memory estimate", "[scenario]") {
    for (const auto& entry : std::filesystem::directory_iterator(kScenarioDir)) {
        const Scenario s = load_scenario(entry.path());
        CHECK(check_kernel_needs(s.chip, scenario_needs(s)).empty());
        const HostMemoryEstimate with = estimate_scenario_memory(s, true);
        const HostMemoryEstimate without = estimate_scenario_memory(s, false);
        CHECK(with.total_bytes > without.total_bytes);
        CHECK(without.total_bytes < (std::uint64_t{1} << 30));
    }
}

TEST_CASE("a run over the memory limit is refused naming the file and the value that drives it",
          "[scenario][config]") {
    const Scenario s = load_scenario(kScenarioDir / "default.json");
    try {
        require_memory_fits(s, true, 1 << 20, "--max-memory");
        FAIL("expected a ConfigError");
    } catch (const ConfigError& error) {
        REQUIRE(error.problems().size() == 1);
        const std::string& p = error.problems()[0];
        CHECK_THAT(p, Contains("default.json:/params/elements: the run needs about"));
        CHECK_THAT(p, Contains("more than --max-memory (1.0 MiB)"));
        CHECK_THAT(p, Contains("elements 3145728"));
    }
    CHECK_NOTHROW(require_memory_fits(s, true, std::uint64_t{1} << 40, "--max-memory"));
}

TEST_CASE("the stuck report names blocks as blocks and cores as cores", "[scenario][engine]") {
    const Scenario s = load_scenario(kScenarioDir / "syncall_50_blocks_stuck.json");
    const ScenarioOutcome outcome = run_scenario(s, {}, false);
    REQUIRE(outcome.kernel.run.outcome == RunOutcome::Deadlock);
    bool waiting = false, unstarted = false;
    for (const StuckBlock& b : outcome.kernel.run.stuck) {
        if (b.core >= 0) {
            CHECK_THAT(b.reason, Contains("still waiting for blocks 48, 49 (aiv)"));
            waiting = true;
        } else {
            CHECK_THAT(b.reason, Contains("never started: waits for a free vector core; all 48 "
                                          "vector cores (0-47) are held"));
            unstarted = true;
        }
    }
    CHECK(waiting);
    CHECK(unstarted);
}
