// The output rule (base/output_file.h): new and regular files are written whole, a symlink's
// target is replaced (the link stays), folders, devices and missing folders are refused.
#include "base/output_file.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <catch2/catch.hpp>

#include "base/errors.h"
#include "temp_dir.h"

using npusim::UsageError;
using npusim::write_output_file;

namespace {
std::string read_all(const std::filesystem::path& file) {
    std::ifstream in(file);
    return {std::istreambuf_iterator<char>(in), {}};
}
}  // namespace

TEST_CASE("outputs: a new file is created, a regular file replaced whole", "[output]") {
    npusim::test::TempDir dir;
    const auto file = dir.file("out.json");
    write_output_file(file, "first, longer text\n", "report");
    CHECK(read_all(file) == "first, longer text\n");
    write_output_file(file, "second\n", "report");
    CHECK(read_all(file) == "second\n");
    CHECK_FALSE(std::filesystem::exists(dir.file("out.json.partial")));
}

TEST_CASE("outputs: a symlink's target is written, the link stays a link", "[output]") {
    npusim::test::TempDir dir;
    write_output_file(dir.file("target.csv"), "old\n", "sweep output");
    std::filesystem::create_symlink(dir.file("target.csv"), dir.file("link.csv"));
    write_output_file(dir.file("link.csv"), "new\n", "sweep output");
    CHECK(std::filesystem::is_symlink(dir.file("link.csv")));
    CHECK(read_all(dir.file("target.csv")) == "new\n");
}

TEST_CASE("outputs: folders, devices and missing folders are refused, naming the path",
          "[output]") {
    npusim::test::TempDir dir;
    std::filesystem::create_directory(dir.file("folder"));
    CHECK_THROWS_WITH(write_output_file(dir.file("folder"), "x", "report"),
                      dir.file("folder").string() +
                          ": refusing to write the report there: it is a directory (outputs go "
                          "to a new or regular file)");
    CHECK_THROWS_WITH(write_output_file("/dev/null", "x", "trace"),
                      Catch::StartsWith("/dev/null: refusing to write the trace there: it is a "
                                        "character device"));
    CHECK_THROWS_WITH(write_output_file(dir.file("nowhere") / "out.csv", "x", "merge output"),
                      (dir.file("nowhere") / "out.csv").string() +
                          ": cannot write the merge output: no folder " +
                          dir.file("nowhere").string());
    // A symlink to a device is judged by its target.
    std::filesystem::create_symlink("/dev/null", dir.file("null_link"));
    CHECK_THROWS_AS(write_output_file(dir.file("null_link"), "x", "report"), UsageError);
}
