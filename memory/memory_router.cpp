#include "memory/memory_router.h"

#include <cstring>

namespace npusim {

void MemoryRouter::read(const MemAccess& access, std::byte* out, std::uint64_t buffer_pitch) const {
    const std::uint64_t step = buffer_pitch == 0 ? access.bytes : buffer_pitch;
    for (std::uint32_t row = 0; row < access.rows; ++row) {
        std::byte* to = out + row * step;
        if (access.space == MemSpace::GM) {
            m_gm.read(access.row_address(row), to, access.bytes);
        } else {
            std::memcpy(to, m_local.data(access.space) + access.row_address(row), access.bytes);
        }
    }
}

void MemoryRouter::write(const MemAccess& access, const std::byte* in) {
    for (std::uint32_t row = 0; row < access.rows; ++row) {
        const std::byte* from = in + row * access.bytes;
        if (access.space == MemSpace::GM) {
            m_gm.write(access.row_address(row), from, access.bytes);
        } else {
            std::memcpy(m_local.data(access.space) + access.row_address(row), from, access.bytes);
        }
    }
}

}  // namespace npusim
