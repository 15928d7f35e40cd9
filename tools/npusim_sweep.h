// `npusim sweep` and `npusim merge`: the command-line face of sim/study/sweep.h.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace npusim_cli {

class SweepCommands {
public:
    /// Adds the "sweep" and "merge" subcommands to `app`.
    void add_to(CLI::App& app);
    /// Which of them the parsed command line chose (nullptr: neither).
    bool selected() const;
    /// Runs the chosen one: 0 every row ran, 1 some rows are errors (crash, timeout, invalid
    /// point), 130/143 when `stop` was set (the caller maps the signal). Throws the library's
    /// errors (ConfigError, UsageError) for the caller to print.
    int run(const std::atomic<bool>& stop, bool& interrupted);

private:
    CLI::App* m_sweep = nullptr;
    CLI::App* m_merge = nullptr;
    std::string m_file;
    std::vector<std::string> m_sets;
    unsigned m_jobs = 1;
    std::uint32_t m_schedules = 0;
    std::uint64_t m_seed = 0;
    bool m_seed_given = false;
    std::string m_out;
    std::string m_shard = "1/1";
    bool m_resume = false;
    double m_timeout = 0;
    double m_checkpoint = 2.0;
    bool m_quiet = false;
    std::string m_merge_out;
    std::vector<std::string> m_merge_inputs;
};

}  // namespace npusim_cli
