#include "tools/npusim_sweep.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <unistd.h>

#include "base/errors.h"
#include "base/output_file.h"
#include "sim/study/study_fingerprint.h"
#include "sim/study/sweep.h"
#include "sim/study/sweep_runner.h"

namespace npusim_cli {

namespace {

/// "sweep: 120/400 (30%), 4.2 runs/s, ETA 67 s, 12 deadlocks" redrawn on stderr.
void draw_progress(const npusim::SweepProgress& p, int& width) {
    const double rate = p.seconds > 0 ? static_cast<double>(p.done) / p.seconds : 0;
    const double eta = rate > 0 ? static_cast<double>(p.total - p.done) / rate : 0;
    char line[200];
    const int n = std::snprintf(
        line, sizeof line, "\rsweep: %zu/%zu (%.0f%%), %.1f runs/s, ETA %.0f s, %zu deadlocks%s",
        p.done, p.total, p.total == 0 ? 100.0 : 100.0 * static_cast<double>(p.done) / p.total, rate,
        eta, p.deadlocks,
        p.errors > 0 ? (", " + std::to_string(p.errors) + " errors").c_str() : "");
    if (n <= 0) return;
    std::fprintf(stderr, "%s%*s", line, std::max(0, width - n), "");
    std::fflush(stderr);
    width = std::max(width, n);
}

}  // namespace

void SweepCommands::add_to(CLI::App& app) {
    m_sweep = app.add_subcommand(
        "sweep",
        "Run a what-if study: the scenario under every combination of --set axes\n"
        "  npusim sweep configs/scenarios/whatif_syncall_streams.json -j 2 --out study.csv\n"
        "  npusim sweep s.json --set /host/0/blocks=8:48:8 --set /runtime/placement=launch_order,"
        "random");
    m_sweep->add_option("file", m_file, "Scenario JSON; its \"sweep\" section gives axes")
        ->required();
    m_sweep->add_option("--set", m_sets,
                        "An axis: PATH=v1,v2,... or PATH=start:stop:step (JSON pointer into the "
                        "scenario; adds to or replaces the file's axes)");
    m_sweep->add_option("-j,--jobs", m_jobs, "Worker processes (default 1)")
        ->check(CLI::Range(1u, 256u));
    m_sweep
        ->add_option("--schedules", m_schedules,
                     "Seeded schedules per point (default: the file's, else 1)")
        ->check(CLI::Range(1u, 1000000u));
    m_sweep->add_option("--seed", m_seed, "Seed of schedule 0 (schedule s uses seed + s)");
    m_sweep->add_option("--out", m_out,
                        "Write rows to FILE (.csv or .json); default: CSV on stdout");
    m_sweep->add_option("--shard", m_shard, "Run slice K/N of the tasks (Slurm array task K)");
    m_sweep->add_flag("--resume", m_resume, "Skip the tasks --out already holds");
    m_sweep->add_option("--timeout", m_timeout, "Seconds per run before its worker is killed")
        ->check(CLI::NonNegativeNumber);
    m_sweep
        ->add_option("--checkpoint", m_checkpoint,
                     "Seconds between rewrites of --out while the sweep runs (default 2)")
        ->check(CLI::Range(0.01, 3600.0));
    m_sweep->add_flag("--quiet", m_quiet, "No progress bar");
    m_sweep->footer(
        "Exit codes:\n"
        "  0    every row's status is ok (a row whose run deadlocked or failed its checks is\n"
        "       still ok: the study records it; see the deadlock and hazards columns)\n"
        "  1    some rows are not ok: error (an invalid point), crashed or timeout\n"
        "  2    bad arguments, scenario, --out (a folder, a device) or a --resume file of\n"
        "       another study\n"
        "  3    internal error in npusim\n"
        "  130  interrupted by SIGINT, 143 by SIGTERM: --out holds the finished rows;\n"
        "       --resume completes it\n");
    m_merge = app.add_subcommand("merge",
                                 "Combine shard outputs of one study into what the unsharded run "
                                 "gives\n  npusim merge study.csv shard-*.csv");
    m_merge->add_option("out", m_merge_out, "Output file (.csv or .json)")->required();
    m_merge->add_option("inputs", m_merge_inputs, "Shard outputs")->required();
    m_merge->footer(
        "Exit codes:\n"
        "  0    the inputs hold every task of the study: the output is the whole study\n"
        "  1    tasks are missing: the output is written and the missing tasks and shards\n"
        "       are named\n"
        "  2    an input is not a sweep output or is from another study (the difference is\n"
        "       named), or the output cannot be written\n"
        "  3    internal error in npusim\n");
}

bool SweepCommands::selected() const {
    return (m_sweep != nullptr && m_sweep->parsed()) || (m_merge != nullptr && m_merge->parsed());
}

int SweepCommands::run(const std::atomic<bool>& stop, bool& interrupted) {
    interrupted = false;
    if (m_merge->parsed()) {
        npusim::checked_output_path(m_merge_out, "merge output");  // before reading the inputs
        std::vector<npusim::SweepOutput> inputs;
        for (const std::string& input : m_merge_inputs) {
            inputs.push_back(npusim::read_sweep_output(input));
        }
        const npusim::SweepOutput merged = npusim::merge_sweep_outputs(inputs, m_merge_inputs);
        npusim::write_sweep_output(m_merge_out, merged.source, merged.axis_pointers, merged.study,
                                   merged.rows);
        std::cerr << "merge: " << merged.rows.size() << " rows from " << inputs.size()
                  << " inputs into " << m_merge_out << "\n";
        // An incomplete set of shards is written but said, with exit 1.
        std::vector<std::size_t> tasks;
        for (const npusim::SweepRow& row : merged.rows) tasks.push_back(row.task);
        std::vector<std::string> shards;
        for (const npusim::SweepOutput& input : inputs)
            if (input.study.is_object()) shards.push_back(input.study.value("shard", ""));
        const std::string missing = npusim::describe_missing_tasks(merged.study, tasks, shards);
        if (!missing.empty()) {
            std::cerr << "merge: incomplete: " << missing << "\n";
            return 1;
        }
        return 0;
    }
    m_seed_given = m_sweep->count("--seed") > 0;
    std::vector<npusim::SweepAxis> axes;
    for (const std::string& set : m_sets) axes.push_back(npusim::parse_sweep_axis(set));
    const npusim::SweepPlan plan = npusim::plan_sweep(
        m_file, axes, m_schedules > 0 ? std::optional<std::uint32_t>(m_schedules) : std::nullopt,
        m_seed_given ? std::optional<std::uint64_t>(m_seed) : std::nullopt);
    npusim::SweepOptions options;
    options.jobs = m_jobs;
    options.shard = npusim::parse_shard(m_shard);
    options.timeout_seconds = m_timeout;
    options.stop_flag = &stop;
    options.checkpoint_seconds = m_checkpoint;
    const std::vector<std::string> pointers = npusim::axis_pointers(plan);
    const nlohmann::json study = npusim::study_fingerprint(plan, options.shard);
    std::vector<npusim::SweepRow> previous;
    if (!m_out.empty()) npusim::checked_output_path(m_out, "sweep output");  // before any run
    if (m_resume) {
        if (m_out.empty()) throw npusim::UsageError("--resume needs --out FILE");
        if (std::filesystem::exists(m_out)) {
            npusim::SweepOutput earlier = npusim::read_sweep_output(m_out);
            std::string difference =
                earlier.study.is_null()
                    ? (earlier.axis_pointers != pointers || earlier.source != plan.source
                           ? "source or axes differ"
                           : "")
                    : npusim::study_difference(study, earlier.study, "this sweep", m_out);
            if (difference.empty() && earlier.study.is_object() &&
                earlier.study.value("shard", "") != study.value("shard", "")) {
                difference = "shard " + study.value("shard", "") + " in this sweep, " +
                             earlier.study.value("shard", "") + " in " + m_out;
            }
            if (!difference.empty()) {
                throw npusim::UsageError(m_out + ": written by another study (" + difference +
                                         "); --resume needs the same study");
            }
            previous = std::move(earlier.rows);
        }
    }
    if (!m_out.empty()) {
        options.checkpoint = [&](const std::vector<npusim::SweepRow>& rows) {
            npusim::write_sweep_output(m_out, plan.source, pointers, study, rows);
        };
    }
    int width = 0;
    if (!m_quiet && isatty(STDERR_FILENO) == 1) {
        options.progress = [&width](const npusim::SweepProgress& p) { draw_progress(p, width); };
    }
    const npusim::SweepResult result =
        npusim::run_sweep(plan, options, npusim::scenario_task_runner(), std::move(previous));
    if (width > 0) std::fprintf(stderr, "\r%*s\r", width, "");
    if (m_out.empty()) {
        // CSV on standard output, through a temporary file so the format has one writer.
        const std::filesystem::path temporary =
            std::filesystem::temp_directory_path() /
            ("npusim-sweep-" + std::to_string(::getpid()) + ".csv");
        npusim::write_sweep_output(temporary, plan.source, pointers, study, result.rows);
        std::ifstream in(temporary);
        std::cout << in.rdbuf();
        std::filesystem::remove(temporary);
    }
    std::size_t errors = 0, deadlocks = 0;
    for (const npusim::SweepRow& row : result.rows) {
        if (row.status != "ok") ++errors;
        if (row.result.value("deadlock", nlohmann::json(false)) == true) ++deadlocks;
    }
    std::cerr << "sweep: " << result.rows.size() << " rows (" << result.skipped << " resumed), "
              << deadlocks << " deadlocked, " << errors << " errors"
              << (m_out.empty() ? "" : ", written to " + m_out) << "\n";
    for (const npusim::SweepRow& row : result.rows) {
        if (row.status != "ok") {
            std::cerr << "  task " << row.task << ": " << row.status << ": " << row.error << "\n";
        }
    }
    interrupted = result.interrupted;
    return errors > 0 ? 1 : 0;
}

}  // namespace npusim_cli
