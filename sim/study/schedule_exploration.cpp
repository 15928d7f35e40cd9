#include "sim/study/schedule_exploration.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <new>
#include <optional>
#include <poll.h>
#include <sstream>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "base/errors.h"
#include "base/fresh_mapping.h"
#include "sim/report/report.h"

namespace npusim {

namespace {

std::uint64_t mix(std::uint64_t x) {  // splitmix64
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

DeadlockKind kind_from(const std::string& name) {
    for (auto kind :
         {DeadlockKind::BarrierCycleAcrossKernels, DeadlockKind::BlocksExceedCores,
          DeadlockKind::WaitCycle, DeadlockKind::OrphanFlagWait, DeadlockKind::OrphanCrossCoreWait,
          DeadlockKind::OrphanBarrierWait, DeadlockKind::OrphanGmFlagWait,
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
    if (j.contains("verdict")) f.verdict = j.at("verdict").get<std::string>();
    if (j.contains("reachable") && j.at("reachable").is_boolean())
        f.reachable = j.at("reachable").get<bool>();
    for (const nlohmann::json& p : j.at("participants")) {
        DeadlockParticipant part;
        part.kernel = p.at("kernel").get<std::string>();
        if (!p.at("stream").is_null()) part.stream = p.at("stream").get<std::uint32_t>();
        if (p.contains("stream_name")) part.stream_name = p.at("stream_name").get<std::string>();
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
    return {{"index", o.index},
            {"seed", o.seed},
            {"outcome", std::string(to_string(o.outcome))},
            {"error", o.error},
            {"deadlocks", deadlocks},
            {"predicted", o.predicted},
            {"cycles", o.cycles}};
}

ScheduleOutcome outcome_from_json(const nlohmann::json& j) {
    ScheduleOutcome o;
    o.index = j.at("index").get<std::uint32_t>();
    o.seed = j.at("seed").get<std::uint64_t>();
    o.outcome =
        run_outcome_named(j.at("outcome").get<std::string>()).value_or(RunOutcome::Completed);
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

/// The memory the workers share with the parent (an anonymous MAP_SHARED mapping, made before
/// the fork): the next schedule to hand out, the parent's stop request and each worker's
/// current schedule. Workers take schedules one at a time as they become free, so that cheap
/// and costly schedules (a deadlock found at once, a long run) even out between them; which
/// worker ran which schedule does not matter, the merge is by schedule index.
class SharedWork final {
public:
    explicit SharedWork(std::uint32_t workers) {
        m_bytes = sizeof(Header) + sizeof(std::atomic<std::uint64_t>) * workers;
        void* memory =
            mmap(nullptr, m_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (memory == MAP_FAILED) {
            throw UsageError("schedule exploration: cannot map memory shared with the workers");
        }
        declare_fresh_mapping(memory, m_bytes);
        m_header = new (memory) Header{};
        m_running = reinterpret_cast<std::atomic<std::uint64_t>*>(m_header + 1);
        for (std::uint32_t w = 0; w < workers; ++w)
            new (&m_running[w]) std::atomic<std::uint64_t>(0);
    }
    ~SharedWork() { munmap(m_header, m_bytes); }
    SharedWork(const SharedWork&) = delete;
    SharedWork& operator=(const SharedWork&) = delete;

    /// In a worker: the next schedule index below `schedules` for `worker`, recorded as the
    /// one it runs; nullopt (and no schedule recorded) when all are handed out or the parent
    /// asked to stop.
    std::optional<std::uint32_t> take(std::uint32_t worker, std::uint32_t schedules) {
        std::uint64_t index = schedules;
        if (!m_header->stop.load(std::memory_order_relaxed)) {
            index = m_header->next.fetch_add(1, std::memory_order_relaxed);
        }
        if (index >= schedules) {
            m_running[worker].store(0, std::memory_order_relaxed);
            return std::nullopt;
        }
        m_running[worker].store(index + 1, std::memory_order_relaxed);
        return static_cast<std::uint32_t>(index);
    }
    /// In the parent: no schedule is handed out after this (the running ones finish).
    void request_stop() { m_header->stop.store(true, std::memory_order_relaxed); }
    /// In the parent: the schedule `worker` took last, unless it found none left since. After
    /// its output ended: the schedule it died in, unless that schedule's outcome arrived.
    std::optional<std::uint32_t> last_taken(std::uint32_t worker) const {
        const std::uint64_t slot = m_running[worker].load(std::memory_order_relaxed);
        if (slot == 0) return std::nullopt;
        return static_cast<std::uint32_t>(slot - 1);
    }

private:
    // Atomics in memory shared between processes must be lock-free (address-free).
    static_assert(std::atomic<std::uint64_t>::is_always_lock_free);
    static_assert(std::atomic<bool>::is_always_lock_free);
    struct Header {
        std::atomic<std::uint64_t> next{0};  // 64 bits: workers overshoot the count by one each
        std::atomic<bool> stop{false};
    };
    std::size_t m_bytes = 0;
    Header* m_header = nullptr;
    std::atomic<std::uint64_t>* m_running = nullptr;  // per worker: schedule index + 1, 0: none
};

void write_all(int fd, const std::string& text) {
    std::size_t written = 0;
    while (written < text.size()) {
        const ssize_t n = write(fd, text.data() + written, text.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) _exit(3);  // the parent is gone
        written += static_cast<std::size_t>(n);
    }
}

/// A worker process: takes schedules until none is left, writes one JSON line per outcome to
/// `fd`, and exits without running the parent's destructors or atexit handlers.
[[noreturn]] void run_worker(std::uint32_t worker, int fd, SharedWork& work,
                             const ExplorationOptions& options, const ChipConfig& chip,
                             const ScheduleFunction& run, const SimOptions& base) {
    // A crash ends the worker; the parent's handlers (a test framework's, say) must not run
    // in it. SIGINT and SIGTERM keep the parent's disposition: with npusim's handlers they
    // stop the running schedule at a safe point (outcome interrupted).
    for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) std::signal(sig, SIG_DFL);
#ifdef __GLIBC__
    // Every schedule builds and frees a whole simulator (each core's 256 KiB coroutine stack,
    // ...). With glibc's default, adaptive thresholds, some sequences of schedules give the
    // top of the heap back to the kernel after one schedule and page-fault it in again in
    // the next: a worker of the 100-schedule benchmark took 30,000 page faults and 25% more
    // CPU time than its twin. A worker lives for one exploration: keep the memory.
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);  // glibc's largest
    mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024);
#endif
    int code = 0;
    try {
        while (!stop_requested(base)) {
            const std::optional<std::uint32_t> index = work.take(worker, options.schedules);
            if (!index) break;
            write_all(fd,
                      outcome_to_json(run_schedule(*index, options.seed + *index, chip, run, base))
                              .dump() +
                          "\n");
        }
    } catch (...) {
        code = 3;
    }
    close(fd);
    _exit(code);
}

std::string describe_status(int status) {
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        const char* name = strsignal(sig);
        return "was killed by signal " + std::to_string(sig) +
               (name != nullptr ? std::string(" (") + name + ")" : "");
    }
    if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
    return "ended (status " + std::to_string(status) + ")";
}

/// Runs the schedules in `jobs` forked workers (SharedWork hands them out) and collects
/// their outcomes, in any order. A stop request stops the hand-out; a worker that dies stops
/// it too, and the exploration then fails with an InternalError naming its schedule.
std::vector<ScheduleOutcome> run_in_workers(const ExplorationOptions& options,
                                            const ChipConfig& chip, const ScheduleFunction& run,
                                            const SimOptions& base) {
    struct Worker {
        pid_t pid = -1;
        int fd = -1;         // the read end of its pipe, -1 once it ended
        std::string buffer;  // received, not yet a whole line
    };
    const std::uint32_t jobs = std::min(options.jobs, options.schedules);
    SharedWork work(jobs);
    std::vector<Worker> workers;
    // On the way out, by an exception too: no worker is left running or unreaped.
    struct Reaper {
        std::vector<Worker>& workers;
        SharedWork& work;
        ~Reaper() {
            work.request_stop();
            for (Worker& w : workers) {
                if (w.fd >= 0) close(w.fd);  // a worker still writing gets EPIPE and exits
                w.fd = -1;
                int status = 0;
                while (w.pid > 0 && waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
                }
                w.pid = -1;
            }
        }
    } reaper{workers, work};
    std::fflush(nullptr);  // children must not repeat buffered output
    for (std::uint32_t w = 0; w < jobs; ++w) {
        int fds[2];
        if (pipe(fds) != 0) throw UsageError("schedule exploration: cannot create a pipe");
        const pid_t pid = fork();
        if (pid < 0) {
            close(fds[0]);
            close(fds[1]);
            throw UsageError("schedule exploration: cannot fork a worker");
        }
        if (pid == 0) {
            close(fds[0]);
            for (const Worker& other : workers) close(other.fd);
            run_worker(w, fds[1], work, options, chip, run, base);
        }
        close(fds[1]);
        workers.push_back({pid, fds[0], {}});
    }
    std::vector<ScheduleOutcome> outcomes;
    std::vector<bool> received(options.schedules, false);
    // Parses each whole line as it arrives, so that the merge costs no time after the last
    // worker ends.
    const auto receive_lines = [&](Worker& w) {
        std::size_t begin = 0;
        for (std::size_t end; (end = w.buffer.find('\n', begin)) != std::string::npos;
             begin = end + 1) {
            ScheduleOutcome o;
            try {
                o = outcome_from_json(
                    nlohmann::json::parse(w.buffer.begin() + begin, w.buffer.begin() + end));
            } catch (const std::exception& error) {
                throw InternalError(
                    std::string("schedule exploration: a worker sent an unreadable outcome: ") +
                    error.what());
            }
            if (o.index >= options.schedules || received[o.index]) {
                throw InternalError("schedule exploration: a worker sent schedule " +
                                    std::to_string(o.index) + " unexpectedly");
            }
            received[o.index] = true;
            outcomes.push_back(std::move(o));
        }
        w.buffer.erase(0, begin);
    };
    // Read all workers at once: a worker whose pipe is full would otherwise wait for us. The
    // timeout lets a stop request reach the workers while their schedules run.
    constexpr int kStopCheckMilliseconds = 100;
    std::size_t running = workers.size();
    char chunk[65536];
    while (running > 0) {
        if (stop_requested(base)) work.request_stop();
        std::vector<pollfd> polls;
        std::vector<std::size_t> polled;  // index in `workers` of each entry of `polls`
        for (std::size_t i = 0; i < workers.size(); ++i) {
            if (workers[i].fd < 0) continue;
            polls.push_back({workers[i].fd, POLLIN, 0});
            polled.push_back(i);
        }
        if (poll(polls.data(), polls.size(), kStopCheckMilliseconds) < 0) {
            if (errno == EINTR) continue;
            throw InternalError("schedule exploration: poll() on the worker pipes failed");
        }
        for (std::size_t p = 0; p < polls.size(); ++p) {
            if (polls[p].revents == 0) continue;
            const std::size_t i = polled[p];
            Worker& w = workers[i];
            const ssize_t n = read(w.fd, chunk, sizeof chunk);
            if (n < 0 && errno == EINTR) continue;
            if (n > 0) {
                w.buffer.append(chunk, static_cast<std::size_t>(n));
                receive_lines(w);
                continue;
            }
            // End of its output: it is exiting. Reaped after the loop, so that its exit (the
            // kernel freeing its memory, about a millisecond) overlaps the other workers'
            // last schedules; but a worker that died stops the hand-out at once.
            close(w.fd);
            w.fd = -1;
            --running;
            const std::optional<std::uint32_t> last =
                work.last_taken(static_cast<std::uint32_t>(i));
            if ((last && !received[*last]) || !w.buffer.empty()) work.request_stop();
        }
    }
    std::string failure;
    for (std::size_t i = 0; i < workers.size(); ++i) {
        Worker& w = workers[i];
        int status = 0;
        while (waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
        }
        w.pid = -1;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && w.buffer.empty()) continue;
        failure = "a schedule exploration worker " + describe_status(status);
        const std::optional<std::uint32_t> last = work.last_taken(static_cast<std::uint32_t>(i));
        if (last && !received[*last]) {
            failure += " while running schedule " + std::to_string(*last) + " (seed " +
                       std::to_string(options.seed + *last) + ")";
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
                        {"outcome", o.error.empty() ? std::string(to_string(o.outcome))
                                                    : std::string("failed")},
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
