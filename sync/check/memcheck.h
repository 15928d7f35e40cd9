// memcheck and initcheck reports: accesses outside their GM buffer or the local buffers a
// block allocated, use after free, leaks, and reads of never-written bytes (the candidates
// the shadow memory collected, decided at kernel end).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "base/transaction.h"
#include "memory/global_memory.h"
#include "sync/check/agents.h"
#include "sync/check/checker.h"
#include "sync/check/finding_reporter.h"
#include "sync/check/shadow_memory.h"
#include "sync/check/site.h"

namespace npusim::check {

class MemCheck final {
public:
    MemCheck(const GlobalMemory& gm, FindingReporter& reporter, const CheckerOptions& options);

    /// Bounds and use-after-free of one access of block `b`.
    /// Inlined into the checker's per-access path (a call there costs as much as the check).
    [[gnu::always_inline]] void check_bounds(const BlockState& b, const Site& site,
                                             const MemAccess& a) {
        if (!m_options.memcheck) return;
        if (a.space == MemSpace::GM) {
            note_use(a.address, a.bytes);
            if (!in_recent_buffer(a)) check_gm(site, a);
            return;
        }
        // None allocated: the block lays the space out by hand.
        if (!b.allocations.inside_one(a.space, a.address, a.bytes) && b.allocations.any(a.space))
            report_outside_local(site, a);
    }

    /// initcheck at kernel end: reports the kernel's reads of never-written bytes.
    void report_uninitialized(ShadowMemory& shadows, std::uint32_t kernel_id);

    /// One leak warning per GM buffer still live, appended to `out` (never deduplicated).
    void report_leaks(std::vector<Finding>& out) const;

    /// GM bytes [address, address + bytes) were accessed (with CheckerOptions::unused_memory;
    /// otherwise nothing is recorded).
    void note_use(std::uint64_t address, std::uint64_t bytes) {
        if (m_options.unused_memory && m_options.memcheck) add_used(address, address + bytes);
    }
    /// One unused-memory warning per GM buffer (live or freed: GM addresses are never reused)
    /// with bytes note_use never covered, appended to `out`.
    void report_unused(std::vector<Finding>& out) const;

private:
    [[gnu::noinline]] void check_gm(const Site& site, const MemAccess& a);
    [[gnu::noinline]] void report_outside_local(const Site& site, const MemAccess& a);
    void add_used(std::uint64_t lo, std::uint64_t hi);
    std::uint64_t used_bytes(std::uint64_t lo, std::uint64_t hi) const;

    const GlobalMemory& m_gm;
    FindingReporter& m_reporter;
    const CheckerOptions& m_options;
    // Most accesses fall in one of the few buffers the latest ones did (a kernel's operands).
    // Valid while the buffer list has not changed size.
    bool in_recent_buffer(const MemAccess& a) const {
        if (m_gm_buffers_seen != m_gm.buffers().size()) return false;
        for (const GmBuffer* recent : m_recent_buffers) {
            if (recent != nullptr && !recent->freed && a.address >= recent->address &&
                a.address + a.bytes <= recent->address + recent->bytes)
                return true;
        }
        return false;
    }
    std::array<const GmBuffer*, 4> m_recent_buffers{};
    std::size_t m_next_recent = 0;  // the oldest, replaced next
    std::size_t m_gm_buffers_seen = 0;
    std::map<std::uint64_t, std::uint64_t> m_used;  // GM [lo, hi) accessed: disjoint, merged
};

}  // namespace npusim::check
