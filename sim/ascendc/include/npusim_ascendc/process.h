// The one simulator a sample program's process runs on (ACL host programs and the CPU-debug
// harness), with the checker attached and a report when the process is done.
//
// Environment:
//   NPUSIM_CHIP=<preset name or chip JSON file>   default "a2"
//   NPUSIM_TRACE=<file.json>                       write a Chrome trace of every run
//   NPUSIM_REPORT=<file.json>                      write the report as JSON too (for tools)
//   NPUSIM_AUTO_SYNC=0                             model code built with auto-sync off
//   NPUSIM_CHECK_UNUSED_MEMORY=1                   also report GM bytes never used (as the
//                                                  vendor sanitizer's --check-unused-memory)
// The report (run summary, findings) goes to stderr; finish() returns a non-zero exit status
// when a run did not complete or the checker found errors, so CI fails.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "base/chip_config.h"
#include "npusim_ascendc/context.h"
#include "sim/report/process_report.h"
#include "sim/report/trace_writer.h"
#include "sim/simulator.h"
#include "sync/check/check_report.h"
#include "sync/check/checker.h"
#include "tiling/platform/platform_ascendc.h"

namespace npusim::ascendc {

class Process {
public:
    static Process& get() {
        static Process process;
        return process;
    }
    Process(const Process&) = delete;
    Process& operator=(const Process&) = delete;

    Simulator& sim() { return *m_sim; }
    /// Launch options from the environment (NPUSIM_AUTO_SYNC).
    LaunchOptions launch_options() const { return launch_options_from_environment(); }
    /// Notes how a run ended (for the summary and the exit status).
    void note(const RunResult& result) {
        ++m_runs;
        m_last_end = result.end_cycle;
        if (!result.completed()) {
            m_failed = true;
            std::fprintf(stderr, "npusim: a run did not complete (deadlock or interrupted)\n");
            for (const StuckBlock& stuck : result.stuck) {
                std::fprintf(stderr, "npusim:   %s block %u: %s at %s\n", stuck.kernel.c_str(),
                             stuck.block, stuck.reason.c_str(), stuck.where.c_str());
            }
        }
    }
    void note_error(const std::string& message) {
        m_failed = true;
        std::fprintf(stderr, "npusim: %s\n", message.c_str());
    }
    /// Prints the report; the process's exit status.
    int finish(int program_status) {
        if (m_trace) {
            try {
                m_trace->finish();
            } catch (const Error& error) {
                note_error(error.what());
            }
        }
        // A program that stopped on an error never reached its frees: leaks would be noise.
        if (!m_failed) {
            m_checker->check_leaks();
            if (m_check_unused_memory) m_checker->check_unused_memory();
        }
        const std::vector<Finding>& findings = m_checker->findings();
        std::fprintf(stderr, "npusim: %llu run(s) on chip %s, last ended at cycle %llu\n",
                     static_cast<unsigned long long>(m_runs), m_sim->chip().name.c_str(),
                     static_cast<unsigned long long>(m_last_end));
        if (!findings.empty()) std::fprintf(stderr, "%s", format_findings(findings).c_str());
        std::fprintf(stderr, "npusim: %s\n", format_findings_summary(findings).c_str());
        write_json_report(findings, program_status);
        if (program_status != 0) return program_status;
        return m_failed || m_checker->has_errors() ? 1 : 0;
    }

private:
    /// NPUSIM_REPORT: the same report as JSON, schema "npusim-process-report/1".
    void write_json_report(const std::vector<Finding>& findings, int program_status) {
        const char* path = std::getenv("NPUSIM_REPORT");
        if (path == nullptr || *path == '\0') return;
        ProcessReport report;
        report.chip = m_sim->chip().name;
        report.runs = m_runs;
        report.last_end_cycle = m_last_end;
        report.runs_completed = !m_failed;
        report.program_status = program_status;
        std::ofstream out(path, std::ios::binary);
        out << process_report_json(report, findings);
        if (!out) {
            m_failed = true;
            std::fprintf(stderr, "npusim: cannot write the report to %s (NPUSIM_REPORT)\n", path);
        }
    }

    Process() {
        const char* chip = std::getenv("NPUSIM_CHIP");
        const std::string name = chip != nullptr && *chip != '\0' ? chip : "a2";
        ChipConfig config = name.find('/') != std::string::npos || name.ends_with(".json")
                                ? load_chip_config(name)
                                : builtin_chip_config(name);
        m_sim = std::make_unique<Simulator>(std::move(config));
        const char* unused = std::getenv("NPUSIM_CHECK_UNUSED_MEMORY");
        m_check_unused_memory = unused != nullptr && std::string(unused) == "1";
        CheckerOptions options;
        options.unused_memory = m_check_unused_memory;
        m_checker = std::make_unique<Checker>(m_sim->global_memory(), options);
        m_sim->attach(*m_checker);
        const char* trace = std::getenv("NPUSIM_TRACE");
        if (trace != nullptr && *trace != '\0') {
            m_trace = std::make_unique<ChromeTraceWriter>(trace, m_sim->chip().clock_mhz);
            m_sim->attach(*m_trace);
        }
    }

    std::unique_ptr<Simulator> m_sim;
    std::unique_ptr<Checker> m_checker;
    std::unique_ptr<ChromeTraceWriter> m_trace;
    std::uint64_t m_runs = 0;
    Cycle m_last_end = 0;
    bool m_failed = false;
    bool m_check_unused_memory = false;
};

/// Platform queries outside a host program answer for this process's chip
/// (tiling/platform/platform_ascendc.h).
inline const bool g_process_chip_registered = [] {
    g_process_chip = []() -> const ChipConfig& { return Process::get().sim().chip(); };
    return true;
}();

}  // namespace npusim::ascendc
