// Scenario buffer files (.npy and .bin, sim/scenario/scenario_buffers.h), --set overrides
// (sim/scenario/scenario_overrides.h) and the format version: pure functions, no simulation.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "base/config_diagnostics.h"
#include "base/errors.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/scenario_buffers.h"
#include "sim/scenario/scenario_overrides.h"
#include "temp_dir.h"

using namespace npusim;

namespace {

void write_file(const std::filesystem::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

/// A host program with one float32 buffer "x" of `shape` initialised from `file`.
std::string file_scenario(const std::string& shape, const std::string& file,
                          const std::string& dtype = "float32") {
    return R"({"chip": "small", "buffers": {"x": {"dtype": ")" + dtype + R"(", "shape": )" + shape +
           R"(, "init": {"file": ")" + file + R"("}}}, "host": [{"op": "synchronize_device"}]})";
}

}  // namespace

TEST_CASE("npy: the writer's files parse back with their dtype, shape and data offset",
          "[scenario_files]") {
    const std::vector<double> values{1.5, -2, 3, 65504};
    for (BufferType type : {BufferType::Float32, BufferType::Float16, BufferType::Int32}) {
        const std::string file = npy_file(type, {2, 2}, values);
        std::string problem;
        const auto header = parse_npy_header(file, problem);
        INFO(to_string(type) << ": " << problem);
        REQUIRE(header);
        CHECK(header->descr == npy_descr(type));
        CHECK_FALSE(header->fortran_order);
        CHECK(header->shape == std::vector<std::uint64_t>{2, 2});
        CHECK(header->data_offset % 64 == 0);  // numpy aligns the data to 64 bytes
        CHECK(file.size() == header->data_offset + 4 * size_of(type));
        const auto back = decode_elements(type, std::string_view(file).substr(header->data_offset));
        if (type == BufferType::Int32) {
            CHECK(back == std::vector<double>{1, -2, 3, 65504});  // whole numbers (truncated)
        } else {
            CHECK(back == values);
        }
    }
    std::string problem;
    const auto one_dim =
        parse_npy_header(npy_file(BufferType::Uint8, {5}, {0, 1, 2, 254, 255}), problem);
    REQUIRE(one_dim);
    CHECK(one_dim->descr == "|u1");
    CHECK(one_dim->shape == std::vector<std::uint64_t>{5});
    CHECK(decode_elements(BufferType::Uint8, encode_elements(BufferType::Uint8, {0, 200, 255})) ==
          std::vector<double>{0, 200, 255});
    CHECK(decode_elements(BufferType::Int8, encode_elements(BufferType::Int8, {-128, -1, 127})) ==
          std::vector<double>{-128, -1, 127});
}

TEST_CASE("npy: headers numpy writes in other versions and spellings parse, broken ones do not",
          "[scenario_files]") {
    // Version 2.0: a 4-byte header length; a 0-d shape; Python 2's "3L".
    std::string v2 = std::string("\x93NUMPY\x02\x00", 8);
    const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (3L,), }\n";
    v2 += std::string(1, static_cast<char>(dict.size())) + std::string(3, '\0') + dict;
    std::string problem;
    auto header = parse_npy_header(v2, problem);
    REQUIRE(header);
    CHECK(header->shape == std::vector<std::uint64_t>{3});
    CHECK(header->data_offset == 12 + dict.size());

    const auto v1 = [](const std::string& d) {
        return std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(d.size()) + '\0' + d;
    };
    header =
        parse_npy_header(v1("{'shape': (), 'fortran_order': True, 'descr': '>f4'}\n"), problem);
    REQUIRE(header);
    CHECK(header->shape.empty());
    CHECK(header->fortran_order);
    CHECK(header->descr == ">f4");

    for (const std::string& bad :
         {std::string("not numpy at all"), v1("{'descr': '<f4', 'shape': (2,)}\n"),
          v1("{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }\n"),
          v1("{'descr': '<f4', 'fortran_order': maybe, 'shape': (2,), }\n"),
          v1("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }\n"),
          v1("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}\n"),
          std::string("\x93NUMPY\x07\x00\x10\x00", 10), v1("{'descr'").substr(0, 14)}) {
        INFO(bad);
        problem.clear();
        CHECK_FALSE(parse_npy_header(bad, problem));
        CHECK_FALSE(problem.empty());
    }
}

TEST_CASE("buffer files: a matching .npy and .bin load, mismatches name the pointer and file",
          "[scenario_files]") {
    test::TempDir dir;
    write_file(dir.path() / "ok.npy", npy_file(BufferType::Float32, {2, 2}, {1, 2, 3, 4}));
    write_file(dir.path() / "ok.bin", encode_elements(BufferType::Float32, {1, 2, 3, 4}));
    write_file(dir.path() / "i32.npy", npy_file(BufferType::Int32, {2, 2}, {1, 2, 3, 4}));
    write_file(dir.path() / "flat.npy", npy_file(BufferType::Float32, {4}, {1, 2, 3, 4}));

    for (const char* file : {"ok.npy", "ok.bin"}) {
        const Scenario s = parse_scenario(file_scenario("[2, 2]", file), "f.json", dir.path());
        REQUIRE(s.host);
        CHECK(initial_values(s.host->buffers.at(0)) == std::vector<double>{1, 2, 3, 4});
    }
    const auto problem = [&](const std::string& text) {
        try {
            (void)parse_scenario(text, "f.json", dir.path());
        } catch (const ConfigError& error) {
            return error.problems().at(0);
        }
        return std::string("no problem");
    };
    CHECK_THAT(problem(file_scenario("[2, 2]", "i32.npy")),
               Catch::StartsWith("f.json:/buffers/x/init/file: ") &&
                   Catch::Contains("i32.npy: holds dtype '<i4'; buffer 'x' (float32, 4 "
                                   "elements, 16 bytes) needs '<f4'"));
    CHECK_THAT(problem(file_scenario("[2, 2]", "flat.npy")),
               Catch::Contains("flat.npy: has shape [4]; buffer 'x'") &&
                   Catch::Contains("has shape [2, 2]"));
    CHECK_THAT(problem(file_scenario("[8]", "ok.bin")),
               Catch::Contains("ok.bin: holds 16 bytes; buffer 'x' (float32, 8 elements, 32 "
                               "bytes) takes 32"));
    CHECK_THAT(problem(file_scenario("[4]", "missing.npy")),
               Catch::Contains("f.json:/buffers/x/init/file: ") &&
                   Catch::Contains("missing.npy: cannot read file (no such file)"));
    CHECK_THAT(problem(file_scenario("[4]", "ok.txt")),
               Catch::Contains("f.json:/buffers/x/init/file: expected a .bin (raw little-endian "
                               "elements) or .npy file, got 'ok.txt'"));
    // A buffer given by bytes takes any .npy shape with its element count.
    const Scenario by_bytes = parse_scenario(
        R"({"chip": "small", "buffers": {"x": {"bytes": 16, "init": {"file": "ok.npy"}}},
            "host": []})",
        "f.json", dir.path());
    CHECK(initial_values(by_bytes.host->buffers.at(0)) == std::vector<double>{1, 2, 3, 4});
}

TEST_CASE("buffer files: write_buffer_file writes .npy and .bin the reader takes back",
          "[scenario_files]") {
    test::TempDir dir;
    ScenarioBuffer b;
    b.name = "odd/name";
    b.type = BufferType::Float16;
    b.shape = {3};
    b.elements = 3;
    b.bytes = 6;
    const auto npy = write_buffer_file(dir.path(), b, {0.5, -1, 2}, BufferFileFormat::Npy);
    CHECK(npy.filename() == "odd%2Fname.npy");
    const auto bin = write_buffer_file(dir.path(), b, {0.5, -1, 2}, BufferFileFormat::Raw);
    CHECK(std::filesystem::file_size(bin) == 6);
    CHECK_THROWS_AS(
        write_buffer_file(dir.path() / "no" / "such", b, {1, 2, 3}, BufferFileFormat::Raw),
        UsageError);
}

TEST_CASE("set overrides: values are set by JSON pointer before validation, bad paths are named",
          "[scenario_files]") {
    const ScenarioOverride blocks = parse_scenario_override("/blocks=8");
    CHECK(blocks.pointer == "/blocks");
    CHECK(blocks.value == 8);
    CHECK(parse_scenario_override("/kernel=vector_add").value == "vector_add");
    CHECK(parse_scenario_override("/x=[1,2]").value == nlohmann::json::array({1, 2}));
    CHECK(parse_scenario_override("/a~1b=\"8\"").value == "8");
    CHECK_THROWS_WITH(parse_scenario_override("blocks=8"),
                      Catch::Contains("'blocks' is not a JSON pointer"));
    CHECK_THROWS_WITH(parse_scenario_override("/blocks"), Catch::Contains("expected PATH=VALUE"));
    CHECK_THROWS_WITH(parse_scenario_override("=8"), Catch::Contains("empty pointer"));

    nlohmann::json doc = {{"a", {{"b", 1}}}, {"list", {1, 2}}};
    CHECK(set_json_pointer(doc, "/a/c", 2));
    CHECK(set_json_pointer(doc, "/list/1", 5));
    CHECK(doc["list"][1] == 5);
    CHECK_FALSE(set_json_pointer(doc, "/list/2", 5));   // past the end
    CHECK_FALSE(set_json_pointer(doc, "/list/01", 5));  // not an index
    CHECK_FALSE(set_json_pointer(doc, "/list/-", 5));
    CHECK_FALSE(set_json_pointer(doc, "/nope/x", 5));
    CHECK_FALSE(set_json_pointer(doc, "/a/b/c", 5));  // the parent is a number
    CHECK_FALSE(set_json_pointer(doc, "", 5));

    const std::string single = R"({"chip": "small", "kernel": "busy", "blocks": 2})";
    const Scenario s =
        parse_scenario(single, "s.json", ".", {parse_scenario_override("/blocks=7")});
    CHECK(s.blocks == 7);
    CHECK_THROWS_WITH(parse_scenario(single, "s.json", ".", {parse_scenario_override("/blocks=0")}),
                      Catch::Contains("s.json:/blocks: expected 1..65535"));
    CHECK_THROWS_WITH(
        parse_scenario(single, "s.json", ".", {parse_scenario_override("/host/9/blocks=4")}),
        Catch::Contains("s.json:/host/9/blocks: --set /host/9/blocks=4: cannot set a value "
                        "here: the scenario has no object or array element at '/host/9'"));
}

TEST_CASE("buffers: dimensions whose product passes 64 bits are too large, not zero",
          "[scenario_files]") {
    const std::string text =
        R"({"chip": "small", "buffers": {"x": {"shape": [1099511627776, 1099511627776]}},
            "host": []})";
    CHECK_THROWS_WITH(parse_scenario(text, "s.json", "."),
                      Catch::Contains("s.json:/buffers/x/shape: the buffer would take more than "
                                      "1099511627776 bytes"));
}
