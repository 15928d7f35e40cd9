// The "kernels" section of scenario files: kernels written in JSON (sim/kernels/json_kernel.h) and
// user C++ kernels from shared libraries (sim/scenario/scenario_kernels.h,
// sim/kernels/kernel_registry.h).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "base/config_file.h"
#include "base/errors.h"
#include "sim/kernels/kernel_registry.h"
#include "sim/scenario/scenario.h"

using namespace npusim;
using Catch::Matchers::Contains;

namespace {

const std::filesystem::path kScenarioDir =
    std::filesystem::path(NPUSIM_SOURCE_DIR) / "configs" / "scenarios";
const std::filesystem::path kLibraryDir = std::filesystem::path(NPUSIM_BINARY_DIR) / "lib";

nlohmann::json load_json(const std::string& file) {
    return nlohmann::json::parse(read_config_file(kScenarioDir / file));
}

Scenario parse_doc(const nlohmann::json& doc, const std::string& origin = "kernels.json") {
    return parse_scenario(doc.dump(), origin, kScenarioDir);
}

std::vector<std::string> problems_of(const nlohmann::json& doc) {
    try {
        parse_doc(doc);
    } catch (const ConfigError& error) {
        return error.problems();
    }
    FAIL("expected a ConfigError for: " << doc.dump());
    return {};
}

bool has_problem(const std::vector<std::string>& problems, const std::string& prefix,
                 const std::string& text) {
    for (const std::string& p : problems) {
        if (p.starts_with(prefix) && p.find(text) != std::string::npos) return true;
    }
    return false;
}

std::string joined(const std::vector<std::string>& problems) {
    std::string text;
    for (const std::string& p : problems) text += p + "\n";
    return text;
}

// The JSON reduction scenario with its launch switched to the built-in C++ kernel.
nlohmann::json as_builtin(nlohmann::json doc) {
    doc.erase("kernels");
    nlohmann::json& launch = doc["host"][0];
    launch["kernel"] = "syncall_reduction";
    launch["params"] = {{"elements", launch["params"]["n"]}, {"sync", launch["params"]["sync"]}};
    return doc;
}

struct FindingShape {
    std::string kind, space, scope;
    std::uint64_t count;
    bool operator==(const FindingShape&) const = default;
};
std::vector<FindingShape> shapes(const std::vector<Finding>& findings) {
    std::vector<FindingShape> out;
    for (const Finding& f : findings) {
        out.push_back({std::string(to_string(f.kind)), std::string(to_string(f.space)),
                       std::to_string(static_cast<int>(f.scope)), f.count});
    }
    std::sort(out.begin(), out.end(), [](const FindingShape& a, const FindingShape& b) {
        return std::tie(a.kind, a.space, a.scope, a.count) <
               std::tie(b.kind, b.space, b.scope, b.count);
    });
    return out;
}

// A host program on the small chip around one JSON kernel `k` with arguments x and y.
nlohmann::json json_kernel_scenario(const nlohmann::json& kernel, std::uint32_t blocks = 2,
                                    const nlohmann::json& params = nlohmann::json::object()) {
    return {{"chip", "small"},
            {"kernels", {{"k", kernel}}},
            {"buffers",
             {{"x", {{"dtype", "float32"}, {"shape", {512}}, {"init", {{"fill", 1}}}}},
              {"y", {{"dtype", "float32"}, {"shape", {512}}}}}},
            {"host",
             {{{"op", "launch"},
               {"kernel", "k"},
               {"blocks", blocks},
               {"args", {{"x", "x"}, {"y", "y"}}},
               {"params", params}},
              {{"op", "synchronize_device"}}}},
            {"expect", {{"buffers", {{"y", {{"all", 2}}}}}}}};
}

nlohmann::json scale_kernel(const nlohmann::json& offset) {
    nlohmann::json k = nlohmann::json::parse(R"({
      "type": "AIV_ONLY", "args": {"x": "float32", "y": "float32"}, "params": {"n": 256},
      "body": [
        {"alloc": "ub", "space": "UB", "dtype": "float32", "count": "n"},
        {"op": "copy", "dst": "ub", "src": {"buffer": "x", "offset": "block_idx * n"}, "count": "n"},
        {"op": "set_flag", "src": "MTE2", "dst": "V", "id": 0},
        {"op": "wait_flag", "src": "MTE2", "dst": "V", "id": 0},
        {"op": "muls", "dst": "ub", "src": "ub", "scalar": 2, "count": "n"},
        {"op": "set_flag", "src": "V", "dst": "MTE3", "id": 0},
        {"op": "wait_flag", "src": "V", "dst": "MTE3", "id": 0},
        {"op": "copy", "dst": {"buffer": "y", "offset": 0}, "src": "ub", "count": "n"}]})");
    k["body"][7]["dst"]["offset"] = offset;
    return k;
}

}  // namespace

TEST_CASE(
    "JSON kernel: the SyncAll reduction gives the built-in kernel's output, cycles and findings",
    "[json_kernel][sim]") {
    for (const char* file : {"json_syncall_reduction.json", "json_syncall_reduction_racy.json"}) {
        INFO(file);
        nlohmann::json doc = load_json(file);
        doc["expect"]["buffers"]["output"] = {{"all", 16}};  // reads the output back
        const ScenarioOutcome json_run = run_scenario(parse_doc(doc, file));
        const ScenarioOutcome builtin_run = run_scenario(parse_doc(as_builtin(doc), file));
        REQUIRE(json_run.kernel.run.completed());
        CHECK(json_run.kernel.run.cycles() == builtin_run.kernel.run.cycles());
        CHECK(json_run.kernel.run.kernels.at(0).start ==
              builtin_run.kernel.run.kernels.at(0).start);
        CHECK(json_run.kernel.run.kernels.at(0).end == builtin_run.kernel.run.kernels.at(0).end);
        CHECK(json_run.host->buffers.at("output").values ==
              builtin_run.host->buffers.at("output").values);
        CHECK(shapes(json_run.findings) == shapes(builtin_run.findings));
        CHECK(json_run.passed() == builtin_run.passed());
    }
}

TEST_CASE("JSON kernel: the MIX_AIC_1_2 matmul gives the built-in kernel's output and cycles",
          "[json_kernel][sim]") {
    const nlohmann::json doc = load_json("json_mix_matmul.json");
    nlohmann::json builtin = doc;
    builtin.erase("kernels");
    builtin["host"][0]["kernel"] = "mix_matmul";
    const ScenarioOutcome json_run = run_scenario(parse_doc(doc, "json_mix_matmul.json"));
    const ScenarioOutcome builtin_run = run_scenario(parse_doc(builtin, "json_mix_matmul.json"));
    CHECK(json_run.passed());
    CHECK(builtin_run.passed());
    CHECK(json_run.kernel.run.cycles() == builtin_run.kernel.run.cycles());
    CHECK(json_run.kernel.run.kernels.at(0).end == builtin_run.kernel.run.kernels.at(0).end);
    CHECK(json_run.host->buffers.at("out").values == builtin_run.host->buffers.at("out").values);
    CHECK(shapes(json_run.findings) == shapes(builtin_run.findings));
}

TEST_CASE("JSON kernel: the racy reduction reports its hazards at the ops' JSON pointers",
          "[json_kernel][sim]") {
    const ScenarioOutcome run =
        run_scenario(load_scenario(kScenarioDir / "json_syncall_reduction_racy.json"));
    bool raw_at_pointers = false;
    for (const Finding& f : run.findings) {
        if (f.kind != FindingKind::RaceRAW || f.space != MemSpace::GM) continue;
        REQUIRE(f.sites.size() == 2);
        CHECK(format_location(f.sites[0].where) ==
              "json_syncall_reduction_racy.json#/kernels/reduction/body/8");
        CHECK(format_location(f.sites[1].where) ==
              "json_syncall_reduction_racy.json#/kernels/reduction/body/12/loop/body/1");
        raw_at_pointers = true;
    }
    CHECK(raw_at_pointers);
}

TEST_CASE("JSON kernel: expressions, loops and conditionals compute addresses per block",
          "[json_kernel][sim]") {
    const ScenarioOutcome run =
        run_scenario(parse_doc(json_kernel_scenario(scale_kernel("block_idx * n"))));
    CHECK(run.passed());
    // Both blocks write the same half: the other half stays 0 and the checker sees the WAW.
    const ScenarioOutcome wrong = run_scenario(parse_doc(json_kernel_scenario(scale_kernel("0"))));
    CHECK_FALSE(wrong.passed());
}

TEST_CASE("JSON kernel: set_atomic makes the blocks' copies to one GM range accumulate",
          "[json_kernel][sim][atomic]") {
    // Both blocks write y[0, 256): with "add" the copies sum (y = 0 + 2 + 2) and do not race;
    // with "none" the second overwrites the first and the checker reports the WAW.
    nlohmann::json kernel = scale_kernel("0");
    kernel["body"].insert(
        kernel["body"].begin() + 7,
        nlohmann::json::parse(R"({"op": "set_atomic", "atomic": "add", "dtype": "float32"})"));
    nlohmann::json doc = json_kernel_scenario(kernel);
    doc["buffers"]["y"]["init"] = "zeros";
    std::vector<float> want(512, 0.0F);
    std::fill(want.begin(), want.begin() + 256, 4.0F);
    doc["expect"] = {{"buffers", {{"y", {{"equals", want}}}}},
                     {"findings", nlohmann::json::array()}};
    const ScenarioOutcome summed = run_scenario(parse_doc(doc));
    CHECK(summed.findings.empty());
    CHECK(summed.passed());

    doc["kernels"]["k"]["body"][7] = {{"op", "set_atomic"}, {"atomic", "none"}};
    const ScenarioOutcome plain = run_scenario(parse_doc(doc));
    REQUIRE(plain.findings.size() == 1);
    CHECK(plain.findings[0].kind == FindingKind::RaceWAW);
    CHECK(plain.findings[0].scope == RaceScope::InterCore);
}

TEST_CASE("JSON kernel: bypass_l2 keeps a GM read out of L2", "[json_kernel][sim]") {
    // x is read twice on a2 (L2 192 MB): the second read hits unless the first bypassed L2.
    const auto run_with = [](bool bypass) {
        nlohmann::json kernel = nlohmann::json::parse(R"({
          "type": "AIV_ONLY", "args": {"x": "float32", "y": "float32"}, "params": {"n": 256},
          "body": [
            {"alloc": "ub", "space": "UB", "dtype": "float32", "count": "n"},
            {"op": "copy", "dst": "ub", "src": {"buffer": "x", "offset": "block_idx * n"},
             "count": "n"},
            {"op": "pipe_barrier", "pipe": "MTE2"},
            {"op": "copy", "dst": "ub", "src": {"buffer": "x", "offset": "block_idx * n"},
             "count": "n"}]})");
        kernel["body"][1]["bypass_l2"] = bypass;
        nlohmann::json doc = json_kernel_scenario(kernel);
        doc["chip"] = "a2";
        doc.erase("expect");
        return run_scenario(parse_doc(doc));
    };
    const ScenarioOutcome cached = run_with(false);
    const ScenarioOutcome bypassed = run_with(true);
    CHECK(cached.kernel.run.gm_read_bytes == 2 * 512 * sizeof(float));
    CHECK(cached.kernel.run.l2_hit_bytes == 512 * sizeof(float));
    CHECK(bypassed.kernel.run.gm_read_bytes == 2 * 512 * sizeof(float));
    CHECK(bypassed.kernel.run.l2_hit_bytes == 0);
    REQUIRE(cached.kernel.run.kernels.size() == 1);
    CHECK(cached.kernel.run.kernels[0].l2_hit_bytes == 512 * sizeof(float));
}

TEST_CASE("JSON kernel: set_atomic needs an operation and, unless none, an element type",
          "[json_kernel][atomic]") {
    nlohmann::json kernel = scale_kernel("0");
    kernel["body"].insert(kernel["body"].begin() + 7,
                          nlohmann::json::parse(R"({"op": "set_atomic", "atomic": "add"})"));
    auto problems = problems_of(json_kernel_scenario(kernel));
    CHECK(has_problem(problems, "kernels.json:/kernels/k/body/7/dtype", "missing"));
    kernel["body"][7] = {{"op", "set_atomic"}, {"atomic", "sum"}, {"dtype", "float32"}};
    problems = problems_of(json_kernel_scenario(kernel));
    INFO(joined(problems));
    CHECK(has_problem(problems, "kernels.json:/kernels/k/body/7/atomic", "sum"));
}

TEST_CASE("JSON kernel: problems in a kernel name their JSON pointers", "[json_kernel]") {
    nlohmann::json doc = json_kernel_scenario(scale_kernel("block_idx * nn"));
    auto problems = problems_of(doc);
    CHECK(
        has_problem(problems, "kernels.json:/kernels/k/body/7/dst/offset", "undefined name 'nn'"));

    doc = json_kernel_scenario(scale_kernel("n / (n - 256)"));
    problems = problems_of(doc);
    INFO(joined(problems));
    CHECK(has_problem(problems, "kernels.json:/kernels/k/body/7",
                      "division by zero: 256 / 0 (launched at /host/0)"));

    doc = json_kernel_scenario(scale_kernel("9223372036854775807 + 1"));
    CHECK(has_problem(problems_of(doc), "kernels.json:/kernels/k/body/7/dst/offset",
                      "integer overflow"));

    doc = json_kernel_scenario(scale_kernel("(block_idx * n"));
    CHECK(
        has_problem(problems_of(doc), "kernels.json:/kernels/k/body/7/dst/offset", "expected ')'"));

    doc = json_kernel_scenario(scale_kernel(0));
    doc["kernels"]["k"]["body"][4]["op"] = "mulz";
    doc["kernels"]["k"]["body"][1]["src"]["buffer"] = "xx";
    doc["kernels"]["k"]["type"] = "AIV";
    problems = problems_of(doc);
    INFO(joined(problems));
    CHECK(has_problem(problems, "kernels.json:/kernels/k/body/4/op", "did you mean 'mul'?"));
    CHECK(has_problem(problems, "kernels.json:/kernels/k/body/1/src/buffer",
                      "undefined buffer 'xx'"));
    CHECK(has_problem(problems, "kernels.json:/kernels/k/type", "unknown value 'AIV'"));

    doc = json_kernel_scenario(scale_kernel(0));
    doc["kernels"]["syncall"] = doc["kernels"]["k"];
    CHECK(has_problem(problems_of(doc), "kernels.json:/kernels/syncall", "built-in kernel"));
}

TEST_CASE("JSON kernel: a division by zero while running is a KernelError naming the op",
          "[json_kernel][sim]") {
    const nlohmann::json doc = json_kernel_scenario(scale_kernel("n / (block_idx - 1)"));
    try {
        run_scenario(parse_doc(doc));
        FAIL("expected a KernelError");
    } catch (const KernelError& error) {
        CHECK_THAT(error.what(),
                   Contains("kernels.json#/kernels/k/body/7") && Contains("division by zero"));
    }
}

TEST_CASE("User kernel library: the headers' version is the project's", "[user_kernels]") {
    CHECK(std::string(NPUSIM_VERSION_STRING) == NPUSIM_PROJECT_VERSION);
}

TEST_CASE("User kernel library: the example library loads, runs and reports its C++ lines",
          "[user_kernels][sim]") {
    nlohmann::json doc = nlohmann::json::parse(read_config_file(
        std::filesystem::path(NPUSIM_SOURCE_DIR) / "examples" / "user_kernels" / "scenario.json"));
    const std::string library = (kLibraryDir / "libnpusim_example_kernels.so").string();
    doc["kernels"]["scale"]["library"] = library;
    const ScenarioOutcome run = run_scenario(parse_doc(doc));
    CHECK(run.passed());
    CHECK(run.host->buffers.at("y").values == std::vector<double>(1024, 6.0));

    doc["kernels"]["racy"] = {{"library", library}, {"kernel", "example_racy_add"}};
    doc["buffers"]["z"] = {{"dtype", "float32"}, {"shape", {1024}}};
    doc["host"][0] = {{"op", "launch"},
                      {"kernel", "racy"},
                      {"blocks", 4},
                      {"args", {{"x", "x"}, {"y", "x"}, {"z", "z"}}}};
    doc.erase("expect");
    const ScenarioOutcome racy = run_scenario(parse_doc(doc));
    bool named = false;
    for (const Finding& f : racy.findings) {
        if (f.kind != FindingKind::RaceRAW || f.space != MemSpace::UB) continue;
        CHECK_THAT(format_location(f.sites[0].where), Contains("example_kernels.cpp:"));
        CHECK_THAT(format_location(f.sites[1].where), Contains("example_kernels.cpp:"));
        named = true;
    }
    CHECK(named);
}

TEST_CASE(
    "User kernel library: a missing library, a foreign library, another version, a "
    "missing kernel are config errors",
    "[user_kernels]") {
    nlohmann::json doc = nlohmann::json::parse(read_config_file(
        std::filesystem::path(NPUSIM_SOURCE_DIR) / "examples" / "user_kernels" / "scenario.json"));
    const auto problems_with = [&](const std::string& library, const std::string& kernel) {
        nlohmann::json d = doc;
        d["kernels"]["scale"] = {{"library", library}, {"kernel", kernel}};
        return joined(problems_of(d));
    };
    CHECK_THAT(problems_with("no/such/libnothing.so", "example_scale"),
               Contains("kernels.json:/kernels/scale/library: cannot load kernel library "
                        "'no/such/libnothing.so': no such file"));
    CHECK_THAT(
        problems_with((kLibraryDir / "libnpusim_test_not_a_kernel_library.so").string(), "x"),
        Contains("is not an npusim kernel library: it has no symbol npusim_kernel_abi_version"));
    CHECK_THAT(problems_with((kLibraryDir / "libnpusim_test_other_version.so").string(), "x"),
               Contains("was built against npusim 0.0.1 (kernel ABI 0); this is "
                        "npusim " NPUSIM_VERSION_STRING));
    CHECK_THAT(
        problems_with((kLibraryDir / "libnpusim_example_kernels.so").string(), "example_scal"),
        Contains("kernels.json:/kernels/scale/kernel: undefined kernel 'example_scal' (did you "
                 "mean 'example_scale'?); defined: example_scale, example_racy_add"));
}

TEST_CASE("JSON kernel: a runaway loop, a negative count and an out-of-range value are refused",
          "[json_kernel][sim]") {
    nlohmann::json doc = json_kernel_scenario(scale_kernel("block_idx * n"));
    doc["kernels"]["k"]["body"].push_back({{"loop",
                                            {{"var", "i"},
                                             {"from", 0},
                                             {"to", "9223372036854775807"},
                                             {"body", nlohmann::json::array()}}}});
    try {
        run_scenario(parse_doc(doc));
        FAIL("expected a KernelError");
    } catch (const KernelError& error) {
        CHECK_THAT(error.what(), Contains("kernels.json#/kernels/k/body/8:") &&
                                     Contains("a loop bound too large?"));
    }

    doc = json_kernel_scenario(scale_kernel("block_idx * n"));
    doc["kernels"]["k"]["body"][4]["count"] = "n - 257 - block_idx";
    try {
        run_scenario(parse_doc(doc));
        FAIL("expected a KernelError");
    } catch (const KernelError& error) {
        CHECK_THAT(error.what(), Contains("kernels.json#/kernels/k/body/4: count is -") &&
                                     Contains(", expected >= 0"));
    }

    doc = json_kernel_scenario(scale_kernel("block_idx * n"));
    doc["kernels"]["k"]["body"][0]["dtype"] = "int8";
    doc["kernels"]["k"]["body"].push_back(
        {{"op", "fill"}, {"dst", "ub"}, {"value", 300}, {"count", 8}});
    const auto problems = problems_of(doc);
    CHECK(has_problem(problems, "kernels.json:/kernels/k/body/8/value",
                      "expected a whole number -128..127 for a int8 buffer, got 300"));
    CHECK(has_problem(problems, "kernels.json:/kernels/k/body/1", "differ in type"));
}
