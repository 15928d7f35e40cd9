// Finding reporting and deduplication: turns a race or a single-site problem into a Finding
// with its message and fix, or folds it into an earlier finding of the same source lines.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "memory/global_memory.h"
#include "sync/check/checker.h"
#include "sync/check/findings.h"
#include "sync/check/host_calls.h"
#include "sync/check/site.h"

namespace npusim::check {

/// "MTE2" for Pipe::MTE2: the spelling of flag names (SetFlag<MTE2_V>).
std::string short_pipe(Pipe pipe);

class FindingReporter final {
public:
    /// The name of kernel `id` for reports ("?" if unknown).
    using KernelName = std::function<std::string(std::uint32_t id)>;

    FindingReporter(std::vector<Finding>& out, const GlobalMemory& gm,
                    const CheckerOptions& options, const HostCalls& calls, KernelName kernel_name);

    /// Which of two unordered accesses a report names first. Within a block: issue order
    /// (serial numbers, as the vendor's sanitizer does). Across blocks, RaceOrder::Timing: the
    /// order they took effect in this run; RaceOrder::Program: (kernel, core type with the AIC
    /// first, block, serial), the same whatever the timing, where "kernel" is the kernel id
    /// for Simulator::launch and the host program order of the call (HostCall::order) for a
    /// runtime program's kernels, copies, memsets and host accesses.
    bool comes_before(const Site& a, const Site& b) const;

    /// A race of two unordered accesses over [lo, hi), `instances` times; the order they were
    /// seen in does not matter (see comes_before).
    void race(const Site& first_seen, bool first_seen_write, const Site& second_seen,
              bool second_seen_write, MemSpace space, std::uint64_t lo, std::uint64_t hi,
              std::uint64_t instances = 1);

    /// A race of a scalar GM load and another block's scalar GM store waits (up to
    /// kMaxDeferred of them) until its kernel ends: a poll's reads race with the store it
    /// later observes, and that observation orders them (resolve). The rest are reported by
    /// flush_deferred, as race() would have.
    /// The reads of `reader` over [lo, hi) are ordered before the stores there of `writer`'s
    /// block (its kernel, block and core type; not its host call).
    void resolve(AgentId reader, const Site& writer, std::uint64_t lo, std::uint64_t hi);
    /// Reports the deferred races of kernel `kernel_id`.
    void flush_deferred(std::uint32_t kernel_id);

    /// Any other finding: one site.
    void single(FindingKind kind, Severity severity, MemSpace space, const Site& s, bool write,
                std::uint64_t address, std::uint64_t bytes, std::string message, std::string fix);

private:
    void report_race(const Site& first_seen, bool first_seen_write, const Site& second_seen,
                     bool second_seen_write, MemSpace space, std::uint64_t lo, std::uint64_t hi,
                     std::uint64_t instances);
    struct DeferredRace {
        Site read;
        Site write;
        bool read_first = false;  // the order race() saw them in
        std::uint64_t lo = 0, hi = 0;
        std::uint64_t instances = 0;
    };
    static constexpr std::size_t kMaxDeferred = 4096;
    std::vector<DeferredRace> m_deferred;
    struct Key {
        std::uint64_t kind_space_scope_pipes;
        std::uint64_t launches;  // inter-stream and host races: the two host calls
        const char* file_a;
        const char* file_b;
        std::uint64_t line_column_a;
        std::uint64_t line_column_b;
        bool operator==(const Key&) const = default;
    };
    struct KeyHash {
        std::size_t operator()(const Key& k) const;
    };
    static Key key_of(FindingKind kind, MemSpace space, RaceScope scope,
                      const std::source_location& a, const std::source_location& b, Pipe pa,
                      Pipe pb, std::uint64_t launches = 0);
    std::string stream_fix(const Site& prior, const Site& now, RaceScope scope) const;
    bool fold(const Key& key, std::uint64_t instances);
    void add(const Key& key, Finding finding);
    AccessSite site_of(const Site& s, bool write, MemSpace space, std::uint64_t address,
                       std::uint64_t bytes) const;

    std::vector<Finding>& m_out;
    const GlobalMemory& m_gm;
    const CheckerOptions& m_options;
    const HostCalls& m_calls;
    KernelName m_kernel_name;
    std::unordered_map<Key, std::size_t, KeyHash> m_dedupe;  // key -> index in m_out
};

}  // namespace npusim::check
