#include "sim/scenario/scenario_host.h"

#include <algorithm>
#include <set>
#include <string_view>

#include "base/config_diagnostics.h"
#include "base/json_choices.h"
#include "memory/global_memory.h"

namespace npusim {

namespace {

using json = nlohmann::json;
using json_choices::read_choice;
using json_choices::unknown_name;

constexpr std::uint64_t kMaxCopyBytes = std::uint64_t{1} << 40;
constexpr std::size_t kMaxHostOps = 100'000;

constexpr std::pair<std::string_view, ScenarioOpKind> kOps[] = {
    {"launch", ScenarioOpKind::Launch},
    {"memcpy", ScenarioOpKind::Memcpy},
    {"memcpy_async", ScenarioOpKind::MemcpyAsync},
    {"memset", ScenarioOpKind::Memset},
    {"memset_async", ScenarioOpKind::MemsetAsync},
    {"free", ScenarioOpKind::Free},
    {"create_stream", ScenarioOpKind::CreateStream},
    {"destroy_stream", ScenarioOpKind::DestroyStream},
    {"synchronize_stream", ScenarioOpKind::SynchronizeStream},
    {"query_stream", ScenarioOpKind::QueryStream},
    {"synchronize_device", ScenarioOpKind::SynchronizeDevice},
    {"record_event", ScenarioOpKind::RecordEvent},
    {"query_event", ScenarioOpKind::QueryEvent},
    {"synchronize_event", ScenarioOpKind::SynchronizeEvent},
    {"stream_wait_event", ScenarioOpKind::StreamWaitEvent},
    {"destroy_event", ScenarioOpKind::DestroyEvent},
    {"elapsed_ms", ScenarioOpKind::ElapsedMs},
    {"begin_capture", ScenarioOpKind::BeginCapture},
    {"end_capture", ScenarioOpKind::EndCapture},
    {"launch_graph", ScenarioOpKind::LaunchGraph},
};

/// Name tables the host operations refer to, checked in program order.
struct Names {
    const HostProgramSpec& spec;
    const ScenarioKernels& kernels;
    std::set<std::string> streams{"default"};  // ever defined (a destroyed one stays named)
    std::set<std::string> live_streams{"default"};
    std::set<std::string> graphs;
    std::set<std::string> capturing;
};

std::optional<std::string> read_name(const json& op, const std::string& pointer,
                                     std::string_view key, Diagnostics& diag,
                                     bool required = true) {
    if (!op.contains(key)) {
        if (required) diag.add(child_pointer(pointer, key), "missing");
        return std::nullopt;
    }
    return read_string(op.at(key), child_pointer(pointer, key), diag);
}

std::optional<std::string> read_stream(const json& op, const std::string& pointer,
                                       const Names& names, Diagnostics& diag,
                                       bool required = false) {
    auto name = read_name(op, pointer, "stream", diag, required);
    if (!name) return op.contains("stream") ? std::nullopt : std::optional<std::string>("default");
    if (!names.streams.contains(*name)) {
        unknown_name("stream", *name, {names.streams.begin(), names.streams.end()},
                     child_pointer(pointer, "stream"), diag);
        return std::nullopt;
    }
    return name;
}

std::optional<std::string> read_event(const json& op, const std::string& pointer,
                                      std::string_view key, const Names& names, Diagnostics& diag) {
    auto name = read_name(op, pointer, key, diag);
    if (!name) return std::nullopt;
    std::vector<std::string> known;
    for (const ScenarioEvent& e : names.spec.events) {
        if (e.name == *name) return name;
        known.push_back(e.name);
    }
    unknown_name("event", *name, known, child_pointer(pointer, key), diag);
    return std::nullopt;
}

const ScenarioBuffer* read_buffer_ref(const json& op, const std::string& pointer,
                                      std::string_view key, const Names& names, Diagnostics& diag) {
    auto name = read_name(op, pointer, key, diag);
    if (!name) return nullptr;
    if (const ScenarioBuffer* b = names.spec.find_buffer(*name)) return b;
    std::vector<std::string> known;
    for (const ScenarioBuffer& b : names.spec.buffers) known.push_back(b.name);
    unknown_name("buffer", *name, known, child_pointer(pointer, key), diag);
    return nullptr;
}

std::uint64_t read_bytes(const json& op, const std::string& pointer, std::uint64_t fallback,
                         Diagnostics& diag) {
    if (!op.contains("bytes")) return fallback;
    const std::string at = pointer + "/bytes";
    if (auto v = read_unsigned(op.at("bytes"), at, diag)) {
        if (check_range(v->value, 1, kMaxCopyBytes, "bytes", at, diag)) return v->value;
    }
    return fallback;
}

void read_params(const json& op, const std::string& pointer, const KernelDefinition& kernel,
                 ScenarioOp& out, Diagnostics& diag) {
    for (const KernelParameter& p : kernel.parameters) out.params[p.name] = p.default_value;
    if (!op.contains("params")) return;
    const json& params = op.at("params");
    const std::string at = pointer + "/params";
    if (!require_object(params, at, diag)) return;
    std::vector<std::string_view> allowed;
    for (const KernelParameter& p : kernel.parameters) allowed.push_back(p.name);
    check_keys(params, at, allowed, diag);
    for (const KernelParameter& p : kernel.parameters) {
        if (!params.contains(p.name)) continue;
        const std::string pp = child_pointer(at, p.name);
        if (auto v = read_unsigned(params.at(p.name), pp, diag)) {
            if (check_range(v->value, p.min, p.max, "", pp, diag)) out.params[p.name] = v->value;
        }
    }
}

/// A kernel argument's element type in the scenario's spelling ("float32"); other types print
/// as the native name.
const char* buffer_type_name(DType dtype) {
    if (dtype == DType::F16) return "float16";
    if (dtype == DType::F32) return "float32";
    if (dtype == DType::I32) return "int32";
    return dtype == DType::I8 ? "int8" : to_string(dtype).data();
}

void read_launch(const json& op, const std::string& pointer, const ChipConfig& chip,
                 const Names& names, ScenarioOp& out, Diagnostics& diag) {
    check_keys(op, pointer, {"op", "kernel", "blocks", "stream", "args", "params", "schedule_mode"},
               diag);
    if (auto s = read_stream(op, pointer, names, diag)) out.stream = *s;
    const std::uint64_t problems_before = diag.size();
    const auto name = read_name(op, pointer, "kernel", diag);
    const KernelDefinition* kernel = nullptr;
    if (name) {
        if (const auto it = names.kernels.by_name.find(*name); it != names.kernels.by_name.end()) {
            out.definition = it->second;
            kernel = it->second.get();
        } else {
            kernel = find_builtin_kernel(*name);
        }
    }
    if (name && kernel == nullptr) {
        std::vector<std::string> known;
        for (const KernelDefinition& k : builtin_kernels()) known.push_back(k.name);
        for (const auto& [k, definition] : names.kernels.by_name) known.push_back(k);
        unknown_name("kernel", *name, known, pointer + "/kernel", diag);
    }
    if (!op.contains("blocks")) {
        diag.add(pointer + "/blocks", "missing: how many blocks to launch");
    } else if (auto blocks = read_unsigned(op.at("blocks"), pointer + "/blocks", diag)) {
        if (check_range(blocks->value, 1, 65535, "blocks", pointer + "/blocks", diag))
            out.blocks = static_cast<std::uint32_t>(blocks->value);
    }
    if (op.contains("schedule_mode")) {
        static constexpr std::pair<std::string_view, ScheduleMode> kModes[] = {
            {"normal", ScheduleMode::Normal}, {"batch", ScheduleMode::Batch}};
        if (auto m = read_choice(op.at("schedule_mode"), pointer + "/schedule_mode", kModes, diag))
            out.schedule_mode = *m;
    }
    if (kernel == nullptr) return;
    out.kernel = kernel->name;
    read_params(op, pointer, *kernel, out, diag);
    const json empty = json::object();
    const json& args = op.contains("args") ? op.at("args") : empty;
    if (!require_object(args, pointer + "/args", diag)) return;
    std::vector<std::string_view> allowed;
    for (const KernelArgument& a : kernel->arguments) allowed.push_back(a.name);
    check_keys(args, pointer + "/args", allowed, diag);
    if (diag.size() != problems_before) return;  // the checks below need sound parameters
    if (kernel->check) {
        // A scenario kernel's problems are at its own ops ("/kernels/k/body/3").
        for (const auto& [at, message] : kernel->check(out.blocks, out.params)) {
            if (out.definition) {
                diag.add(at, message + " (launched at " + pointer + ")");
            } else {
                diag.add(pointer + at, message);
            }
        }
    }
    if (diag.size() != problems_before) return;
    if (kernel->needs) {
        KernelNeeds needs = kernel->needs(out.blocks, out.params);
        needs.gm = {};  // the scenario's buffers hold the data: checked with them
        for (const auto& [at, message] : check_kernel_needs(chip, needs))
            diag.add(pointer + at, message);
        if (auto problem = check_batch_launch(chip, needs.type, out.blocks, out.schedule_mode))
            diag.add(pointer + "/blocks", *problem);
    }
    for (const KernelArgument& a : kernel->arguments) {
        const std::uint64_t need = a.bytes(out.blocks, out.params);
        const std::string at = child_pointer(pointer + "/args", a.name);
        if (!args.contains(a.name)) {
            if (need > 0)
                diag.add(at, "missing: the kernel's argument " + single_quoted(a.name) + " (" +
                                 a.description + ")");
            continue;
        }
        const ScenarioBuffer* b = read_buffer_ref(args, pointer + "/args", a.name, names, diag);
        if (b == nullptr) continue;
        out.args[a.name] = b->name;
        std::string problem;
        if (b->memory == BufferMemory::Pageable) {  // pinned, managed: see scenario.cpp
            problem =
                "is pageable host memory, which kernels cannot reach (unlike pinned or "
                "managed memory with \"unified_memory\": true)";
        } else if (size_of(b->type) != size_of(a.dtype) ||
                   (b->type == BufferType::Float32) != (a.dtype == DType::F32) ||
                   (b->type == BufferType::Float16) != (a.dtype == DType::F16)) {
            problem = "is " + std::string(to_string(b->type)) + "; the kernel's argument " +
                      single_quoted(a.name) + " takes " + buffer_type_name(a.dtype);
        } else if (b->bytes < need) {
            problem = "holds " + std::to_string(b->bytes) + " bytes; the kernel's argument " +
                      single_quoted(a.name) + " needs " + std::to_string(need) + " (" +
                      a.description + ")";
        }
        if (!problem.empty()) diag.add(at, "buffer " + single_quoted(b->name) + " " + problem);
    }
}

bool is_host(const ScenarioBuffer* b) {
    return b != nullptr && b->memory != BufferMemory::Device;
}

void read_op(const json& op, const std::string& pointer, const ChipConfig& chip, Names& names,
             ScenarioOp& out, Diagnostics& diag) {
    out.pointer = pointer;
    if (!require_object(op, pointer, diag)) return;
    if (!op.contains("op")) {
        diag.add(pointer + "/op", "missing: which host operation (launch, memcpy, ...)");
        return;
    }
    const auto kind = read_choice(op.at("op"), pointer + "/op", kOps, diag);
    if (!kind) return;
    out.kind = *kind;
    const auto keys = [&](std::initializer_list<std::string_view> allowed) {
        std::vector<std::string_view> all{"op"};
        all.insert(all.end(), allowed.begin(), allowed.end());
        check_keys(op, pointer, all, diag);
    };
    const auto stream = [&](bool required = false) {
        if (auto s = read_stream(op, pointer, names, diag, required)) out.stream = *s;
    };
    const auto event = [&](std::string_view key, std::string& into) {
        if (auto e = read_event(op, pointer, key, names, diag)) into = *e;
    };
    switch (out.kind) {
        case ScenarioOpKind::Launch:
            read_launch(op, pointer, chip, names, out, diag);
            return;
        case ScenarioOpKind::Memcpy:
        case ScenarioOpKind::MemcpyAsync: {
            const bool async = out.kind == ScenarioOpKind::MemcpyAsync;
            if (async) {
                keys({"dst", "src", "bytes", "stream"});
                stream();
            } else {
                keys({"dst", "src", "bytes"});
            }
            const ScenarioBuffer* dst = read_buffer_ref(op, pointer, "dst", names, diag);
            const ScenarioBuffer* src = read_buffer_ref(op, pointer, "src", names, diag);
            if (dst == nullptr || src == nullptr) return;
            out.dst = dst->name;
            out.src = src->name;
            if (is_host(dst) && is_host(src)) {
                diag.add(pointer + "/src",
                         "both buffers are host memory; the runtime copies "
                         "host to device, device to host or device to device");
            }
            out.bytes = read_bytes(op, pointer, std::min(dst->bytes, src->bytes), diag);
            if (!op.contains("bytes") && dst->bytes != src->bytes) {
                diag.add(pointer, "buffers " + single_quoted(dst->name) + " (" +
                                      std::to_string(dst->bytes) + " bytes) and " +
                                      single_quoted(src->name) + " (" + std::to_string(src->bytes) +
                                      " bytes) differ in size: give \"bytes\"");
            }
            return;
        }
        case ScenarioOpKind::Memset:
        case ScenarioOpKind::MemsetAsync: {
            if (out.kind == ScenarioOpKind::MemsetAsync) {
                keys({"dst", "value", "bytes", "stream"});
                stream();
            } else {
                keys({"dst", "value", "bytes"});
            }
            const ScenarioBuffer* dst = read_buffer_ref(op, pointer, "dst", names, diag);
            if (!op.contains("value")) {
                diag.add(pointer + "/value", "missing: the byte value 0..255");
            } else if (auto v = read_unsigned(op.at("value"), pointer + "/value", diag)) {
                if (check_range(v->value, 0, 255, "", pointer + "/value", diag))
                    out.value = static_cast<std::uint8_t>(v->value);
            }
            if (dst == nullptr) return;
            out.dst = dst->name;
            out.bytes = read_bytes(op, pointer, dst->bytes, diag);
            return;
        }
        case ScenarioOpKind::Free: {
            keys({"buffer"});
            if (const ScenarioBuffer* b = read_buffer_ref(op, pointer, "buffer", names, diag))
                out.dst = b->name;
            return;
        }
        case ScenarioOpKind::CreateStream: {
            keys({"stream"});
            const auto name = read_name(op, pointer, "stream", diag);
            if (!name) return;
            if (names.live_streams.contains(*name)) {
                diag.add(pointer + "/stream",
                         "stream " + single_quoted(*name) +
                             " already exists (\"streams\" "
                             "creates its names at start; destroy a stream before re-creating it)");
                return;
            }
            names.streams.insert(*name);
            names.live_streams.insert(*name);
            out.stream = *name;
            return;
        }
        case ScenarioOpKind::DestroyStream:
            keys({"stream"});
            stream(true);
            if (out.stream != "default") names.live_streams.erase(out.stream);
            return;
        case ScenarioOpKind::SynchronizeStream:
        case ScenarioOpKind::QueryStream:
            keys({"stream"});
            stream(true);
            return;
        case ScenarioOpKind::SynchronizeDevice:
            keys({});
            return;
        case ScenarioOpKind::RecordEvent:
            keys({"event", "stream"});
            event("event", out.event);
            stream();
            return;
        case ScenarioOpKind::QueryEvent:
        case ScenarioOpKind::SynchronizeEvent:
        case ScenarioOpKind::DestroyEvent:
            keys({"event"});
            event("event", out.event);
            return;
        case ScenarioOpKind::StreamWaitEvent:
            keys({"stream", "event"});
            stream(true);
            event("event", out.event);
            return;
        case ScenarioOpKind::ElapsedMs:
            keys({"start", "end"});
            event("start", out.event);
            event("end", out.end_event);
            return;
        case ScenarioOpKind::BeginCapture:
            keys({"stream"});
            stream(true);
            names.capturing.insert(out.stream);
            return;
        case ScenarioOpKind::EndCapture: {
            keys({"stream", "graph"});
            stream(true);
            if (auto g = read_name(op, pointer, "graph", diag)) {
                out.graph = *g;
                names.graphs.insert(*g);
            }
            return;
        }
        case ScenarioOpKind::LaunchGraph: {
            keys({"graph", "stream"});
            stream();
            if (auto g = read_name(op, pointer, "graph", diag)) {
                out.graph = *g;
                if (!names.graphs.contains(*g)) {
                    unknown_name("graph", *g, {names.graphs.begin(), names.graphs.end()},
                                 pointer + "/graph", diag);
                    diag.add(pointer + "/graph", "(a graph is named by an earlier end_capture)");
                }
            }
            return;
        }
    }
}

void read_events(const json& events, HostProgramSpec& spec, Diagnostics& diag) {
    if (!require_object(events, "/events", diag)) return;
    for (const auto& [name, value] : events.items()) {
        if (name == kCommentKey) continue;
        ScenarioEvent e;
        e.name = name;
        e.pointer = child_pointer("/events", name);
        if (require_object(value, e.pointer, diag)) {
            check_keys(value, e.pointer, {"flags"}, diag);
            if (value.contains("flags")) {
                const json& flags = value.at("flags");
                const std::string at = e.pointer + "/flags";
                if (!flags.is_array()) {
                    diag.add(at, "expected an array of flag names, got " + describe_json(flags));
                } else {
                    static constexpr std::pair<std::string_view, EventFlags> kFlags[] = {
                        {"disable_timing", EventFlags::DisableTiming},
                        {"interprocess", EventFlags::Interprocess}};
                    for (std::size_t i = 0; i < flags.size(); ++i) {
                        if (auto f = read_choice(flags[i], child_pointer(at, i), kFlags, diag))
                            e.flags = e.flags | *f;
                    }
                }
            }
        }
        spec.events.push_back(std::move(e));
    }
}

void read_streams(const json& streams, HostProgramSpec& spec, Names& names, Diagnostics& diag) {
    if (!streams.is_array()) {
        diag.add("/streams", "expected an array of stream names, got " + describe_json(streams));
        return;
    }
    for (std::size_t i = 0; i < streams.size(); ++i) {
        const std::string at = child_pointer("/streams", i);
        const auto name = read_string(streams[i], at, diag);
        if (!name) continue;
        if (names.streams.contains(*name)) {
            diag.add(at, *name == "default" ? "\"default\" names the default stream, which "
                                              "always exists"
                                            : "stream " + single_quoted(*name) + " listed twice");
            continue;
        }
        names.streams.insert(*name);
        names.live_streams.insert(*name);
        spec.streams.push_back(*name);
    }
}

}  // namespace

const char* to_string(ScenarioOpKind kind) {
    for (const auto& [name, k] : kOps) {
        if (k == kind) return name.data();
    }
    return "?";
}

const ScenarioBuffer* HostProgramSpec::find_buffer(const std::string& name) const {
    for (const ScenarioBuffer& b : buffers) {
        if (b.name == name) return &b;
    }
    return nullptr;
}

HostProgramSpec read_host_program(const nlohmann::json& doc, const ChipConfig& chip,
                                  Diagnostics& diag, const ScenarioKernels& kernels) {
    HostProgramSpec spec;
    if (doc.contains("buffers")) spec.buffers = read_buffers(doc.at("buffers"), chip, diag);
    Names names{spec, kernels};
    if (doc.contains("streams")) read_streams(doc.at("streams"), spec, names, diag);
    if (doc.contains("events")) read_events(doc.at("events"), spec, diag);
    if (!doc.contains("host")) return spec;
    const json& host = doc.at("host");
    if (!host.is_array()) {
        diag.add("/host", "expected an array of host operations, got " + describe_json(host));
        return spec;
    }
    if (host.size() > kMaxHostOps) {
        diag.add("/host", "has " + std::to_string(host.size()) + " operations; at most " +
                              std::to_string(kMaxHostOps));
        return spec;
    }
    for (std::size_t i = 0; i < host.size(); ++i) {
        ScenarioOp op;
        read_op(host[i], child_pointer("/host", i), chip, names, op, diag);
        spec.ops.push_back(std::move(op));
    }
    return spec;
}

KernelNeeds host_program_needs(const HostProgramSpec& spec, std::uint32_t& blocks) {
    KernelNeeds total;
    total.kernel = "host program";
    blocks = 1;
    std::uint64_t device = GlobalMemory::kAlignment, host = 0;
    for (const ScenarioBuffer& b : spec.buffers) {
        if (b.memory == BufferMemory::Device) {
            device += (b.bytes + GlobalMemory::kAlignment - 1) / GlobalMemory::kAlignment *
                      GlobalMemory::kAlignment;
        }
        // The host bytes (host memory, or the typed initial contents of device memory), the
        // initial values and a read-back as doubles, a typed read-back.
        host += b.bytes * 2 + b.elements * 16;
    }
    total.gm = {device, "/buffers", "the device buffers, 512-byte aligned"};
    total.host_copies = {host, "/buffers",
                         "every buffer's bytes x 2 + elements x 16 (initial values, read-back)"};
    std::uint64_t instructions = 0;
    Need largest{0, "/host", "no launch"};
    for (const ScenarioOp& op : spec.ops) {
        if (op.kind != ScenarioOpKind::Launch) continue;
        const KernelDefinition* kernel =
            op.definition ? op.definition.get() : find_builtin_kernel(op.kernel);
        if (kernel == nullptr || !kernel->needs) continue;
        const KernelNeeds n = kernel->needs(op.blocks, op.params);
        blocks = std::max(blocks, op.blocks);
        instructions += n.instructions.amount;
        if (n.instructions.amount >= largest.amount) {
            largest = {n.instructions.amount, op.pointer + n.instructions.pointer,
                       op.kernel + " at " + op.pointer + ": " + n.instructions.formula};
        }
        for (auto [mine, theirs] :
             {std::pair{&total.ub, &n.ub}, std::pair{&total.l1, &n.l1},
              std::pair{&total.l0a, &n.l0a}, std::pair{&total.l0b, &n.l0b},
              std::pair{&total.l0c, &n.l0c}, std::pair{&total.event_ids, &n.event_ids}}) {
            if (theirs->amount > mine->amount) {
                *mine = *theirs;
                mine->pointer = op.pointer + theirs->pointer;
            }
        }
        if (n.type != KernelType::AIV_ONLY) total.type = n.type;
    }
    total.instructions = {instructions, largest.pointer,
                          "the launches' instructions (largest: " + largest.formula + ")"};
    return total;
}

}  // namespace npusim
