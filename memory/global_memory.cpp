#include "memory/global_memory.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <sys/mman.h>

#include "base/errors.h"
#include "base/fresh_mapping.h"

namespace npusim {
namespace {

// Live GMs, for owner_of() and implied(): a handful at most, so a vector under a mutex.
std::mutex g_live_mutex;
std::vector<GlobalMemory*> g_live;
thread_local GlobalMemory* t_running = nullptr;

std::uint64_t round_up(std::uint64_t value, std::uint64_t unit) {
    return (value + unit - 1) / unit * unit;
}

}  // namespace

GlobalMemory::GlobalMemory(std::uint64_t capacity_bytes)
    : m_capacity(capacity_bytes),
      m_window_bytes(round_up(std::max<std::uint64_t>(capacity_bytes, 1), kPageBytes)),
      m_pages(static_cast<std::uint8_t*>(std::calloc(m_window_bytes >> kPageBits, 1)), &std::free),
      m_next_free(kAlignment) {
    if (!m_pages) throw std::bad_alloc();
    // Address space only: PROT_NONE private memory is not charged against the host's
    // commit limit; pages become readable and writable when a buffer or a write needs them.
    void* window = ::mmap(nullptr, m_window_bytes, PROT_NONE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (window == MAP_FAILED) {
        throw UsageError(
            "cannot reserve " + std::to_string(m_window_bytes) +
            " bytes of host address space for the chip's GM (gm_bytes): " + std::strerror(errno) +
            "; lower gm_bytes in the chip config or raise the process's "
            "address-space limit (ulimit -v)");
    }
    m_window = static_cast<std::byte*>(window);
    const std::lock_guard lock(g_live_mutex);
    g_live.push_back(this);
}

GlobalMemory::~GlobalMemory() {
    {
        const std::lock_guard lock(g_live_mutex);
        g_live.erase(std::find(g_live.begin(), g_live.end(), this));
    }
    if (t_running == this) t_running = nullptr;
    ::munmap(m_window, m_window_bytes);
}

bool GlobalMemory::owns(const void* pointer) const {
    const auto* byte = static_cast<const std::byte*>(pointer);
    return byte >= m_window && byte < m_window + m_window_bytes;
}

GlobalMemory* GlobalMemory::owner_of(const void* pointer) {
    const std::lock_guard lock(g_live_mutex);
    for (GlobalMemory* gm : g_live) {
        if (gm->owns(pointer)) return gm;
    }
    return nullptr;
}

GlobalMemory* GlobalMemory::running() {
    return t_running;
}

GlobalMemory* GlobalMemory::implied() {
    if (t_running != nullptr) return t_running;
    const std::lock_guard lock(g_live_mutex);
    return g_live.empty() ? nullptr : g_live.back();
}

GlobalMemory::Running::Running(GlobalMemory& gm) : m_previous(t_running) {
    t_running = &gm;
}
GlobalMemory::Running::~Running() {
    t_running = m_previous;
}

std::uint64_t GlobalMemory::reserve(std::uint64_t bytes, std::uint64_t alignment,
                                    const std::string& name) {
    if (bytes == 0) throw UsageError("GM allocation '" + name + "': size must be > 0");
    // Compared before rounding: rounding the largest sizes up would wrap around to 0.
    const std::uint64_t start = round_up(m_next_free, alignment);
    const bool fits =
        bytes <= m_capacity && round_up(bytes, alignment) <= m_capacity && start <= m_capacity;
    const std::uint64_t rounded = fits ? round_up(bytes, alignment) : 0;
    if (!fits || start > m_capacity - rounded) {
        throw UsageError("GM allocation '" + name + "' of " + std::to_string(bytes) +
                         " bytes exceeds the remaining GM (" +
                         std::to_string(m_capacity - std::min(m_capacity, m_next_free)) + " of " +
                         std::to_string(m_capacity) + " bytes left)");
    }
    m_next_free = start + rounded;
    map_pages(start >> kPageBits, round_up(start + rounded, kPageBytes) >> kPageBits);
    return start;
}

void GlobalMemory::map_pages(std::uint64_t first_page, std::uint64_t end_page) {
    for (std::uint64_t page = first_page; page < end_page;) {
        if ((m_pages[page] & kMapped) != 0) {
            ++page;
            continue;
        }
        std::uint64_t end = page;
        while (end < end_page && (m_pages[end] & kMapped) == 0) m_pages[end++] |= kMapped;
        if (::mprotect(m_window + (page << kPageBits), (end - page) << kPageBits,
                       PROT_READ | PROT_WRITE) != 0) {
            throw UsageError("the host refused memory for GM pages " + std::to_string(page) + ".." +
                             std::to_string(end) + ": " + std::strerror(errno));
        }
        declare_fresh_mapping(m_window + (page << kPageBits), (end - page) << kPageBits);
        page = end;
    }
}

void GlobalMemory::mark_written(std::uint64_t first_page, std::uint64_t end_page) {
    for (std::uint64_t page = first_page; page < end_page; ++page) {
        if ((m_pages[page] & kWritten) != 0) continue;
        m_pages[page] |= kWritten;
        ++m_resident_pages;
    }
}

std::uint64_t GlobalMemory::allocate(std::uint64_t bytes, std::string name) {
    const std::uint64_t address = reserve(bytes, kAlignment, name);
    m_buffers.emplace(address, GmBuffer{address, bytes, std::move(name), false, false});
    return address;
}

std::uint64_t GlobalMemory::allocate_contiguous(std::uint64_t bytes, std::string name) {
    // Page-aligned and page-rounded: no other buffer shares its pages.
    const std::uint64_t address = reserve(bytes, kPageBytes, name);
    mark_written(address >> kPageBits, round_up(address + bytes, kPageBytes) >> kPageBits);
    m_contiguous.insert(address);
    m_buffers.emplace(address, GmBuffer{address, bytes, std::move(name), false, true});
    return address;
}

std::span<std::byte> GlobalMemory::contiguous_bytes(std::uint64_t address) {
    if (m_contiguous.count(address) == 0) {
        throw UsageError("GM address " + std::to_string(address) +
                         " is not the start of a live contiguous buffer");
    }
    return {m_window + address, m_buffers.at(address).bytes};
}

void GlobalMemory::free(std::uint64_t address) {
    const auto it = m_buffers.find(address);
    if (it == m_buffers.end() || it->second.freed) {
        throw UsageError("GM free of address " + std::to_string(address) +
                         ", which is not the start of a live buffer");
    }
    it->second.freed = true;
    release_pages(address, it->second.bytes);
    m_contiguous.erase(address);
}

const GmBuffer* GlobalMemory::find_buffer(std::uint64_t address) const {
    auto it = m_buffers.upper_bound(address);
    if (it == m_buffers.begin()) return nullptr;
    --it;
    const GmBuffer& buffer = it->second;
    return address < buffer.address + round_up(buffer.bytes, kAlignment) ? &buffer : nullptr;
}

void GlobalMemory::read(std::uint64_t address, void* destination, std::uint64_t bytes) const {
    auto* out = static_cast<std::byte*>(destination);
    while (bytes > 0) {
        const std::uint64_t offset = address & (kPageBytes - 1);
        const std::uint64_t chunk = std::min(bytes, kPageBytes - offset);
        if ((m_pages[address >> kPageBits] & kMapped) != 0) {
            std::memcpy(out, m_window + address, chunk);
        } else {
            std::memset(out, 0, chunk);
        }
        out += chunk;
        address += chunk;
        bytes -= chunk;
    }
}

void GlobalMemory::prefetch(std::uint64_t address, std::uint64_t bytes) const {
    // Small copies from many cores interleave many short streams, which the host's
    // hardware prefetcher does not follow; longer copies stream well once started.
    constexpr std::uint64_t kLine = 64, kMostBytes = 256;
    if (!written(address >> kPageBits)) return;
    const std::uint64_t offset = address & (kPageBytes - 1);
    const std::uint64_t end = std::min({offset + bytes, offset + kMostBytes, kPageBytes});
    const std::byte* page = m_window + (address - offset);
    for (std::uint64_t at = offset; at < end; at = (at | (kLine - 1)) + 1) {
        __builtin_prefetch(page + at);
    }
}

void GlobalMemory::write(std::uint64_t address, const void* source, std::uint64_t bytes) {
    if (bytes == 0) return;
    const std::uint64_t first = address >> kPageBits;
    const std::uint64_t end = round_up(address + bytes, kPageBytes) >> kPageBits;
    map_pages(first, end);
    mark_written(first, end);
    std::memcpy(m_window + address, source, bytes);
}

void GlobalMemory::release_pages(std::uint64_t address, std::uint64_t bytes) {
    // Only pages wholly inside the buffer are dropped: a neighbour may share the edge pages.
    // A contiguous buffer owns its page-rounded pages.
    if (m_contiguous.count(address) != 0) bytes = round_up(bytes, kPageBytes);
    const std::uint64_t first = (address + kPageBytes - 1) >> kPageBits;
    const std::uint64_t last = (address + bytes) >> kPageBits;  // exclusive
    if (first >= last) return;
    // The pages stay mapped (a stale pointer reads zeros); their host memory is returned.
    ::madvise(m_window + (first << kPageBits), (last - first) << kPageBits, MADV_DONTNEED);
    for (std::uint64_t page = first; page < last; ++page) {
        if (!written(page)) continue;
        m_pages[page] &= static_cast<std::uint8_t>(~kWritten);
        --m_resident_pages;
    }
}

}  // namespace npusim
