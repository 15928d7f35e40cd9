// Global memory (GM): the chip's large shared memory, backed sparsely on the host.
//
// A 64 GiB modelled GM costs host memory only for the pages a run touches: pages are
// allocated on first write (reads of untouched pages return zeros without allocating).
// Buffers are handed out by a simple allocator so later checkers can tell which buffer an
// address belongs to. A contiguous buffer (allocate_contiguous) is backed by one host block
// that its pages map into, so host code can hold its bytes as one span: the runtime's
// unified-memory host allocations, which kernels and the host share.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace npusim {

struct GmBuffer {
    std::uint64_t address = 0;
    std::uint64_t bytes = 0;
    std::string name;
    bool freed = false;
    bool contiguous = false;  // backed by one host block (allocate_contiguous)
};

class GlobalMemory final {
public:
    static constexpr std::uint64_t kPageBits = 16;  // 64 KiB host pages
    static constexpr std::uint64_t kPageBytes = std::uint64_t{1} << kPageBits;
    static constexpr std::uint64_t kAlignment = 512;  // every buffer starts 512-byte aligned

    explicit GlobalMemory(std::uint64_t capacity_bytes);
    ~GlobalMemory();
    GlobalMemory(const GlobalMemory&) = delete;
    GlobalMemory& operator=(const GlobalMemory&) = delete;

    std::uint64_t capacity() const { return m_capacity; }

    /// Returns the address of a new buffer. Throws UsageError when GM is exhausted or bytes
    /// is zero. Addresses start at kAlignment so that address 0 is never a valid buffer.
    std::uint64_t allocate(std::uint64_t bytes, std::string name);
    /// A buffer whose bytes are one contiguous host block, page-aligned in GM (its pages map
    /// into the block, so reads and writes through GM and through contiguous_bytes() see the
    /// same bytes). Costs its whole size in host memory at once. Errors as allocate().
    std::uint64_t allocate_contiguous(std::uint64_t bytes, std::string name);
    /// The host bytes of the live contiguous buffer starting at `address` (valid until it is
    /// freed). Throws UsageError for any other address.
    std::span<std::byte> contiguous_bytes(std::uint64_t address);
    /// Marks the buffer starting at `address` freed and releases its host pages.
    /// Throws UsageError for an address that is not the start of a live buffer.
    void free(std::uint64_t address);
    /// The buffer (live or freed) that contains `address`, if any.
    const GmBuffer* find_buffer(std::uint64_t address) const;
    const std::map<std::uint64_t, GmBuffer>& buffers() const { return m_buffers; }

    /// Data access. The caller guarantees [address, address+bytes) lies within capacity().
    void read(std::uint64_t address, void* destination, std::uint64_t bytes) const;
    void write(std::uint64_t address, const void* source, std::uint64_t bytes);
    /// A host cache hint for a read that comes later (the first few lines of the range):
    /// no effect on contents, never allocates a page.
    void prefetch(std::uint64_t address, std::uint64_t bytes) const;

    /// Host bytes held for page backing (what a run touched).
    std::uint64_t resident_bytes() const { return m_resident_pages * kPageBytes; }
    /// Calls fn(lo, hi) for each maximal run of backed pages inside [lo, hi) (clipped to it),
    /// in address order: a superset of the bytes ever written there, at page granularity.
    template <class Fn>
    void for_each_resident_range(std::uint64_t lo, std::uint64_t hi, Fn&& fn) const {
        std::uint64_t run_lo = hi;
        for (std::uint64_t page = lo >> kPageBits; (page << kPageBits) < hi; ++page) {
            const std::uint64_t page_lo = std::max(lo, page << kPageBits);
            if (page_for_read(page) != nullptr) {
                if (run_lo == hi) run_lo = page_lo;
            } else if (run_lo != hi) {
                fn(run_lo, page_lo);
                run_lo = hi;
            }
        }
        if (run_lo != hi) fn(run_lo, hi);
    }

private:
    // Two-level page table: a directory of 1 GiB chunks, each a table of page pointers
    // allocated on first write. Lookup is two array indexings, no hashing. A page pointer
    // either owns its page (allocated on first write, deleted on release) or points into a
    // contiguous buffer's block (m_contiguous owns those); the destructor and
    // release_pages() tell them apart by the buffer's `contiguous` flag.
    static constexpr std::uint64_t kChunkBits = 30;
    static constexpr std::uint64_t kPagesPerChunk = std::uint64_t{1} << (kChunkBits - kPageBits);
    using PageTable = std::unique_ptr<std::byte*[]>;

    std::byte* page_for_write(std::uint64_t page_index);
    const std::byte* page_for_read(std::uint64_t page_index) const;
    std::byte*& page_slot(std::uint64_t page_index);
    void release_pages(std::uint64_t address, std::uint64_t bytes);
    std::uint64_t reserve(std::uint64_t bytes, std::uint64_t alignment, const std::string& name);

    std::uint64_t m_capacity;
    std::vector<PageTable> m_chunks;
    std::uint64_t m_resident_pages = 0;
    std::uint64_t m_next_free;
    std::map<std::uint64_t, GmBuffer> m_buffers;
    std::map<std::uint64_t, std::unique_ptr<std::byte[]>> m_contiguous;  // by buffer address
};

}  // namespace npusim
