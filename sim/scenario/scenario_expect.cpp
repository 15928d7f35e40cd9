#include "sim/scenario/scenario_expect.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <system_error>

#include "base/config_diagnostics.h"
#include "base/json_choices.h"

namespace npusim {

namespace {

using json = nlohmann::json;
using json_choices::read_number;

/// The enum value whose printed name is `name`: every value the type can hold is tried, so a
/// kind or scope added later (e.g. the inter-stream race scope) is accepted without a change.
template <class Enum, class Print>
std::optional<Enum> by_printed_name(const std::string& name, Print print,
                                    std::vector<std::string>& names) {
    std::optional<Enum> found;
    for (unsigned i = 0; i < 256; ++i) {
        const std::string printed(print(static_cast<Enum>(i)));
        if (printed.empty() || printed == "?" || printed.ends_with("_?")) continue;
        if (printed == name && !found) found = static_cast<Enum>(i);
        if (std::find(names.begin(), names.end(), printed) == names.end()) names.push_back(printed);
    }
    return found;
}

template <class Enum, class Print>
std::optional<Enum> read_named(const json& entry, const std::string& pointer, const char* key,
                               Print print, Diagnostics& diag) {
    if (!entry.contains(key)) return std::nullopt;
    const std::string at = child_pointer(pointer, key);
    const auto text = read_string(entry.at(key), at, diag);
    if (!text) return std::nullopt;
    std::vector<std::string> names;
    if (auto e = by_printed_name<Enum>(*text, print, names)) return e;
    std::vector<std::string_view> candidates(names.begin(), names.end());
    std::string message = "unknown " + std::string(key) + " " + single_quoted(*text);
    if (auto near = nearest_name(*text, candidates)) message += " (did you mean '" + *near + "'?)";
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "" : ", ") + single_quoted(n);
    diag.add(at, message + "; expected one of " + list);
    return std::nullopt;
}

/// The call pointer "op" names: an index into "host" or a pointer of a prologue step or op.
std::optional<std::string> read_op_ref(const json& entry, const std::string& pointer,
                                       const HostProgramSpec& host, Diagnostics& diag) {
    const std::string at = pointer + "/op";
    if (!entry.contains("op")) {
        diag.add(at, "missing: the call, as an index into \"host\" or a pointer (\"/host/3\")");
        return std::nullopt;
    }
    const json& op = entry.at("op");
    if (op.is_number_unsigned()) {
        const std::uint64_t index = op.get<std::uint64_t>();
        if (index < host.ops.size()) return child_pointer("/host", index);
        diag.add(at, "index " + std::to_string(index) + " is past the host program (" +
                         std::to_string(host.ops.size()) + " operations)");
        return std::nullopt;
    }
    const auto text = read_string(op, at, diag);
    if (!text) return std::nullopt;
    for (const ScenarioOp& o : host.ops) {
        if (o.pointer == *text) return text;
    }
    for (const ScenarioBuffer& b : host.buffers) {
        if (b.pointer == *text) return text;
    }
    for (const ScenarioEvent& e : host.events) {
        if (e.pointer == *text) return text;
    }
    for (std::size_t i = 0; i < host.streams.size(); ++i) {
        if (child_pointer("/streams", i) == *text) return text;
    }
    diag.add(at, single_quoted(*text) + " names no host call (expected \"/host/0\".." + "\"/host/" +
                     std::to_string(host.ops.empty() ? 0 : host.ops.size() - 1) +
                     "\", or a buffer, stream or event pointer)");
    return std::nullopt;
}

void read_buffer_expectation(const json& value, const std::string& name,
                             const HostProgramSpec* host, ScenarioExpect& out, Diagnostics& diag) {
    BufferExpectation e;
    e.buffer = name;
    e.pointer = child_pointer("/expect/buffers", name);
    const ScenarioBuffer* buffer = host != nullptr ? host->find_buffer(name) : nullptr;
    if (buffer == nullptr) {
        diag.add(e.pointer, "undefined buffer " + single_quoted(name) +
                                (host == nullptr ? " (buffers need a host program)" : ""));
        return;
    }
    if (!require_object(value, e.pointer, diag)) return;
    check_keys(value, e.pointer, {"equals", "all", "range", "file", "tolerance"}, diag);
    const int forms =
        static_cast<int>(value.contains("equals")) + static_cast<int>(value.contains("all")) +
        static_cast<int>(value.contains("range")) + static_cast<int>(value.contains("file"));
    if (forms != 1) {
        diag.add(e.pointer, "give exactly one of \"equals\", \"all\", \"range\" and \"file\"");
        return;
    }
    if (value.contains("tolerance")) {
        if (auto t = read_number(value.at("tolerance"), e.pointer + "/tolerance", diag)) {
            if (*t < 0) {
                diag.add(e.pointer + "/tolerance", "must not be negative");
            } else {
                e.tolerance = *t;
            }
        }
    }
    if (value.contains("file")) {
        // A golden file (.npy or raw .bin): read once the scenario's folder is known.
        e.kind = BufferExpectation::Kind::Equals;
        if (auto file = read_string(value.at("file"), e.pointer + "/file", diag)) e.file = *file;
    } else if (value.contains("equals")) {
        e.kind = BufferExpectation::Kind::Equals;
        const json& values = value.at("equals");
        const std::string at = e.pointer + "/equals";
        if (!values.is_array()) {
            diag.add(at, "expected an array of numbers, got " + describe_json(values));
            return;
        }
        if (values.size() != buffer->elements) {
            diag.add(at, "has " + std::to_string(values.size()) + " values; buffer " +
                             single_quoted(name) + " has " + std::to_string(buffer->elements) +
                             " elements");
            return;
        }
        for (std::size_t i = 0; i < values.size(); ++i) {
            if (auto v = read_number(values[i], child_pointer(at, i), diag)) e.values.push_back(*v);
        }
    } else if (value.contains("all")) {
        e.kind = BufferExpectation::Kind::All;
        if (auto v = read_number(value.at("all"), e.pointer + "/all", diag)) e.value = *v;
    } else {
        e.kind = BufferExpectation::Kind::Range;
        const json& range = value.at("range");
        const std::string at = e.pointer + "/range";
        if (!require_object(range, at, diag)) return;
        check_keys(range, at, {"start", "step"}, diag);
        if (range.contains("start")) {
            if (auto v = read_number(range.at("start"), at + "/start", diag)) e.start = *v;
        }
        if (range.contains("step")) {
            if (auto v = read_number(range.at("step"), at + "/step", diag)) e.step = *v;
        }
    }
    out.buffers.push_back(std::move(e));
}

void read_finding(const json& entry, const std::string& pointer, ScenarioExpect& out,
                  Diagnostics& diag) {
    if (!require_object(entry, pointer, diag)) return;
    check_keys(entry, pointer, {"kind", "scope", "space", "first_pipe", "second_pipe", "kernel"},
               diag);
    FindingExpectation f;
    f.pointer = pointer;
    if (!entry.contains("kind")) {
        diag.add(pointer + "/kind",
                 "missing: the finding kind (\"race\", \"RAW\", \"unpaired SetFlag\", ...)");
    } else if (entry.at("kind") == "race") {
        f.any_race = true;
    } else if (auto k = read_named<FindingKind>(
                   entry, pointer, "kind", [](FindingKind v) { return to_string(v); }, diag)) {
        f.match.kind = *k;
    }
    f.match.scope = read_named<RaceScope>(
        entry, pointer, "scope", [](RaceScope v) { return to_string(v); }, diag);
    f.match.space = read_named<MemSpace>(
        entry, pointer, "space", [](MemSpace v) { return to_string(v); }, diag);
    const auto pipe = [](Pipe v) { return to_string(v); };
    f.match.first_pipe = read_named<Pipe>(entry, pointer, "first_pipe", pipe, diag);
    f.match.second_pipe = read_named<Pipe>(entry, pointer, "second_pipe", pipe, diag);
    if (entry.contains("kernel"))
        f.kernel = read_string(entry.at("kernel"), pointer + "/kernel", diag);
    out.findings.push_back(std::move(f));
}

template <class Read>
void read_list(const json& expect, const char* key, Diagnostics& diag, Read read) {
    if (!expect.contains(key)) return;
    const std::string at = child_pointer("/expect", key);
    const json& list = expect.at(key);
    if (!list.is_array()) {
        diag.add(at, "expected an array, got " + describe_json(list));
        return;
    }
    for (std::size_t i = 0; i < list.size(); ++i) read(list[i], child_pointer(at, i));
}

// A value as a message shows it: an integer exactly (16843009, not 1.6843e+07), any other
// number in the fewest digits that read back as the same double, so that two values that
// differ never print alike.
std::string fixed(double v) {
    char text[64];
    if (std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < 9007199254740992.0) {
        std::snprintf(text, sizeof text, "%.0f", v);
        return text;
    }
    const auto [end, error] = std::to_chars(text, text + sizeof text, v);
    return error == std::errc() ? std::string(text, end) : std::string("?");
}

}  // namespace

ScenarioExpect read_expect(const nlohmann::json& value, const HostProgramSpec* host,
                           Diagnostics& diag) {
    ScenarioExpect out;
    out.present = true;
    if (!require_object(value, "/expect", diag)) return out;
    check_keys(
        value, "/expect",
        {"outcome", "output", "cycles", "kernels", "buffers", "findings", "warnings", "statuses"},
        diag);
    if (value.contains("outcome")) {
        const auto text = read_string(value.at("outcome"), "/expect/outcome", diag);
        // An expectation names how a run ends by itself: completed or deadlock.
        const std::optional<RunOutcome> named =
            text ? run_outcome_named(*text) : std::optional<RunOutcome>();
        if (named && *named != RunOutcome::Interrupted) {
            out.outcome = *named;
        } else if (text) {
            diag.add("/expect/outcome", "unknown outcome " + single_quoted(*text) +
                                            "; expected \"completed\" or \"deadlock\"");
        }
    }
    if (value.contains("output")) {
        const auto text = read_string(value.at("output"), "/expect/output", diag);
        if (text == "correct") {
            out.output = ScenarioExpect::Output::Correct;
        } else if (text == "wrong") {
            out.output = ScenarioExpect::Output::Wrong;
        } else if (text == "any") {
            out.output = ScenarioExpect::Output::Any;
        } else if (text) {
            diag.add("/expect/output", "unknown value " + single_quoted(*text) +
                                           "; expected \"correct\", \"wrong\" or \"any\"");
        }
        if (host != nullptr)
            diag.add("/expect/output",
                     "the built-in kernel's output check belongs to the "
                     "single-kernel form; a host program checks \"buffers\"");
    }
    if (value.contains("cycles")) {
        const json& cycles = value.at("cycles");
        if (require_object(cycles, "/expect/cycles", diag)) {
            check_keys(cycles, "/expect/cycles", {"min", "max"}, diag);
            if (cycles.contains("min")) {
                if (auto v = read_unsigned(cycles.at("min"), "/expect/cycles/min", diag))
                    out.min_cycles = v->value;
            }
            if (cycles.contains("max")) {
                if (auto v = read_unsigned(cycles.at("max"), "/expect/cycles/max", diag))
                    out.max_cycles = v->value;
            }
            if (out.min_cycles && out.max_cycles && *out.min_cycles > *out.max_cycles)
                diag.add("/expect/cycles", "min is above max");
        }
    }
    if (value.contains("buffers") && require_object(value.at("buffers"), "/expect/buffers", diag)) {
        for (const auto& [name, entry] : value.at("buffers").items()) {
            if (name != kCommentKey) read_buffer_expectation(entry, name, host, out, diag);
        }
    }
    read_list(value, "findings", diag, [&](const json& entry, const std::string& at) {
        read_finding(entry, at, out, diag);
    });
    read_list(value, "kernels", diag, [&](const json& entry, const std::string& at) {
        if (!require_object(entry, at, diag)) return;
        check_keys(entry, at, {"kernel", "start", "end"}, diag);
        KernelExpectation k;
        k.pointer = at;
        if (!entry.contains("kernel")) {
            diag.add(at + "/kernel", "missing: the kernel's index in launch order (0 = first)");
        } else if (auto v = read_unsigned(entry.at("kernel"), at + "/kernel", diag)) {
            if (check_range(v->value, 0, 1'000'000, "", at + "/kernel", diag))
                k.kernel = static_cast<std::uint32_t>(v->value);
        }
        for (const char* key : {"start", "end"}) {
            if (!entry.contains(key)) continue;
            const std::string w = child_pointer(at, key);
            const json& window = entry.at(key);
            if (!require_object(window, w, diag)) continue;
            check_keys(window, w, {"min", "max"}, diag);
            const bool start = std::string_view(key) == "start";
            for (const char* bound : {"min", "max"}) {
                if (!window.contains(bound)) continue;
                if (auto v = read_unsigned(window.at(bound), child_pointer(w, bound), diag)) {
                    const bool min = std::string_view(bound) == "min";
                    (start ? (min ? k.start_min : k.start_max) : (min ? k.end_min : k.end_max)) =
                        v->value;
                }
            }
        }
        out.kernels.push_back(k);
    });
    const bool host_lists = value.contains("warnings") || value.contains("statuses");
    if (host_lists && host == nullptr) {
        diag.add(value.contains("warnings") ? "/expect/warnings" : "/expect/statuses",
                 "warnings and statuses name host calls: the scenario needs a \"host\" program");
        return out;
    }
    out.warnings_listed = value.contains("warnings");
    read_list(value, "warnings", diag, [&](const json& entry, const std::string& at) {
        if (!require_object(entry, at, diag)) return;
        check_keys(entry, at, {"op", "contains"}, diag);
        WarningExpectation w;
        w.pointer = at;
        if (auto op = read_op_ref(entry, at, *host, diag)) w.op = *op;
        if (entry.contains("contains")) {
            if (auto c = read_string(entry.at("contains"), at + "/contains", diag)) w.contains = *c;
        }
        out.warnings.push_back(std::move(w));
    });
    read_list(value, "statuses", diag, [&](const json& entry, const std::string& at) {
        if (!require_object(entry, at, diag)) return;
        check_keys(entry, at, {"op", "status"}, diag);
        StatusExpectation s;
        s.pointer = at;
        if (auto op = read_op_ref(entry, at, *host, diag)) s.op = *op;
        if (!entry.contains("status")) {
            diag.add(at + "/status",
                     "missing: a status name (\"NotReady\", \"InvalidValue\", ...)");
        } else if (auto st = read_named<Status>(
                       entry, at, "status", [](Status v) { return to_string(v); }, diag)) {
            s.status = *st;
        }
        out.statuses.push_back(std::move(s));
    });
    return out;
}

bool ExpectationReport::all_held() const {
    return std::all_of(results.begin(), results.end(),
                       [](const ExpectationResult& r) { return r.held; });
}

ExpectationReport evaluate_expectations(const ScenarioExpect& expect, const RunResult& run,
                                        const std::vector<Finding>& findings, bool checked,
                                        const HostProgramOutcome* host) {
    ExpectationReport report;
    auto add = [&](std::string pointer, std::string what, bool held, std::string detail) {
        report.results.push_back({std::move(pointer), std::move(what), held, std::move(detail)});
    };
    add("/expect/outcome", "outcome is " + std::string(to_string(expect.outcome)),
        run.outcome == expect.outcome, "it is " + std::string(to_string(run.outcome)));
    if (expect.min_cycles || expect.max_cycles) {
        const Cycle c = run.cycles();
        const bool held = (!expect.min_cycles || c >= *expect.min_cycles) &&
                          (!expect.max_cycles || c <= *expect.max_cycles);
        add("/expect/cycles",
            "cycles in " + (expect.min_cycles ? std::to_string(*expect.min_cycles) : "0") + ".." +
                (expect.max_cycles ? std::to_string(*expect.max_cycles) : "any"),
            held, "the run took " + std::to_string(c));
    }
    for (const KernelExpectation& e : expect.kernels) {
        const auto window = [](const std::optional<Cycle>& lo, const std::optional<Cycle>& hi) {
            return (lo ? std::to_string(*lo) : std::string("0")) + ".." +
                   (hi ? std::to_string(*hi) : std::string("any"));
        };
        std::string what = "kernel " + std::to_string(e.kernel);
        if (e.start_min || e.start_max) what += " starts in " + window(e.start_min, e.start_max);
        if (e.end_min || e.end_max) what += " ends in " + window(e.end_min, e.end_max);
        const KernelResult* k = nullptr;
        for (const KernelResult& r : run.kernels) {
            if (r.id == e.kernel) k = &r;
        }
        if (k == nullptr) {
            add(e.pointer, what, false,
                "the run has " + std::to_string(run.kernels.size()) + " kernels");
            continue;
        }
        const bool held = (!e.start_min || k->start >= *e.start_min) &&
                          (!e.start_max || k->start <= *e.start_max) &&
                          ((!e.end_min && !e.end_max) ||
                           (k->completed() && (!e.end_min || k->end >= *e.end_min) &&
                            (!e.end_max || k->end <= *e.end_max)));
        add(e.pointer, what, held,
            k->name + " ran " + std::to_string(k->start) + ".." +
                (k->completed() ? std::to_string(k->end) : std::string("(unfinished)")));
    }
    for (const BufferExpectation& e : expect.buffers) {
        std::string what = "buffer " + e.buffer + " ";
        what += e.kind == BufferExpectation::Kind::All ? "all " + fixed(e.value)
                : e.kind == BufferExpectation::Kind::Range
                    ? "range from " + fixed(e.start) + " step " + fixed(e.step)
                : e.file.empty() ? "equals the listed values"
                                 : "equals golden file " + e.file;
        if (e.tolerance > 0) what += " within " + fixed(e.tolerance);
        const BufferSnapshot* snap = nullptr;
        if (host != nullptr) {
            if (auto it = host->buffers.find(e.buffer); it != host->buffers.end())
                snap = &it->second;
        }
        if (snap == nullptr || !snap->read) {
            add(e.pointer, what, false,
                "not read: " + (snap != nullptr ? snap->why_not : std::string("no such buffer")));
            continue;
        }
        std::uint64_t wrong = 0, first = 0;
        double got_first = 0, want_first = 0;
        for (std::size_t i = 0; i < snap->values.size(); ++i) {
            const double want = e.kind == BufferExpectation::Kind::All ? e.value
                                : e.kind == BufferExpectation::Kind::Range
                                    ? e.start + static_cast<double>(i) * e.step
                                    : e.values[i];
            if (std::fabs(snap->values[i] - want) > e.tolerance) {
                if (wrong++ == 0) {
                    first = i;
                    got_first = snap->values[i];
                    want_first = want;
                }
            }
        }
        add(e.pointer, what, wrong == 0,
            std::to_string(wrong) + " of " + std::to_string(snap->values.size()) +
                " elements differ (first at index " + std::to_string(first) + ": got " +
                fixed(got_first) + ", want " + fixed(want_first) + ")");
    }
    // Findings: each expectation takes a distinct matching finding.
    for (const FindingExpectation& e : expect.findings) {
        std::optional<std::size_t> hit;
        for (std::size_t i = 0; i < findings.size() && !hit; ++i) {
            Expected match = e.match;
            if (e.any_race) {
                if (!is_race(findings[i].kind)) continue;
                match.kind = findings[i].kind;
            }
            if (report.covered_findings.contains(i) || !matches(findings[i], match)) continue;
            if (e.kernel && (findings[i].sites.empty() || findings[i].sites[0].kernel != *e.kernel))
                continue;
            hit = i;
        }
        if (hit) report.covered_findings.insert(*hit);
        std::string what = "finding " + describe(e.match);
        if (e.any_race) what.replace(8, std::string(to_string(e.match.kind)).size(), "race");
        if (e.kernel) what += " in kernel " + *e.kernel;
        add(e.pointer, what, hit.has_value(),
            checked ? "no such finding" : "the checker was off (--no-check)");
    }
    for (std::size_t i = 0; i < findings.size(); ++i) {
        if (findings[i].severity == Severity::Error && !report.covered_findings.contains(i))
            add("/expect/findings", "no unexpected error finding", false,
                "unexpected: " + describe(findings[i]));
    }
    if (host == nullptr) return report;
    const auto call_index = [&](const std::string& pointer) -> std::optional<std::size_t> {
        for (std::size_t i = 0; i < host->calls.size(); ++i) {
            if (host->calls[i].pointer == pointer) return i;
        }
        return std::nullopt;
    };
    for (const StatusExpectation& e : expect.statuses) {
        const std::string what = "status of " + e.op + " is " + to_string(e.status);
        const auto i = call_index(e.op);
        if (!i) {
            add(e.pointer, what, false, "the call was not made (the program stopped earlier)");
            continue;
        }
        const HostCallRecord& call = host->calls[*i];
        const bool held = call.status == e.status;
        if (held) report.covered_calls.insert(*i);
        add(e.pointer, what, held,
            std::string("it is ") + to_string(call.status) +
                (call.message.empty() ? "" : ": " + call.message));
    }
    for (const WarningExpectation& e : expect.warnings) {
        const std::string what = "warning at " + e.op + " containing " + single_quoted(e.contains);
        const auto i = call_index(e.op);
        bool held = false;
        if (i) {
            const auto& warnings = host->calls[*i].warnings;
            for (std::size_t k = 0; k < warnings.size() && !held; ++k) {
                if (report.covered_warnings.contains({*i, k}) ||
                    warnings[k].find(e.contains) == std::string::npos)
                    continue;
                report.covered_warnings.insert({*i, k});
                held = true;
            }
        }
        add(e.pointer, what, held,
            !i ? "the call was not made" : "the call raised no such warning");
    }
    for (std::size_t i = 0; i < host->calls.size(); ++i) {
        const HostCallRecord& call = host->calls[i];
        if (call.threw && !report.covered_calls.contains(i)) {
            add("/expect/statuses", "the host program runs to its end", false,
                call.pointer + " " + call.call + " failed: " + to_string(call.status) + ": " +
                    call.message);
        }
        for (std::size_t k = 0; expect.warnings_listed && k < call.warnings.size(); ++k) {
            if (!report.covered_warnings.contains({i, k}))
                add("/expect/warnings", "no unexpected warning", false,
                    call.pointer + " " + call.call + ": " + call.warnings[k]);
        }
    }
    return report;
}

}  // namespace npusim
