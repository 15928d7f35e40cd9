// Routes an instruction's memory accesses to the memory that holds them: GM (shared by the
// chip) or one of the core's local memories. Pure: no SystemC.
#pragma once

#include <cstddef>

#include "base/transaction.h"
#include "memory/global_memory.h"
#include "memory/local_memory.h"

namespace npusim {

class MemoryRouter final {
public:
    MemoryRouter(GlobalMemory& gm, LocalMemory& local) : m_gm(gm), m_local(local) {}

    /// Contract for read/write/local_bytes: the access was validated against the space's
    /// capacity (core/instruction_decoder.h) before it reaches here.
    /// A strided access's rows go to (come from) `out` / `in` packed, or `buffer_pitch` bytes
    /// apart when it is not 0.
    void read(const MemAccess& access, std::byte* out, std::uint64_t buffer_pitch = 0) const;
    void write(const MemAccess& access, const std::byte* in);
    /// Direct pointer to local bytes (compute reads its sources in place). Not for GM.
    std::byte* local_bytes(const MemAccess& access) const {
        return m_local.data(access.space) + access.address;
    }
    GlobalMemory& gm() const { return m_gm; }

private:
    GlobalMemory& m_gm;
    LocalMemory& m_local;
};

}  // namespace npusim
