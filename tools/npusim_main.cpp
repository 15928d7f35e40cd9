// npusim command line: a thin layer over the library. It parses arguments, calls the
// library, prints, and maps outcomes to exit codes (kExitCodes, shown by --help):
//   0    ran to completion, the output checked out, and the checker found no error; for a
//        scenario with "expect": every expectation held
//   1    the simulated program is wrong: deadlock, wrong output, a kernel rule broken, a
//        checker error (race, unpaired flag, out-of-bounds, uninitialized read), a failed
//        host call; for a scenario with "expect": an expectation failed
//   2    bad input (unreadable or invalid scenario/chip file, bad arguments) or lost output
//        (a write error on standard output, --report or --trace)
//   3    internal error
//   130  SIGINT, 143 SIGTERM: the run stopped early; partial results were printed
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string_view>
#include <unistd.h>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/errors.h"
#include "base/output_file.h"
#include "base/printable_text.h"
#include "sim/kernels/resource_estimate.h"
#include "sim/report/report.h"
#include "sim/report/scenario_report.h"
#include "sim/report/trace_writer.h"
#include "sim/scenario/scenario.h"
#include "sim/simulator.h"
#include "sim/study/schedule_exploration.h"
#include "sync/check/check_report.h"
#include "sync/check/checker.h"
#include "sync/check/finding_filter.h"
#include "sync/deadlock/deadlock_predictor.h"
#include "tools/npusim_sweep.h"

namespace {

constexpr const char* kOverview =
    "Each subcommand's --help lists its own exit codes: npusim run --help, npusim sweep\n"
    "--help, ... In short: 0 success, 1 the simulated program (or study) is wrong, 2 bad\n"
    "input or lost output, 3 internal error, 130/143 interrupted.\n";

constexpr const char* kListExitCodes =
    "Exit codes:\n"
    "  0    listed\n"
    "  2    bad arguments, or a chip file that cannot be read (the problems are named)\n";

constexpr const char* kValidateExitCodes =
    "Exit codes:\n"
    "  0    every file is a valid scenario\n"
    "  2    some file is not: every problem is printed with its file and JSON pointer\n";

constexpr const char* kRunExitCodes =
    "Exit codes:\n"
    "  0    the run completed, its output checked out, the checker found no error; for a\n"
    "       scenario with an \"expect\" block: every expectation held\n"
    "  1    the simulated program is wrong: deadlock, wrong output, a kernel rule broken,\n"
    "       a checker error (race, unpaired flag, out-of-bounds, uninitialized read) or a\n"
    "       failed host call; with \"expect\": an expectation failed (each is named)\n"
    "       With --schedules: 1 when any schedule deadlocked or failed (with \"expect\":\n"
    "       when the expected outcome did not come)\n"
    "  2    bad input (arguments, scenario, chip or suppressions file) or lost output (a\n"
    "       write error on standard output, --report, --trace or --log-file, or one of them\n"
    "       naming a folder or a device; the message names it)\n"
    "  3    internal error in npusim\n"
    "  130  interrupted by SIGINT (Ctrl-C), 143 by SIGTERM: the run stops at its next safe\n"
    "       point, the trace is closed as valid JSON, and the partial summary and the checker\n"
    "       findings so far are printed marked interrupted. A second signal ends at once.\n"
    "\n"
    "Progress: on a terminal, a run longer than 2 s shows simulated cycles, instructions,\n"
    "instructions per second and elapsed time on stderr (--quiet turns it off).\n"
    "Limits: blocks 1..65535; kernel and chip parameter ranges: 'npusim kernels', 'npusim\n"
    "params'. A trace takes about 150 bytes per instruction (1.4 GB for 10 million).\n";

struct RunFlags {
    std::string trace_path;
    std::string report_path;
    std::vector<npusim::ScenarioOverride> overrides;  // --set
    std::string dump_dir;                             // --dump
    npusim::BufferFileFormat dump_format = npusim::BufferFileFormat::Npy;
    bool check = true;
    bool quiet = false;
    npusim::CheckerOptions checker;
    npusim::FindingFilter filter;  // --kernel, --block, --suppressions
    std::size_t print_limit = 0;   // --print-limit: findings printed (0: all)
    std::string log_file;          // --log-file: the checker's findings go there
    bool vendor_layout = false;    // --findings-format vendor
    std::uint64_t max_memory = 0;  // --max-memory in bytes; 0: only the host's own limit
    // Deadlock checker (docs/deadlocks.md)
    std::uint32_t schedules = 0;           // --schedules N: explore N seeded schedules
    std::optional<std::uint64_t> seed;     // --seed S: the (first) schedule's seed
    std::uint32_t jobs = 1;                // -j N: worker processes for --schedules
    npusim::Cycle max_cycles = 0;          // --max-cycles: simulated-time watchdog
    npusim::Cycle no_progress_cycles = 0;  // --no-progress-cycles (0: the default)
    // --launch-rows N / --all-launches: the report's per-launch rows (the scenario's
    // /runtime/launch_rows otherwise)
    std::optional<std::uint64_t> launch_rows;
    bool all_launches = false;
};

std::string errno_reason() {
    return errno != 0 ? std::string(": ") + std::strerror(errno) : std::string();
}

void write_report(const std::string& path, const nlohmann::json& report) {
    npusim::write_output_file(path, report.dump(2) + "\n", "report");
}

// ---- run control: a signal stops the simulation at a safe point ------------------------
std::atomic<bool> g_stop{false};
volatile std::sig_atomic_t g_signal = 0;

void on_stop_signal(int signal) {
    g_signal = signal;
    g_stop.store(true, std::memory_order_relaxed);
}

/// SIGINT and SIGTERM only set a flag the simulator polls (SimOptions::stop_flag); the
/// handler then reverts to the default, so a second signal ends the process at once. A
/// signal ignored at start (nohup, a background job of a script) stays ignored.
void install_stop_handlers() {
    for (int signal : {SIGINT, SIGTERM}) {
        struct sigaction old {};
        if (sigaction(signal, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        struct sigaction action {};
        action.sa_handler = on_stop_signal;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_RESETHAND | SA_RESTART;
        sigaction(signal, &action, nullptr);
    }
}

const char* signal_name(int signal) {
    return signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "a signal";
}

/// One stderr line redrawn in place while a long run goes on (only on a terminal).
class ProgressLine {
public:
    static constexpr double kShowAfterSeconds = 2.0;

    void update(const npusim::RunProgress& p) {
        if (p.host_seconds < kShowAfterSeconds) return;
        char line[200];
        const double rate = static_cast<double>(p.instructions) / p.host_seconds;
        const int n = std::snprintf(line, sizeof line,
                                    "\rnpusim: %llu cycles, %llu instructions, %.2f M instr/s, "
                                    "%.1f s elapsed (Ctrl-C stops)",
                                    static_cast<unsigned long long>(p.cycles),
                                    static_cast<unsigned long long>(p.instructions), rate / 1e6,
                                    p.host_seconds);
        if (n <= 0) return;
        const int width = std::min<int>(n, static_cast<int>(sizeof line) - 1);
        std::fprintf(stderr, "%s%*s", line, std::max(0, m_width - width), "");
        std::fflush(stderr);
        m_width = std::max(m_width, width);
    }
    /// Erases the line so the report starts on a clean terminal line.
    void clear() {
        if (m_width == 0) return;
        std::fprintf(stderr, "\r%*s\r", m_width, "");
        std::fflush(stderr);
        m_width = 0;
    }

private:
    int m_width = 0;  // characters of the widest line drawn, 0: nothing on screen
};

void apply_watchdogs(const RunFlags& flags, npusim::SimOptions& options) {
    options.max_cycles = flags.max_cycles;
    if (flags.no_progress_cycles > 0) options.deadlock_idle_cycles = flags.no_progress_cycles;
}

/// npusim run FILE --schedules N [--seed S] [-j N]: the scenario under N seeded schedules.
int explore_command(const std::string& file, const RunFlags& flags) {
    const npusim::Scenario scenario = npusim::load_scenario(file, flags.overrides);
    npusim::check_scenario_memory(scenario, false, flags.max_memory);
    npusim::SimOptions base;
    base.stop_flag = &g_stop;
    apply_watchdogs(flags, base);
    const auto run_one = [&scenario](const npusim::SimOptions& options) {
        npusim::DeadlockPredictor predictor(npusim::capacity_of(scenario.chip));
        npusim::Scenario scheduled = scenario;  // the schedule's placement, not the file's
        scheduled.runtime.placement = options.placement;
        scheduled.runtime.seed = options.placement_seed;
        npusim::ScenarioOutcome outcome =
            npusim::run_scenario(scheduled, {&predictor}, false, nullptr, {}, options);
        return npusim::ScheduleRun{std::move(outcome.kernel.run), predictor.warnings()};
    };
    const npusim::ExplorationResult result = npusim::explore_schedules(
        {flags.schedules, flags.seed.value_or(1), flags.jobs}, scenario.chip, run_one, base);
    std::cout << "scenario  " << npusim::printable(file, false) << "\n";
    std::cout << npusim::format_exploration(result);
    if (!flags.report_path.empty()) {
        nlohmann::json report = npusim::report_header(file, scenario.chip);
        report.update(npusim::to_json(result));
        write_report(flags.report_path, report);
    }
    if (g_signal != 0) return 128 + g_signal;
    if (result.failed > 0) return 1;
    // With "expect": a scenario expecting a deadlock passes when some schedule deadlocks, one
    // expecting completion when none does. Without it, any deadlock fails.
    if (scenario.expect.present && scenario.expect.outcome == npusim::RunOutcome::Deadlock) {
        return result.deadlocked > 0 ? 0 : 1;
    }
    return result.deadlocked == 0 ? 0 : 1;
}

/// The checker's part of the output: the findings (in the chosen layout, up to
/// --print-limit), what --kernel/--block left out and what was suppressed, the summary line.
/// With --log-file it goes to that file and standard output says where.
void emit_findings(const RunFlags& flags, const std::vector<npusim::Finding>& findings,
                   const npusim::FilteredFindings& filtered, bool interrupted) {
    std::string text;
    if (!findings.empty()) {
        text += "\n";
        text += flags.vendor_layout ? npusim::format_findings_vendor(findings, flags.print_limit)
                                    : npusim::format_findings(findings, flags.print_limit);
    }
    if (filtered.not_selected > 0) {
        text += "not selected (--kernel/--block): " + std::to_string(filtered.not_selected) +
                (filtered.not_selected == 1 ? " finding\n" : " findings\n");
    }
    const std::string suppressed = npusim::format_suppressed(filtered, flags.filter);
    if (!suppressed.empty()) text += suppressed + "\n";
    text += npusim::format_findings_summary(findings, interrupted) + "\n";
    if (flags.log_file.empty()) {
        std::cout << text;
        return;
    }
    npusim::write_output_file(flags.log_file, text, "checker log");
    std::cout << npusim::format_findings_summary(findings, interrupted) << " (written to "
              << npusim::printable(flags.log_file, false) << ")\n";
}

int run_command(const std::string& file, const RunFlags& flags) {
    install_stop_handlers();
    if (flags.schedules > 0) return explore_command(file, flags);
    npusim::Scenario scenario = npusim::load_scenario(file, flags.overrides);
    if (!flags.dump_dir.empty() && !scenario.host) {
        throw npusim::UsageError(file +
                                 ": --dump writes a host program's buffers; a single-kernel "
                                 "scenario has none (not supported yet)");
    }
    if (!flags.dump_dir.empty()) {  // fail before a long run, not after it
        std::error_code error;
        std::filesystem::create_directories(flags.dump_dir, error);
        if (error || !std::filesystem::is_directory(flags.dump_dir)) {
            throw npusim::UsageError(flags.dump_dir + ": cannot create the --dump folder" +
                                     (error ? ": " + error.message() : std::string()));
        }
    }
    if (!flags.report_path.empty()) npusim::checked_output_path(flags.report_path, "report");
    if (!flags.log_file.empty()) npusim::checked_output_path(flags.log_file, "checker log");
    npusim::check_scenario_memory(scenario, flags.check, flags.max_memory);  // before allocating
    std::unique_ptr<npusim::ChromeTraceWriter> trace;
    std::vector<npusim::TransactionObserver*> observers;
    if (!flags.trace_path.empty()) {
        trace =
            std::make_unique<npusim::ChromeTraceWriter>(flags.trace_path, scenario.chip.clock_mhz);
        observers.push_back(trace.get());
    }
    npusim::DeadlockPredictor predictor(npusim::capacity_of(scenario.chip));
    observers.push_back(&predictor);
    ProgressLine progress;
    npusim::SimOptions options;
    options.stop_flag = &g_stop;
    apply_watchdogs(flags, options);
    if (flags.all_launches) {
        scenario.runtime.launch_rows = npusim::kAllLaunchRows;
    } else if (flags.launch_rows) {
        scenario.runtime.launch_rows = *flags.launch_rows;
    }
    if (flags.seed) {  // replay one schedule of --schedules
        npusim::apply_schedule(*flags.seed, scenario.chip, options);
        scenario.runtime.placement = options.placement;
        scenario.runtime.seed = options.placement_seed;
    }
    if (!flags.quiet && isatty(STDERR_FILENO) == 1) {
        options.progress = [&progress](const npusim::RunProgress& p) { progress.update(p); };
    }
    std::vector<npusim::Finding> findings_on_error;
    npusim::ScenarioOutcome outcome;
    try {
        outcome =
            npusim::run_scenario(scenario, observers, flags.check, &findings_on_error,
                                 flags.checker, options, !flags.dump_dir.empty(), flags.filter);
    } catch (const npusim::Error& error) {
        progress.clear();
        // The checker's findings up to the failure often explain it: show them first.
        if (!findings_on_error.empty()) emit_findings(flags, findings_on_error, {}, false);
        // A failed run still leaves its report: what failed, and what the checker saw so far.
        if (!flags.report_path.empty()) {
            nlohmann::json report = npusim::report_header(file, scenario.chip);
            const bool kernel_error = dynamic_cast<const npusim::KernelError*>(&error) != nullptr;
            report["outcome"] = kernel_error ? "kernel_error" : "error";
            report["error"] = error.what();
            report["findings"] = npusim::findings_to_json(findings_on_error);
            report["passed"] = false;
            write_report(flags.report_path, report);
        }
        throw;
    }
    progress.clear();
    const bool interrupted = outcome.kernel.run.interrupted();
    if (interrupted) {
        std::cerr << "npusim: interrupted by " << signal_name(g_signal)
                  << ": the run stopped early, partial results follow\n";
    }
    if (trace) trace->finish();
    std::cout << "scenario  " << npusim::printable(file, false) << "\n";
    if (!scenario.description.empty())
        std::cout << "          " << npusim::printable(scenario.description, false) << "\n";
    if (scenario.host) {
        std::cout << npusim::format_summary(outcome.kernel.run, scenario.chip);
    } else {
        std::cout << npusim::format_summary(outcome.kernel, scenario.chip);
    }
    std::cout << npusim::format_scenario_details(scenario, outcome);
    const std::vector<npusim::DeadlockFinding> warnings = predictor.warnings();
    if (!warnings.empty()) std::cout << "\n" << npusim::format_deadlocks(warnings);
    if (outcome.checked) emit_findings(flags, outcome.findings, outcome.filtered, interrupted);
    if (!flags.report_path.empty()) {
        nlohmann::json report = npusim::report_header(file, scenario.chip);
        report.update(npusim::to_json(outcome.kernel));
        if (outcome.checked) report["findings"] = npusim::findings_to_json(outcome.findings);
        if (flags.filter.active()) {
            nlohmann::json suppressed = nlohmann::json::array();
            for (std::size_t r = 0; r < flags.filter.suppressions.size(); ++r) {
                suppressed.push_back({{"rule", flags.filter.suppressions[r].origin},
                                      {"instances", r < outcome.filtered.suppressed.size()
                                                        ? outcome.filtered.suppressed[r]
                                                        : 0}});
            }
            report["findings_filter"] = {{"not_selected", outcome.filtered.not_selected},
                                         {"suppressed", std::move(suppressed)}};
        }
        const nlohmann::json details = npusim::scenario_details_to_json(scenario, outcome);
        report.update(details);
        if (g_signal != 0) report["signal"] = signal_name(g_signal);
        report["possible_deadlocks"] = nlohmann::json::array();
        for (const npusim::DeadlockFinding& w : warnings) {
            report["possible_deadlocks"].push_back(npusim::to_json(w));
        }
        write_report(flags.report_path, report);
    }
    if (trace) std::cout << "trace     " << flags.trace_path << "\n";
    if (!flags.dump_dir.empty()) {
        for (const std::string& line :
             npusim::dump_scenario_buffers(scenario, outcome, flags.dump_dir, flags.dump_format))
            std::cout << "dump      " << line << "\n";
    }
    if (g_signal != 0) return 128 + g_signal;  // the user asked to stop: 130 or 143
    // Without "expect" the default expectations: completed, output right, no error finding,
    // no failed host call. With it, exactly the scenario's expectations.
    return outcome.passed() ? 0 : 1;
}

/// Output that did not reach standard output is an error (exit 2), never exit 0.
int check_standard_output(int code) {
    errno = 0;
    std::cout.flush();
    const bool failed = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout) != 0;
    if (!failed) return code;
    std::cerr << "error: cannot write to standard output" << errno_reason() << "\n";
    return code == 3 ? 3 : 2;
}

void print_parameters() {
    for (const npusim::ChipParameter& p : npusim::chip_parameters()) {
        std::cout << p.pointer << "  [" << p.min << ".." << p.max << "] " << p.unit << "  "
                  << p.description << "\n";
    }
}

/// `npusim params --chip NAME|FILE`: every parameter's value for that chip, its unit and the
/// note the file writes beside it.
void print_chip_values(const std::string& chip_name) {
    const std::vector<std::string> presets = npusim::builtin_chip_presets();
    const bool preset = std::find(presets.begin(), presets.end(), chip_name) != presets.end();
    const npusim::ChipConfig chip =
        preset ? npusim::builtin_chip_config(chip_name) : npusim::load_chip_config(chip_name);
    std::cout << "chip " << npusim::printable(chip.name, false) << " ("
              << npusim::printable(chip.source, false) << ")\n";
    for (const npusim::ChipParameter& p : npusim::chip_parameters()) {
        std::cout << p.pointer << " = " << p.field.of(chip) << " " << p.unit;
        const auto note = chip.notes.find(std::string(p.pointer));
        if (note != chip.notes.end())
            std::cout << "  (" << npusim::printable(note->second, false) << ")";
        std::cout << "\n";
    }
}

void print_chips() {
    for (const std::string& name : npusim::builtin_chip_presets()) {
        const npusim::ChipConfig chip = npusim::builtin_chip_config(name);
        std::cout << name << ": " << chip.vector_cores << " vector + " << chip.cube_cores
                  << " cube cores, " << chip.clock_mhz << " MHz, "
                  << npusim::format_bytes(chip.gm_bytes) << " GM\n";
    }
}

/// The host operations of scenario files ("op" of "host" entries, docs/scenarios.md).
void print_ops() {
    for (unsigned i = 0;; ++i) {
        const char* name = npusim::to_string(static_cast<npusim::ScenarioOpKind>(i));
        if (std::string_view(name) == "?") break;
        std::cout << name << "\n";
    }
}

/// Validates each file without running it: "ok FILE" on stdout, every problem on stderr.
int validate_command(const std::vector<std::string>& files,
                     const std::vector<npusim::ScenarioOverride>& overrides) {
    int code = 0;
    for (const std::string& file : files) {
        try {
            const npusim::Scenario scenario = npusim::load_scenario(file, overrides);
            std::cout << "ok        " << npusim::printable(file, false) << "\n";
        } catch (const npusim::ConfigError& error) {
            for (const std::string& problem : error.problems())
                std::cerr << "error: " << problem << "\n";
            code = 2;
        } catch (const npusim::UsageError& error) {
            std::cerr << "error: " << error.what() << "\n";
            code = 2;
        }
    }
    return code;
}

void print_kernels() {
    for (const npusim::KernelDefinition& k : npusim::builtin_kernels()) {
        std::cout << k.name << ": " << k.description << "\n";
        for (const npusim::KernelParameter& p : k.parameters) {
            std::cout << "    " << p.name << " (default " << p.default_value << ", " << p.min
                      << ".." << p.max << "): " << p.description << "\n";
        }
        for (const npusim::KernelArgument& a : k.arguments)
            std::cout << "    arg " << a.name << ": " << a.description << "\n";
    }
}

}  // namespace

int run_cli(int argc, char** argv) {
    CLI::App app{
        "npusim: cycle-approximate NPU simulator\n"
        "  npusim run configs/scenarios/default.json\n"
        "  npusim validate configs/scenarios/*.json\n"
        "  npusim list kernels"};
    app.footer(kOverview);
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("npusim ") + NPUSIM_VERSION +
                                          " (scenario format " +
                                          std::to_string(npusim::kScenarioFormatVersion) + ")");
    std::string file;
    RunFlags flags;
    bool no_check = false;
    std::vector<std::string> sets;
    std::string dump_format = "npy";
    CLI::App* run = app.add_subcommand(
        "run",
        "Run a scenario file and print its report\n"
        "  npusim run configs/scenarios/default.json --report out.json --trace trace.json\n"
        "  npusim run configs/scenarios/default.json --set /blocks=8 --set /params/tile=1024\n"
        "  npusim run configs/scenarios/runtime_copy_readback.json --dump out/");
    run->footer(kRunExitCodes);
    run->add_option("file", file, "Scenario JSON (configs/scenarios/*.json)")->required();
    run->add_option("--trace", flags.trace_path, "Write a Chrome/Perfetto trace to this file");
    run->add_option("--report", flags.report_path,
                    "Write the report (run, output check, checker findings) as JSON");
    run->add_option("--set", sets,
                    "PATH=VALUE: set the value at a JSON pointer of the scenario before it is "
                    "checked (VALUE is JSON, else a string); repeatable")
        ->allow_extra_args(false);
    run->add_option("--dump", flags.dump_dir,
                    "Write every buffer's final contents to DIR/<buffer>.npy (or .bin)");
    run->add_option("--dump-format", dump_format,
                    "npy (NumPy, default) or bin (raw little-endian elements)")
        ->check(CLI::IsMember({"npy", "bin"}));
    run->add_flag("--no-check", no_check,
                  "Do not attach the checker (racecheck, synccheck, memcheck, initcheck)");
    bool all_instances = false;
    run->add_flag("--all-instances", all_instances,
                  "Report every hazard instance instead of one per source-location pair");
    run->add_option("--kernel", flags.filter.kernels,
                    "Report only findings with an access in kernel NAME; repeatable");
    run->add_option("--block", flags.filter.blocks,
                    "Report only findings with an access in block N; repeatable");
    std::string suppressions;
    run->add_option("--suppressions", suppressions,
                    "JSON file of findings not to report, by kind, kernel and file:line "
                    "(docs/checker.md); they are counted in the summary");
    run->add_option("--print-limit", flags.print_limit,
                    "Print at most N findings (all are counted and in --report; 0: all)");
    run->add_option("--log-file", flags.log_file,
                    "Write the checker's findings to this file instead of standard output");
    std::string findings_format = "npusim";
    run->add_option("--findings-format", findings_format,
                    "npusim (default) or vendor (the vendor sanitizer's '======' layout)")
        ->check(CLI::IsMember({"npusim", "vendor"}));
    run->add_flag("--quiet", flags.quiet, "No progress display on stderr during long runs");
    std::string max_memory;
    run->add_option("--max-memory", max_memory,
                    "Refuse a run whose host memory estimate exceeds BYTES (suffixes K, M, G)");
    run->add_option("--schedules", flags.schedules,
                    "Explore N seeded schedules (placement, launch ticks, start jitter): how "
                    "many deadlock, which, and the smallest seed of each; exit 1 if any does")
        ->check(CLI::Range(1u, 1000000u));
    std::uint64_t seed = 0;
    CLI::Option* seed_option =
        run->add_option("--seed", seed,
                        "The schedule's seed (alone: replay that schedule; with --schedules: "
                        "the first of N consecutive seeds)");
    run->add_option("-j,--jobs", flags.jobs, "Worker processes for --schedules")
        ->check(CLI::Range(1u, 256u));
    run->add_option("--max-cycles", flags.max_cycles,
                    "Watchdog: stop a run that passes N simulated cycles (reported as such)");
    CLI::Option* launch_rows_option = run->add_option(
        "--launch-rows", flags.launch_rows,
        "Report a row per launch for the first N launches of each run, then per-kernel sums "
        "(default: the scenario's runtime.launch_rows, else 10000)");
    run->add_flag("--all-launches", flags.all_launches, "Report a row for every launch")
        ->excludes(launch_rows_option);
    run->add_option("--no-progress-cycles", flags.no_progress_cycles,
                    "Watchdog: a spinning block with no progress on the chip for N cycles ends "
                    "the run as a deadlock (default 1000000)")
        ->check(CLI::PositiveNumber);
    std::vector<std::string> validate_files;
    CLI::App* validate = app.add_subcommand(
        "validate",
        "Check scenario files without running them: every problem with file and JSON pointer\n"
        "  npusim validate configs/scenarios/*.json\n"
        "  npusim validate my.json --set /host/0/blocks=64");
    validate->footer(kValidateExitCodes);
    validate->add_option("files", validate_files, "Scenario JSON files")->required();
    validate->add_option("--set", sets, "PATH=VALUE: as for run, applied to every file; repeatable")
        ->allow_extra_args(false);
    std::string list_what;
    CLI::App* list = app.add_subcommand(
        "list",
        "List what scenario files can name: chips, kernels, ops (host operations), params\n"
        "  npusim list kernels\n"
        "  npusim list params");
    list->footer(kListExitCodes);
    list->add_option("what", list_what, "chips, kernels, ops or params")
        ->required()
        ->check(CLI::IsMember({"chips", "kernels", "ops", "params"}));
    npusim_cli::SweepCommands sweep;
    sweep.add_to(app);
    CLI::App* params = app.add_subcommand(
        "params",
        "List the chip configuration parameters (= list params); with --chip, a chip's values\n"
        "  npusim params\n"
        "  npusim params --chip a2\n"
        "  npusim params --chip my_chip.json");
    params->footer(kListExitCodes);
    std::string params_chip;
    params->add_option("--chip", params_chip,
                       "A preset name (npusim list chips) or a chip JSON file: print its resolved "
                       "value of every parameter, with the note written beside it");
    app.add_subcommand("kernels",
                       "List the built-in kernels and their parameters (= list kernels)\n"
                       "  npusim kernels")
        ->footer(kListExitCodes);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
        const int code = app.exit(error);
        return code == 0 ? 0 : 2;
    }
    try {
        if (app.got_subcommand("params")) list_what = "params";
        if (app.got_subcommand("kernels")) list_what = "kernels";
        if (!params_chip.empty()) {
            print_chip_values(params_chip);
            return 0;
        }
        if (list_what == "params") {
            print_parameters();
            return 0;
        }
        if (list_what == "kernels") {
            print_kernels();
            return 0;
        }
        if (list_what == "chips") {
            print_chips();
            return 0;
        }
        if (list_what == "ops") {
            print_ops();
            return 0;
        }
        for (const std::string& set : sets)
            flags.overrides.push_back(npusim::parse_scenario_override(set));
        if (validate->parsed()) return validate_command(validate_files, flags.overrides);
        if (sweep.selected()) {
            install_stop_handlers();
            bool interrupted = false;
            const int code = sweep.run(g_stop, interrupted);
            if (interrupted && g_signal != 0) {
                std::cerr << "npusim: interrupted by " << signal_name(g_signal)
                          << ": the output holds the finished rows; --resume completes it\n";
                return 128 + g_signal;
            }
            return code;
        }
        flags.check = !no_check;
        if (seed_option->count() > 0) flags.seed = seed;
        if (!max_memory.empty()) {
            const auto bytes = npusim::parse_byte_size(max_memory);
            if (!bytes) {
                throw npusim::UsageError(
                    "--max-memory: expected a byte count with an optional K, "
                    "M or G suffix (e.g. 512M), got '" +
                    max_memory + "'");
            }
            flags.max_memory = *bytes;
        }
        flags.dump_format =
            dump_format == "bin" ? npusim::BufferFileFormat::Raw : npusim::BufferFileFormat::Npy;
        flags.checker.deduplicate = !all_instances;
        flags.vendor_layout = findings_format == "vendor";
        if (!suppressions.empty())
            flags.filter.suppressions = npusim::load_suppressions(suppressions);
        (void)run;
        (void)list;
        return run_command(file, flags);
    } catch (const npusim::ConfigError& error) {
        for (const std::string& problem : error.problems())
            std::cerr << "error: " << problem << "\n";
        return 2;
    } catch (const npusim::UsageError& error) {
        std::cerr << "error: " << error.what() << "\n";
        return 2;
    } catch (const npusim::KernelError& error) {
        std::cerr << "kernel error: " << error.what() << "\n";
        return 1;
    } catch (const std::exception& error) {
        std::cerr << "internal error: " << error.what() << "\n";
        return 3;
    }
}

int main(int argc, char** argv) {
    return check_standard_output(run_cli(argc, argv));
}
