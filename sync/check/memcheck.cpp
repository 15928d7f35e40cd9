#include "sync/check/memcheck.h"

#include <algorithm>
#include <string>

namespace npusim::check {

MemCheck::MemCheck(const GlobalMemory& gm, FindingReporter& reporter, const CheckerOptions& options)
    : m_gm(gm), m_reporter(reporter), m_options(options) {}

// Out of line, so that check_bounds (every access, inline) stays small.
void MemCheck::check_gm(const Site& site, const MemAccess& a) {
    if (m_gm_buffers_seen != m_gm.buffers().size()) {
        m_recent_buffers.fill(nullptr);
        m_next_recent = 0;
        m_gm_buffers_seen = m_gm.buffers().size();
    }
    const GmBuffer* buffer = m_gm.find_buffer(a.address);
    if (buffer != nullptr) {  // replaces the oldest
        m_recent_buffers[m_next_recent] = buffer;
        m_next_recent = (m_next_recent + 1) % m_recent_buffers.size();
    }
    if (buffer == nullptr || a.address + a.bytes > buffer->address + buffer->bytes) {
        std::string what =
            buffer == nullptr
                ? "outside every allocated GM buffer"
                : std::to_string(a.address + a.bytes - buffer->address - buffer->bytes) +
                      " bytes past the end of buffer '" + buffer->name + "' (" +
                      std::to_string(buffer->bytes) + " bytes)";
        m_reporter.single(FindingKind::OutOfBounds, Severity::Error, a.space, site, a.write,
                          a.address, a.bytes,
                          std::string(a.write ? "write" : "read") + " of " +
                              std::to_string(a.bytes) + " bytes " + what,
                          "shrink the access or allocate a larger buffer");
    } else if (buffer->freed) {
        m_reporter.single(FindingKind::UseAfterFree, Severity::Error, a.space, site, a.write,
                          a.address, a.bytes,
                          "access to GM buffer '" + buffer->name + "' after it was freed",
                          "free the buffer only after the last kernel that uses it");
    }
}

void MemCheck::report_outside_local(const Site& site, const MemAccess& a) {
    m_reporter.single(
        FindingKind::OutOfBounds, Severity::Error, a.space, site, a.write, a.address, a.bytes,
        std::string(a.write ? "write" : "read") + " of " + std::to_string(a.bytes) + " bytes at " +
            std::string(to_string(a.space)) + "+" + std::to_string(a.address) +
            " is not inside one buffer this block allocated",
        "keep the access inside the tensor returned by alloc()");
}

void MemCheck::report_uninitialized(ShadowMemory& shadows, std::uint32_t kernel_id) {
    for (const auto& [sequence, u] : shadows.take_uninitialized(kernel_id)) {
        if (u.site.atomic) {  // an atomic copy-out combines with what GM holds
            m_reporter.single(FindingKind::UninitializedRead, Severity::Error, u.space, u.site,
                              true, u.lo, u.hi - u.lo,
                              "atomic copy-out onto " + std::string(to_string(u.space)) +
                                  " bytes that were never written (the atomic mode does not "
                                  "clear GM)",
                              "initialize the output first (host write or memset, or a "
                              "DataCopy of zeros ordered before the atomic copies)");
            continue;
        }
        m_reporter.single(
            FindingKind::UninitializedRead, Severity::Error, u.space, u.site, false, u.lo,
            u.hi - u.lo,
            "read of " + std::string(to_string(u.space)) + " bytes that were never written",
            "write them first (host write, DataCopy or a vector op) or read less");
    }
}

void MemCheck::report_leaks(std::vector<Finding>& out) const {
    for (const auto& [address, buffer] : m_gm.buffers()) {
        if (buffer.freed) continue;
        Finding f;
        f.kind = FindingKind::Leak;
        f.severity = Severity::Warning;
        f.space = MemSpace::GM;
        AccessSite s;
        s.space = MemSpace::GM;
        s.address = address;
        s.bytes = buffer.bytes;
        s.buffer = buffer.name;
        f.sites.push_back(s);
        f.message = "GM buffer '" + buffer.name + "' (" + std::to_string(buffer.bytes) +
                    " bytes) is never freed";
        f.fix = "free it (Simulator::free) after its last use";
        out.push_back(std::move(f));
    }
}

}  // namespace npusim::check
