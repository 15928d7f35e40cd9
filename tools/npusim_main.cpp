// npusim command line: a thin layer over the library. It parses arguments, calls the
// library, prints, and maps outcomes to exit codes:
//   0  ran to completion and the output checked out
//   1  the simulated program is wrong: deadlock, wrong output, or a kernel rule broken
//   2  bad input: unreadable or invalid scenario/chip file, bad arguments
#include <exception>
#include <fstream>
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "core/errors.h"
#include "sim/report.h"
#include "sim/scenario.h"
#include "sim/trace_writer.h"

namespace {

int run_command(const std::string& file, const std::string& trace_path,
                const std::string& report_path) {
    const npusim::Scenario scenario = npusim::load_scenario(file);
    std::unique_ptr<npusim::ChromeTraceWriter> trace;
    std::vector<npusim::TransactionObserver*> observers;
    if (!trace_path.empty()) {
        trace = std::make_unique<npusim::ChromeTraceWriter>(trace_path, scenario.chip.clock_mhz);
        observers.push_back(trace.get());
    }
    const npusim::KernelOutcome outcome = npusim::run_scenario(scenario, observers);
    if (trace) trace->finish();
    std::cout << "scenario  " << file << "\n";
    if (!scenario.description.empty()) std::cout << "          " << scenario.description << "\n";
    std::cout << npusim::format_summary(outcome, scenario.chip);
    if (!report_path.empty()) {
        std::ofstream out(report_path);
        if (!out) throw npusim::UsageError(report_path + ": cannot open report file for writing");
        out << npusim::to_json(outcome).dump(2) << "\n";
        if (!out) throw npusim::UsageError(report_path + ": cannot write report file");
    }
    if (trace) std::cout << "trace     " << trace_path << "\n";
    return outcome.run.completed() && outcome.verified ? 0 : 1;
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
    std::string file, trace_path, report_path;
    CLI::App* run = app.add_subcommand("run", "Run a scenario file and print its report");
    run->add_option("file", file, "Scenario JSON (configs/scenarios/*.json)")->required();
    run->add_option("--trace", trace_path, "Write a Chrome/Perfetto trace to this file");
    run->add_option("--report", report_path, "Write the report as JSON to this file");
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
        return run_command(file, trace_path, report_path);
    } catch (const npusim::ConfigError& error) {
        for (const std::string& problem : error.problems()) std::cerr << "error: " << problem << "\n";
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
