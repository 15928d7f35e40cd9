// Strict JSON parsing under hostile input: nesting depth, floods of problems, files that are
// too large or never end, numbers a double cannot hold, and text that must not reach a
// terminal raw.
#include "base/config_diagnostics.h"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "base/chip_config.h"
#include "base/config_file.h"
#include "base/errors.h"
#include "base/json_reader.h"
#include "base/printable_text.h"

using namespace npusim;
using nlohmann::json;

namespace {

/// The problems a ConfigError from `diag` lists (summary line included).
std::vector<std::string> thrown_problems(const Diagnostics& diag) {
    try {
        diag.throw_if_any();
    } catch (const ConfigError& error) {
        return error.problems();
    }
    return {};
}

/// Problems of parsing `text` as a document of file "f.json".
std::vector<std::string> parse_problems(const std::string& text,
                                        std::optional<json>* document = nullptr) {
    Diagnostics diag("f.json");
    std::optional<json> parsed = parse_json(text, diag);
    if (document != nullptr) *document = std::move(parsed);
    return thrown_problems(diag);
}

/// The one message of a ConfigError thrown by read_config_file(`path`).
std::string read_failure(const std::filesystem::path& path) {
    try {
        read_config_file(path);
    } catch (const ConfigError& error) {
        REQUIRE(error.problems().size() == 1);
        return error.problems().front();
    }
    FAIL("expected a ConfigError for " << path);
    return {};
}

/// A fresh directory under the temporary folder, removed at scope exit.
class TempDir final {
public:
    TempDir() {
        std::string pattern =
            (std::filesystem::temp_directory_path() / "npusim-diag-XXXXXX").string();
        REQUIRE(::mkdtemp(pattern.data()) != nullptr);
        m_path = pattern;
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    ~TempDir() {
        std::error_code ignored;
        std::filesystem::remove_all(m_path, ignored);
    }
    const std::filesystem::path& path() const { return m_path; }

private:
    std::filesystem::path m_path;
};

}  // namespace

TEST_CASE("nesting deeper than the limit is one clear error with its position", "[diag]") {
    SECTION("exactly the limit parses") {
        const std::string text = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
        std::optional<json> document;
        CHECK(parse_problems(text, &document).empty());
        CHECK(document.has_value());
    }
    SECTION("one level more does not, and says where") {
        const std::string text =
            "{\"a\":\n" + std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']') + "}";
        CHECK(parse_problems(text) ==
              std::vector<std::string>{"f.json: invalid JSON: nesting deeper than 256 levels at "
                                       "line 2, column 256 (byte 261)"});
    }
    SECTION("brackets inside strings do not count") {
        const std::string text = "[\"" + std::string(1000, '[') + "\\\"{\"]";
        CHECK(parse_problems(text).empty());
    }
    SECTION("100,000 levels: one message, no memory blow-up") {
        const std::string text = std::string(100'000, '[');
        CHECK(parse_problems(text) ==
              std::vector<std::string>{"f.json: invalid JSON: nesting deeper than 256 levels at "
                                       "line 1, column 257 (byte 256)"});
        const std::string objects = [] {
            std::string nested;
            for (int i = 0; i < 100'000; ++i) nested += "{\"k\":";
            return nested;
        }();
        CHECK_THAT(parse_problems(objects).front(),
                   Catch::StartsWith("f.json: invalid JSON: nesting deeper than 256 levels"));
    }
}

TEST_CASE("duplicate keys are found at any depth, also inside arrays", "[diag]") {
    std::optional<json> document;
    CHECK(parse_problems(R"({"a": [1, {"b": {"c": 1, "c": 2}}], "a": 3})", &document) ==
          std::vector<std::string>{"f.json:/a/1/b/c: duplicate key 'c'",
                                   "f.json:/a: duplicate key 'a'"});
    // The last value wins, as in every JSON parser; the problem makes it an error anyway.
    REQUIRE(document.has_value());
    CHECK((*document)["a"] == 3);
}

TEST_CASE("13 million problems: the first few as text, the rest counted", "[diag]") {
    Diagnostics diag("big.json");
    const std::uint64_t total = 13'100'000;
    for (std::uint64_t i = 0; i < total; ++i)
        diag.add("/skew/offsets/" + std::to_string(i), "expected an unsigned integer, got -1");
    CHECK(diag.size() == total);
    CHECK(diag.problems().size() == Diagnostics::kMaxReported);
    const std::vector<std::string> thrown = thrown_problems(diag);
    REQUIRE(thrown.size() == Diagnostics::kMaxReported + 1);
    CHECK(thrown.back() == "big.json: ... and 13,099,980 more problems");
}

TEST_CASE("problems past the cap are counted, not kept", "[diag]") {
    Diagnostics diag("big.json");
    const std::uint64_t total = 1000;
    for (std::uint64_t i = 0; i < total; ++i)
        diag.add("/skew/offsets/" + std::to_string(i), "expected an unsigned integer, got -1");
    CHECK(diag.size() == total);
    CHECK(diag.problems().size() == Diagnostics::kMaxReported);
    const std::vector<std::string> thrown = thrown_problems(diag);
    REQUIRE(thrown.size() == Diagnostics::kMaxReported + 1);
    CHECK(thrown.front() == "big.json:/skew/offsets/0: expected an unsigned integer, got -1");
    CHECK(thrown.back() == "big.json: ... and 980 more problems");

    SECTION("one over the cap is a singular problem") {
        Diagnostics few("f.json");
        for (std::size_t i = 0; i <= Diagnostics::kMaxReported; ++i) few.add("/x", "bad");
        CHECK(thrown_problems(few).back() == "f.json: ... and 1 more problem");
    }
    SECTION("a forwarded summary adds its count instead of a line") {
        Diagnostics outer("scenario.json");
        for (const std::string& problem : thrown) outer.add("/chip", problem);
        CHECK(outer.size() == total);
        const std::vector<std::string> forwarded = thrown_problems(outer);
        REQUIRE(forwarded.size() == Diagnostics::kMaxReported + 1);
        CHECK(forwarded.front() == "scenario.json:/chip: " + thrown.front());
        CHECK(forwarded.back() == "scenario.json: ... and 980 more problems");
    }
    SECTION("a whole document of bad values") {
        std::string text = "{\"v\": [";
        for (int i = 0; i < 100'000; ++i) text += "-1.5,";
        text += "1e-400]}";
        Diagnostics parsed("f.json");
        const std::optional<json> document = parse_json(text, parsed);
        REQUIRE(document.has_value());
        for (std::size_t i = 0; i < (*document)["v"].size(); ++i)
            read_unsigned((*document)["v"][i], child_pointer("/v", i), parsed);
        CHECK(parsed.size() == 100'001);
        CHECK(parsed.problems().size() == Diagnostics::kMaxReported);
        // The underflow was reported by the parser, and only there.
        CHECK(parsed.problems().front() ==
              "f.json:/v/100000: number 1e-400 is too small to represent (it underflows to 0)");
        CHECK(thrown_problems(parsed).back() == "f.json: ... and 99,981 more problems");
    }
    CHECK(group_thousands(0) == "0");
    CHECK(group_thousands(999) == "999");
    CHECK(group_thousands(1000) == "1,000");
    CHECK(group_thousands(18446744073709551615u) == "18,446,744,073,709,551,615");
}

TEST_CASE("read_config_file refuses what is not a regular file of sensible size", "[diag]") {
    TempDir dir;
    SECTION("a small file reads whole") {
        const std::filesystem::path file = dir.path() / "ok.json";
        std::ofstream(file) << "{\"a\": 1}";
        CHECK(read_config_file(file) == "{\"a\": 1}");
    }
    SECTION("a file over the limit names the limit") {
        const std::filesystem::path file = dir.path() / "big.json";
        { std::ofstream create(file); }
        std::filesystem::resize_file(file, kMaxConfigFileBytes + 1);
        CHECK(read_failure(file) ==
              file.string() +
                  ": cannot read file (16,777,217 bytes; configuration files are limited to "
                  "16,777,216 bytes (16 MiB))");
        std::filesystem::resize_file(file, kMaxConfigFileBytes);
        CHECK(read_config_file(file).size() == kMaxConfigFileBytes);
    }
    SECTION("a FIFO is refused at once, with no writer to wait for") {
        const std::filesystem::path fifo = dir.path() / "pipe.json";
        REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
        CHECK(read_failure(fifo) ==
              fifo.string() + ": cannot read file (it is a FIFO, not a regular file)");
    }
    SECTION("devices and directories") {
        CHECK(read_failure("/dev/zero") ==
              "/dev/zero: cannot read file (it is a character device, not a regular file)");
        CHECK(read_failure(dir.path()) ==
              dir.path().string() + ": cannot read file (it is a directory)");
        CHECK(read_failure(dir.path() / "none.json") ==
              (dir.path() / "none.json").string() + ": cannot read file (no such file)");
    }
    SECTION("a file name with control characters is printed escaped") {
        const std::filesystem::path file = dir.path() / "a\nb\x1b[31m.json";
        CHECK(read_failure(file) ==
              dir.path().string() + "/a\\nb\\x1b[31m.json: cannot read file (no such file)");
    }
}

TEST_CASE("numbers are read as written, never rounded into a valid value", "[diag]") {
    const auto number = [](const std::string& literal) {
        Diagnostics diag("f.json");
        const std::optional<json> document = parse_json("{\"sync\": " + literal + "}", diag);
        std::vector<std::string> problems = diag.problems();
        std::optional<std::uint64_t> value;
        if (document) {
            if (const auto read = read_unsigned((*document)["sync"], "/sync", diag))
                value = read->value;
        }
        problems = diag.problems();
        return std::pair{value, problems};
    };
    using Problems = std::vector<std::string>;

    SECTION("whole numbers in any notation are exact") {
        CHECK(number("1024").first == 1024u);
        CHECK(number("1024.0").first == 1024u);
        CHECK(number("1.024e3").first == 1024u);
        CHECK(number("10240e-1").first == 1024u);
        CHECK(number("0.0e99999").first == 0u);
        CHECK(number("-0").first == 0u);
        CHECK(number("18446744073709551615").first == 18446744073709551615u);
        // Past 2^53 a double would round: 12345678901234567891 is not 12345678901234567168.
        CHECK(number("12345678901234567891.0").first == 12345678901234567891u);
        CHECK(number("1.8446744073709551615e19").first == 18446744073709551615u);
    }
    SECTION("too small to represent: underflow is an error with the pointer") {
        CHECK(number("1e-400") ==
              std::pair{std::optional<std::uint64_t>{},
                        Problems{"f.json:/sync: number 1e-400 is too small to represent (it "
                                 "underflows to 0)"}});
        CHECK(number("-1e-400").second ==
              Problems{"f.json:/sync: number -1e-400 is too small to represent (it underflows "
                       "to 0)"});
    }
    SECTION("too large: 2^64 and beyond, and past a double's range") {
        CHECK(number("18446744073709551616").second ==
              Problems{"f.json:/sync: number 18446744073709551616 is larger than "
                       "18446744073709551615, the largest integer supported"});
        CHECK(number("1.8446744073709551616e19").second ==
              Problems{"f.json:/sync: number 1.8446744073709551616e19 is larger than "
                       "18446744073709551615, the largest integer supported"});
        CHECK(number("-9223372036854775809").second ==
              Problems{"f.json:/sync: number -9223372036854775809 is smaller than "
                       "-9223372036854775808, the smallest integer supported"});
        CHECK(number("1e400").second ==
              Problems{"f.json:/sync: number 1e400 is too large to represent (larger than "
                       "18446744073709551615, the largest integer supported)"});
        const std::string digits(100'000, '9');
        const auto huge = number(digits);
        REQUIRE(huge.second.size() == 1);
        CHECK_THAT(huge.second.front(),
                   Catch::StartsWith("f.json:/sync: number " + std::string(40, '9') +
                                     "... (100,000 characters) is too large to represent"));
    }
    SECTION("fractions are errors, never truncated or rounded") {
        CHECK(number("1.5") == std::pair{std::optional<std::uint64_t>{},
                                         Problems{"f.json:/sync: expected an unsigned integer, "
                                                  "got 1.5"}});
        CHECK(number("1e-5").second ==
              Problems{"f.json:/sync: expected an unsigned integer, got 1e-05"});
        // A double would round this to exactly 4.
        CHECK(number("4.00000000000000000001").second ==
              Problems{"f.json:/sync: number 4.00000000000000000001 is not a whole number but "
                       "has more digits than a double holds (it would read as 4.0)"});
        CHECK(number("-1").second ==
              Problems{"f.json:/sync: expected an unsigned integer, got -1"});
    }
    SECTION("a float built in code past 2^64 says so") {
        Diagnostics diag("f.json");
        CHECK_FALSE(read_unsigned(json(3e19), "/p", diag).has_value());
        CHECK(diag.problems() ==
              Problems{"f.json:/p: expected an unsigned integer, got 3e+19, which is larger "
                       "than 18446744073709551615"});
        CHECK(describe_json(json(std::nan(""))) == "a number that cannot be represented");
    }
    SECTION("the array index of a bad number is its own") {
        CHECK(parse_problems("[0, [1, 1e-999]]") ==
              Problems{"f.json:/1/1: number 1e-999 is too small to represent (it underflows to "
                       "0)"});
    }
}

TEST_CASE("nothing from the file reaches the terminal raw", "[diag]") {
    SECTION("printable escapes control characters, DEL, C1 and invalid UTF-8") {
        CHECK(printable("a\nb\tc\rd") == "a\\nb\\tc\\rd");
        CHECK(printable(std::string("nul\0end", 7)) == "nul\\x00end");
        CHECK(printable("\x1b[2J\x7f") == "\\x1b[2J\\x7f");
        CHECK(printable("back\\slash") == "back\\\\slash");
        CHECK(printable("back\\slash", false) == "back\\slash");
        CHECK(printable("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82") ==
              "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82");  // valid UTF-8 stays
        CHECK(printable("\xc2\x9b"
                        "31m") == "\\u009b31m");  // C1 CSI
        CHECK(printable("a\xe2\x80\xa8z") == "a\\u2028z");
        CHECK(printable("\xff\xc3(\xed\xa0\x80") == "\\xff\\xc3(\\xed\\xa0\\x80");
        CHECK(single_quoted("it's\x1b") == "'it\\'s\\x1b'");
    }
    SECTION("a key with a newline, an escape sequence and a NUL stays on one line") {
        const std::string text = "{\"k\\nx\\u001b[31m\\u0000\": 1, \"k\\nx\\u001b[31m\\u0000\": 2}";
        const std::vector<std::string> problems = parse_problems(text);
        REQUIRE(problems.size() == 1);
        CHECK(problems.front() ==
              "f.json:/k\\nx\\x1b[31m\\x00: duplicate key 'k\\nx\\x1b[31m\\x00'");
        for (const char c : problems.front()) {
            CHECK(static_cast<unsigned char>(c) >= 0x20);
            CHECK(c != 0x7f);
        }
    }
    SECTION("unknown keys in a chip file, through the whole reader") {
        try {
            parse_chip_config("{\"bad\\nkey\\u007f\": 1}", "chip\x1b.json");
            FAIL("expected a ConfigError");
        } catch (const ConfigError& error) {
            CHECK(error.problems().front() ==
                  "chip\\x1b.json:/bad\\nkey\\x7f: unknown key 'bad\\nkey\\x7f' (allowed: "
                  "'clock_mhz', 'cores', 'memory', 'gm', 'l2', 'pipes', 'scalar', 'copy', "
                  "'vector', 'cube', 'sync', 'runtime', 'name', 'description')");
        }
    }
    SECTION("very long pointers and messages are shortened") {
        Diagnostics diag("f.json");
        diag.add("/" + std::string(100'000, 'k'), std::string(100'000, 'm'));
        const std::string& problem = diag.problems().front();
        CHECK(problem.size() < 2400);
        CHECK_THAT(problem, Catch::StartsWith("f.json:/" + std::string(99, 'k') + "..."));
    }
    SECTION("a key of megabytes is no typo and costs no quadratic time") {
        const std::string key(4 * 1024 * 1024, 'x');
        const std::vector<std::string_view> names{"vector", "cube"};
        CHECK_FALSE(nearest_name(key, names).has_value());
    }
}
