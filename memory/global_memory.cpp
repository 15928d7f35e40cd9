#include "memory/global_memory.h"

#include <algorithm>
#include <cstring>

#include "base/errors.h"

namespace npusim {

GlobalMemory::GlobalMemory(std::uint64_t capacity_bytes)
    : m_capacity(capacity_bytes),
      m_chunks((capacity_bytes + (std::uint64_t{1} << kChunkBits) - 1) >> kChunkBits),
      m_next_free(kAlignment) {}

GlobalMemory::~GlobalMemory() = default;

std::uint64_t GlobalMemory::allocate(std::uint64_t bytes, std::string name) {
    if (bytes == 0) throw UsageError("GM allocation '" + name + "': size must be > 0");
    // Compared before rounding: rounding the largest sizes up would wrap around to 0.
    const bool fits =
        bytes <= m_capacity && (bytes + kAlignment - 1) / kAlignment * kAlignment <= m_capacity;
    const std::uint64_t rounded = fits ? (bytes + kAlignment - 1) / kAlignment * kAlignment : 0;
    if (!fits || m_next_free > m_capacity - rounded) {
        throw UsageError("GM allocation '" + name + "' of " + std::to_string(bytes) +
                         " bytes exceeds the remaining GM (" +
                         std::to_string(m_capacity - std::min(m_capacity, m_next_free)) + " of " +
                         std::to_string(m_capacity) + " bytes left)");
    }
    const std::uint64_t address = m_next_free;
    m_next_free += rounded;
    m_buffers.emplace(address, GmBuffer{address, bytes, std::move(name), false});
    return address;
}

void GlobalMemory::free(std::uint64_t address) {
    const auto it = m_buffers.find(address);
    if (it == m_buffers.end() || it->second.freed) {
        throw UsageError("GM free of address " + std::to_string(address) +
                         ", which is not the start of a live buffer");
    }
    it->second.freed = true;
    release_pages(address, it->second.bytes);
}

const GmBuffer* GlobalMemory::find_buffer(std::uint64_t address) const {
    auto it = m_buffers.upper_bound(address);
    if (it == m_buffers.begin()) return nullptr;
    --it;
    const GmBuffer& buffer = it->second;
    const std::uint64_t extent = (buffer.bytes + kAlignment - 1) / kAlignment * kAlignment;
    return address < buffer.address + extent ? &buffer : nullptr;
}

std::byte* GlobalMemory::page_for_write(std::uint64_t page_index) {
    PageTable& table = m_chunks[page_index / kPagesPerChunk];
    if (!table) table = std::make_unique<std::unique_ptr<std::byte[]>[]>(kPagesPerChunk);
    auto& page = table[page_index % kPagesPerChunk];
    if (!page) {
        page = std::make_unique<std::byte[]>(kPageBytes);  // value-initialised: zeros
        ++m_resident_pages;
    }
    return page.get();
}

const std::byte* GlobalMemory::page_for_read(std::uint64_t page_index) const {
    const PageTable& table = m_chunks[page_index / kPagesPerChunk];
    if (!table) return nullptr;
    return table[page_index % kPagesPerChunk].get();
}

void GlobalMemory::read(std::uint64_t address, void* destination, std::uint64_t bytes) const {
    auto* out = static_cast<std::byte*>(destination);
    while (bytes > 0) {
        const std::uint64_t offset = address & (kPageBytes - 1);
        const std::uint64_t chunk = std::min(bytes, kPageBytes - offset);
        if (const std::byte* page = page_for_read(address >> kPageBits)) {
            std::memcpy(out, page + offset, chunk);
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
    const std::byte* page = page_for_read(address >> kPageBits);
    if (page == nullptr) return;
    const std::uint64_t offset = address & (kPageBytes - 1);
    const std::uint64_t end = std::min({offset + bytes, offset + kMostBytes, kPageBytes});
    for (std::uint64_t at = offset; at < end; at = (at | (kLine - 1)) + 1) {
        __builtin_prefetch(page + at);
    }
}

void GlobalMemory::write(std::uint64_t address, const void* source, std::uint64_t bytes) {
    const auto* in = static_cast<const std::byte*>(source);
    while (bytes > 0) {
        const std::uint64_t offset = address & (kPageBytes - 1);
        const std::uint64_t chunk = std::min(bytes, kPageBytes - offset);
        std::memcpy(page_for_write(address >> kPageBits) + offset, in, chunk);
        in += chunk;
        address += chunk;
        bytes -= chunk;
    }
}

void GlobalMemory::release_pages(std::uint64_t address, std::uint64_t bytes) {
    // Only pages wholly inside the buffer are dropped: a neighbour may share the edge pages.
    const std::uint64_t first = (address + kPageBytes - 1) >> kPageBits;
    const std::uint64_t last = (address + bytes) >> kPageBits;  // exclusive
    for (std::uint64_t page = first; page < last; ++page) {
        PageTable& table = m_chunks[page / kPagesPerChunk];
        if (table && table[page % kPagesPerChunk]) {
            table[page % kPagesPerChunk].reset();
            --m_resident_pages;
        }
    }
}

}  // namespace npusim
