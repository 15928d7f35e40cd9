// Scenario files with a host program (sim/scenario/scenario_host.h,
// sim/scenario/host_program_runner.h, sim/scenario/scenario_expect.h): parsing, problems with their
// pointers, runs through the runtime, expectations that hold and that fail, and the built-in
// kernels' host-program form.
#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "base/errors.h"
#include "sim/kernels/builtin_kernels.h"
#include "sim/report/scenario_report.h"
#include "sim/scenario/scenario.h"
#include "test_support.h"

using namespace npusim;
using Catch::Matchers::Contains;

namespace {

const std::filesystem::path kScenarioDir =
    std::filesystem::path(NPUSIM_SOURCE_DIR) / "configs" / "scenarios";

Scenario parse(const std::string& text) {
    return parse_scenario(text, "host.json", kScenarioDir);
}

std::vector<std::string> problems_of(const std::string& text) {
    try {
        parse(text);
    } catch (const ConfigError& error) {
        return error.problems();
    }
    FAIL("expected a ConfigError for: " << text);
    return {};
}

bool has_problem(const std::vector<std::string>& problems, const std::string& prefix,
                 const std::string& text) {
    for (const std::string& p : problems) {
        if (p.starts_with(prefix) && p.find(text) != std::string::npos) return true;
    }
    return false;
}

/// A host scenario on the small chip: `host` and `expect` are raw JSON.
std::string scenario(const std::string& host, const std::string& expect = "",
                     const std::string& extra = "") {
    std::string text = R"({"chip": "small",
      "buffers": {"x": {"dtype": "float32", "shape": [4096], "init": {"range": {"start": 0, "step": 1}}},
                  "y": {"dtype": "float32", "shape": [4096], "init": {"fill": 2}},
                  "z": {"dtype": "float32", "shape": [4096]},
                  "out": {"dtype": "int32", "shape": [4], "init": "zeros"},
                  "h": {"dtype": "float32", "shape": [4096], "memory": "pinned"},
                  "pageable": {"dtype": "uint8", "bytes": 64, "memory": "pageable"}},
      "streams": ["s1", "s2"],
      "events": {"e": {}, "ipc": {"flags": ["disable_timing", "interprocess"]}},
      "host": )" + host;
    if (!expect.empty()) text += R"(, "expect": )" + expect;
    if (!extra.empty()) text += ", " + extra;
    return text + "}";
}

const std::string kVectorAdd =
    R"({"op": "launch", "kernel": "vector_add", "blocks": 2, "stream": "s1",
        "args": {"x": "x", "y": "y", "z": "z"}, "params": {"elements": 4096, "tile": 512}})";

const ExpectationResult* result_at(const ScenarioOutcome& outcome, const std::string& pointer) {
    for (const ExpectationResult& r : outcome.expectations.results) {
        if (r.pointer == pointer) return &r;
    }
    return nullptr;
}

}  // namespace

TEST_CASE("a host program parses into buffers, streams, events and ops with pointers",
          "[scenario][host]") {
    const Scenario s = parse(scenario("[" + kVectorAdd + R"(,
        {"op": "record_event", "event": "e", "stream": "s1"},
        {"op": "stream_wait_event", "stream": "s2", "event": "e"},
        {"op": "memcpy_async", "dst": "h", "src": "z", "stream": "s2"},
        {"op": "query_event", "event": "e"},
        {"op": "synchronize_device"}])",
                                      R"({"statuses": [{"op": 4, "status": "Success"}]})"));
    REQUIRE(s.host);
    CHECK(s.kernel.empty());
    CHECK(s.host->buffers.size() == 6);
    CHECK(s.host->streams == std::vector<std::string>{"s1", "s2"});
    REQUIRE(s.host->events.size() == 2);
    CHECK(s.host->events[1].name == "ipc");
    CHECK(s.host->events[1].flags == (EventFlags::DisableTiming | EventFlags::Interprocess));
    REQUIRE(s.host->ops.size() == 6);
    const ScenarioOp& launch = s.host->ops[0];
    CHECK(launch.kind == ScenarioOpKind::Launch);
    CHECK(launch.pointer == "/host/0");
    CHECK(launch.kernel == "vector_add");
    CHECK(launch.params.at("buffers") == 2);  // default filled in
    CHECK(launch.args.at("z") == "z");
    CHECK(s.host->ops[3].bytes == 4096 * 4);  // memcpy bytes default to the buffers' size
    CHECK(s.expect.present);
    REQUIRE(s.expect.statuses.size() == 1);
    CHECK(s.expect.statuses[0].op == "/host/4");
    const ScenarioBuffer* x = s.host->find_buffer("x");
    REQUIRE(x != nullptr);
    const std::vector<double> values = initial_values(*x);
    CHECK(values[0] == 0.0);
    CHECK(values[4095] == 4095.0);
}

TEST_CASE("random initial contents are deterministic per seed and inside the range",
          "[scenario][host]") {
    ScenarioBuffer b;
    b.type = BufferType::Int32;
    b.elements = 1000;
    b.init.kind = BufferInit::Kind::Random;
    b.init.low = -5;
    b.init.high = 5;
    b.init.seed = 42;
    const std::vector<double> first = initial_values(b);
    CHECK(first == initial_values(b));
    for (double v : first) {
        CHECK(v >= -5);
        CHECK(v < 5);
        CHECK(v == static_cast<double>(static_cast<int>(v)));
    }
    b.init.seed = 43;
    CHECK(first != initial_values(b));
}

TEST_CASE("broken host programs name each problem's pointer, all collected", "[scenario][host]") {
    const auto problems = problems_of(scenario(R"([
        {"op": "memcopy"},
        {"op": "launch", "kernel": "vector_add", "blocks": 2, "stream": "s3",
         "args": {"x": "x", "y": "h", "q": "x"}, "params": {"elements": 4096, "tile": 512}},
        {"op": "memset", "dst": "nothing", "value": 256},
        {"op": "record_event", "event": "f", "stream": "s1"},
        {"op": "memcpy", "dst": "h", "src": "pageable"},
        {"op": "launch_graph", "graph": "g"},
        {"op": "synchronize_stream"}])",
                                               R"({"statuses": [{"op": 99, "status": "NotReady"}],
          "buffers": {"nope": {"all": 1}}, "findings": [{"kind": "RAWW"}]})"));
    CHECK(has_problem(problems, "host.json:/host/0/op:", "did you mean 'memcpy'?"));
    CHECK(has_problem(problems, "host.json:/host/1/stream:", "undefined stream 's3'"));
    CHECK(has_problem(problems, "host.json:/host/1/args/q:", "unknown key 'q'"));
    CHECK(has_problem(problems, "host.json:/host/2/dst:", "undefined buffer 'nothing'"));
    CHECK(has_problem(problems, "host.json:/host/2/value:", "expected 0..255, got 256"));
    CHECK(has_problem(problems, "host.json:/host/3/event:", "undefined event 'f'"));
    CHECK(has_problem(problems, "host.json:/host/4/src:", "both buffers are host memory"));
    CHECK(has_problem(problems, "host.json:/host/5/graph:", "undefined graph 'g'"));
    CHECK(has_problem(problems, "host.json:/host/6/stream:", "missing"));
}

TEST_CASE("kernel arguments are checked against the kernel: kind, type and size",
          "[scenario][host]") {
    const auto launch = [](const std::string& args) {
        return "[" + std::string(R"({"op": "launch", "kernel": "vector_add", "blocks": 2,
            "args": )") +
               args + R"(, "params": {"elements": 8192, "tile": 512}}])";
    };
    auto problems = problems_of(scenario(launch(R"({"x": "x", "y": "y", "z": "h"})")));
    // Pinned host memory needs unified memory (pageable memory is never reachable).
    CHECK(has_problem(problems, "host.json:/host/0/args/z:",
                      "'h' is pinned host memory; kernels reach it only with"));
    CHECK(has_problem(problems, "host.json:/host/0/args/x:",
                      "holds 16384 bytes; the kernel's argument 'x' needs 32768"));
    problems = problems_of(scenario(launch(R"({"x": "out", "y": "y"})")));
    CHECK(has_problem(problems, "host.json:/host/0/args/x:", "takes float32"));
    CHECK(has_problem(problems, "host.json:/host/0/args/z:", "missing: the kernel's argument"));
    // An argument the parameters do not use may be left out: busy without a write.
    const Scenario s = parse(
        scenario(R"([{"op": "launch", "kernel": "busy", "blocks": 1, "params": {"write": 0}}])"));
    CHECK(s.host->ops[0].args.empty());
}

TEST_CASE("the two scenario forms do not mix", "[scenario][host]") {
    auto problems = problems_of(
        R"({"chip": "small", "kernel": "busy", "blocks": 1, "host": [], "streams": []})");
    CHECK(has_problem(problems, "host.json:/kernel:", "either a host program"));
    problems = problems_of(R"({"chip": "small", "kernel": "busy", "blocks": 1, "events": {}})");
    CHECK(has_problem(problems, "host.json:/events:", "belong to a host program"));
}

TEST_CASE("a host program runs: event ordering, copies back and buffer expectations hold",
          "[scenario][host][engine]") {
    const Scenario s = parse(scenario("[" + kVectorAdd + R"(,
        {"op": "record_event", "event": "e", "stream": "s1"},
        {"op": "stream_wait_event", "stream": "s2", "event": "e"},
        {"op": "memcpy_async", "dst": "h", "src": "z", "stream": "s2"},
        {"op": "synchronize_stream", "stream": "s2"}])",
                                      R"({"buffers": {"z": {"range": {"start": 2, "step": 1}},
                    "h": {"range": {"start": 2, "step": 1}}}, "findings": []})"));
    const ScenarioOutcome outcome = run_scenario(s);
    INFO(format_scenario_details(s, outcome));
    CHECK(outcome.passed());
    REQUIRE(outcome.host);
    CHECK(outcome.host->finished);
    CHECK_FALSE(outcome.host->stopped_at);
    CHECK(outcome.host->launch_streams == std::vector<std::string>{"s1"});
    // Prologue calls (6 buffers, 2 streams, 2 events) and the 5 operations.
    CHECK(outcome.host->calls.size() == 15);
    CHECK(outcome.host->calls.back().pointer == "/host/4");
    REQUIRE(outcome.host->buffers.at("h").read);
    CHECK(outcome.host->buffers.at("h").values[10] == 12.0);
}

TEST_CASE("statuses, warnings and failures are recorded per op and matched by expectations",
          "[scenario][host][engine]") {
    const std::string host = R"([
        {"op": "launch", "kernel": "busy", "blocks": 2, "stream": "s1", "args": {"out": "out"},
         "params": {"cycles": 20000, "value": 4}},
        {"op": "record_event", "event": "ipc", "stream": "s1"},
        {"op": "query_event", "event": "ipc"},
        {"op": "destroy_event", "event": "ipc"},
        {"op": "memset_async", "dst": "pageable", "value": 1},
        {"op": "synchronize_device"}])";
    SECTION("expected: exit status 0") {
        const Scenario s = parse(scenario(host, R"({
            "statuses": [{"op": 2, "status": "NotReady"}, {"op": "/host/4", "status": "InvalidValue"}],
            "warnings": [{"op": 3, "contains": "pending"}],
            "buffers": {"out": {"equals": [4, 4, 0, 0]}}})"));
        const ScenarioOutcome outcome = run_scenario(s);
        const std::string details = format_scenario_details(s, outcome);
        INFO(details);
        CHECK(outcome.passed());
        REQUIRE(outcome.host->stopped_at);
        CHECK(outcome.host->calls[*outcome.host->stopped_at].pointer == "/host/4");
        CHECK(outcome.host->calls[*outcome.host->stopped_at].status == Status::InvalidValue);
        CHECK_THAT(details, Contains("/host/2 query_event(ipc): NotReady (expected)"));
        CHECK_THAT(details, Contains("(the host program stopped here) (expected)"));
        CHECK_THAT(details, Contains("warning: destroy_event while the work"));
        CHECK_THAT(details, Contains("expectations: 5 of 5 hold"));
        const nlohmann::json j = scenario_details_to_json(s, outcome);
        CHECK(j.at("passed") == true);
        CHECK(j.at("host").at("calls").size() == 3);
    }
    SECTION("without expectations the failed call fails the run") {
        const ScenarioOutcome outcome = run_scenario(parse(scenario(host)));
        CHECK_FALSE(outcome.passed());
    }
    SECTION("wrong expectations fail, each named") {
        const Scenario s = parse(scenario(host, R"({
            "statuses": [{"op": 2, "status": "Success"}],
            "buffers": {"out": {"all": 4}}, "cycles": {"max": 100},
            "kernels": [{"kernel": 0, "end": {"max": 10}}]})"));
        const ScenarioOutcome outcome = run_scenario(s);
        CHECK_FALSE(outcome.passed());
        for (const char* pointer :
             {"/expect/statuses/0", "/expect/buffers/out", "/expect/cycles", "/expect/kernels/0"}) {
            const ExpectationResult* r = result_at(outcome, pointer);
            REQUIRE(r != nullptr);
            CHECK_FALSE(r->held);
        }
        CHECK_THAT(result_at(outcome, "/expect/statuses/0")->detail, Contains("NotReady"));
        // The unexpected failure of /host/4 and the unlisted destroy_event warning is fine
        // (warnings not listed), the failure is not.
        CHECK_THAT(format_scenario_details(s, outcome),
                   Contains("FAILED  the host program runs to its end"));
    }
}

TEST_CASE("capture operations run: a graph launched twice, misuse as an expected status",
          "[scenario][host]") {
    const Scenario s = parse(scenario(R"([
        {"op": "begin_capture", "stream": "s1"},
        {"op": "end_capture", "stream": "s1", "graph": "g"},
        {"op": "launch_graph", "graph": "g", "stream": "s2"}])"));
    REQUIRE(s.host->ops.size() == 3);
    CHECK(s.host->ops[1].graph == "g");
    CHECK(run_scenario(s).passed());  // an empty graph is a graph
    for (const char* file :
         {"runtime_capture_graph.json", "runtime_capture_query_invalidates.json"}) {
        const ScenarioOutcome outcome = run_scenario(
            load_scenario(std::filesystem::path(NPUSIM_SOURCE_DIR) / "configs/scenarios" / file));
        INFO(file);
        CHECK(outcome.passed());
    }
}

TEST_CASE("expected findings make a racy single-kernel scenario pass", "[scenario][host][engine]") {
    const std::string racy = R"({"chip": "small", "kernel": "syncall_reduction", "blocks": 4,
        "params": {"elements": 32, "sync": 0})";
    const ScenarioOutcome plain = run_scenario(parse(racy + "}"));
    CHECK_FALSE(plain.passed());
    const Scenario s = parse(racy + R"(, "expect": {"output": "any", "findings": [
        {"kind": "RAW", "space": "GM", "scope": "inter-core"},
        {"kind": "WAR", "space": "GM", "scope": "inter-core"},
        {"kind": "WAR", "space": "UB", "scope": "inter-pipe", "kernel": "syncall_reduction_nosync"},
        {"kind": "uninitialized read", "space": "GM"}]}})");
    const ScenarioOutcome expected = run_scenario(s);
    INFO(format_scenario_details(s, expected));
    CHECK(expected.passed());
    // One finding fewer listed: the left-over error findings fail the run.
    const Scenario fewer = parse(racy + R"(, "expect": {"output": "any", "findings": [
        {"kind": "RAW", "space": "GM", "scope": "inter-core"}]}})");
    CHECK_FALSE(run_scenario(fewer).passed());
    // "race" matches any of RAW, WAR, WAW.
    const Scenario any_race = parse(racy + R"(, "expect": {"output": "any", "findings": [
        {"kind": "race", "scope": "inter-core"}, {"kind": "race", "scope": "inter-core"},
        {"kind": "race", "space": "UB"}, {"kind": "uninitialized read"}]}})");
    CHECK(run_scenario(any_race).passed());
    // The wrong output expected as wrong holds.
    const Scenario wrong = parse(racy + R"(, "expect": {"output": "wrong", "findings": [
        {"kind": "RAW"}, {"kind": "WAR"}, {"kind": "WAR"}, {"kind": "uninitialized read"}]}})");
    CHECK(run_scenario(wrong).passed());
}

TEST_CASE("every built-in kernel has a host-program form whose arguments fit its needs",
          "[scenario][host]") {
    for (const KernelDefinition& k : builtin_kernels()) {
        INFO(k.name);
        CHECK(k.make_instance);
        CHECK_FALSE(k.arguments.empty());
        KernelParams params;
        for (const KernelParameter& p : k.parameters) params[p.name] = p.default_value;
        KernelBindings bindings;
        for (const KernelArgument& a : k.arguments) {
            REQUIRE(a.bytes);
            bindings[a.name] = {4096, a.bytes(1, params)};
        }
        const KernelInstance instance = k.make_instance(1, params, bindings);
        CHECK_FALSE(instance.name.empty());
        CHECK(instance.body);
    }
}

TEST_CASE("the new built-in kernels busy and syncall run and verify in the single-kernel form",
          "[scenario][host][engine]") {
    for (
        const char* text :
        {R"({"chip": "small", "kernel": "busy", "blocks": 3, "params": {"cycles": 5000}})",
         R"({"chip": "small", "kernel": "syncall", "blocks": 4, "params": {"count": 3}})",
         R"({"chip": "small", "kernel": "syncall", "blocks": 4, "params": {"count": 2, "soft": 1}})"}) {
        INFO(text);
        const ScenarioOutcome outcome = run_scenario(parse(text));
        INFO(outcome.kernel.verification);
        CHECK(outcome.kernel.run.completed());
        CHECK(outcome.kernel.verified);
        CHECK(outcome.findings.empty());
        CHECK(outcome.passed());
    }
    const ScenarioOutcome busy = run_scenario(
        parse(R"({"chip": "small", "kernel": "busy", "blocks": 1, "params": {"cycles": 5000}})"));
    CHECK(busy.kernel.run.cycles() >= 5000);
    const ScenarioOutcome stuck =
        run_scenario(parse(R"({"chip": "small", "kernel": "syncall", "blocks": 5,
                               "expect": {"outcome": "deadlock"}})"));
    CHECK(stuck.kernel.run.outcome == RunOutcome::Deadlock);
    CHECK(stuck.passed());
}

TEST_CASE("a host scenario's report is byte-identical across runs", "[scenario][host][engine]") {
    const Scenario s = load_scenario(kScenarioDir / "runtime_two_streams_event.json");
    const auto report = [&] {
        const ScenarioOutcome outcome = run_scenario(s);
        return format_scenario_details(s, outcome) + scenario_details_to_json(s, outcome).dump();
    };
    CHECK(report() == report());
}
