#include "sim/schedule_exploration.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <exception>
#include <map>
#include <poll.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

#include "base/errors.h"
#include "sim/report.h"

namespace npusim {

namespace {

std::uint64_t mix(std::uint64_t x) {  // splitmix64
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

const char* outcome_name(RunOutcome outcome) {
    switch (outcome) {
        case RunOutcome::Completed:
            return "completed";
        case RunOutcome::Deadlock:
            return "deadlock";
        case RunOutcome::Interrupted:
            return "interrupted";
    }
    return "?";
}

RunOutcome outcome_from(const std::string& name) {
    if (name == "deadlock") return RunOutcome::Deadlock;
    if (name == "interrupted") return RunOutcome::Interrupted;
    return RunOutcome::Completed;
}

DeadlockKind kind_from(const std::string& name) {
    for (auto kind : {DeadlockKind::BarrierCycleAcrossKernels, DeadlockKind::BlocksExceedCores,
                      DeadlockKind::WaitCycle, DeadlockKind::OrphanFlagWait,
                      DeadlockKind::OrphanCrossCoreWait, DeadlockKind::OrphanBarrierWait,
                      DeadlockKind::HostWaitsOnStuckStream, DeadlockKind::SimulatedTimeLimit,
                      DeadlockKind::NoProgressLimit, DeadlockKind::PossibleDeadlock}) {
        if (to_string(kind) == name) return kind;
    }
    return DeadlockKind::WaitCycle;
}

DeadlockFinding finding_from_json(const nlohmann::json& j) {
    DeadlockFinding f;
    f.kind = kind_from(j.at("kind").get<std::string>());
    f.summary = j.at("summary").get<std::string>();
    f.cycle = j.at("cycle").get<std::string>();
    f.fix = j.at("fix").get<std::string>();
    f.signature = j.at("signature").get<std::string>();
    for (const nlohmann::json& p : j.at("participants")) {
        DeadlockParticipant part;
        part.kernel = p.at("kernel").get<std::string>();
        if (!p.at("stream").is_null()) part.stream = p.at("stream").get<std::uint32_t>();
        part.blocks = p.at("blocks").get<std::string>();
        part.state = p.at("state").get<std::string>();
        part.cores = p.at("cores").get<std::string>();
        part.where = p.at("where").get<std::string>();
        part.launch = p.at("launch").get<std::string>();
        f.participants.push_back(std::move(part));
    }
    return f;
}

nlohmann::json outcome_to_json(const ScheduleOutcome& o) {
    nlohmann::json deadlocks = nlohmann::json::array();
    for (const DeadlockFinding& d : o.deadlocks) deadlocks.push_back(to_json(d));
    return {{"index", o.index},  {"seed", o.seed},         {"outcome", outcome_name(o.outcome)},
            {"error", o.error},  {"deadlocks", deadlocks}, {"predicted", o.predicted},
            {"cycles", o.cycles}};
}

ScheduleOutcome outcome_from_json(const nlohmann::json& j) {
    ScheduleOutcome o;
    o.index = j.at("index").get<std::uint32_t>();
    o.seed = j.at("seed").get<std::uint64_t>();
    o.outcome = outcome_from(j.at("outcome").get<std::string>());
    o.error = j.at("error").get<std::string>();
    for (const nlohmann::json& d : j.at("deadlocks")) o.deadlocks.push_back(finding_from_json(d));
    o.predicted = j.at("predicted").get<std::vector<std::string>>();
    o.cycles = j.at("cycles").get<Cycle>();
    return o;
}

ScheduleOutcome run_schedule(std::uint32_t index, std::uint64_t seed, const ChipConfig& chip,
                             const ScheduleFunction& run, const SimOptions& base) {
    ScheduleOutcome o;
    o.index = index;
    o.seed = seed;
    SimOptions options = base;
    options.progress = nullptr;  // one line per exploration, not per schedule
    apply_schedule(seed, chip, options);
    try {
        ScheduleRun r = run(options);
        o.outcome = r.result.outcome;
        o.deadlocks = std::move(r.result.deadlocks);
        o.cycles = r.result.cycles();
        for (const DeadlockFinding& w : r.warnings) o.predicted.push_back(w.signature);
    } catch (const std::exception& error) {
        o.error = error.what();
    }
    return o;
}

bool stop_requested(const SimOptions& base) {
    return base.stop_flag != nullptr && base.stop_flag->load(std::memory_order_relaxed);
}

/// Runs schedules index % jobs == worker in a child; returns its outcomes via the pipe.
std::vector<ScheduleOutcome> run_in_workers(const ExplorationOptions& options,
                                            const ChipConfig& chip, const ScheduleFunction& run,
                                            const SimOptions& base) {
    struct Worker {
        pid_t pid = -1;
        int fd = -1;
    };
    std::vector<Worker> workers;
    const std::uint32_t jobs = std::min(options.jobs, options.schedules);
    std::fflush(nullptr);  // children must not repeat buffered output
    for (std::uint32_t w = 0; w < jobs; ++w) {
        int fds[2];
        if (pipe(fds) != 0) throw UsageError("schedule exploration: cannot create a pipe");
        const pid_t pid = fork();
        if (pid < 0) throw UsageError("schedule exploration: cannot fork a worker");
        if (pid == 0) {
            close(fds[0]);
            int code = 0;
            try {
                for (std::uint32_t i = w; i < options.schedules; i += jobs) {
                    if (stop_requested(base)) break;
                    const std::string line =
                        outcome_to_json(run_schedule(i, options.seed + i, chip, run, base)).dump() +
                        "\n";
                    std::size_t written = 0;
                    while (written < line.size()) {
                        const ssize_t n =
                            write(fds[1], line.data() + written, line.size() - written);
                        if (n < 0 && errno == EINTR) continue;
                        if (n <= 0) _exit(3);
                        written += static_cast<std::size_t>(n);
                    }
                }
            } catch (...) {
                code = 3;
            }
            close(fds[1]);
            _exit(code);
        }
        close(fds[1]);
        workers.push_back({pid, fds[0]});
    }
    // Read all workers at once: a worker whose pipe is full would otherwise wait for us.
    std::vector<std::string> texts(workers.size());
    std::vector<pollfd> open;
    for (const Worker& w : workers) open.push_back({w.fd, POLLIN, 0});
    std::size_t remaining = open.size();
    char buffer[65536];
    while (remaining > 0) {
        if (poll(open.data(), open.size(), -1) < 0) {
            if (errno == EINTR) continue;
            throw InternalError("schedule exploration: poll() on the worker pipes failed");
        }
        for (std::size_t i = 0; i < open.size(); ++i) {
            if (open[i].fd < 0 || open[i].revents == 0) continue;
            const ssize_t n = read(open[i].fd, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR) continue;
            if (n > 0) {
                texts[i].append(buffer, static_cast<std::size_t>(n));
                continue;
            }
            close(open[i].fd);
            open[i].fd = -1;  // poll ignores negative descriptors
            --remaining;
        }
    }
    std::vector<ScheduleOutcome> outcomes;
    std::string failure;
    for (std::size_t i = 0; i < workers.size(); ++i) {
        const Worker& w = workers[i];
        const std::string& text = texts[i];
        int status = 0;
        while (waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            failure =
                "a schedule exploration worker failed (status " + std::to_string(status) + ")";
        }
        std::istringstream lines(text);
        std::string line;
        while (std::getline(lines, line)) {
            if (!line.empty()) outcomes.push_back(outcome_from_json(nlohmann::json::parse(line)));
        }
    }
    if (!failure.empty()) throw InternalError(failure);
    return outcomes;
}

}  // namespace

void apply_schedule(std::uint64_t seed, const ChipConfig& chip, SimOptions& options) {
    const std::uint64_t base = mix(seed);
    options.placement = PlacementPolicy::Random;
    options.placement_seed = mix(base ^ 1);
    // Ticks up to four launch costs apart: kernels of different streams launched one launch
    // cost apart then share a tick in about half of the schedules.
    const Cycle span = 4 * std::max<Cycle>(1, chip.runtime_launch_cycles);
    options.dispatch_period = mix(base ^ 2) % (span + 1);
    options.dispatch_phase =
        options.dispatch_period == 0 ? 0 : mix(base ^ 3) % options.dispatch_period;
    options.start_jitter_cycles = 256;
    options.start_jitter_seed = mix(base ^ 4);
}

ExplorationResult explore_schedules(const ExplorationOptions& options, const ChipConfig& chip,
                                    const ScheduleFunction& run, const SimOptions& base) {
    if (options.schedules == 0) throw UsageError("schedule exploration of 0 schedules");
    if (options.jobs == 0) throw UsageError("schedule exploration with 0 jobs");
    const auto started = std::chrono::steady_clock::now();
    ExplorationResult result;
    result.first_seed = options.seed;
    if (options.jobs > 1 && options.schedules > 1) {
        result.runs = run_in_workers(options, chip, run, base);
    } else {
        for (std::uint32_t i = 0; i < options.schedules; ++i) {
            if (stop_requested(base)) break;
            result.runs.push_back(run_schedule(i, options.seed + i, chip, run, base));
        }
    }
    std::sort(result.runs.begin(), result.runs.end(),
              [](const ScheduleOutcome& a, const ScheduleOutcome& b) { return a.index < b.index; });
    result.schedules = static_cast<std::uint32_t>(result.runs.size());
    std::map<std::string, std::size_t> distinct;  // signature -> index in result.distinct
    for (const ScheduleOutcome& o : result.runs) {
        if (!o.error.empty()) {
            ++result.failed;
        } else if (o.outcome == RunOutcome::Deadlock) {
            ++result.deadlocked;
        } else if (o.outcome == RunOutcome::Interrupted) {
            ++result.interrupted;
        } else {
            ++result.completed;
        }
        if (!o.predicted.empty()) ++result.predicted;
        for (const DeadlockFinding& d : o.deadlocks) {
            const auto [it, added] = distinct.try_emplace(d.signature, result.distinct.size());
            if (added) result.distinct.push_back({d, 0, o.seed});
            DistinctDeadlock& entry = result.distinct[it->second];
            ++entry.schedules;
            if (o.seed < entry.smallest_seed) {
                entry.smallest_seed = o.seed;
                entry.finding = d;
            }
        }
    }
    result.host_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
}

std::string format_exploration(const ExplorationResult& result) {
    std::ostringstream out;
    out << "schedules " << result.schedules << " (seeds " << result.first_seed << "-"
        << result.first_seed + (result.schedules == 0 ? 0 : result.schedules - 1)
        << "): " << result.deadlocked << " deadlocked, " << result.completed << " completed";
    if (result.failed > 0) out << ", " << result.failed << " failed";
    if (result.interrupted > 0) out << ", " << result.interrupted << " interrupted";
    out << "\n";
    out << "predicted possible deadlock in " << result.predicted << " of " << result.schedules
        << " schedules\n";
    if (result.distinct.empty()) {
        out << "no deadlock in any schedule\n";
    } else {
        out << result.distinct.size() << " distinct deadlock"
            << (result.distinct.size() == 1 ? "" : "s") << ":\n";
    }
    for (std::size_t i = 0; i < result.distinct.size(); ++i) {
        const DistinctDeadlock& d = result.distinct[i];
        out << "\n"
            << i + 1 << ". " << to_string(d.finding.kind) << " in " << d.schedules << " schedule"
            << (d.schedules == 1 ? "" : "s") << ", smallest seed " << d.smallest_seed
            << " (replay: --seed " << d.smallest_seed << ")\n";
        out << format_deadlock(d.finding, i + 1);
    }
    for (const ScheduleOutcome& o : result.runs) {
        if (!o.error.empty()) out << "schedule seed " << o.seed << " failed: " << o.error << "\n";
    }
    return out.str();
}

nlohmann::json to_json(const ExplorationResult& result) {
    nlohmann::json distinct = nlohmann::json::array();
    for (const DistinctDeadlock& d : result.distinct) {
        nlohmann::json f = to_json(d.finding);
        f["schedules"] = d.schedules;
        f["smallest_seed"] = d.smallest_seed;
        distinct.push_back(std::move(f));
    }
    nlohmann::json runs = nlohmann::json::array();
    for (const ScheduleOutcome& o : result.runs) {
        nlohmann::json kinds = nlohmann::json::array();
        for (const DeadlockFinding& d : o.deadlocks)
            kinds.push_back(std::string(to_string(d.kind)));
        runs.push_back({{"seed", o.seed},
                        {"outcome", o.error.empty() ? outcome_name(o.outcome) : "failed"},
                        {"error", o.error},
                        {"deadlocks", kinds},
                        {"predicted", !o.predicted.empty()},
                        {"cycles", o.cycles}});
    }
    return {{"schedules", result.schedules},
            {"first_seed", result.first_seed},
            {"deadlocked", result.deadlocked},
            {"completed", result.completed},
            {"failed", result.failed},
            {"interrupted", result.interrupted},
            {"predicted", result.predicted},
            {"deadlocks", distinct},
            {"runs", runs}};
}

}  // namespace npusim
