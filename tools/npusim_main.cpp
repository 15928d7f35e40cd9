// npusim command line: a thin layer over the library. It parses arguments, calls the
// library, prints, and maps outcomes to exit codes:
//   0  ran to completion, the output checked out, and the checker found no error
//   1  the simulated program is wrong: deadlock, wrong output, a kernel rule broken, or a
//      checker error (race, unpaired flag, out-of-bounds, uninitialized read)
//   2  bad input: unreadable or invalid scenario/chip file, bad arguments
#include <algorithm>
#include <exception>
#include <fstream>
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "base/errors.h"
#include "sim/check_report.h"
#include "sim/report.h"
#include "sim/scenario.h"
#include "sim/trace_writer.h"

namespace {

struct RunFlags {
    std::string trace_path;
    std::string report_path;
    bool check = true;
    npusim::CheckerOptions checker;
    std::uint64_t max_memory = 0;  // --max-memory in bytes; 0: only the host's own limit
};

void write_report(const std::string& path, const nlohmann::json& report) {
    std::ofstream out(path);
    if (!out) throw npusim::UsageError(path + ": cannot open report file for writing");
    out << report.dump(2) << "\n";
    if (!out) throw npusim::UsageError(path + ": cannot write report file");
}

int run_command(const std::string& file, const RunFlags& flags) {
    const npusim::Scenario scenario = npusim::load_scenario(file);
    npusim::check_scenario_memory(scenario, flags.check, flags.max_memory);  // before allocating
    std::unique_ptr<npusim::ChromeTraceWriter> trace;
    std::vector<npusim::TransactionObserver*> observers;
    if (!flags.trace_path.empty()) {
        trace =
            std::make_unique<npusim::ChromeTraceWriter>(flags.trace_path, scenario.chip.clock_mhz);
        observers.push_back(trace.get());
    }
    std::vector<npusim::Finding> findings_on_error;
    npusim::ScenarioOutcome outcome;
    try {
        outcome = npusim::run_scenario(scenario, observers, flags.check, &findings_on_error,
                                       flags.checker);
    } catch (const npusim::KernelError&) {
        // The checker's findings up to the failure often explain it: show them first.
        if (!findings_on_error.empty()) std::cout << npusim::format_findings(findings_on_error);
        throw;
    }
    if (trace) trace->finish();
    std::cout << "scenario  " << file << "\n";
    if (!scenario.description.empty()) std::cout << "          " << scenario.description << "\n";
    std::cout << npusim::format_summary(outcome.kernel, scenario.chip);
    if (outcome.checked) {
        if (!outcome.findings.empty())
            std::cout << "\n" << npusim::format_findings(outcome.findings);
        std::cout << npusim::format_findings_summary(outcome.findings) << "\n";
    }
    if (!flags.report_path.empty()) {
        nlohmann::json report = npusim::to_json(outcome.kernel);
        if (outcome.checked) report["findings"] = npusim::findings_to_json(outcome.findings);
        write_report(flags.report_path, report);
    }
    if (trace) std::cout << "trace     " << flags.trace_path << "\n";
    const bool checker_errors =
        std::any_of(outcome.findings.begin(), outcome.findings.end(),
                    [](const npusim::Finding& f) { return f.severity == npusim::Severity::Error; });
    return outcome.kernel.run.completed() && outcome.kernel.verified && !checker_errors ? 0 : 1;
}

void print_parameters() {
    for (const npusim::ChipParameter& p : npusim::chip_parameters()) {
        std::cout << p.pointer << "  [" << p.min << ".." << p.max << "] " << p.unit << "  "
                  << p.description << "\n";
    }
}

void print_kernels() {
    for (const npusim::BuiltinKernel& k : npusim::builtin_kernels()) {
        std::cout << k.name << ": " << k.description << "\n";
        for (const npusim::KernelParameter& p : k.parameters) {
            std::cout << "    " << p.name << " (default " << p.default_value << ", " << p.min
                      << ".." << p.max << "): " << p.description << "\n";
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"npusim: cycle-approximate NPU simulator"};
    app.require_subcommand(1);
    std::string file;
    RunFlags flags;
    bool no_check = false;
    CLI::App* run = app.add_subcommand("run", "Run a scenario file and print its report");
    run->add_option("file", file, "Scenario JSON (configs/scenarios/*.json)")->required();
    run->add_option("--trace", flags.trace_path, "Write a Chrome/Perfetto trace to this file");
    run->add_option("--report", flags.report_path,
                    "Write the report (run, output check, checker findings) as JSON");
    run->add_flag("--no-check", no_check,
                  "Do not attach the checker (racecheck, synccheck, memcheck, initcheck)");
    bool all_instances = false;
    run->add_flag("--all-instances", all_instances,
                  "Report every hazard instance instead of one per source-location pair");
    std::string max_memory;
    run->add_option("--max-memory", max_memory,
                    "Refuse a run whose host memory estimate exceeds BYTES (suffixes K, M, G)");
    app.add_subcommand("params", "List the chip configuration parameters");
    app.add_subcommand("kernels", "List the built-in kernels and their parameters");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
        const int code = app.exit(error);
        return code == 0 ? 0 : 2;
    }
    try {
        if (app.got_subcommand("params")) {
            print_parameters();
            return 0;
        }
        if (app.got_subcommand("kernels")) {
            print_kernels();
            return 0;
        }
        flags.check = !no_check;
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
        flags.checker.deduplicate = !all_instances;
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
