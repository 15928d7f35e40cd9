// Global memory (GM): the chip's large shared memory, backed sparsely on the host.
//
// A 64 GiB modelled GM costs host memory only for the pages a run touches. Its bytes live
// in one reserved host address range (a "window": GM address A is host byte
// host_base() + A), whose pages the host OS backs on first touch; a freed buffer's pages are
// given back. Because the window is flat, a GM address has a host pointer that kernels may
// dereference directly (the Ascend C layer's `__gm__` pointers), and a contiguous buffer's
// bytes are one host span (the runtime's unified-memory allocations, which kernels and the
// host share). Buffers are handed out by a simple allocator so checkers can tell which
// buffer an address belongs to.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>

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

    /// Reserves the host window (address space only). Throws UsageError when the host
    /// cannot reserve `capacity_bytes` of address space (e.g. a `ulimit -v` below it).
    explicit GlobalMemory(std::uint64_t capacity_bytes);
    ~GlobalMemory();
    GlobalMemory(const GlobalMemory&) = delete;
    GlobalMemory& operator=(const GlobalMemory&) = delete;

    std::uint64_t capacity() const { return m_capacity; }

    /// Returns the address of a new buffer. Throws UsageError when GM is exhausted or bytes
    /// is zero. Addresses start at kAlignment so that address 0 is never a valid buffer.
    std::uint64_t allocate(std::uint64_t bytes, std::string name);
    /// A buffer page-aligned in GM whose pages no other buffer shares, so host code can hold
    /// its bytes (contiguous_bytes()) for as long as it lives. Counts its whole size as
    /// resident (host code may write it at any time). Errors as allocate().
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
    /// no effect on contents, never makes a page resident.
    void prefetch(std::uint64_t address, std::uint64_t bytes) const;

    /// The host pointer of GM address 0: GM byte A is host_base()[A]. Pages of live buffers
    /// are readable and writable through it (unwritten bytes read as zero); an address
    /// outside every buffer that was never written is not mapped.
    std::byte* host_base() const { return m_window; }
    /// Whether `pointer` lies inside this GM's host window.
    bool owns(const void* pointer) const;
    /// The live GM whose window contains `pointer` (any thread), or nullptr.
    static GlobalMemory* owner_of(const void* pointer);
    /// The GM whose run this thread is executing (see Running), or nullptr.
    static GlobalMemory* running();
    /// The GM that an address given without a simulator refers to: running(), else the live
    /// GM created last; nullptr when none is alive.
    static GlobalMemory* implied();
    /// Marks this GM as the one a run on this thread is executing, for its lifetime.
    class Running {
    public:
        explicit Running(GlobalMemory& gm);
        ~Running();
        Running(const Running&) = delete;
        Running& operator=(const Running&) = delete;

    private:
        GlobalMemory* m_previous;
    };

    /// Host bytes held for page backing (the pages a run wrote).
    std::uint64_t resident_bytes() const { return m_resident_pages * kPageBytes; }
    /// Calls fn(lo, hi) for each maximal run of written pages inside [lo, hi) (clipped to
    /// it), in address order: a superset of the bytes ever written there, at page
    /// granularity.
    template <class Fn>
    void for_each_resident_range(std::uint64_t lo, std::uint64_t hi, Fn&& fn) const {
        std::uint64_t run_lo = hi;
        for (std::uint64_t page = lo >> kPageBits; (page << kPageBits) < hi; ++page) {
            const std::uint64_t page_lo = std::max(lo, page << kPageBits);
            if (written(page)) {
                if (run_lo == hi) run_lo = page_lo;
            } else if (run_lo != hi) {
                fn(run_lo, page_lo);
                run_lo = hi;
            }
        }
        if (run_lo != hi) fn(run_lo, hi);
    }

private:
    // Per 64 KiB page: whether its host pages are mapped readable and writable (a live
    // buffer's pages, or written ones), and whether a write through read()/write() touched it.
    static constexpr std::uint8_t kMapped = 1, kWritten = 2;

    bool written(std::uint64_t page) const { return (m_pages[page] & kWritten) != 0; }
    void map_pages(std::uint64_t first_page, std::uint64_t end_page);
    void mark_written(std::uint64_t first_page, std::uint64_t end_page);
    void release_pages(std::uint64_t address, std::uint64_t bytes);
    std::uint64_t reserve(std::uint64_t bytes, std::uint64_t alignment, const std::string& name);

    std::uint64_t m_capacity;
    std::uint64_t m_window_bytes;  // capacity rounded up to whole pages
    std::byte* m_window = nullptr;
    // kMapped | kWritten, one per page; calloc'ed, so a large GM's table costs host memory
    // only where pages are used.
    std::unique_ptr<std::uint8_t[], void (*)(void*)> m_pages;
    std::uint64_t m_resident_pages = 0;
    std::uint64_t m_next_free;
    std::map<std::uint64_t, GmBuffer> m_buffers;
    std::set<std::uint64_t> m_contiguous;  // addresses of live contiguous buffers
};

}  // namespace npusim
