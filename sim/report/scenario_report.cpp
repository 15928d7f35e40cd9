#include "sim/report/scenario_report.h"

#include <map>
#include <sstream>

#include "base/printable_text.h"

namespace npusim {

namespace {

struct StreamCycles {
    std::uint64_t kernels = 0;
    Cycle kernel_cycles = 0;  // sum of the kernels' spans
    Cycle first_start = 0;
    Cycle last_end = 0;
};

/// Kernels in launch order with their stream (the runner records one per launch).
std::vector<std::pair<const KernelResult*, std::string>> kernels_with_streams(
    const ScenarioOutcome& outcome) {
    std::vector<std::pair<const KernelResult*, std::string>> list;
    const auto& kernels = outcome.kernel.run.kernels;
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        const bool known = outcome.host && i < outcome.host->launch_streams.size();
        list.push_back({&kernels[i], known ? outcome.host->launch_streams[i] : "default"});
    }
    return list;
}

std::map<std::string, StreamCycles> stream_cycles(const ScenarioOutcome& outcome) {
    std::map<std::string, StreamCycles> streams;
    for (const auto& [k, stream] : kernels_with_streams(outcome)) {
        StreamCycles& s = streams[stream];
        const Cycle end = k->completed() ? k->end : k->start;
        if (s.kernels == 0 || k->start < s.first_start) s.first_start = k->start;
        s.last_end = std::max(s.last_end, end);
        s.kernel_cycles += end - k->start;
        ++s.kernels;
    }
    return streams;
}

bool reported(const HostCallRecord& call) {
    return call.status != Status::Success || !call.warnings.empty() || !call.message.empty();
}

}  // namespace

std::string format_scenario_details(const Scenario& scenario, const ScenarioOutcome& outcome) {
    std::ostringstream out;
    if (outcome.host) {
        if (!outcome.kernel.run.kernels.empty()) out << "\nstreams: kernels, kernel cycles, span\n";
        for (const auto& [name, s] : stream_cycles(outcome)) {
            out << "  " << printable(name, false) << ": " << s.kernels
                << (s.kernels == 1 ? " kernel, " : " kernels, ") << s.kernel_cycles << " cycles, "
                << s.first_start << ".." << s.last_end << "\n";
        }
        if (!outcome.kernel.run.kernels.empty()) out << "kernels: stream, cycles\n";
        for (const auto& [k, stream] : kernels_with_streams(outcome)) {
            out << "  " << k->id << " " << k->name << " on " << printable(stream, false) << ": ";
            if (k->completed()) {
                out << (k->end - k->start) << " cycles (" << k->start << ".." << k->end << ")\n";
            } else {
                out << "did not finish (" << k->blocks_finished << " of " << k->blocks
                    << " blocks)\n";
            }
        }
        const auto& calls = outcome.host->calls;
        bool header = false;
        for (std::size_t i = 0; i < calls.size(); ++i) {
            const HostCallRecord& call = calls[i];
            if (!reported(call)) continue;
            if (!header) out << "host calls with a status, a result or a warning:\n";
            header = true;
            const bool expected = outcome.expectations.covered_calls.contains(i);
            out << "  " << call.pointer << " " << printable(call.call, false) << ": "
                << to_string(call.status);
            if (!call.message.empty()) out << ": " << printable(call.message, false);
            if (call.threw) out << " (the host program stopped here)";
            if (expected) out << " (expected)";
            out << "\n";
            for (std::size_t k = 0; k < call.warnings.size(); ++k) {
                out << "    warning: " << printable(call.warnings[k], false);
                if (outcome.expectations.covered_warnings.contains({i, k})) out << " (expected)";
                out << "\n";
            }
        }
        if (!outcome.host->finished) out << "host program: did not finish\n";
    }
    const auto& results = outcome.expectations.results;
    if (scenario.expect.present) {
        std::size_t held = 0;
        for (const ExpectationResult& r : results) held += r.held ? 1 : 0;
        out << "\nexpectations: " << held << " of " << results.size() << " hold\n";
        for (const ExpectationResult& r : results) {
            out << "  " << (r.held ? "ok      " : "FAILED  ") << printable(r.what, false);
            if (!r.pointer.empty()) out << " [" << r.pointer << "]";
            if (!r.held) out << ": " << printable(r.detail, false);
            out << "\n";
        }
    } else if (outcome.host) {
        for (const ExpectationResult& r : results) {
            if (!r.held)
                out << "FAILED  " << printable(r.what, false) << ": " << printable(r.detail, false)
                    << "\n";
        }
    }
    return out.str();
}

nlohmann::json scenario_details_to_json(const Scenario& scenario, const ScenarioOutcome& outcome) {
    nlohmann::json j = nlohmann::json::object();
    if (outcome.host) {
        nlohmann::json host;
        host["streams"] = nlohmann::json::object();
        for (const auto& [name, s] : stream_cycles(outcome)) {
            host["streams"][name] = {{"kernels", s.kernels},
                                     {"kernel_cycles", s.kernel_cycles},
                                     {"first_start", s.first_start},
                                     {"last_end", s.last_end}};
        }
        host["kernels"] = nlohmann::json::array();
        for (const auto& [k, stream] : kernels_with_streams(outcome)) {
            host["kernels"].push_back({{"id", k->id},
                                       {"name", k->name},
                                       {"stream", stream},
                                       {"completed", k->completed()},
                                       {"cycles", k->completed() ? k->end - k->start : 0}});
        }
        host["calls"] = nlohmann::json::array();
        const auto& calls = outcome.host->calls;
        for (std::size_t i = 0; i < calls.size(); ++i) {
            const HostCallRecord& call = calls[i];
            if (!reported(call)) continue;
            nlohmann::json warnings = nlohmann::json::array();
            for (std::size_t k = 0; k < call.warnings.size(); ++k) {
                warnings.push_back(
                    {{"message", call.warnings[k]},
                     {"expected", outcome.expectations.covered_warnings.contains({i, k})}});
            }
            host["calls"].push_back({{"op", call.pointer},
                                     {"call", call.call},
                                     {"status", to_string(call.status)},
                                     {"message", call.message},
                                     {"stopped", call.threw},
                                     {"expected", outcome.expectations.covered_calls.contains(i)},
                                     {"warnings", warnings}});
        }
        host["finished"] = outcome.host->finished;
        j["host"] = host;
    }
    j["expectations"] = nlohmann::json::array();
    for (const ExpectationResult& r : outcome.expectations.results) {
        j["expectations"].push_back({{"pointer", r.pointer},
                                     {"what", r.what},
                                     {"held", r.held},
                                     {"detail", r.held ? "" : r.detail}});
    }
    j["expect_block"] = scenario.expect.present;
    j["passed"] = outcome.passed();
    return j;
}

}  // namespace npusim
