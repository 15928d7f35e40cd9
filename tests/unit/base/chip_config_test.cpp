// Chip configuration: the shipped presets, strict validation and the wording of its errors.
#include "base/chip_config.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "base/config_diagnostics.h"
#include "base/errors.h"
#include "base/json_reader.h"

using namespace npusim;
using nlohmann::json;

namespace {

const std::string kSourceDir = NPUSIM_SOURCE_DIR;

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

/// The small preset as a document that a test breaks in one place.
json small_document() {
    return json::parse(read_text(kSourceDir + "/configs/chips/small.json"));
}

/// Every problem reported for `text`; fails the test if it parses.
std::vector<std::string> problems_of_text(const std::string& text) {
    try {
        parse_chip_config(text, "test.json");
    } catch (const ConfigError& error) {
        return error.problems();
    }
    FAIL("expected a ConfigError for: " << text);
    return {};
}

std::vector<std::string> problems_of(const json& document) {
    return problems_of_text(document.dump(2));
}

/// Single problem expected: returns it.
std::string problem_of(const json& document) {
    const std::vector<std::string> problems = problems_of(document);
    INFO("problems: " << Catch::Detail::stringify(problems));
    REQUIRE(problems.size() == 1);
    return problems.front();
}

json with(json document, const std::string& pointer, json value) {
    document[json::json_pointer(pointer)] = std::move(value);
    return document;
}

json without(json document, const std::string& parent, const std::string& key) {
    document[json::json_pointer(parent)].erase(key);
    return document;
}

}  // namespace

TEST_CASE("the a2 preset loads with its values and notes", "[config]") {
    const ChipConfig chip = load_chip_config(kSourceDir + "/configs/chips/a2.json");
    CHECK(chip.name == "a2");
    CHECK(chip.source == kSourceDir + "/configs/chips/a2.json");
    CHECK(chip.clock_mhz == 1850);
    CHECK(chip.vector_cores == 48);
    CHECK(chip.cube_cores == 24);
    CHECK(chip.cores_of(CoreType::Vector) == 48);
    CHECK(chip.cores_of(CoreType::Cube) == 24);
    CHECK(chip.gm_bytes == 68719476736ULL);
    CHECK(chip.ub_bytes == 196608);
    CHECK(chip.l1_bytes == 524288);
    CHECK(chip.l0a_bytes == 65536);
    CHECK(chip.l0b_bytes == 65536);
    CHECK(chip.l0c_bytes == 131072);
    CHECK(chip.gm_bytes_per_cycle == 806);
    CHECK(chip.gm_window_cycles == 64);
    CHECK(chip.queue_depth == 16);
    CHECK(chip.event_ids == 8);
    CHECK(chip.scalar_cycles_per_call == 2);
    CHECK(chip.scalar_ub_latency == 4);
    CHECK(chip.scalar_gm_latency == 200);
    CHECK(chip.copy_group("mte2").latency == 200);
    CHECK(chip.copy_group("mte2").bytes_per_cycle == 32);
    CHECK(chip.copy_group("mte3").latency == 200);
    CHECK(chip.copy_group("mte3").bytes_per_cycle == 32);
    CHECK(chip.copy_group("v").latency == 8);
    CHECK(chip.copy_group("v").bytes_per_cycle == 128);
    CHECK(chip.copy_group("mte1").latency == 16);
    CHECK(chip.copy_group("mte1").bytes_per_cycle == 128);
    CHECK(chip.copy_group("fix").latency == 40);
    CHECK(chip.copy_group("fix").bytes_per_cycle == 64);
    CHECK(chip.vector_startup_cycles == 8);
    CHECK(chip.vector_repeat_bytes == 256);
    CHECK(chip.cube_startup_cycles == 16);

    // Every a2 value carries a note on where it comes from.
    CHECK(chip.notes.size() == chip_parameters().size());
    for (const ChipParameter& parameter : chip_parameters()) {
        INFO(parameter.pointer);
        CHECK(chip.notes.count(std::string(parameter.pointer)) == 1);
    }
    CHECK_THAT(chip.notes.at("/memory/ub_bytes"), Catch::Contains("vendor headers"));
    CHECK_THAT(chip.notes.at("/cores/vector"), Catch::Contains("vendor platform config"));
    CHECK_THAT(chip.notes.at("/pipes/queue_depth"), Catch::Contains("assumption"));

    CHECK(chip.capacity_of(MemSpace::GM) == chip.gm_bytes);
    CHECK(chip.capacity_of(MemSpace::UB) == 196608);
    CHECK(chip.capacity_of(MemSpace::L1) == 524288);
    CHECK(chip.capacity_of(MemSpace::L0A) == 65536);
    CHECK(chip.capacity_of(MemSpace::L0B) == 65536);
    CHECK(chip.capacity_of(MemSpace::L0C) == 131072);
}

TEST_CASE("the small preset loads with its values", "[config]") {
    const ChipConfig chip = load_chip_config(kSourceDir + "/configs/chips/small.json");
    CHECK(chip.name == "small");
    CHECK(chip.clock_mhz == 1000);
    CHECK(chip.vector_cores == 4);
    CHECK(chip.cube_cores == 2);
    CHECK(chip.gm_bytes == 1073741824);
    CHECK(chip.ub_bytes == 196608);
    CHECK(chip.l1_bytes == 524288);
    CHECK(chip.l0c_bytes == 131072);
    CHECK(chip.gm_bytes_per_cycle == 64);
    CHECK(chip.gm_window_cycles == 32);
    CHECK(chip.queue_depth == 16);
    CHECK(chip.event_ids == 8);
    CHECK(chip.scalar_cycles_per_call == 1);
    CHECK(chip.scalar_ub_latency == 4);
    CHECK(chip.scalar_gm_latency == 100);
    CHECK(chip.copy_group("mte2").latency == 100);
    CHECK(chip.copy_group("mte2").bytes_per_cycle == 32);
    CHECK(chip.copy_group("mte3").latency == 100);
    CHECK(chip.copy_group("fix").bytes_per_cycle == 64);
    CHECK(chip.vector_repeat_bytes == 256);
    CHECK(chip.cube_startup_cycles == 16);
    CHECK(chip.notes.empty());  // plain numbers carry no notes
}

TEST_CASE("builtin presets match the shipped files", "[config]") {
    const std::vector<std::string> presets = builtin_chip_presets();
    CHECK(std::find(presets.begin(), presets.end(), "a2") != presets.end());
    CHECK(std::find(presets.begin(), presets.end(), "small") != presets.end());

    for (const std::string& preset : presets) {
        INFO(preset);
        const ChipConfig builtin = builtin_chip_config(preset);
        const ChipConfig file = load_chip_config(kSourceDir + "/configs/chips/" + preset + ".json");
        CHECK(builtin.source == "configs/chips/" + preset + ".json");
        CHECK(builtin.name == file.name);
        CHECK(builtin.notes == file.notes);
        for (const ChipParameter& parameter : chip_parameters()) {
            INFO(parameter.pointer);
            CHECK(parameter.field.of(builtin) == parameter.field.of(file));
        }
    }
}

TEST_CASE("an unknown preset lists the known ones and the nearest", "[config]") {
    try {
        builtin_chip_config("a3");
        FAIL("expected a ConfigError");
    } catch (const ConfigError& error) {
        REQUIRE(error.problems().size() == 1);
        const std::string& problem = error.problems().front();
        CHECK_THAT(problem, Catch::Contains("unknown chip preset 'a3'"));
        CHECK_THAT(problem, Catch::Contains("(did you mean 'a2'?)"));
        CHECK_THAT(problem, Catch::Contains("known presets: a2, small"));
    }
    CHECK_THROWS_WITH(builtin_chip_config(""), Catch::Contains("unknown chip preset ''"));
}

TEST_CASE("parameter table is complete and consistent", "[config]") {
    const std::vector<ChipParameter>& parameters = chip_parameters();
    // One per numeric member of ChipConfig: 39 plain ones and four per copy group.
    CHECK(parameters.size() == 39 + 4 * kCopyGroupCount);
    std::set<std::string_view> pointers;
    for (const ChipParameter& parameter : parameters) {
        INFO(parameter.pointer);
        CHECK(pointers.insert(parameter.pointer).second);
        CHECK(parameter.pointer.starts_with("/"));
        CHECK(parameter.min <= parameter.max);
        CHECK_FALSE(parameter.unit.empty());
        CHECK_FALSE(parameter.description.empty());
        const auto same_field = [&](const ChipParameter& other) {
            return other.field == parameter.field;
        };
        CHECK(std::count_if(parameters.begin(), parameters.end(), same_field) == 1);
    }

    // The reference documentation lists every parameter exactly as the table describes it.
    const std::string doc = read_text(kSourceDir + "/docs/chip-config.md");
    for (const ChipParameter& parameter : parameters) {
        INFO(parameter.pointer);
        const std::string row =
            "| `" + std::string(parameter.pointer) + "` | " + std::string(parameter.unit) + " | " +
            std::to_string(parameter.min) + ".." + std::to_string(parameter.max) + " | " +
            std::string(parameter.description) + " |";
        CHECK_THAT(doc, Catch::Contains(row));
    }
}

TEST_CASE("unknown keys are reported with pointer and suggestion", "[config]") {
    json document = small_document();
    document["memory"]["ub_byte"] = document["memory"]["ub_bytes"];
    CHECK(problem_of(document) ==
          "test.json:/memory/ub_byte: unknown key 'ub_byte' (did you mean 'ub_bytes'?)");

    CHECK(problem_of(with(small_document(), "/copy/mte2/bytes_per_cycles", 32)) ==
          "test.json:/copy/mte2/bytes_per_cycles: unknown key 'bytes_per_cycles' "
          "(did you mean 'bytes_per_cycle'?)");

    const std::string far = problem_of(with(small_document(), "/frobnicate", 1));
    CHECK_THAT(far,
               Catch::StartsWith("test.json:/frobnicate: unknown key 'frobnicate' (allowed: "));
    CHECK_THAT(far, Catch::Contains("'clock_mhz', 'cores'"));

    // Keys that need escaping in a JSON pointer.
    CHECK_THAT(problem_of(with(small_document(), "/memory/a~1b~0c", 1)),
               Catch::StartsWith("test.json:/memory/a~1b~0c: unknown key 'a/b~c'"));

    // A renamed key is unknown and leaves its parameter missing.
    document = small_document();
    document["cores"]["vectors"] = 4;
    document["cores"].erase("vector");
    const std::vector<std::string> problems = problems_of(document);
    REQUIRE(problems.size() == 2);
    CHECK(problems[0] ==
          "test.json:/cores/vectors: unknown key 'vectors' (did you mean 'vector'?)");
    CHECK_THAT(problems[1],
               Catch::StartsWith("test.json:/cores/vector: missing required parameter"));
}

TEST_CASE("$comment is allowed anywhere but must be a string", "[config]") {
    json document = small_document();
    document["$comment"] = "top";
    document["copy"]["mte2"]["$comment"] = "nested";
    document["memory"]["ub_bytes"] = {{"value", 196608}, {"note", "n"}, {"$comment", "inner"}};
    CHECK_NOTHROW(parse_chip_config(document.dump(), "test.json"));

    CHECK(problem_of(with(small_document(), "/gm/$comment", 3)) ==
          "test.json:/gm/$comment: expected a string, got 3");
    CHECK(problem_of(with(small_document(), "/gm/comment", "x")) ==
          "test.json:/gm/comment: unknown key 'comment' (did you mean '$comment'?)");
}

TEST_CASE("wrong types are reported with what was found", "[config]") {
    CHECK(problem_of(with(small_document(), "/clock_mhz", "1000")) ==
          "test.json:/clock_mhz: expected an unsigned integer, got string \"1000\"");
    CHECK(problem_of(with(small_document(), "/clock_mhz", true)) ==
          "test.json:/clock_mhz: expected an unsigned integer, got boolean true");
    CHECK(problem_of(with(small_document(), "/clock_mhz", nullptr)) ==
          "test.json:/clock_mhz: expected an unsigned integer, got null");
    CHECK(problem_of(with(small_document(), "/clock_mhz", json::array({1000}))) ==
          "test.json:/clock_mhz: expected an unsigned integer, got array");
    CHECK(problem_of(with(small_document(), "/gm/bytes_per_cycle", 1.5)) ==
          "test.json:/gm/bytes_per_cycle: expected an unsigned integer, got 1.5");
    CHECK(problem_of(with(small_document(), "/copy", 5)) ==
          "test.json:/copy: expected an object, got 5");
    CHECK(problem_of(with(small_document(), "/name", 7)) ==
          "test.json:/name: expected a string, got 7");
    CHECK(problem_of(with(small_document(), "/description", false)) ==
          "test.json:/description: expected a string, got boolean false");

    // A float without a fraction is still an integer.
    const ChipConfig chip =
        parse_chip_config(with(small_document(), "/clock_mhz", 1500.0).dump(), "test.json");
    CHECK(chip.clock_mhz == 1500);
}

TEST_CASE("zero, negative and absurd values are out of range", "[config]") {
    CHECK(problem_of(with(small_document(), "/memory/ub_bytes", 0)) ==
          "test.json:/memory/ub_bytes: expected 1024..16777216 bytes, got 0");
    CHECK(problem_of(with(small_document(), "/clock_mhz", -5)) ==
          "test.json:/clock_mhz: expected an unsigned integer, got -5");
    CHECK(problem_of(with(small_document(), "/clock_mhz", 1000000)) ==
          "test.json:/clock_mhz: expected 1..100000 MHz, got 1000000");
    CHECK(problem_of(with(small_document(), "/gm/bytes_per_cycle", 0)) ==
          "test.json:/gm/bytes_per_cycle: expected 1..1048576 bytes/cycle, got 0");
    CHECK(problem_of(with(small_document(), "/pipes/event_ids", 65)) ==
          "test.json:/pipes/event_ids: expected 1..64 ids, got 65");
    CHECK(problem_of(with(small_document(), "/scalar/cycles_per_call", 0)) ==
          "test.json:/scalar/cycles_per_call: expected 1..1000000 cycles, got 0");
    CHECK(problem_of(with(small_document(), "/memory/gm_bytes", 4096)) ==
          "test.json:/memory/gm_bytes: expected 1048576..1125899906842624 bytes, got 4096");

    // Beyond 64 bits: one clear message with the number as written, nothing rounded.
    CHECK(problems_of_text(R"({"clock_mhz": 18446744073709551616})").front() ==
          "test.json:/clock_mhz: number 18446744073709551616 is larger than "
          "18446744073709551615, the largest integer supported");

    // Alignment.
    CHECK(problem_of(with(small_document(), "/memory/ub_bytes", 2000)) ==
          "test.json:/memory/ub_bytes: expected a multiple of 32 bytes, got 2000");
    CHECK(problem_of(with(small_document(), "/memory/l0a_bytes", 65536 + 32)) ==
          "test.json:/memory/l0a_bytes: expected a multiple of 512 bytes, got 65568");
    CHECK(problem_of(with(small_document(), "/memory/gm_bytes", 1073741824 + 512)) ==
          "test.json:/memory/gm_bytes: expected a multiple of 4096 bytes, got 1073742336");
    CHECK(problem_of(with(small_document(), "/vector/repeat_bytes", 100)) ==
          "test.json:/vector/repeat_bytes: expected a multiple of 32 bytes, got 100");
}

TEST_CASE("cross-field rules", "[config]") {
    json document = small_document();
    document["cores"] = {{"vector", 0}, {"cube", 0}};
    CHECK(problem_of(document) ==
          "test.json:/cores: expected at least one core, got vector 0 and cube 0");

    // One side may be absent: vector-only and cube-only parts.
    document["cores"] = {{"vector", 0}, {"cube", 1}};
    CHECK_NOTHROW(parse_chip_config(document.dump(), "test.json"));

    CHECK(problem_of(with(small_document(), "/copy/mte2/bytes_per_cycle", 128)) ==
          "test.json:/copy/mte2/bytes_per_cycle: 128 bytes/cycle exceeds /gm/bytes_per_cycle "
          "(64): one core cannot copy faster than the whole chip's GM");
    CHECK_THAT(problem_of(with(small_document(), "/copy/fix/bytes_per_cycle", 65)),
               Catch::StartsWith("test.json:/copy/fix/bytes_per_cycle: 65 bytes/cycle exceeds"));
    // UB -> UB copies do not touch GM.
    CHECK_NOTHROW(parse_chip_config(with(small_document(), "/copy/v/bytes_per_cycle", 4096).dump(),
                                    "test.json"));

    document = with(small_document(), "/memory/ub_bytes", 1024);
    document["vector"]["repeat_bytes"] = 2048;
    CHECK(problem_of(document) ==
          "test.json:/vector/repeat_bytes: 2048 bytes exceeds /memory/ub_bytes (1024)");

    // A value already out of range is not reported a second time by a cross-field rule.
    CHECK_THAT(problem_of(with(small_document(), "/copy/mte3/bytes_per_cycle", 0)),
               Catch::Contains("expected 1..1048576"));
}

TEST_CASE("missing parameters are named by pointer", "[config]") {
    CHECK(
        problem_of(without(small_document(), "/copy/fix", "latency")) ==
        "test.json:/copy/fix/latency: missing required parameter: fixed cost of an L0C -> GM / L1 "
        "copy (fixpipe) (0..1000000 cycles)");
    CHECK(problem_of(without(small_document(), "", "clock_mhz")) ==
          "test.json:/clock_mhz: missing required parameter: core clock; converts cycles to "
          "time (1..100000 MHz)");
    CHECK(problem_of(without(small_document(), "", "cube")) ==
          "test.json:/cube: missing required object with keys 'startup_cycles'");
    CHECK(problem_of(without(small_document(), "", "name")) ==
          "test.json:/name: missing required string: the chip's name");
    CHECK(problem_of(with(small_document(), "/name", "")) ==
          "test.json:/name: expected a non-empty string");
    CHECK_NOTHROW(parse_chip_config(without(small_document(), "", "description").dump(), "x"));

    // An empty object reports each top-level part once, not every leaf below it.
    const std::vector<std::string> problems = problems_of_text("{}");
    CHECK(problems.size() == 13);  // clock_mhz, name and the 11 parameter objects
    CHECK(std::count_if(problems.begin(), problems.end(), [](const std::string& p) {
              return p.starts_with(
                  "test.json:/copy: missing required object with keys 'mte2', "
                  "'mte3', 'v', 'mte1', 'fix'");
          }) == 1);
}

TEST_CASE("the {value, note} form", "[config]") {
    json document = small_document();
    document["cores"]["vector"] = {{"value", 4}, {"note", "four is enough for tests"}};
    const ChipConfig chip = parse_chip_config(document.dump(), "test.json");
    CHECK(chip.vector_cores == 4);
    REQUIRE(chip.notes.size() == 1);
    CHECK(chip.notes.at("/cores/vector") == "four is enough for tests");

    CHECK(problem_of(with(small_document(), "/cores/vector", {{"value", 4}, {"nota", "x"}})) ==
          "test.json:/cores/vector/nota: unknown key 'nota' (did you mean 'note'?)");
    CHECK(problem_of(with(small_document(), "/cores/vector", {{"note", "x"}})) ==
          "test.json:/cores/vector: missing key 'value' (write N or {\"value\": N, \"note\": "
          "\"...\"})");
    CHECK(problem_of(with(small_document(), "/cores/vector", {{"value", "4"}, {"note", "x"}})) ==
          "test.json:/cores/vector/value: expected an unsigned integer, got string \"4\"");
    CHECK(problem_of(with(small_document(), "/cores/vector", {{"value", 4}, {"note", 4}})) ==
          "test.json:/cores/vector/note: expected a string, got 4");
    // The range is checked on the value and reported at the parameter.
    CHECK(problem_of(with(small_document(), "/cores/vector", {{"value", 5000}, {"note", "x"}})) ==
          "test.json:/cores/vector: expected 0..1024 cores, got 5000");
}

TEST_CASE("ranges are what a real chip could plausibly hold", "[config]") {
    // The tester's chips: thousands of cores, 64 MiB buffers, deep queues.
    CHECK(problem_of(with(small_document(), "/cores/vector", 4096)) ==
          "test.json:/cores/vector: expected 0..1024 cores, got 4096");
    CHECK(problem_of(with(small_document(), "/cores/cube", 1025)) ==
          "test.json:/cores/cube: expected 0..1024 cores, got 1025");
    CHECK(problem_of(with(small_document(), "/memory/ub_bytes", 64 * 1024 * 1024)) ==
          "test.json:/memory/ub_bytes: expected 1024..16777216 bytes, got 67108864");
    CHECK(problem_of(with(small_document(), "/memory/l1_bytes", 32 * 1024 * 1024)) ==
          "test.json:/memory/l1_bytes: expected 1024..16777216 bytes, got 33554432");
    CHECK(problem_of(with(small_document(), "/memory/l0c_bytes", 8 * 1024 * 1024)) ==
          "test.json:/memory/l0c_bytes: expected 1024..4194304 bytes, got 8388608");
    CHECK(problem_of(with(small_document(), "/pipes/queue_depth", 4096)) ==
          "test.json:/pipes/queue_depth: expected 1..256 instructions, got 4096");

    // The largest chip each bound allows on its own still validates...
    json document = small_document();
    document["cores"] = {{"vector", 256}, {"cube", 0}};
    document["memory"]["ub_bytes"] = 16 * 1024 * 1024;
    document["pipes"]["queue_depth"] = 256;
    CHECK_NOTHROW(parse_chip_config(document.dump(), "test.json"));
    // ... but all cores' local memories together must fit the host (4 GiB).
    document["cores"] = {{"vector", 1024}, {"cube", 1024}};
    const std::string problem = problem_of(document);
    CHECK_THAT(problem, Catch::StartsWith("test.json:/memory: the local memories of all cores "
                                          "add up to 1"));
    CHECK_THAT(problem, Catch::EndsWith("more than the 4294967296 bytes (4 GiB) npusim supports"));
}

TEST_CASE("invalid JSON syntax names line and column", "[config]") {
    const std::string text = "{\n  \"name\": \"x\",\n  \"clock_mhz\": 1000\n  \"cores\": {}\n}\n";
    const std::vector<std::string> problems = problems_of_text(text);
    REQUIRE(problems.size() == 1);
    CHECK_THAT(problems[0], Catch::StartsWith("test.json: invalid JSON: parse error at line 4, "
                                              "column 9"));
    CHECK_THAT(problems[0], !Catch::Contains("[json.exception"));

    CHECK_THAT(problems_of_text("").front(), Catch::StartsWith("test.json: invalid JSON: "));
    CHECK_THAT(problems_of_text("{} trailing").front(),
               Catch::StartsWith("test.json: invalid JSON: "));
    CHECK_THAT(problems_of_text("{\"name\": \"x\" // comment\n}").front(),
               Catch::StartsWith("test.json: invalid JSON: "));
    CHECK(problems_of_text("[1, 2]") ==
          std::vector<std::string>{"test.json: expected an object, got array"});
    CHECK(problems_of_text("42") ==
          std::vector<std::string>{"test.json: expected an object, got 42"});
}

TEST_CASE("duplicate keys are reported where they are", "[config]") {
    std::string text = small_document().dump();
    text.insert(1, "\"clock_mhz\": 5, ");
    CHECK(problems_of_text(text) ==
          std::vector<std::string>{"test.json:/clock_mhz: duplicate key 'clock_mhz'"});

    text = R"({"a": [{"k": 1}, {"k": 1, "k": 2}]})";
    Diagnostics diag("d.json");
    CHECK(parse_json(text, diag).has_value());
    CHECK(diag.problems() == std::vector<std::string>{"d.json:/a/1/k: duplicate key 'k'"});
}

TEST_CASE("all problems are collected before throwing", "[config]") {
    json document = small_document();
    document["clock_mhz"] = 0;                           // range
    document["memory"]["ub_byte"] = 196608;              // unknown key
    document["memory"].erase("ub_bytes");                // missing
    document["gm"]["bytes_per_cycle"] = "64";            // type
    document["pipes"]["queue_depth"] = {{"valeu", 16}};  // unknown inner key + no value
    document["copy"]["mte1"]["latency"] = -1;            // negative
    document["vector"]["repeat_bytes"] = 100;            // alignment
    document["cores"] = {{"vector", 0}, {"cube", 0}};    // cross-field
    document.erase("cube");                              // missing object

    const std::vector<std::string> problems = problems_of(document);
    INFO(Catch::Detail::stringify(problems));
    CHECK(problems.size() == 10);
    for (const std::string& problem : problems)
        CHECK_THAT(problem, Catch::StartsWith("test.json:"));

    try {
        parse_chip_config(document.dump(), "test.json");
    } catch (const ConfigError& error) {
        CHECK_THAT(error.what(), Catch::EndsWith("(and 9 more)"));
    }
}

TEST_CASE("unreadable files name the file", "[config]") {
    const std::string missing = kSourceDir + "/configs/chips/no_such_chip.json";
    CHECK_THROWS_MATCHES(load_chip_config(missing), ConfigError,
                         Catch::Message(missing + ": cannot read file (no such file)"));
    const std::string directory = kSourceDir + "/configs/chips";
    CHECK_THROWS_MATCHES(load_chip_config(directory), ConfigError,
                         Catch::Message(directory + ": cannot read file (it is a directory)"));
}

TEST_CASE("diagnostics helpers", "[config]") {
    SECTION("pointers escape ~ and /") {
        CHECK(child_pointer("", "a") == "/a");
        CHECK(child_pointer("/a", "b/c~d") == "/a/b~1c~0d");
        CHECK(child_pointer("/a", std::size_t{3}) == "/a/3");
    }
    SECTION("nearest names are typos, not guesses") {
        const std::vector<std::string_view> names{"ub_bytes", "l1_bytes", "vector", "cube"};
        CHECK(nearest_name("ub_byte", names) == "ub_bytes");
        CHECK(nearest_name("UB_BYTES", names) == "ub_bytes");
        CHECK(nearest_name("vectr", names) == "vector");
        CHECK(nearest_name("cub", names) == "cube");
        CHECK_FALSE(nearest_name("queue", names).has_value());
        CHECK_FALSE(nearest_name("x", std::vector<std::string_view>{"v"}).has_value());
        CHECK_FALSE(nearest_name("anything", {}).has_value());
    }
    SECTION("quoting keeps messages on one line") {
        CHECK(single_quoted("a'b") == "'a\\'b'");
        CHECK(single_quoted("line\nbreak") == "'line\\nbreak'");
        CHECK(single_quoted(std::string(100, 'x')) == "'" + std::string(60, 'x') + "...'");
        CHECK(describe_json(json("12")) == "string \"12\"");
        CHECK(describe_json(json(-3)) == "-3");
        CHECK(describe_json(json::object()) == "object");
    }
    SECTION("the root pointer is written without a second colon") {
        Diagnostics diag("f.json");
        CHECK(diag.empty());
        CHECK_NOTHROW(diag.throw_if_any());
        diag.add("", "whole file");
        diag.add("/x", "one key");
        CHECK(diag.problems() ==
              std::vector<std::string>{"f.json: whole file", "f.json:/x: one key"});
        CHECK_THROWS_AS(diag.throw_if_any(), ConfigError);
    }
    SECTION("read_unsigned reports and continues") {
        Diagnostics diag("f.json");
        CHECK(read_unsigned(json(7), "/p", diag)->value == 7);
        CHECK_FALSE(read_unsigned(json(-1), "/p", diag).has_value());
        const auto noted = read_unsigned(json{{"value", 3}, {"note", "why"}}, "/q", diag);
        REQUIRE(noted.has_value());
        CHECK(noted->note == "why");
        CHECK(diag.size() == 1);
    }
}
