#include "sim/study/sweep_runner.h"

#include <algorithm>
#include <cmath>

#include "sim/scenario/scenario.h"
#include "sim/study/schedule_exploration.h"
#include "sync/deadlock/deadlock_predictor.h"

namespace npusim {

namespace {

double mean_utilization(const RunResult& run, CoreType type) {
    double sum = 0;
    std::size_t n = 0;
    for (const CoreUsage& core : run.cores) {
        if (core.type != type) continue;
        for (const PipeUsage& p : core.pipes) {
            sum += p.utilization;
            ++n;
        }
    }
    return n == 0 ? 0.0 : std::round(sum / static_cast<double>(n) * 1e4) / 1e4;
}

}  // namespace

nlohmann::json sweep_result_columns(const RunResult& run, const std::vector<Finding>& findings,
                                    const std::string& expect_status) {
    nlohmann::json r = nlohmann::json::object();
    r["outcome"] = std::string(to_string(run.outcome));
    r["makespan_cycles"] = run.cycles();
    std::string kernels;
    for (const KernelResult& k : run.kernels) {
        if (!kernels.empty()) kernels += ';';
        kernels += k.name + "=" + std::to_string(k.end - k.start);
    }
    r["kernel_cycles"] = kernels;
    r["vector_utilization"] = mean_utilization(run, CoreType::Vector);
    r["cube_utilization"] = mean_utilization(run, CoreType::Cube);
    r["deadlock"] = run.outcome == RunOutcome::Deadlock;
    r["deadlock_kind"] = run.deadlocks.empty()
                             ? std::string(run.outcome == RunOutcome::Deadlock ? "stuck" : "")
                             : std::string(to_string(run.deadlocks[0].kind));
    const auto errors = std::count_if(findings.begin(), findings.end(), [](const Finding& f) {
        return f.severity == Severity::Error;
    });
    r["hazards"] = errors;
    r["warnings"] = static_cast<std::size_t>(findings.size() - static_cast<std::size_t>(errors)) +
                    run.warnings.size();
    r["expect"] = expect_status;
    return r;
}

SweepTaskRunner scenario_task_runner() {
    return [](const SweepPlan& plan, std::size_t point, std::uint32_t /*schedule*/,
              std::uint64_t seed) {
        const nlohmann::json document = plan.document_of(point);
        Scenario scenario = parse_scenario(document.dump(), plan.source, plan.base_dir);
        // Schedule s is exploration's schedule of `seed` (launch ticks, start jitter, the
        // random placement's seed) with the point's own placement policy.
        SimOptions options;
        apply_schedule(seed, scenario.chip, options);
        scenario.runtime.seed = options.placement_seed;
        scenario.jitter_seed = seed;
        DeadlockPredictor predictor(capacity_of(scenario.chip));
        const ScenarioOutcome outcome =
            run_scenario(scenario, {&predictor}, true, nullptr, {}, options);
        const std::string expect = !scenario.expect.present ? "none"
                                   : outcome.passed()       ? "pass"
                                                            : "fail";
        nlohmann::json r = sweep_result_columns(outcome.kernel.run, outcome.findings, expect);
        const std::vector<DeadlockFinding> warnings = predictor.warnings();
        r["possible_deadlock"] = !warnings.empty();
        // Reachable when any warned group is; unknown ("") when a group has no verdict.
        nlohmann::json reachable = false;
        for (const DeadlockFinding& w : warnings) {
            if (!w.reachable)
                reachable = "";
            else if (*w.reachable && reachable != "")
                reachable = true;
        }
        r["reachable_deadlock"] = reachable;
        return r;
    };
}

}  // namespace npusim
