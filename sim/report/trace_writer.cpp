#include "sim/report/trace_writer.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstddef>
#include <cstring>
#include <string_view>
#include <system_error>

#include "base/errors.h"
#include "base/output_file.h"
#include "base/pipe_table.h"
#include "pipes/op_table.h"

namespace npusim {

namespace {

// Output is written in chunks of about this size: big enough that the ofstream sees few
// large writes, small enough that memory stays flat for a trace of any length.
constexpr std::size_t kFlushBytes = std::size_t{1} << 20;
constexpr std::size_t kBufferReserve = kFlushBytes + (std::size_t{64} << 10);

constexpr std::uint32_t kKernelsPid = 999999;
constexpr std::uint32_t kCubePidBase = 1000;
constexpr std::uint16_t kProcessSeenBit = std::uint16_t{1} << 15;
static_assert(kPipeSlots < 15, "pipe bits must not reach the process bit");

// An unpaired SetFlag is a kernel bug the checkers report; keeping only the newest few per
// flag key bounds memory when a kernel leaks thousands of them.
constexpr std::size_t kMaxPendingPerKey = 64;

void append_decimal(std::string& out, std::uint64_t value) {
    char digits[20];
    const auto result = std::to_chars(digits, digits + sizeof digits, value);
    out.append(digits, result.ptr);
}

std::uint64_t cycles_to_ns(Cycle cycles, std::uint64_t clock_mhz) {
    // Split so the multiplication cannot overflow for any realistic run length:
    // cycles * 1000 / mhz == q * 1000 + r * 1000 / mhz exactly, with r < mhz.
    const std::uint64_t q = cycles / clock_mhz;
    const std::uint64_t r = cycles % clock_mhz;
    return q * 1000 + r * 1000 / clock_mhz;
}

// Nanoseconds as microseconds with exactly three decimals: fixed width keeps the output
// independent of any floating-point formatting.
void append_ns_as_us(std::string& out, std::uint64_t ns) {
    append_decimal(out, ns / 1000);
    const auto frac = static_cast<unsigned>(ns % 1000);
    const char text[4] = {'.', static_cast<char>('0' + frac / 100),
                          static_cast<char>('0' + frac / 10 % 10),
                          static_cast<char>('0' + frac % 10)};
    out.append(text, sizeof text);
}

std::string_view pipe_short_name(Pipe pipe) {
    return is_real_pipe(pipe) ? pipe_info(pipe).short_name : "ALL";
}

// Lane order inside a core: the order data flows through an AI Core, not pipe_t order.
int lane_sort_index(Pipe pipe) {
    return is_real_pipe(pipe) ? pipe_info(pipe).lane : kAllPipesLane;
}

std::uint64_t splitmix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// Flow ids must be unique over the whole trace (Perfetto keeps every v1 flow id open) and
// below 2^53 (JavaScript viewers hold numbers as doubles). Packed when the fields fit, which
// is collision-free; otherwise a hash tagged with bit 52 so it never equals a packed id.
// `block` is the block index; AIC and AIV blocks of a mixed kernel share indices, so the
// core type is part of the id.
std::uint64_t flow_id(std::uint32_t kernel_id, std::uint32_t block, std::uint64_t set_serial,
                      CoreType type = CoreType::Vector) {
    block = block * 2 + (type == CoreType::Cube ? 1u : 0u);
    if (kernel_id < (1u << 8) && block < (1u << 14) && set_serial < (std::uint64_t{1} << 30)) {
        return (std::uint64_t{kernel_id} << 44) | (std::uint64_t{block} << 30) | set_serial;
    }
    const std::uint64_t h =
        splitmix64(splitmix64((std::uint64_t{kernel_id} << 32) | block) ^ set_serial);
    return (h & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1} << 52);
}

std::uint64_t flag_key(const Transaction& tx) {
    const std::uint64_t core_slot = std::uint64_t{tx.core} * 2 + (tx.core_type == CoreType::Cube);
    const std::uint64_t pipes =
        static_cast<std::uint64_t>(tx.flag_src) * 16 + static_cast<std::uint64_t>(tx.flag_dst);
    return (((core_slot << 8) | pipes) << 32) ^ tx.event_id;
}

void check_clock(std::uint64_t clock_mhz) {
    if (clock_mhz == 0) throw UsageError("trace writer: clock_mhz must be > 0, got 0");
}

}  // namespace

std::string format_trace_time(Cycle cycles, std::uint64_t clock_mhz) {
    check_clock(clock_mhz);
    std::string text;
    append_ns_as_us(text, cycles_to_ns(cycles, clock_mhz));
    return text;
}

ChromeTraceWriter::ChromeTraceWriter(const std::filesystem::path& file, std::uint64_t clock_mhz)
    : m_path(file), m_clock_mhz(clock_mhz) {
    check_clock(clock_mhz);
    // The output rule (base/output_file.h): streamed into a temporary file beside the
    // target, renamed over it by finish().
    m_target = checked_output_path(file, "trace");
    m_partial = m_target;
    m_partial += ".partial";
    m_out.open(m_partial, std::ios::binary | std::ios::trunc);
    if (!m_out.is_open()) {
        throw UsageError(file.string() + ": cannot open trace file for writing");
    }
    m_buf.reserve(kBufferReserve);
    m_buf += R"({"traceEvents":[)";
}

ChromeTraceWriter::~ChromeTraceWriter() {
    try {
        finish();
    } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor must not throw
    }
}

void ChromeTraceWriter::on_kernel_start(const KernelInfo& kernel, Cycle at) noexcept {
    if (m_finished || m_failed) return;
    try {
        m_open_kernels.push_back(OpenKernel{kernel.id, at});
    } catch (...) {
        m_failed = true;
    }
}

void ChromeTraceWriter::on_transaction(const Transaction& tx) noexcept {
    // A SyncAll's arrival record is drawn as part of the slice published at release.
    if ((tx.op == Op::SyncAll || tx.op == Op::SoftSyncAll) && tx.arrival) return;
    if (m_finished || m_failed) return;
    try {
        write_transaction(tx);
        flush_if_large();
    } catch (...) {  // out of memory: the simulation goes on, finish() reports it
        m_failed = true;
    }
}

void ChromeTraceWriter::on_kernel_end(const KernelInfo& kernel, Cycle at) noexcept {
    if (m_finished || m_failed) return;
    try {
        write_kernel(kernel, at);
        flush_if_large();
    } catch (...) {
        m_failed = true;
    }
}

void ChromeTraceWriter::finish() {
    if (m_finished) return;
    m_finished = true;
    try {
        m_buf +=
            "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"npusim\","
            "\"clock_mhz\":";
        append_uint(m_clock_mhz);
        m_buf += ",\"time_resolution_ns\":1}}\n";
        write_buffer();
        errno = 0;
        m_out.flush();
        if (!m_out) fail_with_errno();
        errno = 0;
        m_out.close();
        if (!m_out) fail_with_errno();
        std::error_code error;
        std::filesystem::rename(m_partial, m_target, error);
        if (error) {
            m_reason = error.message();
            m_failed = true;
        }
    } catch (...) {
        m_failed = true;
    }
    std::string().swap(m_buf);  // give the buffer back: the writer may outlive the run
    if (m_failed) {
        std::error_code ignored;
        std::filesystem::remove(m_partial, ignored);
        throw UsageError(m_path.string() + ": cannot write trace file" +
                         (m_reason.empty() ? std::string() : ": " + m_reason));
    }
}

void ChromeTraceWriter::fail_with_errno() {
    if (!m_failed && errno != 0) m_reason = std::strerror(errno);
    m_failed = true;
}

void ChromeTraceWriter::on_block_stuck(const StuckNote& note) noexcept {
    if (m_finished || m_failed) return;
    try {
        const std::uint32_t pid =
            (note.core_type == CoreType::Cube ? kCubePidBase : 0u) + note.core + 1u;
        ensure_lane_metadata(pid, note.core_type, note.core, Pipe::S);
        const std::size_t slot =
            std::size_t{note.core} * 2 + (note.core_type == CoreType::Cube ? 1 : 0);
        const Cycle since = std::min(
            note.stopped_at, slot < m_core_last_end.size() ? m_core_last_end[slot] : Cycle{0});
        // A block that blocked on the cycle the run stopped gets an instant marker (a slice
        // of zero length would not show).
        const bool instant = since == note.stopped_at;
        begin_event();
        m_buf += instant ? R"({"ph":"i","s":"t","cat":"deadlock","pid":)"
                         : R"({"ph":"X","cat":"deadlock","pid":)";
        append_uint(pid);
        m_buf += R"(,"tid":)";
        append_uint(static_cast<std::uint64_t>(Pipe::S) + 1);
        m_buf += R"(,"ts":)";
        append_time(since);
        if (!instant) {
            m_buf += R"(,"dur":)";
            append_ns_as_us(m_buf, cycles_to_ns(note.stopped_at, m_clock_mhz) -
                                       cycles_to_ns(since, m_clock_mhz));
        }
        m_buf += R"(,"name":"BLOCKED","args":{"blocked":true,"kernel":")";
        append_escaped(note.kernel);
        m_buf += R"(","block":)";
        append_uint(note.block);
        m_buf += R"(,"where":")";
        append_escaped(note.where);
        m_buf += R"(","reason":")";
        append_escaped(note.reason);
        m_buf += "\"}}";
        flush_if_large();
    } catch (...) {  // out of memory: finish() reports it
        m_failed = true;
    }
}

void ChromeTraceWriter::write_transaction(const Transaction& tx) {
    const std::uint32_t pid = (tx.core_type == CoreType::Cube ? kCubePidBase : 0u) + tx.core + 1u;
    ensure_lane_metadata(pid, tx.core_type, tx.core, tx.pipe);
    const std::size_t slot = std::size_t{tx.core} * 2 + (tx.core_type == CoreType::Cube ? 1 : 0);
    if (slot >= m_core_last_end.size()) m_core_last_end.resize(slot + 1, 0);
    // A synchronization primitive's own traffic (soft SyncAll polls) is part of the wait.
    if (!tx.internal) m_core_last_end[slot] = std::max(m_core_last_end[slot], tx.end);

    begin_event();
    m_buf += R"({"ph":"X","pid":)";
    append_uint(pid);
    m_buf += R"(,"tid":)";
    append_uint(static_cast<std::uint64_t>(tx.pipe) + 1);
    m_buf += R"(,"ts":)";
    append_time(tx.start);
    m_buf += R"(,"dur":)";
    const std::uint64_t start_ns = cycles_to_ns(tx.start, m_clock_mhz);
    const std::uint64_t end_ns = cycles_to_ns(std::max(tx.start, tx.pipe_free), m_clock_mhz);
    append_ns_as_us(m_buf, end_ns - start_ns);

    m_buf += R"(,"name":")";
    switch (tx.op) {
        case Op::Copy: {
            m_buf += to_string(tx.op);
            const MemAccess* read = nullptr;
            const MemAccess* written = nullptr;
            const int count = std::min<int>(tx.access_count, static_cast<int>(tx.accesses.size()));
            for (int i = 0; i < count; ++i) {
                const MemAccess& access = tx.accesses[static_cast<std::size_t>(i)];
                if (access.write && written == nullptr) written = &access;
                if (!access.write && read == nullptr) read = &access;
            }
            if (read != nullptr && written != nullptr) {
                m_buf += ' ';
                m_buf += to_string(read->space);
                m_buf += "->";
                m_buf += to_string(written->space);
            }
            break;
        }
        case Op::SetFlag:
        case Op::WaitFlag:
            m_buf += to_string(tx.op);
            m_buf += ' ';
            m_buf += pipe_short_name(tx.flag_src);
            m_buf += '_';
            m_buf += pipe_short_name(tx.flag_dst);
            m_buf += " #";
            append_uint(tx.event_id);
            break;
        case Op::PipeBarrier:
            m_buf += to_string(tx.op);
            m_buf += ' ';
            m_buf += pipe_short_name(tx.pipe);
            break;
        case Op::CrossCoreSetFlag:
            m_buf += "CrossCoreSetFlag m";
            append_uint(tx.mode);
            m_buf += " #";
            append_uint(tx.event_id);
            break;
        case Op::CrossCoreWaitFlag:
            m_buf += "CrossCoreWaitFlag #";
            append_uint(tx.event_id);
            break;
        default:
            m_buf += to_string(tx.op);
            break;
    }

    m_buf += R"(","args":{"block":)";
    append_uint(tx.block);
    m_buf += R"(,"serial":)";
    append_uint(tx.serial);
    // Synchronization the Ascend C layer inserted (its automatic synchronization).
    if (tx.inserted) m_buf += R"(,"inserted":true)";
    if (tx.atomic != AtomicOp::None) {  // atomic copy-out: "atomic":"add"
        m_buf += R"(,"atomic":")";
        m_buf += to_string(tx.atomic);
        m_buf += '"';
    }
    std::uint64_t bytes = 0;
    for (std::size_t i = 0; i < std::min<std::size_t>(tx.access_count, tx.accesses.size()); ++i) {
        bytes += tx.accesses[i].total_bytes();
    }
    if (bytes != 0) {
        m_buf += R"(,"bytes":)";
        append_uint(bytes);
    }
    append_location(tx.kernel_id, tx.where);
    m_buf += '}';

    // Flow arrows (trace-event flow v2): the SetFlag slice starts a flow, the WaitFlag that
    // consumed it ends it, bound by id. Attributes on the slices themselves instead of
    // separate "s"/"f" events keep flag-heavy traces about a third smaller.
    if (tx.op == Op::SetFlag) {
        std::vector<PendingSet>& pending = m_pending_sets[flag_key(tx)];
        if (pending.size() >= kMaxPendingPerKey) pending.erase(pending.begin());
        pending.push_back(PendingSet{tx.kernel_id, tx.block, tx.serial});
        append_flow(flow_number(flow_id(tx.kernel_id, tx.block, tx.serial, tx.core_type), false),
                    true);
    } else if (tx.op == Op::CrossCoreSetFlag) {
        append_flow(flow_number(flow_id(tx.kernel_id, tx.block, tx.serial, tx.core_type), false),
                    true);
    } else if (tx.op == Op::CrossCoreWaitFlag && tx.partner_serial != 0) {
        // A 1:2 set consumed by two AIVs shows one arrow per AIV; a mode 0/1 round shows the
        // arrow from its last setter.
        append_flow(flow_number(flow_id(tx.kernel_id, tx.partner_block, tx.partner_serial,
                                        tx.partner_core_type),
                                false),
                    false);
    } else if (tx.op == Op::WaitFlag && tx.partner_serial != 0) {
        append_flow(flow_number(flow_id_for_wait(tx), true), false);
    }
    m_buf += '}';
}

// Flow ids in the file are small sequential numbers (shorter than the packed keys): the key
// of a SetFlag maps to its number until the WaitFlag that consumes it (cross-core sets can
// have two consumers and stay mapped).
std::uint64_t ChromeTraceWriter::flow_number(std::uint64_t key, bool consume) {
    const auto it = m_flow_numbers.find(key);
    if (it == m_flow_numbers.end()) {
        const std::uint64_t number = ++m_next_flow_number;
        if (!consume) m_flow_numbers.emplace(key, number);
        return number;
    }
    const std::uint64_t number = it->second;
    if (consume) m_flow_numbers.erase(it);
    return number;
}

void ChromeTraceWriter::append_flow(std::uint64_t id, bool out) {
    m_buf += R"(,"bind_id":)";
    append_uint(id);
    m_buf += out ? R"(,"flow_out":true)" : R"(,"flow_in":true)";
}

std::uint64_t ChromeTraceWriter::flow_id_for_wait(const Transaction& tx) {
    const auto it = m_pending_sets.find(flag_key(tx));
    if (it != m_pending_sets.end()) {
        std::vector<PendingSet>& pending = it->second;
        // Prefer the SetFlag of the waiting block; fall back to the oldest one with that
        // serial, which is how a flag left over from an earlier block on the core is used.
        auto match = std::find_if(pending.begin(), pending.end(), [&](const PendingSet& set) {
            return set.serial == tx.partner_serial && set.block == tx.block &&
                   set.kernel_id == tx.kernel_id;
        });
        if (match == pending.end()) {
            match = std::find_if(pending.begin(), pending.end(), [&](const PendingSet& set) {
                return set.serial == tx.partner_serial;
            });
        }
        if (match != pending.end()) {
            const std::uint64_t id =
                flow_id(match->kernel_id, match->block, match->serial, tx.core_type);
            pending.erase(match);
            return id;
        }
    }
    return flow_id(tx.kernel_id, tx.block, tx.partner_serial, tx.core_type);
}

void ChromeTraceWriter::write_kernel(const KernelInfo& kernel, Cycle at) {
    Cycle start = at;
    const auto open = std::find_if(m_open_kernels.begin(), m_open_kernels.end(),
                                   [&](const OpenKernel& k) { return k.kernel_id == kernel.id; });
    if (open != m_open_kernels.end()) {
        start = std::min(open->start, at);
        m_open_kernels.erase(open);
    }

    if (m_kernel_lane_ends.empty()) {
        begin_event();
        m_buf += R"({"ph":"M","pid":999999,"name":"process_name","args":{"name":"kernels"}})";
        begin_event();
        m_buf += R"({"ph":"M","pid":999999,"name":"process_sort_index","args":{"sort_index":0}})";
    }
    // Kernels on concurrent streams overlap in time, and viewers need the slices of one lane
    // to nest or be disjoint. Kernels arrive in end order, so a lane whose last kernel ended
    // by this one's start holds nothing that overlaps it.
    std::size_t lane = 0;
    while (lane < m_kernel_lane_ends.size() && m_kernel_lane_ends[lane] > start) ++lane;
    if (lane == m_kernel_lane_ends.size()) {
        m_kernel_lane_ends.push_back(at);
        begin_event();
        m_buf += R"({"ph":"M","pid":999999,"tid":)";
        append_uint(lane + 1);
        m_buf += R"(,"name":"thread_name","args":{"name":"kernels)";
        if (lane > 0) {
            m_buf += ' ';
            append_uint(lane + 1);
        }
        m_buf += R"("}})";
        begin_event();
        m_buf += R"({"ph":"M","pid":999999,"tid":)";
        append_uint(lane + 1);
        m_buf += R"(,"name":"thread_sort_index","args":{"sort_index":)";
        append_uint(lane);
        m_buf += "}}";
    } else {
        m_kernel_lane_ends[lane] = at;
    }

    begin_event();
    m_buf += R"({"ph":"X","pid":999999,"tid":)";
    append_uint(lane + 1);
    m_buf += R"(,"ts":)";
    append_time(start);
    m_buf += R"(,"dur":)";
    append_ns_as_us(m_buf, cycles_to_ns(at, m_clock_mhz) - cycles_to_ns(start, m_clock_mhz));
    m_buf += R"(,"name":")";
    append_escaped(kernel.name.empty() ? std::string_view("kernel")
                                       : std::string_view(kernel.name));
    m_buf += R"(","args":{"kernel":)";
    append_uint(kernel.id);
    m_buf += R"(,"blocks":)";
    append_uint(kernel.blocks);
    m_buf += R"(,"type":")";
    m_buf += to_string(kernel.type);
    if (const auto home = m_home_files.find(kernel.id); home != m_home_files.end()) {
        m_buf += R"(","file":")";  // slices whose "loc" is only line:column are in this file
        append_escaped(home->second);
    }
    m_buf += "\"}}";
}

void ChromeTraceWriter::ensure_lane_metadata(std::uint32_t pid, CoreType type, std::uint32_t core,
                                             Pipe pipe) {
    const std::size_t slot = std::size_t{core} * 2 + (type == CoreType::Cube ? 1 : 0);
    if (slot >= m_seen.size()) m_seen.resize(slot + 1, 0);
    std::uint16_t& seen = m_seen[slot];

    if ((seen & kProcessSeenBit) == 0) {
        seen |= kProcessSeenBit;
        begin_event();
        m_buf += R"({"ph":"M","pid":)";
        append_uint(pid);
        m_buf += R"(,"name":"process_name","args":{"name":")";
        m_buf += to_string(type);
        m_buf += ' ';
        append_uint(core);
        m_buf += R"("}})";
        // pid order is the wanted order: vector cores (1..) before cube cores (1001..).
        begin_event();
        m_buf += R"({"ph":"M","pid":)";
        append_uint(pid);
        m_buf += R"(,"name":"process_sort_index","args":{"sort_index":)";
        append_uint(pid);
        m_buf += "}}";
    }

    const auto pipe_bit = static_cast<std::uint16_t>(1u << static_cast<unsigned>(pipe));
    if ((seen & pipe_bit) == 0) {
        seen |= pipe_bit;
        const std::uint64_t tid = static_cast<std::uint64_t>(pipe) + 1;
        begin_event();
        m_buf += R"({"ph":"M","pid":)";
        append_uint(pid);
        m_buf += R"(,"tid":)";
        append_uint(tid);
        m_buf += R"(,"name":"thread_name","args":{"name":")";
        m_buf += to_string(pipe);
        m_buf += R"("}})";
        begin_event();
        m_buf += R"({"ph":"M","pid":)";
        append_uint(pid);
        m_buf += R"(,"tid":)";
        append_uint(tid);
        m_buf += R"(,"name":"thread_sort_index","args":{"sort_index":)";
        append_uint(static_cast<std::uint64_t>(lane_sort_index(pipe)));
        m_buf += "}}";
    }
}

// One event per line: the file stays greppable and diffable at one byte per event.
void ChromeTraceWriter::begin_event() {
    m_buf += m_events == 0 ? "\n" : ",\n";
    ++m_events;
}

void ChromeTraceWriter::append_time(Cycle cycles) {
    append_ns_as_us(m_buf, cycles_to_ns(cycles, m_clock_mhz));
}

void ChromeTraceWriter::append_uint(std::uint64_t value) {
    append_decimal(m_buf, value);
}

void ChromeTraceWriter::append_escaped(std::string_view text) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::size_t run = 0;  // start of the pending stretch that needs no escaping
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        // DEL is legal JSON but some trace importers reject every control character.
        if (c != '"' && c != '\\' && c >= 0x20 && c != 0x7f) continue;
        m_buf.append(text.data() + run, i - run);
        run = i + 1;
        if (c == '"' || c == '\\') {
            m_buf += '\\';
            m_buf += static_cast<char>(c);
        } else {
            const char escape[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xf]};
            m_buf.append(escape, sizeof escape);
        }
    }
    m_buf.append(text.data() + run, text.size() - run);
}

// Same text as format_location(), built in place so a slice costs no allocation.
void ChromeTraceWriter::append_location(std::uint32_t kernel_id,
                                        const std::source_location& where) {
    const char* file_name = where.file_name();
    std::string_view file = file_name == nullptr ? std::string_view() : std::string_view(file_name);
    if (file.empty()) return;  // hand-made transaction without a source line
    file = location_file(file);
    if (where.line() == 0) {  // a synthetic location (a JSON kernel's op): its name alone
        m_buf += R"(,"loc":")";
        append_escaped(file);
        m_buf += '"';
        return;
    }
    // Most calls of a kernel come from one file (its "home file", the first one seen, named
    // in the kernel's slice): those slices say only "line:column", which keeps traces small.
    const auto [home, first] = m_home_files.try_emplace(kernel_id, file);
    m_buf += R"(,"loc":")";
    if (!first && home->second == file) {
        append_uint(where.line());
        m_buf += ':';
        append_uint(where.column());
        m_buf += '"';
        return;
    }
    append_escaped(file);
    m_buf += ':';
    append_uint(where.line());
    m_buf += ':';
    append_uint(where.column());
    m_buf += '"';
}

void ChromeTraceWriter::flush_if_large() {
    if (m_buf.size() >= kFlushBytes) write_buffer();
}

void ChromeTraceWriter::write_buffer() {
    if (!m_failed && !m_buf.empty()) {
        errno = 0;
        m_out.write(m_buf.data(), static_cast<std::streamsize>(m_buf.size()));
        if (!m_out) fail_with_errno();
    }
    m_buf.clear();  // keeps the capacity: no reallocation for the next chunk
}

}  // namespace npusim
