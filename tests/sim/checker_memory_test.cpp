// memcheck's whole-program reports: GM buffers never freed (leaks) and GM bytes no access ever
// used (unused memory, opt-in), as the vendor sanitizer's --leak-check and
// --check-unused-memory report them for its example mutations.
#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

#include "base/errors.h"
#include "base/tensor.h"
#include "core/block.h"
#include "sim/host/runtime.h"
#include "sim/simulator.h"
#include "sync/check/check_report.h"
#include "sync/check/checker.h"
#include "sync/check/findings.h"
#include "test_support.h"

using namespace npusim;

namespace {

constexpr std::uint64_t N = 256;  // floats used of each buffer: 1 KiB
constexpr std::uint64_t kBytes = N * sizeof(float);

/// One block: z[0, N) = x[0, N) + 1.
KernelBody add_one(GlobalTensor<float> x, GlobalTensor<float> z) {
    return [=](Block& b) {
        auto ub = b.alloc<float>(MemSpace::UB, N);
        b.copy(ub, x, N);
        b.set_flag(Pipe::MTE2, Pipe::V, 0);
        b.wait_flag(Pipe::MTE2, Pipe::V, 0);
        b.adds(ub, ub, 1.0F, N);
        b.set_flag(Pipe::V, Pipe::MTE3, 0);
        b.wait_flag(Pipe::V, Pipe::MTE3, 0);
        b.copy(z, ub, N);
    };
}

/// x is allocated 5 times too large (only its first kBytes are copied in and read), z is
/// used whole, spare is never touched; z and spare are freed, x is not.
void over_allocating_program(Runtime& rt) {
    const HostBuffer h = rt.malloc_host(kBytes, HostMemoryKind::Pinned);
    const DeviceBuffer x = rt.malloc(5 * kBytes, "x");
    const DeviceBuffer z = rt.malloc(kBytes, "z");
    const DeviceBuffer spare = rt.malloc(kBytes, "spare");
    rt.memcpy(x, h, kBytes);
    rt.launch(rt.default_stream(), {.name = "add_one"},
              add_one(x.as<float>().sub(0, N), z.as<float>()));
    rt.synchronize_device();
    rt.memcpy(h, z, kBytes);
    rt.free(z);
    rt.free(spare);
}

const Finding* find_kind(const std::vector<Finding>& findings, FindingKind kind,
                         const std::string& buffer) {
    for (const Finding& f : findings)
        if (f.kind == kind && !f.sites.empty() && f.sites.front().buffer == buffer) return &f;
    return nullptr;
}

}  // namespace

TEST_CASE("memcheck: a buffer never freed is one leak warning, named, in no kernel",
          "[checker][memcheck]") {
    Simulator sim(test::small_chip());
    Checker checker(sim.global_memory());
    sim.attach(checker);
    REQUIRE(sim.run_host(over_allocating_program).completed());
    REQUIRE(checker.findings().empty());
    checker.check_leaks();
    const std::string text = format_findings(checker.findings());
    INFO(text);
    REQUIRE(checker.findings().size() == 1);
    const Finding& leak = checker.findings().front();
    CHECK(leak.kind == FindingKind::Leak);
    CHECK(leak.severity == Severity::Warning);
    CHECK(leak.sites.front().buffer == "x");
    CHECK(leak.sites.front().bytes == 5 * kBytes);
    CHECK(text.find("WARNING: leak: GM buffer 'x' (5120 bytes) is never freed\n") !=
          std::string::npos);
    CHECK(text.find("in kernel") == std::string::npos);
    CHECK(format_findings_vendor(checker.findings()).find("LeakCheck: detected memory leaks") !=
          std::string::npos);
}

TEST_CASE("memcheck: unused memory counts the bytes no kernel, copy or host access touched",
          "[checker][memcheck]") {
    Simulator sim(test::small_chip());
    CheckerOptions options;
    options.unused_memory = true;
    Checker checker(sim.global_memory(), options);
    sim.attach(checker);
    REQUIRE(sim.run_host(over_allocating_program).completed());
    REQUIRE(checker.findings().empty());
    checker.check_unused_memory();
    const std::string text = format_findings(checker.findings());
    INFO(text);
    // x: its first kBytes copied in by the host and read by the kernel, 4 x kBytes never.
    const Finding* x = find_kind(checker.findings(), FindingKind::UnusedMemory, "x");
    REQUIRE(x != nullptr);
    CHECK(x->severity == Severity::Warning);
    CHECK(x->sites.front().bytes == 4 * kBytes);
    CHECK(x->message == "4096 of the 5120 bytes of GM buffer 'x' were never read or written");
    // spare: allocated and freed, never touched.
    const Finding* spare = find_kind(checker.findings(), FindingKind::UnusedMemory, "spare");
    REQUIRE(spare != nullptr);
    CHECK(spare->sites.front().bytes == kBytes);
    CHECK(spare->message.find("(the whole buffer)") != std::string::npos);
    // z: written by the kernel and read back whole.
    CHECK(find_kind(checker.findings(), FindingKind::UnusedMemory, "z") == nullptr);
    CHECK(checker.findings().size() == 2);
    CHECK(format_findings_vendor(checker.findings()).find("Unused memory of 4096 byte(s)") !=
          std::string::npos);
}

TEST_CASE("memcheck: the unused-memory report needs the option that records uses",
          "[checker][memcheck]") {
    Simulator sim(test::small_chip());
    Checker checker(sim.global_memory());
    sim.attach(checker);
    REQUIRE(sim.run_host(over_allocating_program).completed());
    CHECK_THROWS_AS(checker.check_unused_memory(), UsageError);
}
