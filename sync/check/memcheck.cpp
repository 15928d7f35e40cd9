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
        // No buffer starts below kAlignment: an access there went through a null pointer.
        const bool null_based = buffer == nullptr && a.address < GlobalMemory::kAlignment;
        if (null_based) {
            what = "at GM address " + std::to_string(a.address) +
                   ", next to the null address (a GlobalTensor never given its buffer?)";
        }
        m_reporter.single(FindingKind::OutOfBounds, Severity::Error, a.space, site, a.write,
                          a.address, a.bytes,
                          std::string(a.write ? "write" : "read") + " of " +
                              std::to_string(a.bytes) + " bytes " + what,
                          null_based ? "give the tensor its GM buffer (SetGlobalBuffer with the "
                                       "kernel's GM_ADDR argument) before the copy"
                                     : "shrink the access or allocate a larger buffer");
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

namespace {

// A whole-program warning about a GM buffer (no kernel, no instruction): its site names the
// buffer and the bytes concerned.
Finding buffer_warning(FindingKind kind, const GmBuffer& buffer, std::uint64_t bytes) {
    Finding f;
    f.kind = kind;
    f.severity = Severity::Warning;
    f.space = MemSpace::GM;
    AccessSite s;
    s.space = MemSpace::GM;
    s.address = buffer.address;
    s.bytes = bytes;
    s.buffer = buffer.name;
    f.sites.push_back(s);
    return f;
}

}  // namespace

void MemCheck::report_leaks(std::vector<Finding>& out) const {
    for (const auto& [address, buffer] : m_gm.buffers()) {
        if (buffer.freed) continue;
        Finding f = buffer_warning(FindingKind::Leak, buffer, buffer.bytes);
        f.message = "GM buffer '" + buffer.name + "' (" + std::to_string(buffer.bytes) +
                    " bytes) is never freed";
        f.fix = "free it after its last use (aclrtFree, Runtime::free or Simulator::free)";
        out.push_back(std::move(f));
    }
}

void MemCheck::add_used(std::uint64_t lo, std::uint64_t hi) {
    if (lo >= hi) return;
    auto it = m_used.upper_bound(lo);
    if (it != m_used.begin()) {
        const auto previous = std::prev(it);
        if (previous->second >= lo) {            // overlaps or adjoins the range before
            if (previous->second >= hi) return;  // already covered: the common case
            lo = previous->first;
            it = previous;
        }
    }
    while (it != m_used.end() && it->first <= hi) {
        hi = std::max(hi, it->second);
        it = m_used.erase(it);
    }
    m_used.emplace_hint(it, lo, hi);
}

std::uint64_t MemCheck::used_bytes(std::uint64_t lo, std::uint64_t hi) const {
    std::uint64_t used = 0;
    auto it = m_used.upper_bound(lo);
    if (it != m_used.begin()) --it;
    for (; it != m_used.end() && it->first < hi; ++it) {
        const std::uint64_t from = std::max(lo, it->first);
        const std::uint64_t to = std::min(hi, it->second);
        if (from < to) used += to - from;
    }
    return used;
}

void MemCheck::report_unused(std::vector<Finding>& out) const {
    for (const auto& [address, buffer] : m_gm.buffers()) {
        const std::uint64_t used = used_bytes(address, address + buffer.bytes);
        if (used == buffer.bytes) continue;
        const std::uint64_t unused = buffer.bytes - used;
        Finding f = buffer_warning(FindingKind::UnusedMemory, buffer, unused);
        f.message = std::to_string(unused) + " of the " + std::to_string(buffer.bytes) +
                    " bytes of GM buffer '" + buffer.name +
                    (used == 0 ? "' were never read or written (the whole buffer)"
                               : "' were never read or written");
        f.fix = used == 0 ? "remove the allocation, or use the buffer"
                          : "allocate only the " + std::to_string(used) +
                                " bytes the program uses (or use the rest)";
        out.push_back(std::move(f));
    }
}

}  // namespace npusim::check
