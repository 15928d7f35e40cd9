#include "memory/global_memory.h"

#include <algorithm>
#include <cstring>

#include "base/errors.h"

namespace npusim {

GlobalMemory::GlobalMemory(std::uint64_t capacity_bytes)
    : m_capacity(capacity_bytes),
      m_chunks((capacity_bytes + (std::uint64_t{1} << kChunkBits) - 1) >> kChunkBits),
      m_next_free(kAlignment) {}

GlobalMemory::~GlobalMemory() {
    // Pages of contiguous buffers belong to their blocks: unmap them, then delete the rest.
    for (const auto& [address, block] : m_contiguous) {
        release_pages(address, m_buffers.at(address).bytes);
    }
    for (PageTable& table : m_chunks) {
        if (!table) continue;
        for (std::uint64_t i = 0; i < kPagesPerChunk; ++i) delete[] table[i];
    }
}

std::uint64_t GlobalMemory::reserve(std::uint64_t bytes, std::uint64_t alignment,
                                    const std::string& name) {
    if (bytes == 0) throw UsageError("GM allocation '" + name + "': size must be > 0");
    // Compared before rounding: rounding the largest sizes up would wrap around to 0.
    const std::uint64_t start = (m_next_free + alignment - 1) / alignment * alignment;
    const bool fits = bytes <= m_capacity &&
                      (bytes + alignment - 1) / alignment * alignment <= m_capacity &&
                      start <= m_capacity;
    const std::uint64_t rounded = fits ? (bytes + alignment - 1) / alignment * alignment : 0;
    if (!fits || start > m_capacity - rounded) {
        throw UsageError("GM allocation '" + name + "' of " + std::to_string(bytes) +
                         " bytes exceeds the remaining GM (" +
                         std::to_string(m_capacity - std::min(m_capacity, m_next_free)) + " of " +
                         std::to_string(m_capacity) + " bytes left)");
    }
    m_next_free = start + rounded;
    return start;
}

std::uint64_t GlobalMemory::allocate(std::uint64_t bytes, std::string name) {
    const std::uint64_t address = reserve(bytes, kAlignment, name);
    m_buffers.emplace(address, GmBuffer{address, bytes, std::move(name), false, false});
    return address;
}

std::uint64_t GlobalMemory::allocate_contiguous(std::uint64_t bytes, std::string name) {
    // Page-aligned and page-rounded: no other buffer shares its pages.
    const std::uint64_t address = reserve(bytes, kPageBytes, name);
    const std::uint64_t pages = (bytes + kPageBytes - 1) >> kPageBits;
    auto block = std::make_unique<std::byte[]>(pages * kPageBytes);  // zeros
    for (std::uint64_t i = 0; i < pages; ++i) {
        page_slot((address >> kPageBits) + i) = block.get() + i * kPageBytes;
    }
    m_resident_pages += pages;
    m_contiguous.emplace(address, std::move(block));
    m_buffers.emplace(address, GmBuffer{address, bytes, std::move(name), false, true});
    return address;
}

std::span<std::byte> GlobalMemory::contiguous_bytes(std::uint64_t address) {
    const auto it = m_contiguous.find(address);
    if (it == m_contiguous.end()) {
        throw UsageError("GM address " + std::to_string(address) +
                         " is not the start of a live contiguous buffer");
    }
    return {it->second.get(), m_buffers.at(address).bytes};
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
    const std::uint64_t extent = (buffer.bytes + kAlignment - 1) / kAlignment * kAlignment;
    return address < buffer.address + extent ? &buffer : nullptr;
}

std::byte*& GlobalMemory::page_slot(std::uint64_t page_index) {
    PageTable& table = m_chunks[page_index / kPagesPerChunk];
    if (!table) table = std::make_unique<std::byte*[]>(kPagesPerChunk);  // null pointers
    return table[page_index % kPagesPerChunk];
}

std::byte* GlobalMemory::page_for_write(std::uint64_t page_index) {
    std::byte*& page = page_slot(page_index);
    if (page == nullptr) {
        page = new std::byte[kPageBytes]();  // zeros; owned by the table (see the destructor)
        ++m_resident_pages;
    }
    return page;
}

const std::byte* GlobalMemory::page_for_read(std::uint64_t page_index) const {
    const PageTable& table = m_chunks[page_index / kPagesPerChunk];
    if (!table) return nullptr;
    return table[page_index % kPagesPerChunk];
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
    // A contiguous buffer owns its (page-rounded) pages through its block: unmap them only.
    const bool contiguous = m_contiguous.count(address) != 0;
    if (contiguous) bytes = (bytes + kPageBytes - 1) / kPageBytes * kPageBytes;
    const std::uint64_t first = (address + kPageBytes - 1) >> kPageBits;
    const std::uint64_t last = (address + bytes) >> kPageBits;  // exclusive
    for (std::uint64_t page = first; page < last; ++page) {
        PageTable& table = m_chunks[page / kPagesPerChunk];
        if (table && table[page % kPagesPerChunk] != nullptr) {
            if (!contiguous) delete[] table[page % kPagesPerChunk];
            table[page % kPagesPerChunk] = nullptr;
            --m_resident_pages;
        }
    }
}

}  // namespace npusim
