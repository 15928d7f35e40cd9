// GlobalMemory: sparse pages (reads of untouched bytes are zeros and allocate nothing),
// writes across page boundaries, buffer allocation and freeing, capacity.
#include "memory/global_memory.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <span>
#include <vector>

#include <catch2/catch.hpp>

#include "base/errors.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

using namespace npusim;

namespace {
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;
constexpr std::uint64_t kPage = GlobalMemory::kPageBytes;

std::vector<std::uint8_t> read_bytes(const GlobalMemory& gm, std::uint64_t at, std::size_t n) {
    std::vector<std::uint8_t> out(n, 0xAB);
    gm.read(at, out.data(), n);
    return out;
}
}  // namespace

TEST_CASE("global memory: untouched bytes read as zero without allocating", "[unit]") {
    GlobalMemory gm(64 * kGiB);
    CHECK(gm.capacity() == 64 * kGiB);
    CHECK(gm.resident_bytes() == 0);
    CHECK(read_bytes(gm, 0, 64) == std::vector<std::uint8_t>(64, 0));
    CHECK(read_bytes(gm, 63 * kGiB + 12345, 3 * kPage) == std::vector<std::uint8_t>(3 * kPage, 0));
    gm.prefetch(5 * kGiB, 4096);
    CHECK(gm.resident_bytes() == 0);
}

TEST_CASE("global memory: a write allocates only the pages it touches", "[unit]") {
    GlobalMemory gm(64 * kGiB);
    const std::uint8_t value = 42;
    gm.write(60 * kGiB + 7, &value, 1);
    CHECK(gm.resident_bytes() == kPage);
    CHECK(read_bytes(gm, 60 * kGiB + 6, 3) == std::vector<std::uint8_t>{0, 42, 0});
    gm.write(60 * kGiB + 100, &value, 1);  // same page
    CHECK(gm.resident_bytes() == kPage);
}

TEST_CASE("global memory: a write across page boundaries reads back whole", "[unit]") {
    GlobalMemory gm(kGiB);
    std::vector<std::uint8_t> data(2 * kPage + 100);
    std::iota(data.begin(), data.end(), std::uint8_t{1});
    const std::uint64_t at = kPage - 50;  // spans pages 0, 1, 2 and 3
    gm.write(at, data.data(), data.size());
    CHECK(gm.resident_bytes() == 4 * kPage);
    CHECK(read_bytes(gm, at, data.size()) == data);
    // Bytes either side stay zero.
    CHECK(read_bytes(gm, at - 1, 1) == std::vector<std::uint8_t>{0});
    CHECK(read_bytes(gm, at + data.size(), 1) == std::vector<std::uint8_t>{0});
    // A read that starts inside and ends in untouched memory mixes both.
    const auto tail = read_bytes(gm, at + data.size() - 2, 4);
    CHECK(tail == std::vector<std::uint8_t>{data[data.size() - 2], data.back(), 0, 0});
}

TEST_CASE("global memory: buffers are 512-byte aligned, from 512, in order", "[unit]") {
    GlobalMemory gm(kGiB);
    const std::uint64_t a = gm.allocate(1, "a");
    const std::uint64_t b = gm.allocate(1000, "b");
    const std::uint64_t c = gm.allocate(512, "c");
    CHECK(a == GlobalMemory::kAlignment);
    CHECK(b == a + 512);
    CHECK(c == b + 1024);
    REQUIRE(gm.buffers().size() == 3);
    const GmBuffer& buffer = gm.buffers().at(b);
    CHECK(buffer.name == "b");
    CHECK(buffer.bytes == 1000);
    CHECK_FALSE(buffer.freed);
}

TEST_CASE("global memory: find_buffer covers the rounded extent of a buffer", "[unit]") {
    GlobalMemory gm(kGiB);
    const std::uint64_t a = gm.allocate(100, "a");
    const std::uint64_t b = gm.allocate(600, "b");
    CHECK(gm.find_buffer(0) == nullptr);
    CHECK(gm.find_buffer(a - 1) == nullptr);
    REQUIRE(gm.find_buffer(a) != nullptr);
    CHECK(gm.find_buffer(a)->name == "a");
    CHECK(gm.find_buffer(a + 511)->name == "a");  // padding belongs to the buffer
    CHECK(gm.find_buffer(a + 512)->name == "b");
    CHECK(gm.find_buffer(b + 1023)->name == "b");
    CHECK(gm.find_buffer(b + 1024) == nullptr);
}

TEST_CASE("global memory: zero bytes and exhaustion are usage errors", "[unit]") {
    GlobalMemory gm(1 << 20);
    CHECK_THROWS_AS(gm.allocate(0, "empty"), UsageError);
    CHECK_THROWS_WITH(gm.allocate(1 << 20, "big"),
                      Catch::Contains("'big'") && Catch::Contains("of 1048576 bytes left"));
    // Everything after the first 512 bytes fits exactly.
    const std::uint64_t all = gm.allocate((1 << 20) - 512, "all");
    CHECK(all == 512);
    CHECK_THROWS_WITH(gm.allocate(1, "one"), Catch::Contains("0 of 1048576 bytes left"));
    CHECK(gm.buffers().size() == 1);
}

TEST_CASE("global memory: free marks the buffer and releases its whole pages", "[unit]") {
    GlobalMemory gm(kGiB);
    const std::uint64_t address = gm.allocate(4 * kPage, "big");
    REQUIRE(address == 512);
    std::vector<std::uint8_t> ones(4 * kPage, 1);
    gm.write(address, ones.data(), ones.size());
    CHECK(gm.resident_bytes() == 5 * kPage);  // [512, 512 + 4 pages) touches pages 0-4
    gm.free(address);
    CHECK(gm.buffers().at(address).freed);
    // Pages 1-3 lie wholly inside the buffer; the edge pages 0 and 4 may be shared.
    CHECK(gm.resident_bytes() == 2 * kPage);
    CHECK(read_bytes(gm, 2 * kPage, 4) == std::vector<std::uint8_t>(4, 0));
    CHECK(read_bytes(gm, address, 1) == std::vector<std::uint8_t>{1});
    // A freed buffer is still found (checkers report use after free).
    REQUIRE(gm.find_buffer(address + 10) != nullptr);
    CHECK(gm.find_buffer(address + 10)->freed);
}

TEST_CASE("global memory: free needs the start of a live buffer", "[unit]") {
    GlobalMemory gm(kGiB);
    const std::uint64_t address = gm.allocate(1024, "x");
    CHECK_THROWS_AS(gm.free(address + 32), UsageError);
    CHECK_THROWS_AS(gm.free(0), UsageError);
    gm.free(address);
    CHECK_THROWS_WITH(gm.free(address), Catch::Contains("not the start of a live buffer"));
    // Freed space is not handed out again: the allocator only moves forward.
    CHECK(gm.allocate(32, "y") == address + 1024);
}

TEST_CASE("global memory: a request larger than GM is refused", "[unit]") {
    GlobalMemory gm(kGiB);
    CHECK_THROWS_AS(gm.allocate(kGiB, "whole"), UsageError);  // the first 512 bytes are lost
    CHECK_THROWS_AS(gm.allocate(std::uint64_t{1} << 40, "tera"), UsageError);
    CHECK(gm.buffers().empty());
}

// The size is checked before it is rounded up to 512 bytes: the last 511 values of uint64_t
// would otherwise wrap to a zero-byte reservation.
TEST_CASE("global memory: a size that wraps when rounded is refused", "[unit]") {
    GlobalMemory gm(kGiB);
    CHECK_THROWS_AS(gm.allocate(~std::uint64_t{0}, "huge"), UsageError);
}

TEST_CASE("global memory: a contiguous buffer is one host block that GM accesses share", "[unit]") {
    GlobalMemory gm(kGiB);
    const std::uint64_t before = gm.allocate(100, "before");
    const std::uint64_t address = gm.allocate_contiguous(kPage + 8, "shared");
    const std::uint64_t after = gm.allocate(100, "after");
    CHECK(address % kPage == 0);  // page-aligned: no neighbour shares its pages
    CHECK(address > before);
    CHECK(after >= address + 2 * kPage);
    CHECK(gm.resident_bytes() == 2 * kPage);  // backed at once, whole pages
    REQUIRE(gm.find_buffer(address) != nullptr);
    CHECK(gm.find_buffer(address)->contiguous);
    const std::span<std::byte> host = gm.contiguous_bytes(address);
    REQUIRE(host.size() == kPage + 8);
    // A GM write across the page boundary lands in the host block, and back.
    const std::vector<std::uint8_t> data{1, 2, 3, 4, 5, 6, 7, 8};
    gm.write(address + kPage - 4, data.data(), data.size());
    CHECK(host[kPage - 4] == std::byte{1});
    CHECK(host[kPage + 3] == std::byte{8});
    host[kPage + 7] = std::byte{42};
    CHECK(read_bytes(gm, address + kPage + 7, 1) == std::vector<std::uint8_t>{42});
    CHECK(gm.resident_bytes() == 2 * kPage);  // no page allocated for those writes
    CHECK_THROWS_AS(gm.contiguous_bytes(before), UsageError);
    // Freeing unmaps its pages (the block goes with it); neighbours are untouched.
    gm.write(before, data.data(), data.size());
    gm.free(address);
    CHECK(gm.buffers().at(address).freed);
    CHECK_THROWS_AS(gm.contiguous_bytes(address), UsageError);
    CHECK(read_bytes(gm, address + kPage + 7, 1) == std::vector<std::uint8_t>{0});
    CHECK(read_bytes(gm, before, 8) == data);
    CHECK(gm.resident_bytes() == kPage);  // page 0, with `before`
}

TEST_CASE("global memory: live contiguous buffers are released with the memory", "[unit]") {
    // Run under the sanitizers this shows neither a leak nor a double free.
    GlobalMemory gm(kGiB);
    const std::uint64_t address = gm.allocate_contiguous(3 * kPage, "kept");
    std::vector<std::uint8_t> ones(3 * kPage, 1);
    gm.write(address, ones.data(), ones.size());
    gm.write(address + 3 * kPage, ones.data(), 16);  // an ordinary page after it
    CHECK(gm.resident_bytes() == 4 * kPage);
}

TEST_CASE("global memory: GM byte A is host_base()[A], in both directions", "[unit]") {
    GlobalMemory gm(kGiB);
    const std::uint64_t address = gm.allocate(3 * kPage, "buffer");
    std::byte* host = gm.host_base() + address;
    // A live buffer's bytes are mapped before any write: unwritten ones read as zero.
    CHECK(std::to_integer<int>(host[kPage + 7]) == 0);
    host[5] = std::byte{0x5A};  // a kernel's store through its __gm__ pointer
    CHECK(read_bytes(gm, address + 5, 1) == std::vector<std::uint8_t>{0x5A});
    const std::uint32_t word = 0xCAFEF00D;
    gm.write(address + 2 * kPage, &word, sizeof word);
    std::uint32_t seen = 0;
    std::memcpy(&seen, host + 2 * kPage, sizeof seen);
    CHECK(seen == word);
    // Freed pages read as zero again through both paths (their host memory is given back).
    gm.free(address);
    CHECK(std::to_integer<int>(host[2 * kPage]) == 0);
    CHECK(read_bytes(gm, address + 2 * kPage, 4) == std::vector<std::uint8_t>(4, 0));
}

TEST_CASE("global memory: owner_of, running and implied tell which GM a pointer is in", "[unit]") {
    GlobalMemory first(kGiB);
    GlobalMemory second(kGiB);
    const int on_the_stack = 0;
    CHECK(GlobalMemory::owner_of(first.host_base() + 4096) == &first);
    CHECK(GlobalMemory::owner_of(second.host_base() + kGiB - 1) == &second);
    CHECK(GlobalMemory::owner_of(&on_the_stack) == nullptr);
    CHECK(GlobalMemory::running() == nullptr);
    CHECK(GlobalMemory::implied() == &second);  // the live GM created last
    {
        const GlobalMemory::Running running(first);
        CHECK(GlobalMemory::running() == &first);
        CHECK(GlobalMemory::implied() == &first);
    }
    CHECK(GlobalMemory::running() == nullptr);
}

// Under AddressSanitizer: the window's host range may have held a finished SystemC thread's
// stack, whose "stack-use-after-scope" shadow survives the unmapping. Poisoning the window's
// shadow stands in for that; a buffer's pages must be addressable all the same.
TEST_CASE("global memory: pages made accessible ignore stale sanitizer shadow", "[unit]") {
    GlobalMemory gm(4 * kPage);
#if defined(__SANITIZE_ADDRESS__)
    ASAN_POISON_MEMORY_REGION(gm.host_base(), 4 * kPage);
#endif
    const std::uint64_t buffer = gm.allocate(2 * kPage, "out");
    std::vector<std::uint8_t> data(2 * kPage);
    std::iota(data.begin(), data.end(), std::uint8_t{7});
    gm.write(buffer, data.data(), data.size());
    CHECK(read_bytes(gm, buffer, data.size()) == data);
    gm.host_base()[buffer] = std::byte{1};
    CHECK(read_bytes(gm, buffer, 1) == std::vector<std::uint8_t>{1});
    // Pages first reached by a write outside every buffer are mapped (and cleared) the same way.
    gm.write(3 * kPage + 8, data.data(), 16);
    CHECK(read_bytes(gm, 3 * kPage + 8, 16) ==
          std::vector<std::uint8_t>(data.begin(), data.begin() + 16));
}
