// Resource estimate: kernel needs against a chip, the host memory model, byte-size parsing.
#include "sim/kernels/resource_estimate.h"

#include <cstdint>

#include <catch2/catch.hpp>

using namespace npusim;
using Catch::Matchers::Contains;

namespace {
constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;

ChipConfig chip() {
    ChipConfig c;
    c.name = "t";
    c.source = "t.json";
    c.vector_cores = 4;
    c.cube_cores = 2;
    c.gm_bytes = 64 * kMiB;
    c.ub_bytes = 1000;
    c.l1_bytes = c.l0a_bytes = c.l0b_bytes = c.l0c_bytes = 2000;
    c.event_ids = 2;
    c.queue_depth = 16;
    return c;
}

KernelNeeds vector_needs(std::uint64_t ub, std::uint64_t gm) {
    KernelNeeds n;
    n.kernel = "k";
    n.type = KernelType::AIV_ONLY;
    n.ub = {ub, "/params/tile", "tile"};
    n.event_ids = {1, "/kernel", "one id"};
    n.gm = {gm, "/params/elements", "elements"};
    n.host_copies = {gm, "/params/elements", "copies"};
    n.instructions = {1000, "/params/elements", "instr"};
    return n;
}
}  // namespace

TEST_CASE("resource estimate: needs within the chip raise no problem", "[unit]") {
    CHECK(check_kernel_needs(chip(), vector_needs(1000, 64 * kMiB)).empty());
}

TEST_CASE("resource estimate: each exceeded need names its pointer and the chip's", "[unit]") {
    const auto problems = check_kernel_needs(chip(), vector_needs(1001, 64 * kMiB + 1));
    REQUIRE(problems.size() == 2);
    CHECK(problems[0].first == "/params/tile");
    CHECK(problems[0].second ==
          "tile = 1001 bytes of UB needed, the chip 't' (t.json:/memory/ub_bytes) has 1000");
    CHECK(problems[1].first == "/params/elements");
    CHECK_THAT(problems[1].second, Contains("(t.json:/memory/gm_bytes) has 67108864"));
}

TEST_CASE("resource estimate: a missing core type is reported at /kernel", "[unit]") {
    ChipConfig c = chip();
    c.vector_cores = 1;
    KernelNeeds n = vector_needs(10, 10);
    n.type = KernelType::MIX_AIC_1_2;
    const auto problems = check_kernel_needs(c, n);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].first == "/kernel");
    CHECK_THAT(problems[0].second, Contains("needs 2 vector cores per block"));
    CHECK_THAT(problems[0].second, Contains("(t.json:/cores/vector) has 1"));
}

TEST_CASE("resource estimate: cube memories are checked only for kernels on cube cores", "[unit]") {
    KernelNeeds n = vector_needs(10, 10);
    n.l0a = {5000, "/params/k", "m x k"};
    CHECK(check_kernel_needs(chip(), n).empty());
    n.type = KernelType::MIX_AIC_1_2;
    const auto problems = check_kernel_needs(chip(), n);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].first == "/params/k");
}

TEST_CASE("resource estimate: host memory adds GM pages, copies, local memories, checker",
          "[unit]") {
    HostCostModel model;
    model.base = 0;
    model.per_core = 0;
    model.queue_entry = 0;
    model.checker_per_instruction = 10;
    model.checker_per_block = 0;
    const KernelNeeds n = vector_needs(100, 10 * kMiB);
    const HostMemoryEstimate without = estimate_host_memory(chip(), 8, n, false, model);
    // GM: 160 pages + 1 straddling; copies 10 MiB; UB of the 4 vector cores (8 blocks queue).
    CHECK(without.total_bytes == 161 * model.gm_page + 10 * kMiB + 4 * 1000);
    const HostMemoryEstimate with = estimate_host_memory(chip(), 8, n, true, model);
    CHECK(with.total_bytes == without.total_bytes + 1000 * 10);
    CHECK(with.largest().need.pointer == "/params/elements");
    CHECK_THAT(with.describe(), Contains("GM pages 10.1 MiB (elements)"));
    // Fewer blocks than cores: only the cores in use allocate their UB.
    CHECK(estimate_host_memory(chip(), 1, n, false, model).total_bytes ==
          without.total_bytes - 3 * 1000);
}

TEST_CASE("resource estimate: huge needs saturate instead of wrapping", "[unit]") {
    KernelNeeds n = vector_needs(10, 10);
    n.instructions.amount = ~std::uint64_t{0} / 2;
    CHECK(estimate_host_memory(chip(), 1, n, true).total_bytes == ~std::uint64_t{0});
}

TEST_CASE("resource estimate: byte sizes with K, M, G suffixes", "[unit]") {
    CHECK(parse_byte_size("4096") == 4096u);
    CHECK(parse_byte_size("1K") == 1024u);
    CHECK(parse_byte_size("1M") == kMiB);
    CHECK(parse_byte_size("512m") == 512 * kMiB);
    CHECK(parse_byte_size("2G") == 2 * 1024 * kMiB);
    CHECK(parse_byte_size("3GiB") == 3 * 1024 * kMiB);
    CHECK_FALSE(parse_byte_size(""));
    CHECK_FALSE(parse_byte_size("0"));
    CHECK_FALSE(parse_byte_size("-1M"));
    CHECK_FALSE(parse_byte_size("1.5G"));
    CHECK_FALSE(parse_byte_size("1T"));
    CHECK_FALSE(parse_byte_size("M"));
    CHECK_FALSE(parse_byte_size("99999999999999999999"));
    CHECK_FALSE(parse_byte_size("2000000000G"));
}

TEST_CASE("resource estimate: sizes print in binary units", "[unit]") {
    CHECK(format_bytes(512) == "512 bytes");
    CHECK(format_bytes(1536) == "1.5 KiB");
    CHECK(format_bytes(36 * kMiB) == "36.0 MiB");
}

TEST_CASE("resource estimate: the host limit is read from the system", "[unit]") {
    const auto limit = available_host_memory();
    REQUIRE(limit);
    CHECK(limit->bytes > 0);
    CHECK_FALSE(limit->source.empty());
}
