#include "memory/memory_router.h"

#include <cstring>

namespace npusim {

void MemoryRouter::read(const MemAccess& access, std::byte* out) const {
    if (access.space == MemSpace::GM) {
        m_gm.read(access.address, out, access.bytes);
    } else {
        std::memcpy(out, local_bytes(access), access.bytes);
    }
}

void MemoryRouter::write(const MemAccess& access, const std::byte* in) {
    if (access.space == MemSpace::GM) {
        m_gm.write(access.address, in, access.bytes);
    } else {
        std::memcpy(local_bytes(access), in, access.bytes);
    }
}

}  // namespace npusim
