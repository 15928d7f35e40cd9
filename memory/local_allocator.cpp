#include "memory/local_allocator.h"

#include "base/memory_spaces.h"

namespace npusim {

LocalAllocator::Result LocalAllocator::allocate(MemSpace space, std::uint64_t bytes,
                                                CoreType core_type) {
    const auto index = static_cast<std::size_t>(space);
    const std::uint64_t capacity = m_capacity[index];
    const std::string name(to_string(space));
    if (space == MemSpace::GM)
        return {0, "alloc() is for local memories; GM buffers come from the host"};
    if (capacity == 0)
        return {0, name + " does not exist on an " + std::string(to_string(core_type)) + " core"};
    const std::uint64_t align = mem_space_info(space).alignment;
    std::uint64_t& top = m_top[index];
    const std::uint64_t left = capacity - top;
    // Compared before rounding so that a huge request cannot wrap around.
    if (bytes == 0 || bytes > left || (bytes + align - 1) / align * align > left) {
        return {0, "cannot allocate " + std::to_string(bytes) + " bytes in " + name + ": " +
                       std::to_string(left) + " of " + std::to_string(capacity) + " bytes left"};
    }
    const std::uint64_t address = top;
    top += (bytes + align - 1) / align * align;
    return {address, {}};
}

}  // namespace npusim
