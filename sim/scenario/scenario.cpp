#include "sim/scenario/scenario.h"

#include <set>

#include "base/config_diagnostics.h"
#include "base/config_file.h"
#include "base/errors.h"
#include "base/json_reader.h"
#include "sim/scenario/scenario_kernels.h"
#include "sim/simulator.h"
#include "sync/check/checker.h"

namespace npusim {

namespace {

/// "expect": {"buffers": {"z": {"file": "golden.npy"}}}: each golden file checked against its
/// buffer (type, size) and read into the expectation's values.
void load_golden_files(ScenarioExpect& expect, const HostProgramSpec& host,
                       const std::filesystem::path& base_dir, Diagnostics& diag) {
    for (BufferExpectation& e : expect.buffers) {
        if (e.file.empty()) continue;
        const ScenarioBuffer* buffer = host.find_buffer(e.buffer);
        if (buffer == nullptr) continue;  // reported by read_expect
        if (auto values = read_golden_file(*buffer, e.file, e.pointer + "/file", base_dir, diag))
            e.values = std::move(*values);
    }
}

/// Kernels reach pinned and managed host memory only in unified-memory mode, as the runtime
/// lets them (docs/runtime.md, "Unified memory"); pageable memory the launch reader refuses.
void check_host_memory_args(const HostProgramSpec& host, Diagnostics& diag) {
    for (const ScenarioOp& op : host.ops) {
        for (const auto& [argument, buffer] : op.args) {
            const ScenarioBuffer* b = host.find_buffer(buffer);
            if (b == nullptr || b->memory == BufferMemory::Device ||
                b->memory == BufferMemory::Pageable)
                continue;
            diag.add(child_pointer(op.pointer + "/args", argument),
                     single_quoted(buffer) + " is " + std::string(to_string(b->memory)) +
                         " host memory; kernels reach it only with \"runtime\": "
                         "{\"unified_memory\": true} (docs/runtime.md, Unified memory)");
        }
    }
}

void read_chip(const nlohmann::json& value, const std::filesystem::path& base_dir, Scenario& s,
               Diagnostics& diag) {
    const auto name = read_string(value, "/chip", diag);
    if (!name) return;
    try {
        if (name->ends_with(".json")) {
            const std::filesystem::path path = std::filesystem::path(*name).is_absolute()
                                                   ? std::filesystem::path(*name)
                                                   : base_dir / *name;
            s.chip = load_chip_config(path);
        } else {
            s.chip = builtin_chip_config(*name);
        }
    } catch (const ConfigError& error) {
        // The chip's own problems already name their file and pointer.
        for (const std::string& problem : error.problems()) diag.add("/chip", problem);
    }
}

void read_kernel(const nlohmann::json& doc, Scenario& s, Diagnostics& diag) {
    if (!doc.contains("kernel")) {
        diag.add("/kernel",
                 "missing: name one of the built-in kernels (or give a \"host\" program)");
        return;
    }
    const auto name = read_string(doc.at("kernel"), "/kernel", diag);
    if (!name) return;
    if (s.kernels.find(*name) != nullptr) {
        diag.add("/kernel", "kernel " + single_quoted(*name) +
                                " of \"kernels\" takes buffers: launch it from a host program "
                                "(\"buffers\" and \"host\"); the single-kernel form runs "
                                "built-in kernels only (not supported yet)");
        return;
    }
    const KernelDefinition* kernel = find_builtin_kernel(*name);
    if (kernel == nullptr) {
        std::vector<std::string_view> names;
        std::string list;
        for (const KernelDefinition& k : builtin_kernels()) {
            names.push_back(k.name);
            list += (list.empty() ? "" : ", ") + k.name;
        }
        std::string message = "unknown kernel " + single_quoted(*name);
        if (auto near = nearest_name(*name, names)) message += " (did you mean '" + *near + "'?)";
        diag.add("/kernel", message + "; built-in kernels: " + list);
        return;
    }
    s.kernel = kernel->name;
    for (const KernelParameter& p : kernel->parameters) s.params[p.name] = p.default_value;
    if (!doc.contains("params")) return;
    const nlohmann::json& params = doc.at("params");
    if (!require_object(params, "/params", diag)) return;
    std::vector<std::string_view> allowed;
    for (const KernelParameter& p : kernel->parameters) allowed.push_back(p.name);
    check_keys(params, "/params", allowed, diag);
    for (const KernelParameter& p : kernel->parameters) {
        if (!params.contains(p.name)) continue;
        const std::string pointer = child_pointer("/params", p.name);
        if (auto v = read_unsigned(params.at(p.name), pointer, diag)) {
            if (check_range(v->value, p.min, p.max, "", pointer, diag)) s.params[p.name] = v->value;
        }
    }
}

void read_single_kernel(const nlohmann::json& doc, Scenario& s, Diagnostics& diag) {
    read_kernel(doc, s, diag);
    if (!doc.contains("blocks")) {
        diag.add("/blocks", "missing: how many blocks to launch");
    } else if (auto blocks = read_unsigned(doc.at("blocks"), "/blocks", diag)) {
        if (check_range(blocks->value, 1, 65535, "blocks", "/blocks", diag)) {
            s.blocks = static_cast<std::uint32_t>(blocks->value);
        }
    }
}

void read_skew(const nlohmann::json& skew, Scenario& s, Diagnostics& diag) {
    if (!require_object(skew, "/skew", diag)) return;
    check_keys(skew, "/skew", {"offsets", "jitter_cycles", "seed"}, diag);
    if (skew.contains("offsets")) {
        const nlohmann::json& offsets = skew.at("offsets");
        if (!offsets.is_array()) {
            diag.add("/skew/offsets",
                     "expected an array of cycle counts, got " + describe_json(offsets));
        } else {
            for (std::size_t i = 0; i < offsets.size(); ++i) {
                const std::string pointer = child_pointer("/skew/offsets", i);
                if (auto v = read_unsigned(offsets[i], pointer, diag)) {
                    if (check_range(v->value, 0, 1'000'000'000, "cycles", pointer, diag)) {
                        s.start_offsets.push_back(v->value);
                    }
                }
            }
        }
    }
    if (skew.contains("jitter_cycles")) {
        if (auto v = read_unsigned(skew.at("jitter_cycles"), "/skew/jitter_cycles", diag)) {
            if (check_range(v->value, 0, 1'000'000'000, "cycles", "/skew/jitter_cycles", diag)) {
                s.start_jitter_cycles = v->value;
            }
        }
    }
    if (skew.contains("seed")) {
        if (auto v = read_unsigned(skew.at("seed"), "/skew/seed", diag)) s.jitter_seed = v->value;
    }
}

void read_version(const nlohmann::json& value, Diagnostics& diag) {
    const auto version = read_unsigned(value, "/npusim_scenario", diag);
    if (version && version->value != kScenarioFormatVersion) {
        diag.add("/npusim_scenario", "unsupported scenario format version " +
                                         std::to_string(version->value) + "; this npusim reads " +
                                         std::to_string(kScenarioFormatVersion) +
                                         " (docs/scenarios.md)");
    }
}

}  // namespace

Scenario parse_scenario(std::string_view json_text, const std::string& origin,
                        const std::filesystem::path& base_dir,
                        const std::vector<ScenarioOverride>& overrides) {
    Diagnostics diag(origin);
    Scenario s;
    s.source = origin;
    auto doc = parse_json(json_text, diag);
    if (doc && !overrides.empty()) apply_overrides(*doc, overrides, diag);
    if (doc && require_object(*doc, "", diag)) {
        check_keys(
            *doc, "",
            {"npusim_scenario", "description", "chip", "kernel", "blocks", "params", "skew",
             "runtime", "buffers", "streams", "events", "host", "expect", "sweep", "kernels"},
            diag);
        if (doc->contains("npusim_scenario")) read_version(doc->at("npusim_scenario"), diag);
        if (doc->contains("kernels")) {
            s.kernels = read_scenario_kernels(doc->at("kernels"), origin, base_dir, diag);
        }
        // "sweep" is the study `npusim sweep` runs (sim/study/sweep_plan.h validates it); a run
        // ignores it.
        if (doc->contains("skew")) read_skew(doc->at("skew"), s, diag);
        if (doc->contains("runtime")) s.runtime = read_runtime_section(doc->at("runtime"), diag);
        if (doc->contains("description")) {
            if (auto d = read_string(doc->at("description"), "/description", diag))
                s.description = *d;
        }
        if (!doc->contains("chip")) {
            diag.add("/chip", "missing: a chip preset name (e.g. \"a2\") or a .json path");
        } else {
            read_chip(doc->at("chip"), base_dir, s, diag);
        }
        if (doc->contains("host")) {
            for (const char* key : {"kernel", "blocks", "params", "skew"}) {
                if (doc->contains(key))
                    diag.add(std::string("/") + key,
                             "a scenario runs either a host program (\"host\") or one kernel "
                             "(\"kernel\"), not both: launch kernels from the host program");
            }
            // The chip must be known to check launches against it.
            if (diag.empty()) {
                s.host = read_host_program(*doc, s.chip, diag, s.kernels);
                check_buffer_files(s.host->buffers, base_dir, diag);
                if (!s.runtime.options.unified_memory) check_host_memory_args(*s.host, diag);
            }
        } else {
            for (const char* key : {"buffers", "streams", "events"}) {
                if (doc->contains(key))
                    diag.add(std::string("/") + key,
                             "buffers, streams and events belong to a host program: add "
                             "\"host\" (and drop \"kernel\")");
            }
            read_single_kernel(*doc, s, diag);
        }
        if (doc->contains("expect") && diag.empty()) {
            s.expect = read_expect(doc->at("expect"), s.host ? &*s.host : nullptr, diag);
            if (s.host) load_golden_files(s.expect, *s.host, base_dir, diag);
        }
    }
    if (diag.empty() && !s.host) {
        if (const KernelDefinition* kernel = find_builtin_kernel(s.kernel);
            kernel && kernel->check) {
            for (const auto& [pointer, message] : kernel->check(s.blocks, s.params)) {
                diag.add(pointer, message);
            }
            // Only parameters that passed the kernel's own checks give meaningful needs.
            if (diag.empty() && kernel->needs) {
                const KernelNeeds needs = kernel->needs(s.blocks, s.params);
                for (const auto& [pointer, message] : check_kernel_needs(s.chip, needs)) {
                    diag.add(pointer, message);
                }
            }
        }
    }
    if (s.start_offsets.size() > s.blocks && diag.empty()) {
        diag.add("/skew/offsets", "has " + std::to_string(s.start_offsets.size()) +
                                      " entries for " + std::to_string(s.blocks) + " blocks");
    }
    diag.throw_if_any();
    return s;
}

Scenario load_scenario(const std::filesystem::path& file,
                       const std::vector<ScenarioOverride>& overrides) {
    return parse_scenario(read_config_file(file), file.string(), file.parent_path(), overrides);
}

KernelNeeds scenario_needs(const Scenario& scenario) {
    if (scenario.host) {
        std::uint32_t blocks = 1;
        return host_program_needs(*scenario.host, blocks);
    }
    const KernelDefinition* kernel = find_builtin_kernel(scenario.kernel);
    if (kernel == nullptr || !kernel->needs)
        throw UsageError("unknown built-in kernel '" + scenario.kernel + "'");
    return kernel->needs(scenario.blocks, scenario.params);
}

HostMemoryEstimate estimate_scenario_memory(const Scenario& scenario, bool check) {
    if (scenario.host) {
        std::uint32_t blocks = 1;
        const KernelNeeds needs = host_program_needs(*scenario.host, blocks);
        return estimate_host_memory(scenario.chip, blocks, needs, check);
    }
    return estimate_host_memory(scenario.chip, scenario.blocks, scenario_needs(scenario), check);
}

void require_memory_fits(const Scenario& scenario, bool check, std::uint64_t limit_bytes,
                         const std::string& limit_name) {
    const HostMemoryEstimate estimate = estimate_scenario_memory(scenario, check);
    if (estimate.total_bytes <= limit_bytes) return;
    Diagnostics diag(scenario.source);
    diag.add(estimate.largest().need.pointer,
             "the run needs about " + format_bytes(estimate.total_bytes) +
                 " of host memory, more than " + limit_name + " (" + format_bytes(limit_bytes) +
                 "): " + estimate.describe() +
                 (check ? "; --no-check drops the checker's share" : ""));
    diag.throw_if_any();
}

void check_scenario_memory(const Scenario& scenario, bool check, std::uint64_t max_memory) {
    if (max_memory != 0) require_memory_fits(scenario, check, max_memory, "--max-memory");
    if (const auto available = available_host_memory()) {
        require_memory_fits(scenario, check, available->bytes, available->source);
    }
}

namespace {

// A finding counts for the kernel summary (RunResult::kernel_summaries) of each summed launch
// one of its sites names, once per summary.
void count_summed_findings(RunResult& run, const std::vector<Finding>& findings) {
    if (run.kernel_summaries.empty()) return;
    for (const Finding& f : findings) {
        std::set<std::string> named;
        for (const AccessSite& site : f.sites)
            if (site.kernel_id >= run.first_summarized_id && site.kernel_id != ~std::uint32_t{0})
                named.insert(site.kernel);
        for (KernelSummary& s : run.kernel_summaries) s.findings += named.count(s.name);
    }
}

}  // namespace

ScenarioOutcome run_scenario(const Scenario& scenario,
                             const std::vector<TransactionObserver*>& observers, bool check,
                             std::vector<Finding>* findings_on_error,
                             const CheckerOptions& checker_options, const SimOptions& sim_options,
                             bool read_all_buffers, const FindingFilter& filter) {
    const KernelDefinition* kernel = find_builtin_kernel(scenario.kernel);
    if (!scenario.host && kernel == nullptr)
        throw UsageError("unknown built-in kernel '" + scenario.kernel + "'");
    SimOptions options = sim_options;
    options.placement = scenario.runtime.placement;
    options.placement_seed = scenario.runtime.seed;
    options.launch_rows = scenario.runtime.launch_rows;
    Simulator sim(scenario.chip, options);
    for (TransactionObserver* o : observers) sim.attach(*o);
    std::unique_ptr<Checker> checker;
    if (check) {
        checker = std::make_unique<Checker>(sim.global_memory(), checker_options);
        sim.attach(*checker);
    }
    ScenarioOutcome outcome;
    try {
        if (scenario.host) {
            std::set<std::string> read_back;
            for (const BufferExpectation& e : scenario.expect.buffers) read_back.insert(e.buffer);
            if (read_all_buffers) {
                for (const ScenarioBuffer& b : scenario.host->buffers) read_back.insert(b.name);
            }
            outcome.host = run_host_program(sim, *scenario.host, scenario.runtime.options,
                                            scenario.source, read_back);
            outcome.kernel.run = outcome.host->run;
            outcome.kernel.verified = true;
        } else {
            LaunchSpec launch;
            launch.blocks = scenario.blocks;
            launch.start_offsets = scenario.start_offsets;
            launch.start_jitter_cycles = scenario.start_jitter_cycles;
            launch.jitter_seed = scenario.jitter_seed;
            outcome.kernel = kernel->run(sim, launch, scenario.params);
        }
    } catch (const KernelError&) {
        if (checker && findings_on_error != nullptr)
            *findings_on_error = filter_findings(checker->findings(), filter).kept;
        throw;
    }
    if (checker) {
        // Expectations and the exit code see what the user selected and did not suppress.
        outcome.filtered = filter_findings(checker->findings(), filter);
        outcome.findings = std::move(outcome.filtered.kept);
        outcome.filtered.kept.clear();
        outcome.checked = true;
        count_summed_findings(outcome.kernel.run, outcome.findings);
    }
    outcome.expectations =
        evaluate_expectations(scenario.expect, outcome.kernel.run, outcome.findings,
                              outcome.checked, outcome.host ? &*outcome.host : nullptr);
    using Output = ScenarioExpect::Output;
    if (!scenario.host && outcome.kernel.run.completed() && scenario.expect.output != Output::Any) {
        const bool wrong = scenario.expect.output == Output::Wrong;
        outcome.expectations.results.push_back(
            {scenario.expect.present ? "/expect/output" : "",
             wrong ? "the output is wrong" : "the output checks out",
             outcome.kernel.verified != wrong, outcome.kernel.verification});
    }
    return outcome;
}

std::vector<std::string> dump_scenario_buffers(const Scenario& scenario,
                                               const ScenarioOutcome& outcome,
                                               const std::filesystem::path& dir,
                                               BufferFileFormat format) {
    if (!scenario.host || !outcome.host) {
        throw UsageError(
            "--dump: a single-kernel scenario has no buffers to write (not supported yet); "
            "write the kernel as a host program with \"buffers\" and a \"launch\"");
    }
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error || !std::filesystem::is_directory(dir)) {
        throw UsageError(printable(dir.string(), false) + ": cannot create the --dump folder" +
                         (error ? ": " + error.message() : std::string()));
    }
    std::vector<std::string> lines;
    for (const ScenarioBuffer& b : scenario.host->buffers) {
        const auto it = outcome.host->buffers.find(b.name);
        if (it == outcome.host->buffers.end() || !it->second.read) {
            lines.push_back(printable(b.name, false) + "  not written: " +
                            (it == outcome.host->buffers.end() ? std::string("not read back")
                                                               : it->second.why_not));
            continue;
        }
        const std::filesystem::path file = write_buffer_file(dir, b, it->second.values, format);
        lines.push_back(printable(b.name, false) + "  " + printable(file.string(), false));
    }
    return lines;
}

}  // namespace npusim
