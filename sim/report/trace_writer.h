// Chrome trace-event JSON output (opens in Perfetto and chrome://tracing).
//
// Layout: one process per physical core ("aiv 3", "aic 0"; pid = core + 1, plus 1000 for
// cube cores), one thread per pipe (tid = pipe_t value + 1, named "PIPE_MTE2"), one complete
// slice per instruction, a flow arrow from each SetFlag to the WaitFlag that consumed it, and
// a "kernels" process (pid 999999) with one slice per kernel launch.
//
// Times are microseconds with exactly three decimals, i.e. whole nanoseconds, truncated:
// ns = floor(cycles * 1000 / clock_mhz) in integer arithmetic. Whole nanoseconds because
// Perfetto rounds ts and dur to ns independently and drops a complete slice that partially
// overlaps its predecessor: with sub-ns digits, two back-to-back 1-cycle instructions at
// 1800 MHz can round into an overlap and one of them disappears. With both endpoints on the
// ns grid (dur = end_ns - start_ns), slices that do not overlap in cycles never overlap in
// the trace. Exact cycle times are in the stats, not here.
//
// Example (a slice and its lane metadata, one event per line):
//   {"ph":"X","pid":1,"tid":5,"ts":0.555,"dur":4.551,"name":"DataCopy GM->UB",
//    "args":{"block":0,"serial":3,"bytes":8192,"loc":"add_custom.cpp:41:9"}}
//
// Contract: output is a pure function of the observed calls (byte-identical for identical
// input). The observer callbacks never throw; a write failure is remembered and reported
// by finish().
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/transaction.h"
#include "base/types.h"

namespace npusim {

/// `cycles` as microseconds with three decimals ("1.000" for 1800 cycles at 1800 MHz),
/// truncated to whole nanoseconds. Throws UsageError if clock_mhz is 0.
std::string format_trace_time(Cycle cycles, std::uint64_t clock_mhz);

class ChromeTraceWriter final : public TransactionObserver {
public:
    /// Throws UsageError("<path>: cannot open trace file for writing") if the file cannot be
    /// created, UsageError if clock_mhz is 0.
    ChromeTraceWriter(const std::filesystem::path& file, std::uint64_t clock_mhz);
    ~ChromeTraceWriter() override;  // calls finish(), swallowing any error

    ChromeTraceWriter(const ChromeTraceWriter&) = delete;
    ChromeTraceWriter& operator=(const ChromeTraceWriter&) = delete;

    void on_kernel_start(const KernelInfo& kernel, Cycle at) noexcept override;
    void on_transaction(const Transaction& tx) noexcept override;
    void on_kernel_end(const KernelInfo& kernel, Cycle at) noexcept override;
    /// A deadlocked run: a "BLOCKED" slice on the block's core (scalar lane) from its last
    /// instruction to the stop, with the reason and source line (args "blocked": true).
    void on_block_stuck(const StuckNote& note) noexcept override;

    /// Writes the closing part, flushes and closes the file: a run stopped part-way still
    /// leaves valid JSON. Idempotent; events after it are ignored. Throws
    /// UsageError("<path>: cannot write trace file[: <reason>]") if any write failed.
    void finish();

    /// Trace events emitted so far (slices, flow ends, metadata), not bytes.
    std::uint64_t events_written() const { return m_events; }

private:
    struct PendingSet {  // a SetFlag not yet matched to its WaitFlag
        std::uint32_t kernel_id;
        std::uint32_t block;
        std::uint64_t serial;
    };
    struct OpenKernel {
        std::uint32_t kernel_id;
        Cycle start;
    };

    void write_transaction(const Transaction& tx);
    void write_kernel(const KernelInfo& kernel, Cycle at);
    std::uint64_t flow_id_for_wait(const Transaction& tx);
    void append_flow(std::uint64_t id, bool out);
    std::uint64_t flow_number(std::uint64_t key, bool consume);
    std::unordered_map<std::uint64_t, std::uint64_t> m_flow_numbers;
    std::unordered_map<std::uint32_t, std::string> m_home_files;  // kernel id -> file name
    std::uint64_t m_next_flow_number = 0;
    void ensure_lane_metadata(std::uint32_t pid, CoreType type, std::uint32_t core, Pipe pipe);
    void begin_event();
    void append_time(Cycle cycles);
    void append_uint(std::uint64_t value);
    void append_escaped(std::string_view text);
    void append_location(std::uint32_t kernel_id, const std::source_location& where);
    void flush_if_large();
    void write_buffer();
    void fail_with_errno();  // remembers the first failure's reason (strerror)

    std::filesystem::path m_path;     // as given, for messages
    std::filesystem::path m_target;   // where it lands (a symlink resolved)
    std::filesystem::path m_partial;  // written until finish() renames it to m_target
    std::uint64_t m_clock_mhz;
    std::ofstream m_out;
    std::string m_buf;
    std::uint64_t m_events = 0;
    bool m_finished = false;
    bool m_failed = false;
    std::string m_reason;

    // Per (core type, core): bit 15 = process metadata written, bit p = lane of pipe p.
    std::vector<std::uint16_t> m_seen;
    // Unmatched SetFlags per (core, src pipe, dst pipe, event id), oldest first. Flags live
    // on the core, so a WaitFlag can consume a SetFlag of an earlier block; partner_serial
    // alone does not say which block, this does.
    std::unordered_map<std::uint64_t, std::vector<PendingSet>> m_pending_sets;
    std::vector<OpenKernel> m_open_kernels;
    std::vector<Cycle> m_kernel_lane_ends;  // per lane of the kernels process: last end
    std::vector<Cycle> m_core_last_end;     // per (core, type) slot: latest instruction end
};

}  // namespace npusim
