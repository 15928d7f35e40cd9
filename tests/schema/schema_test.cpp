// The JSON Schema of scenario files (configs/schema/scenario.schema.json) against an
// independent validator (valijson, Debian's libvalijson-dev, draft-07), the shipped scenarios,
// the broken-input corpus, the C++ reader and docs/scenarios.md.
//
// Which broken files the schema must reject: those whose problem is in one value or one
// object's keys (unknown keys and enum values, wrong types, values out of a fixed range,
// missing required keys, a second form's keys, the format version). Cross-field and capacity
// problems (an undefined buffer, stream, event or graph name, a kernel's own parameter
// rules, a buffer or kernel the chip cannot hold, a value that does not fit the buffer's
// element type, a buffer file's size or shape) only the C++ reader finds: the schema accepts
// those files (checked below for the language_semantic class).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "base/errors.h"
#include "sim/scenario/scenario.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kSource = NPUSIM_SOURCE_DIR;
const fs::path kCorpus = kSource / "tests/broken_inputs";

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

json schema_document() {
    return json::parse(read_text(kSource / "configs/schema/scenario.schema.json"));
}

/// The schema parsed once by valijson.
class SchemaValidator {
public:
    SchemaValidator() : m_document(schema_document()) {
        valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
        valijson::adapters::NlohmannJsonAdapter adapter(m_document);
        parser.populateSchema(adapter, m_schema);
    }

    /// Empty when `document` is valid, else the validator's first errors.
    std::string problems(const json& document) const {
        valijson::Validator validator;
        valijson::ValidationResults results;
        valijson::adapters::NlohmannJsonAdapter target(document);
        if (validator.validate(m_schema, target, &results)) return "";
        std::string text;
        valijson::ValidationResults::Error error;
        for (int i = 0; i < 4 && results.popError(error); ++i) {
            std::string where;
            for (const std::string& part : error.context) where += part;
            text += where + ": " + error.description + "\n";
        }
        return text.empty() ? "invalid" : text;
    }

private:
    json m_document;
    valijson::Schema m_schema;
};

const SchemaValidator& validator() {
    static const SchemaValidator instance;
    return instance;
}

std::vector<fs::path> json_files(const fs::path& dir) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.is_regular_file() && entry.path().extension() == ".json")
            files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

/// Whether the C++ reader rejects the file (as `npusim validate` would).
bool cpp_rejects(const fs::path& file) {
    try {
        (void)npusim::load_scenario(file);
        return false;
    } catch (const npusim::ConfigError&) {
        return true;
    } catch (const npusim::UsageError&) {
        return true;
    }
}

/// Backticked names in column `column` of each row of the markdown table after `heading`.
std::vector<std::set<std::string>> column_names(const std::string& doc, const std::string& heading,
                                                std::size_t column) {
    const std::size_t start = doc.find("\n" + heading + "\n");
    REQUIRE(start != std::string::npos);
    std::vector<std::set<std::string>> rows;
    std::istringstream lines(doc.substr(start + heading.size() + 2));
    std::string line;
    std::size_t row = 0;  // the header row and the |---| row are skipped
    while (std::getline(lines, line)) {
        if (line.rfind("## ", 0) == 0) break;
        if (line.rfind("|", 0) != 0) {
            if (row > 0) break;
            continue;
        }
        if (++row <= 2) continue;
        std::vector<std::string> cells;
        std::size_t at = 1;
        for (std::size_t bar; (bar = line.find('|', at)) != std::string::npos; at = bar + 1)
            cells.push_back(line.substr(at, bar - at));
        std::set<std::string> names;
        if (column < cells.size()) {
            static const std::regex name("`([^`]+)`");
            for (auto it = std::sregex_iterator(cells[column].begin(), cells[column].end(), name);
                 it != std::sregex_iterator(); ++it) {
                names.insert((*it)[1]);
            }
        }
        rows.push_back(names);
    }
    return rows;
}

std::set<std::string> first_column_names(const std::string& doc, const std::string& heading) {
    std::set<std::string> all;
    for (const std::set<std::string>& row : column_names(doc, heading, 0))
        all.insert(row.begin(), row.end());
    return all;
}

std::set<std::string> schema_top_level_keys() {
    std::set<std::string> keys;
    const json schema = schema_document();
    for (const auto& [key, value] : schema["properties"].items()) {
        if (key != "$comment") keys.insert(key);
    }
    return keys;
}

std::set<std::string> schema_host_ops() {
    const json schema = schema_document();
    const json ops = schema["definitions"]["host_op"]["properties"]["op"]["enum"];
    return {ops.begin(), ops.end()};
}

/// The keys each host operation takes in the schema (without "op" and "$comment").
std::map<std::string, std::set<std::string>> schema_op_keys() {
    const json schema = schema_document();
    std::map<std::string, std::set<std::string>> keys;
    for (const json& rule : schema["definitions"]["host_op"]["allOf"]) {
        const std::string op = rule["if"]["properties"]["op"]["const"];
        keys[op];  // an operation may take no key besides "op"
        for (const auto& [key, value] : rule["then"]["properties"].items()) {
            if (key != "op" && key != "$comment") keys[op].insert(key);
        }
    }
    return keys;
}

std::set<std::string> cpp_host_ops() {
    std::set<std::string> ops;
    for (unsigned i = 0;; ++i) {
        const std::string name = npusim::to_string(static_cast<npusim::ScenarioOpKind>(i));
        if (name == "?") break;
        ops.insert(name);
    }
    return ops;
}

}  // namespace

TEST_CASE("schema: every shipped scenario validates against configs/schema/scenario.schema.json",
          "[schema]") {
    const std::vector<fs::path> files = json_files(kSource / "configs/scenarios");
    REQUIRE(files.size() >= 20);
    for (const fs::path& file : files) {
        INFO(file.string());
        CHECK(validator().problems(json::parse(read_text(file))) == "");
    }
}

TEST_CASE("schema: rejects every schema-detectable broken scenario, and so does the C++ reader",
          "[schema]") {
    // language_schema: every file (one value or one object's keys at fault).
    std::vector<fs::path> files = json_files(kCorpus / "language_schema");
    REQUIRE(files.size() >= 15);
    // host_programs: the files whose problem is local; the others are cross-field (undefined
    // names, kernel arguments and parameter rules, GM capacity, values against dtypes).
    for (const char* name :
         {"unknown_op", "missing_op", "memset_value", "memory_kind", "shape_and_bytes",
          "kernel_and_host", "event_flag", "status_name", "random_normal", "placement",
          "batch_typo", "many_problems", "buffers_without_host", "single_warnings"}) {
        files.push_back(kCorpus / "host_programs" / (std::string(name) + ".json"));
    }
    for (const fs::path& file : files) {
        INFO(file.string());
        const json document = json::parse(read_text(file));
        CHECK(validator().problems(document) != "");
        CHECK(cpp_rejects(file));
    }
}

TEST_CASE("schema: accepts the cross-field and capacity problems only the C++ reader rejects",
          "[schema]") {
    const std::vector<fs::path> files = json_files(kCorpus / "language_semantic");
    REQUIRE(files.size() >= 10);
    for (const fs::path& file : files) {
        INFO(file.string());
        const json document = json::parse(read_text(file));
        CHECK(validator().problems(document) == "");
        CHECK(cpp_rejects(file));
    }
}

TEST_CASE("schema: the top-level keys and host operations match docs/scenarios.md and the reader",
          "[schema]") {
    const std::string doc = read_text(kSource / "docs/scenarios.md");
    const std::set<std::string> schema_keys = schema_top_level_keys();
    CHECK(first_column_names(doc, "## Top-level keys") == schema_keys);
    CHECK(first_column_names(doc, "## `host`: the operations") == schema_host_ops());
    CHECK(schema_host_ops() == cpp_host_ops());
    // Each operation's keys: the doc's "keys" column against the schema.
    const auto ops = column_names(doc, "## `host`: the operations", 0);
    const auto keys = column_names(doc, "## `host`: the operations", 1);
    REQUIRE(ops.size() == keys.size());
    std::map<std::string, std::set<std::string>> doc_keys;
    for (std::size_t i = 0; i < ops.size(); ++i) {
        for (const std::string& op : ops[i]) doc_keys[op] = keys[i];
    }
    const auto schema_keys_of = schema_op_keys();
    CHECK(doc_keys.size() == schema_keys_of.size());
    for (const auto& [op, op_keys] : schema_keys_of) {
        INFO("host op " << op);
        std::string doc_list, schema_list;
        for (const std::string& k : doc_keys[op]) doc_list += k + " ";
        for (const std::string& k : op_keys) schema_list += k + " ";
        CHECK(doc_list == schema_list);
    }
    // Every key the schema allows at the top level, the C++ reader knows too ("kernels" is
    // the kernels section's, read by its own component).
    for (const std::string& key : schema_keys) {
        if (key == "kernels") continue;
        json document = {{"chip", "small"}, {"kernel", "busy"}, {"blocks", 1}};
        document[key] = nullptr;
        INFO(key);
        try {
            (void)npusim::parse_scenario(document.dump(), "keys.json", kSource);
        } catch (const npusim::ConfigError& error) {
            for (const std::string& problem : error.problems())
                CHECK(problem.find("unknown key '" + key + "'") == std::string::npos);
        }
    }
}

TEST_CASE("schema: the format version is 1, and the reader refuses another", "[schema]") {
    const json schema = schema_document();
    CHECK(schema["properties"]["npusim_scenario"]["const"] == npusim::kScenarioFormatVersion);
    const std::string two = R"({"npusim_scenario": 2, "chip": "small", "kernel": "busy",
                                "blocks": 1})";
    CHECK_THROWS_WITH(npusim::parse_scenario(two, "v.json", kSource),
                      Catch::Contains("v.json:/npusim_scenario: unsupported scenario format "
                                      "version 2; this npusim reads 1"));
    CHECK(validator().problems(json::parse(two)) != "");
}
