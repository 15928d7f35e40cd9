// The sweep's pure parts (axes, points, shards, the output format, merge) and its worker
// pool with a fake task runner (no simulation): order, crashes, timeouts, resume.
#include "sim/study/sweep.h"

#include <cstdlib>
#include <fstream>

#include <catch2/catch.hpp>

#include "base/errors.h"
#include "sim/study/study_fingerprint.h"
#include "sim/study/sweep_output.h"
#include "sim/study/sweep_plan.h"
#include "temp_dir.h"

using namespace npusim;

namespace {

SweepPlan two_axis_plan(std::uint32_t schedules = 1) {
    nlohmann::json doc = {{"blocks", 8}, {"params", {{"tile", 256}}}, {"host", {{{"op", "x"}}}}};
    return plan_sweep(doc, "study.json", ".",
                      {parse_sweep_axis("/blocks=8:24:8"), parse_sweep_axis("/params/tile=a,b")},
                      schedules);
}

// Runs in the worker: a deterministic function of the point.
nlohmann::json fake_result(const SweepPlan& plan, std::size_t point, std::uint32_t schedule,
                           std::uint64_t seed) {
    const nlohmann::json doc = plan.document_of(point);
    return {{"outcome", "completed"},
            {"makespan_cycles", doc["blocks"].get<int>() * 100 + static_cast<int>(schedule)},
            {"deadlock", seed % 2 == 0}};
}

std::vector<nlohmann::json> column(const std::vector<SweepRow>& rows, const char* name) {
    std::vector<nlohmann::json> values;
    for (const SweepRow& row : rows) values.push_back(row.result[name]);
    return values;
}

}  // namespace

TEST_CASE("sweep axes: lists, inclusive integer ranges and their errors", "[sweep]") {
    const SweepAxis range = parse_sweep_axis("/host/0/blocks=8:48:8");
    CHECK(range.pointer == "/host/0/blocks");
    REQUIRE(range.values.size() == 6);
    CHECK(range.values.back() == 48);
    const SweepAxis list = parse_sweep_axis("/runtime/placement=launch_order,random,3,true");
    CHECK(list.values[0] == "launch_order");
    CHECK(list.values[2] == 3);
    CHECK(list.values[3] == true);
    CHECK_THROWS_WITH(parse_sweep_axis("/a~2=1,2"), Catch::Contains("not a JSON pointer"));
    CHECK_THROWS_WITH(parse_sweep_axis("/blocks"), Catch::Contains("PATH=v1,v2"));
    CHECK_THROWS_WITH(parse_sweep_axis("/blocks=8:4:1"), Catch::Contains("stop is below start"));
    CHECK_THROWS_WITH(parse_sweep_axis("/blocks=1:8:0"), Catch::Contains("step must be positive"));
    CHECK_THROWS_WITH(parse_sweep_axis("/blocks=1,,2"), Catch::Contains("empty value"));
}

TEST_CASE("sweep plan: cartesian product, first axis slowest, values set by pointer", "[sweep]") {
    const SweepPlan plan = two_axis_plan(2);
    CHECK(plan.points() == 6);
    CHECK(plan.tasks() == 12);
    CHECK(plan.values_of(3) == std::vector<nlohmann::json>{16, "b"});
    const nlohmann::json doc = plan.document_of(3);
    CHECK(doc["blocks"] == 16);
    CHECK(doc["params"]["tile"] == "b");
    CHECK(plan.point_of(7) == 3);
    CHECK(plan.schedule_of(7) == 1);
}

TEST_CASE("sweep plan: the scenario's sweep section, overridden by --set, bad pointers",
          "[sweep]") {
    nlohmann::json doc = {
        {"blocks", 8},
        {"sweep",
         {{"axes", {{{"set", "/blocks"}, {"values", {1, 2}}}}}, {"schedules", 3}, {"seed", 7}}}};
    SweepPlan plan = plan_sweep(doc, "s.json", ".", {});
    CHECK(plan.points() == 2);
    CHECK(plan.schedules == 3);
    CHECK(plan.seed == 7);
    CHECK_FALSE(plan.document.contains("sweep"));
    plan = plan_sweep(doc, "s.json", ".", {parse_sweep_axis("/blocks=4,5,6")}, 1);
    CHECK(plan.points() == 3);
    CHECK(plan.schedules == 1);
    CHECK_THROWS_WITH(plan_sweep(doc, "s.json", ".", {parse_sweep_axis("/nope/deeper=1")}),
                      Catch::Contains("s.json:/nope/deeper"));
    nlohmann::json bad = {{"sweep", {{"axes", {{{"set", 3}}}}, {"bogus", 1}}}};
    try {
        (void)plan_sweep(bad, "b.json", ".", {});
        FAIL("a bad sweep section was accepted");
    } catch (const ConfigError& e) {
        REQUIRE(e.problems().size() == 2);
        CHECK_THAT(e.problems()[0], Catch::Contains("b.json:/sweep/bogus"));
        CHECK_THAT(e.problems()[1], Catch::Contains("b.json:/sweep/axes/0"));
    }
}

TEST_CASE("sweep shards: K/N slices cover every task exactly once", "[sweep]") {
    CHECK_THROWS_AS(parse_shard("0/3"), UsageError);
    CHECK_THROWS_AS(parse_shard("4/3"), UsageError);
    CHECK_THROWS_AS(parse_shard("x"), UsageError);
    std::vector<int> owners(100, 0);
    for (std::uint32_t k = 1; k <= 3; ++k) {
        const Shard shard = parse_shard(std::to_string(k) + "/3");
        for (std::size_t t = 0; t < owners.size(); ++t) owners[t] += shard.contains(t) ? 1 : 0;
    }
    CHECK(std::all_of(owners.begin(), owners.end(), [](int n) { return n == 1; }));
}

TEST_CASE("sweep output: CSV and JSON read back to the same bytes, quoting survives", "[sweep]") {
    bool ok = false;
    const std::vector<std::string> cells = {"a", "b,c", "say \"hi\"", ""};
    CHECK(parse_csv_line(csv_line(cells), ok) == cells);
    CHECK(ok);
    test::TempDir dir;
    SweepRow row;
    row.task = 1;
    row.point = 1;
    row.values = {16, "round_robin"};
    row.status = "error";
    row.error = "s.json:/host/0: bad, \"very\" bad";
    row.result = {{"outcome", "invalid"}, {"makespan_cycles", 0}, {"deadlock", false}};
    for (const char* name : {"out.csv", "out.json"}) {
        const auto file = dir.file(name);
        const nlohmann::json study = {{"tasks", 2}, {"shard", "1/1"}};
        write_sweep_output(file, "s.json", {"/blocks", "/runtime/placement"}, study, {row});
        std::ifstream first(file);
        const std::string before((std::istreambuf_iterator<char>(first)), {});
        const SweepOutput back = read_sweep_output(file);
        REQUIRE(back.rows.size() == 1);
        CHECK(back.source == "s.json");
        CHECK(back.study == study);
        CHECK(back.rows[0].values == row.values);
        CHECK(back.rows[0].error == row.error);
        write_sweep_output(file, back.source, back.axis_pointers, back.study, back.rows);
        std::ifstream second(file);
        const std::string after((std::istreambuf_iterator<char>(second)), {});
        CHECK(after == before);
    }
    std::ofstream(dir.file("junk.csv")) << "hello,world\n";
    CHECK_THROWS_AS(read_sweep_output(dir.file("junk.csv")), ConfigError);
}

TEST_CASE("sweep runs: the same rows for -j 1 and -j 2, shards merge to the whole", "[sweep]") {
    const SweepPlan plan = two_axis_plan(2);
    const SweepResult one = run_sweep(plan, {.jobs = 1}, fake_result);
    const SweepResult two = run_sweep(plan, {.jobs = 2}, fake_result);
    REQUIRE(one.rows.size() == plan.tasks());
    CHECK(column(one.rows, "makespan_cycles") == column(two.rows, "makespan_cycles"));
    CHECK(one.rows[5].task == 5);
    CHECK(one.rows[5].seed == plan.seed + 1);
    std::vector<SweepOutput> shards;
    for (const char* s : {"2/3", "1/3", "3/3"}) {
        SweepOptions options;
        options.jobs = 2;
        options.shard = parse_shard(s);
        shards.push_back({plan.source, axis_pointers(plan), study_fingerprint(plan, options.shard),
                          run_sweep(plan, options, fake_result).rows});
    }
    const std::vector<std::string> names = {"a.csv", "b.csv", "c.csv"};
    const SweepOutput merged = merge_sweep_outputs(shards, names);
    REQUIRE(merged.rows.size() == plan.tasks());
    CHECK(column(merged.rows, "makespan_cycles") == column(one.rows, "makespan_cycles"));
    CHECK(merged.study["shard"] == "1/1");
    std::vector<std::size_t> tasks;
    for (const SweepRow& row : merged.rows) tasks.push_back(row.task);
    CHECK(describe_missing_tasks(merged.study, tasks, {"2/3", "1/3", "3/3"}).empty());

    // Two shards only: the merge says which shard is missing and which tasks.
    const SweepOutput partial = merge_sweep_outputs({shards[0], shards[1]}, names);
    tasks.clear();
    for (const SweepRow& row : partial.rows) tasks.push_back(row.task);
    const std::string missing = describe_missing_tasks(partial.study, tasks, {"2/3", "1/3"});
    CHECK_THAT(missing, Catch::StartsWith(std::to_string(plan.tasks() / 3) + " of " +
                                          std::to_string(plan.tasks()) + " tasks missing (2, 5"));
    CHECK_THAT(missing, Catch::EndsWith("shard 3/3 (no input holds it)"));

    // Another study's shard: refused, naming the input and the difference.
    SweepPlan other = plan;
    other.seed = 7;
    shards[1].study = study_fingerprint(other, parse_shard("1/3"));
    try {
        merge_sweep_outputs(shards, names);
        FAIL("merged shards of two studies");
    } catch (const UsageError& e) {
        CHECK_THAT(e.what(), Catch::Contains("merge: b.csv is from a different study than a.csv"));
        CHECK_THAT(e.what(),
                   Catch::Contains("seed " + std::to_string(plan.seed) + " in a.csv, 7 in b.csv"));
    }
}

TEST_CASE("study fingerprints: the scenario's content, axes, schedules and seed identify a study",
          "[sweep]") {
    const SweepPlan plan = two_axis_plan(2);
    const nlohmann::json base = study_fingerprint(plan, parse_shard("1/2"));
    CHECK(study_difference(base, study_fingerprint(plan, parse_shard("2/2")), "x", "y").empty());
    SweepPlan edited = plan;
    edited.document["description"] = "edited";
    CHECK_THAT(study_difference(base, study_fingerprint(edited, {}), "x", "y"),
               Catch::StartsWith("the scenario's content: \"fnv1a64:"));
    edited = plan;
    edited.axes[0].values.back() = 99;
    CHECK_THAT(study_difference(base, study_fingerprint(edited, {}), "x", "y"),
               Catch::Contains("99] in y"));
    edited = plan;
    edited.schedules = 3;
    CHECK_THAT(study_difference(base, study_fingerprint(edited, {}), "x", "y"),
               Catch::Contains("schedules 2 in x, 3 in y"));
    CHECK_THAT(study_difference(base, nullptr, "x", "y"), Catch::Contains("y names no study"));
}

TEST_CASE("sweep runs: a crashing or hanging worker costs its row, resume skips done tasks",
          "[sweep]") {
    const SweepPlan plan = two_axis_plan();
    ::setenv("NPUSIM_SWEEP_TEST_CRASH_TASK", "2", 1);
    SweepOptions options;
    options.jobs = 2;
    options.timeout_seconds = 1.0;
    const SweepResult r =
        run_sweep(plan, options,
                  [](const SweepPlan& p, std::size_t point, std::uint32_t s, std::uint64_t seed) {
                      if (point == 4) ::pause();  // hangs until killed
                      if (point == 5) throw UsageError("point 5 is invalid");
                      return fake_result(p, point, s, seed);
                  });
    ::unsetenv("NPUSIM_SWEEP_TEST_CRASH_TASK");
    REQUIRE(r.rows.size() == 6);
    CHECK(r.rows[0].status == "ok");
    CHECK(r.rows[2].status == "crashed");
    CHECK_THAT(r.rows[2].error, Catch::Contains("signal"));
    CHECK(r.rows[4].status == "timeout");
    CHECK(r.rows[5].status == "error");
    CHECK(r.rows[5].error == "point 5 is invalid");

    std::vector<SweepRow> previous(r.rows.begin(), r.rows.begin() + 3);
    std::size_t ran = 0;
    SweepOptions resume;
    resume.progress = [&ran](const SweepProgress& p) { ran = p.total; };
    const SweepResult rest = run_sweep(plan, resume, fake_result, previous);
    CHECK(rest.skipped == 3);
    CHECK(ran == 3);
    REQUIRE(rest.rows.size() == 6);
    CHECK(rest.rows[2].status == "crashed");  // kept from the earlier run
    CHECK(rest.rows[4].status == "ok");
}

TEST_CASE("sweep plan: a named axis sets several places at once", "[sweep]") {
    nlohmann::json doc = {
        {"host",
         {{{"stream", "s1"}, {"blocks", 1}, {"mode", "normal"}},
          {{"stream", "s1"}, {"blocks", 1}, {"mode", "normal"}}}},
        {"sweep",
         {{"axes",
           {{{"name", "streams"}, {"values", {1, 2}}, {"set", {{"/host/1/stream", {"s1", "s2"}}}}},
            {{"name", "blocks"},
             {"values", {8, 16}},
             {"set", {"/host/0/blocks", "/host/1/blocks"}}}}}}}};
    const SweepPlan plan = plan_sweep(doc, "w.json", ".", {});
    REQUIRE(plan.points() == 4);
    CHECK(axis_pointers(plan) == std::vector<std::string>{"streams", "blocks"});
    const nlohmann::json last = plan.document_of(3);
    CHECK(last["host"][1]["stream"] == "s2");
    CHECK(last["host"][0]["blocks"] == 16);
    CHECK(last["host"][1]["blocks"] == 16);
    CHECK(plan.document_of(0)["host"][1]["stream"] == "s1");
    // --set NAME=values picks a subset of a named axis, with its linked values.
    const SweepPlan subset = plan_sweep(doc, "w.json", ".", {parse_sweep_axis("streams=2")});
    REQUIRE(subset.points() == 2);
    CHECK(subset.document_of(0)["host"][1]["stream"] == "s2");
    CHECK_THROWS_WITH(plan_sweep(doc, "w.json", ".", {parse_sweep_axis("streams=3")}),
                      Catch::Contains("not one of the values"));
    CHECK_THROWS_WITH(plan_sweep(doc, "w.json", ".", {parse_sweep_axis("nope=3")}),
                      Catch::Contains("no named sweep axis 'nope'"));
    nlohmann::json bad = doc;
    bad["sweep"]["axes"][0]["set"]["/host/1/stream"] = {"s1"};
    CHECK_THROWS_WITH(plan_sweep(bad, "w.json", ".", {}),
                      Catch::Contains("w.json:/sweep/axes/0/set/~1host~11~1stream") &&
                          Catch::Contains("one per axis value"));
}
