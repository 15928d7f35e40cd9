#include "sim/study/sweep.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <poll.h>
#include <set>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "base/errors.h"

namespace npusim {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string one_line(std::string text) {
    std::replace(text.begin(), text.end(), '\n', ' ');
    std::replace(text.begin(), text.end(), '\r', ' ');
    return text;
}

void write_all(int fd, const std::string& text) {
    std::size_t written = 0;
    while (written < text.size()) {
        const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        written += static_cast<std::size_t>(n);
    }
}

/// The worker: runs the task and writes {"status", "error", "result"} to `fd`, then exits
/// without running the parent's destructors or atexit handlers.
[[noreturn]] void run_worker(int fd, const SweepPlan& plan, const SweepTaskRunner& runner,
                             std::size_t task, std::uint64_t seed) {
    std::signal(SIGINT, SIG_IGN);  // the parent decides when its workers stop
    // A crash ends the worker; the parent's handlers (a test framework's, say) must not run.
    for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTERM}) std::signal(sig, SIG_DFL);
    const char* crash = std::getenv("NPUSIM_SWEEP_TEST_CRASH_TASK");
    if (crash != nullptr && std::to_string(task) == crash) std::abort();
    nlohmann::json reply;
    try {
        reply["result"] = runner(plan, plan.point_of(task), plan.schedule_of(task), seed);
        reply["status"] = "ok";
    } catch (const Error& e) {
        reply["status"] = "error";
        reply["error"] = one_line(e.what());
    } catch (const std::exception& e) {
        reply["status"] = "error";
        reply["error"] = one_line(std::string("internal error: ") + e.what());
    }
    write_all(fd, reply.dump());
    ::close(fd);
    std::_Exit(0);
}

struct Worker {
    pid_t pid = -1;
    int fd = -1;
    std::size_t task = 0;
    Clock::time_point start;
    std::string reply;
};

std::string describe_status(int status) {
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        const char* name = strsignal(sig);
        return "the worker was killed by signal " + std::to_string(sig) +
               (name != nullptr ? std::string(" (") + name + ")" : "");
    }
    if (WIFEXITED(status)) {
        return "the worker exited with status " + std::to_string(WEXITSTATUS(status)) +
               " without a result";
    }
    return "the worker ended without a result";
}

}  // namespace

SweepResult run_sweep(const SweepPlan& plan, const SweepOptions& options,
                      const SweepTaskRunner& runner, std::vector<SweepRow> previous) {
    if (options.jobs < 1) throw UsageError("-j must be at least 1");
    SweepResult result;
    std::set<std::size_t> done;
    for (SweepRow& row : previous) {
        if (row.task >= plan.tasks()) {
            throw UsageError("--resume: the output holds task " + std::to_string(row.task) +
                             ", but the study has " + std::to_string(plan.tasks()) +
                             " tasks: it was written by another study");
        }
        done.insert(row.task);
        result.rows.push_back(std::move(row));
    }
    std::vector<std::size_t> todo;
    for (std::size_t t = 0; t < plan.tasks(); ++t) {
        if (!options.shard.contains(t)) continue;
        if (done.count(t) != 0) {
            ++result.skipped;
            continue;
        }
        todo.push_back(t);
    }

    SweepProgress progress;
    progress.total = todo.size();
    const Clock::time_point start = Clock::now();
    Clock::time_point last_checkpoint = start;
    std::vector<Worker> workers;
    std::size_t next = 0;

    auto stopping = [&] {
        return options.stop_flag != nullptr && options.stop_flag->load(std::memory_order_relaxed);
    };
    auto finish = [&](Worker& w, int status, bool timed_out) {
        SweepRow row;
        row.task = w.task;
        row.point = plan.point_of(w.task);
        row.schedule = plan.schedule_of(w.task);
        row.seed = plan.seed + row.schedule;
        row.values = plan.values_of(row.point);
        nlohmann::json reply = nlohmann::json::parse(w.reply, nullptr, false);
        if (timed_out) {
            row.status = "timeout";
            row.error = "no result within --timeout " + std::to_string(options.timeout_seconds) +
                        " s: the worker was killed";
        } else if (reply.is_object() && reply.contains("status")) {
            row.status = reply["status"].get<std::string>();
            row.error = reply.value("error", "");
            if (reply.contains("result") && reply["result"].is_object()) {
                row.result = reply["result"];
            }
        } else {
            row.status = "crashed";
            row.error = describe_status(status);
        }
        row.result["host_seconds"] =
            std::round(seconds_since(w.start) * 1000.0) / 1000.0;  // ms resolution
        if (row.status != "ok") ++progress.errors;
        if (row.result.value("deadlock", nlohmann::json(false)) == true) ++progress.deadlocks;
        result.rows.push_back(std::move(row));
        ++progress.done;
    };

    while ((next < todo.size() || !workers.empty())) {
        if (stopping()) {
            for (Worker& w : workers) {
                ::kill(w.pid, SIGKILL);
                ::waitpid(w.pid, nullptr, 0);
                ::close(w.fd);
            }
            workers.clear();
            result.interrupted = true;
            break;
        }
        while (next < todo.size() && workers.size() < options.jobs) {
            int fds[2];
            if (::pipe(fds) != 0) throw UsageError("sweep: cannot create a pipe");
            const std::size_t task = todo[next++];
            const std::uint64_t seed = plan.seed + plan.schedule_of(task);
            std::fflush(nullptr);
            const pid_t pid = ::fork();
            if (pid < 0) {
                ::close(fds[0]);
                ::close(fds[1]);
                throw UsageError(std::string("sweep: cannot start a worker process: ") +
                                 std::strerror(errno));
            }
            if (pid == 0) {
                ::close(fds[0]);
                for (const Worker& w : workers) ::close(w.fd);
                run_worker(fds[1], plan, runner, task, seed);
            }
            ::close(fds[1]);
            ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
            workers.push_back({pid, fds[0], task, Clock::now(), {}});
        }
        std::vector<pollfd> polls;
        for (const Worker& w : workers) polls.push_back({w.fd, POLLIN, 0});
        ::poll(polls.data(), polls.size(), 100);
        for (std::size_t i = 0; i < workers.size();) {
            Worker& w = workers[i];
            bool eof = false;
            char buffer[4096];
            while (true) {
                const ssize_t n = ::read(w.fd, buffer, sizeof buffer);
                if (n > 0) {
                    w.reply.append(buffer, static_cast<std::size_t>(n));
                    continue;
                }
                if (n == 0) eof = true;
                if (n < 0 && errno == EINTR) continue;
                break;
            }
            const bool timed_out = !eof && options.timeout_seconds > 0 &&
                                   seconds_since(w.start) > options.timeout_seconds;
            if (!eof && !timed_out) {
                ++i;
                continue;
            }
            if (timed_out) ::kill(w.pid, SIGKILL);
            int status = 0;
            while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
            }
            ::close(w.fd);
            finish(w, status, timed_out);
            workers.erase(workers.begin() + static_cast<std::ptrdiff_t>(i));
        }
        progress.seconds = seconds_since(start);
        if (options.progress) options.progress(progress);
        if (options.checkpoint && seconds_since(last_checkpoint) >= options.checkpoint_seconds) {
            options.checkpoint(result.rows);
            last_checkpoint = Clock::now();
        }
    }
    std::sort(result.rows.begin(), result.rows.end(),
              [](const SweepRow& a, const SweepRow& b) { return a.task < b.task; });
    if (options.checkpoint) options.checkpoint(result.rows);
    return result;
}

}  // namespace npusim
