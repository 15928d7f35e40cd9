#include "sync/check/finding_reporter.h"

#include <tuple>

#include "base/launch_identity.h"
#include "base/pipe_table.h"

namespace npusim::check {

std::string short_pipe(Pipe pipe) {
    if (is_real_pipe(pipe)) return std::string(pipe_info(pipe).short_name);
    return std::string(to_string(pipe).substr(5));  // "PIPE_ALL" -> "ALL"
}

FindingReporter::FindingReporter(std::vector<Finding>& out, const GlobalMemory& gm,
                                 const CheckerOptions& options, const HostCalls& calls,
                                 KernelName kernel_name)
    : m_out(out),
      m_gm(gm),
      m_options(options),
      m_calls(calls),
      m_kernel_name(std::move(kernel_name)) {}

std::size_t FindingReporter::KeyHash::operator()(const Key& k) const {
    std::uint64_t h = k.kind_space_scope_pipes * 0x9E3779B97F4A7C15ULL;
    for (std::uint64_t v :
         {reinterpret_cast<std::uint64_t>(k.file_a), reinterpret_cast<std::uint64_t>(k.file_b),
          k.line_column_a, k.line_column_b, k.launches}) {
        h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    }
    return static_cast<std::size_t>(h);
}

// Deduplicated by (kind, space, scope, source-location pair, pipes): an inter-core race is
// never folded into an intra-core one of the same lines. Inter-stream and host races also by
// the pair of host calls: another pair of launches needs another event.
FindingReporter::Key FindingReporter::key_of(FindingKind kind, MemSpace space, RaceScope scope,
                                             const std::source_location& a,
                                             const std::source_location& b, Pipe pa, Pipe pb,
                                             std::uint64_t launches) {
    return {static_cast<std::uint64_t>(kind) | (static_cast<std::uint64_t>(space) << 8) |
                (static_cast<std::uint64_t>(scope) << 16) | (static_cast<std::uint64_t>(pa) << 24) |
                (static_cast<std::uint64_t>(pb) << 32),
            launches,
            a.file_name(),
            b.file_name(),
            (std::uint64_t{a.line()} << 32) | a.column(),
            (std::uint64_t{b.line()} << 32) | b.column()};
}

// Returns true when the instances were folded into an existing finding (the caller need not
// build one).
bool FindingReporter::fold(const Key& key, std::uint64_t instances) {
    if (!m_options.deduplicate) return false;
    const auto it = m_dedupe.find(key);
    if (it == m_dedupe.end()) return false;
    m_out[it->second].count += instances;
    return true;
}

void FindingReporter::add(const Key& key, Finding finding) {
    if (m_options.deduplicate) m_dedupe.emplace(key, m_out.size());
    m_out.push_back(std::move(finding));
}

AccessSite FindingReporter::site_of(const Site& s, bool write, MemSpace space,
                                    std::uint64_t address, std::uint64_t bytes) const {
    AccessSite a;
    a.kernel_id = s.kernel_id;
    a.kernel = s.kernel_id == kNoKernel ? std::string() : m_kernel_name(s.kernel_id);
    if (s.launch != 0) {
        const HostCall& l = m_calls[s.launch];
        a.origin = l.origin;
        a.call = l.call;
        a.call_site = l.where;
        a.stream = l.stream;
        a.stream_name = l.stream_name;
    }
    a.block = s.block;
    a.core_type = s.core_type;
    a.pipe = s.pipe;
    a.write = write;
    a.serial = s.serial;
    a.where = s.where;
    a.space = space;
    a.address = address;
    a.bytes = bytes;
    if (space == MemSpace::GM) {
        if (const GmBuffer* buffer = m_gm.find_buffer(address)) {
            a.buffer =
                buffer->name.empty() ? "gm@" + std::to_string(buffer->address) : buffer->name;
            a.offset = address - buffer->address;
        } else {
            a.buffer = "GM";
            a.offset = address;
        }
    } else {
        a.buffer = std::string(to_string(space));
        a.offset = address;
    }
    return a;
}

bool FindingReporter::comes_before(const Site& a, const Site& b) const {
    if (same_block(a, b)) return a.serial < b.serial;
    if (m_options.race_order == RaceOrder::Timing) return a.time < b.time;
    // Kernel ids of stream ops depend on when their streams reached them; the host program
    // order of their calls does not.
    const auto program = [this](const Site& s) {
        return s.launch != 0 ? std::pair(1, m_calls[s.launch].order)
                             : std::pair(0, std::uint64_t{s.kernel_id});
    };
    return std::tuple(program(a), static_cast<int>(a.core_type) ^ 1, a.block, a.serial) <
           std::tuple(program(b), static_cast<int>(b.core_type) ^ 1, b.block, b.serial);
}

void FindingReporter::race(const Site& first_seen, bool first_seen_write, const Site& second_seen,
                           bool second_seen_write, MemSpace space, std::uint64_t lo,
                           std::uint64_t hi, std::uint64_t instances) {
    const bool scalar_pair =
        space == MemSpace::GM && first_seen.pipe == Pipe::S && second_seen.pipe == Pipe::S &&
        first_seen_write != second_seen_write && !same_block(first_seen, second_seen) &&
        first_seen.kernel_id != kNoKernel && second_seen.kernel_id != kNoKernel;
    if (scalar_pair && m_deferred.size() < kMaxDeferred) {
        m_deferred.push_back({first_seen_write ? second_seen : first_seen,
                              first_seen_write ? first_seen : second_seen, !first_seen_write, lo,
                              hi, instances});
        return;
    }
    report_race(first_seen, first_seen_write, second_seen, second_seen_write, space, lo, hi,
                instances);
}

void FindingReporter::resolve(AgentId reader, const Site& writer, std::uint64_t lo,
                              std::uint64_t hi) {
    std::erase_if(m_deferred, [&](const DeferredRace& d) {
        return d.read.agent == reader && d.write.kernel_id == writer.kernel_id &&
               d.write.block == writer.block && d.write.core_type == writer.core_type &&
               d.lo < hi && lo < d.hi;
    });
}

void FindingReporter::flush_deferred(std::uint32_t kernel_id) {
    std::vector<DeferredRace> due;
    std::erase_if(m_deferred, [&](const DeferredRace& d) {
        const bool mine = d.read.kernel_id == kernel_id || d.write.kernel_id == kernel_id;
        if (mine) due.push_back(d);
        return mine;
    });
    for (const DeferredRace& d : due) {
        if (d.read_first) {
            report_race(d.read, false, d.write, true, MemSpace::GM, d.lo, d.hi, d.instances);
        } else {
            report_race(d.write, true, d.read, false, MemSpace::GM, d.lo, d.hi, d.instances);
        }
    }
}

void FindingReporter::report_race(const Site& first_seen, bool first_seen_write,
                                  const Site& second_seen, bool second_seen_write, MemSpace space,
                                  std::uint64_t lo, std::uint64_t hi, std::uint64_t instances) {
    // Unordered accesses have no "first" by synchronization: see comes_before.
    const bool swap = comes_before(second_seen, first_seen);
    const Site& prior = swap ? second_seen : first_seen;
    const Site& now = swap ? first_seen : second_seen;
    const bool prior_write = swap ? second_seen_write : first_seen_write;
    const bool now_write = swap ? first_seen_write : second_seen_write;
    const FindingKind kind = prior_write ? (now_write ? FindingKind::RaceWAW : FindingKind::RaceRAW)
                                         : FindingKind::RaceWAR;
    const bool block = same_block(prior, now);
    const bool same_unit = block && prior.pipe == now.pipe;
    RaceScope scope =
        same_unit ? RaceScope::IntraPipe : (block ? RaceScope::InterPipe : RaceScope::InterCore);
    std::uint64_t launches = 0;
    if (prior.launch != now.launch) {  // two host calls of a runtime program
        const auto host_thread = [this](const Site& s) {
            return s.launch != 0 && m_calls[s.launch].origin == AccessOrigin::HostThread;
        };
        scope = host_thread(prior) || host_thread(now) ? RaceScope::Host : RaceScope::InterStream;
        launches = (std::uint64_t{prior.launch} << 32) | now.launch;
    }
    const Key key =
        key_of(kind, space, scope, prior.where, now.where, prior.pipe, now.pipe, launches);
    if (fold(key, instances)) return;
    Finding f;
    f.kind = kind;
    f.severity = Severity::Error;
    f.space = space;
    f.scope = scope;
    f.count = instances;
    f.sites.push_back(site_of(prior, prior_write, space, lo, hi - lo));
    f.sites.push_back(site_of(now, now_write, space, lo, hi - lo));
    const std::string la = location_line(prior.where);
    const std::string lb = location_line(now.where);
    f.message = "Potential " + std::string(to_string(kind)) + " hazard (" +
                std::string(to_string(f.scope)) + ") at " + std::string(to_string(space));
    if (f.scope == RaceScope::IntraPipe) {
        f.fix = "PipeBarrier<" + std::string(to_string(now.pipe)) + ">() after " + la +
                " and before " + lb;
    } else if (f.scope == RaceScope::InterPipe) {
        const std::string pair = short_pipe(prior.pipe) + "_" + short_pipe(now.pipe);
        f.fix = "SetFlag<" + pair + "> after " + la + " and WaitFlag<" + pair + "> before " + lb;
    } else if (f.scope == RaceScope::InterStream || f.scope == RaceScope::Host) {
        f.fix = stream_fix(prior, now, f.scope);
    } else if (prior.kernel_id != now.kernel_id) {
        f.fix =
            "order the two kernels (an event recorded after the first and waited for "
            "before the second)";
    } else {
        f.fix = "SyncAll (or a cross-core flag set after " + la + " in block " +
                std::to_string(prior.block) + " and waited for before " + lb + " in block " +
                std::to_string(now.block) + ") between " + la + " and " + lb;
        if (space == MemSpace::GM && prior.pipe == Pipe::S && now.pipe == Pipe::S) {
            f.fix +=
                "; a flag polled in GM orders them only if the poll reads a store made "
                "visible (WriteGmByPassDCache, or DataCacheCleanAndInvalid of its line) "
                "after the writer's earlier scalar stores are done (DataSyncBarrier)";
        }
    }
    add(key, std::move(f));
}

// The event or synchronization that orders two host calls: the one queued first in host
// program order is recorded (or synchronized with), the other waits.
std::string FindingReporter::stream_fix(const Site& prior, const Site& now, RaceScope scope) const {
    if (prior.launch == 0 || now.launch == 0) {
        return "order the two (an event recorded after the first and waited for before the "
               "second, or a synchronize before the host's access)";
    }
    const HostCall* first = &m_calls[prior.launch];
    const HostCall* second = &m_calls[now.launch];
    if (second->order < first->order) std::swap(first, second);
    const auto call = [](const HostCall& l) { return l.call + " at " + l.where; };
    if (scope == RaceScope::Host) {
        const HostCall& device = first->origin == AccessOrigin::HostThread ? *second : *first;
        const HostCall& host = first->origin == AccessOrigin::HostThread ? *first : *second;
        return "synchronize " + stream_label(device.stream, device.stream_name) +
               " (synchronize_stream, or synchronize_event on an event recorded after " +
               call(device) + ") before " + call(host);
    }
    return "record an event on " + stream_label(first->stream, first->stream_name) + " after " +
           call(*first) + " and make " + stream_label(second->stream, second->stream_name) +
           " wait for it before " + call(*second);
}

void FindingReporter::single(FindingKind kind, Severity severity, MemSpace space, const Site& s,
                             bool write, std::uint64_t address, std::uint64_t bytes,
                             std::string message, std::string fix) {
    const Key key = key_of(kind, space, RaceScope::None, s.where, s.where, s.pipe, s.pipe);
    if (fold(key, 1)) return;
    Finding f;
    f.kind = kind;
    f.severity = severity;
    f.space = space;
    f.sites.push_back(site_of(s, write, space, address, bytes));
    f.message = std::move(message);
    f.fix = std::move(fix);
    add(key, std::move(f));
}

}  // namespace npusim::check
