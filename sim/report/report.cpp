#include "sim/report/report.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <vector>

#include "base/pipe_table.h"
#include "sim/kernels/kernel_registry.h"

namespace npusim {

namespace {

std::string fixed(double value, int decimals) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    return buffer;
}

constexpr std::size_t kMaxCoreLines = 8;

const char* stop_cause_text(StopCause cause) {
    switch (cause) {
        case StopCause::None:
            return "";
        case StopCause::Request:
            return "request";
        case StopCause::TimeLimit:
            return "simulated-time limit";
        case StopCause::NoProgress:
            return "no-progress limit";
    }
    return "";
}

std::string short_pipe(Pipe pipe) {
    return std::string(pipe_info(pipe).short_name);
}

/// "75.0% of 1207959552 read bytes hit" (the L2 read hit rate).
std::string l2_text(std::uint64_t hit, std::uint64_t read) {
    const double rate = read == 0 ? 0.0 : 100.0 * static_cast<double>(hit) / read;
    return fixed(rate, 1) + "% of " + std::to_string(read) + " read bytes hit";
}
nlohmann::json l2_json(std::uint64_t hit, std::uint64_t read) {
    const double rate = read == 0 ? 0.0 : static_cast<double>(hit) / read;
    return {{"read_bytes", read}, {"hit_bytes", hit}, {"hit_rate", std::round(rate * 1e4) / 1e4}};
}

}  // namespace

std::string format_summary(const RunResult& run, const ChipConfig& chip) {
    std::ostringstream out;
    out << "chip      " << chip.name << " (" << chip.vector_cores << " aiv, " << chip.cube_cores
        << " aic, " << chip.clock_mhz << " MHz)\n";
    if (run.stopped_by == StopCause::TimeLimit) {
        out << "outcome   STOPPED by the simulated-time limit (watchdog; partial results)\n";
    } else if (run.stopped_by == StopCause::NoProgress) {
        out << "outcome   DEADLOCK (no-progress watchdog: blocks spun without progress)\n";
    } else {
        out << "outcome   " << headline(run.outcome) << "\n";
    }
    out << "cycles    " << run.cycles() << " (" << fixed(run.simulated_seconds() * 1e6, 3)
        << " us simulated)\n";
    out << "instrs    " << run.instructions << "\n";
    out << "GM bytes  " << run.gm_bytes << "\n";
    const bool l2 = run.gm_read_bytes > 0;  // the chip has an L2 and copies read GM
    if (l2) out << "L2 reads  " << l2_text(run.l2_hit_bytes, run.gm_read_bytes) << "\n";
    for (const KernelResult& k : run.kernels) {
        out << "kernel    " << k.name << ": " << k.blocks << " blocks on " << to_string(k.core_type)
            << ", " << k.blocks_finished << " finished";
        if (k.completed()) out << ", cycles " << k.start << ".." << k.end;
        if (l2) out << ", L2 " << l2_text(k.l2_hit_bytes, k.gm_read_bytes);
        out << "\n";
    }
    if (!run.kernel_summaries.empty()) {
        out << "kernels   " << run.launches - run.kernels.size() << " more launches (ids "
            << run.first_summarized_id << " on), per kernel: launches, completed, cycles min / "
            << "mean / max\n";
        for (const KernelSummary& s : run.kernel_summaries) {
            out << "  " << s.name << ": " << s.launches << ", " << s.completed << ", "
                << s.cycles_min << " / " << fixed(s.cycles_mean(), 1) << " / " << s.cycles_max;
            if (s.findings != 0) out << ", " << s.findings << " findings";
            out << "\n";
        }
    }
    if (!run.cores.empty() && run.cores.size() <= kMaxCoreLines) {
        out << "\nper core: busy cycles / utilization / instructions per pipe\n";
        for (const CoreUsage& core : run.cores) {
            out << "  " << to_string(core.type) << ' ' << core.index << " (" << core.blocks
                << (core.blocks == 1 ? " block)" : " blocks)");
            for (const PipeUsage& p : core.pipes) {
                out << "  " << short_pipe(p.pipe) << ' ';
                if (p.pipe != Pipe::S)
                    out << p.busy_cycles << '/' << fixed(p.utilization * 100, 1) << "%/";
                out << p.instructions;
            }
            if (l2 && core.gm_read_bytes > 0)
                out << "  L2 " << l2_text(core.l2_hit_bytes, core.gm_read_bytes);
            out << "\n";
        }
    } else if (!run.cores.empty()) {
        // Many cores: one line per (core type, pipe); the JSON report has every core.
        out << "\nper pipe over " << run.cores.size()
            << " cores: utilization min / mean / max, instructions\n";
        for (CoreType type : {CoreType::Vector, CoreType::Cube}) {
            std::map<Pipe, std::vector<const PipeUsage*>> by_pipe;
            std::vector<Pipe> order;
            for (const CoreUsage& core : run.cores) {
                if (core.type != type) continue;
                for (const PipeUsage& p : core.pipes) {
                    if (by_pipe[p.pipe].empty()) order.push_back(p.pipe);
                    by_pipe[p.pipe].push_back(&p);
                }
            }
            for (Pipe pipe : order) {
                const auto& list = by_pipe[pipe];
                double lo = 1e300, hi = 0, sum = 0;
                std::uint64_t instructions = 0;
                for (const PipeUsage* p : list) {
                    lo = std::min(lo, p->utilization);
                    hi = std::max(hi, p->utilization);
                    sum += p->utilization;
                    instructions += p->instructions;
                }
                out << "  " << to_string(type) << ' ' << short_pipe(pipe);
                if (pipe != Pipe::S) {
                    out << "  " << fixed(lo * 100, 1) << "% / " << fixed(sum / list.size() * 100, 1)
                        << "% / " << fixed(hi * 100, 1) << "%";
                }
                out << "  " << instructions << "\n";
            }
        }
    }
    if (!run.stuck.empty()) {
        out << "\nstuck: no block can make progress\n";
        // Blocks stuck at the same place for the same reason are listed as one range.
        for (std::size_t i = 0; i < run.stuck.size();) {
            const StuckBlock& s = run.stuck[i];
            std::size_t j = i + 1;
            while (j < run.stuck.size() && run.stuck[j].kernel == s.kernel &&
                   run.stuck[j].where == s.where && run.stuck[j].reason == s.reason &&
                   run.stuck[j].core_type == s.core_type &&
                   run.stuck[j].block == run.stuck[j - 1].block + 1 &&
                   (s.core < 0) == (run.stuck[j].core < 0)) {
                ++j;
            }
            const StuckBlock& last = run.stuck[j - 1];
            out << "  kernel '" << s.kernel << "' ";
            if (j - i == 1) {
                out << "block " << s.block << " (" << to_string(s.core_type);
                if (s.core >= 0) out << ' ' << s.core;
            } else {
                out << "blocks " << s.block << "-" << last.block << " (" << to_string(s.core_type);
                if (s.core >= 0) out << ' ' << s.core << "-" << last.core;
            }
            out << ")";
            if (!s.where.empty()) out << " at " << s.where;
            out << ": " << s.reason << "\n";
            i = j;
        }
    }
    if (!run.deadlocks.empty()) out << "\n" << format_deadlocks(run.deadlocks);
    return out.str();
}

std::string format_deadlocks(const std::vector<DeadlockFinding>& findings) {
    std::string text;
    for (std::size_t i = 0; i < findings.size(); ++i) {
        text += format_deadlock(findings[i], i + 1);
    }
    return text;
}

nlohmann::json to_json(const DeadlockFinding& finding) {
    nlohmann::json participants = nlohmann::json::array();
    for (const DeadlockParticipant& p : finding.participants) {
        nlohmann::json part = {{"role", p.kernel.empty() ? "host" : "kernel"},
                               {"kernel", p.kernel},
                               {"blocks", p.blocks},
                               {"state", p.state},
                               {"cores", p.cores},
                               {"where", p.where},
                               {"launch", p.launch}};
        part["stream"] = p.stream ? nlohmann::json(*p.stream) : nlohmann::json(nullptr);
        if (!p.stream_name.empty()) part["stream_name"] = p.stream_name;
        participants.push_back(std::move(part));
    }
    nlohmann::json j = {{"kind", std::string(to_string(finding.kind))},
                        {"summary", finding.summary},
                        {"cycle", finding.cycle},
                        {"participants", std::move(participants)},
                        {"fix", finding.fix},
                        {"signature", finding.signature}};
    if (!finding.verdict.empty()) {
        j["verdict"] = finding.verdict;
        j["reachable"] = finding.reachable ? nlohmann::json(*finding.reachable) : nullptr;
    }
    return j;
}

std::string format_summary(const KernelOutcome& outcome, const ChipConfig& chip) {
    std::string text = format_summary(outcome.run, chip);
    text += "\noutput    ";
    if (outcome.run.completed()) text += outcome.verified ? "OK: " : "WRONG: ";
    text += outcome.verification;
    text += "\n";
    return text;
}

nlohmann::json to_json(const RunResult& run) {
    nlohmann::json j;
    j["outcome"] = std::string(to_string(run.outcome));
    j["stopped_by"] = stop_cause_text(run.stopped_by);
    j["clock_mhz"] = run.clock_mhz;
    j["start_cycle"] = run.start_cycle;
    j["end_cycle"] = run.end_cycle;
    j["cycles"] = run.cycles();
    j["instructions"] = run.instructions;
    j["gm_bytes"] = run.gm_bytes;
    // L2 read hits (present when the chip has an L2 and copies read GM).
    const bool l2 = run.gm_read_bytes > 0;
    if (l2) j["l2"] = l2_json(run.l2_hit_bytes, run.gm_read_bytes);
    j["kernels"] = nlohmann::json::array();
    for (const KernelResult& k : run.kernels) {
        j["kernels"].push_back({{"id", k.id},
                                {"name", k.name},
                                {"blocks", k.blocks},
                                {"core_type", to_string(k.core_type)},
                                {"blocks_finished", k.blocks_finished},
                                {"start", k.start},
                                {"end", k.end}});
        if (l2) j["kernels"].back()["l2"] = l2_json(k.l2_hit_bytes, k.gm_read_bytes);
    }
    // The launches past SimOptions::launch_rows, summed per kernel name (present only then).
    if (!run.kernel_summaries.empty()) {
        j["launches"] = run.launches;
        j["first_summarized_id"] = run.first_summarized_id;
        j["kernel_summaries"] = nlohmann::json::array();
        for (const KernelSummary& s : run.kernel_summaries) {
            j["kernel_summaries"].push_back({{"name", s.name},
                                             {"launches", s.launches},
                                             {"completed", s.completed},
                                             {"blocks", s.blocks},
                                             {"cycles_min", s.cycles_min},
                                             {"cycles_mean", std::round(s.cycles_mean() * 10) / 10},
                                             {"cycles_max", s.cycles_max},
                                             {"findings", s.findings}});
        }
    }
    j["cores"] = nlohmann::json::array();
    for (const CoreUsage& core : run.cores) {
        nlohmann::json pipes = nlohmann::json::object();
        for (const PipeUsage& p : core.pipes) {
            pipes[std::string(to_string(p.pipe))] = {
                {"busy_cycles", p.busy_cycles},
                {"utilization", std::round(p.utilization * 1e4) / 1e4},
                {"instructions", p.instructions}};
        }
        j["cores"].push_back({{"type", to_string(core.type)},
                              {"index", core.index},
                              {"blocks", core.blocks},
                              {"pipes", pipes}});
        if (l2) j["cores"].back()["l2"] = l2_json(core.l2_hit_bytes, core.gm_read_bytes);
    }
    j["stuck"] = nlohmann::json::array();
    for (const StuckBlock& s : run.stuck) {
        j["stuck"].push_back({{"kernel", s.kernel},
                              {"block", s.block},
                              {"core_type", to_string(s.core_type)},
                              {"core", s.core},
                              {"where", s.where},
                              {"reason", s.reason}});
    }
    j["deadlocks"] = nlohmann::json::array();
    for (const DeadlockFinding& d : run.deadlocks) j["deadlocks"].push_back(to_json(d));
    return j;
}

nlohmann::json to_json(const KernelOutcome& outcome) {
    nlohmann::json j = to_json(outcome.run);
    j["output"] = {{"verified", outcome.verified}, {"message", outcome.verification}};
    return j;
}

nlohmann::json chip_to_json(const ChipConfig& chip) {
    nlohmann::json parameters = nlohmann::json::object();
    for (const ChipParameter& p : chip_parameters())
        parameters[std::string(p.pointer)] = p.field.of(chip);
    return {{"name", chip.name}, {"source", chip.source}, {"parameters", std::move(parameters)}};
}

nlohmann::json report_header(const std::string& scenario_path, const ChipConfig& chip) {
    return {{"npusim_version", NPUSIM_VERSION_STRING},
            {"report_format", kReportFormatVersion},
            {"scenario", scenario_path},
            {"chip", chip_to_json(chip)}};
}

}  // namespace npusim
