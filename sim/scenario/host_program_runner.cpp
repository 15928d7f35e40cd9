#include "sim/scenario/host_program_runner.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "base/config_diagnostics.h"

namespace npusim {

namespace {

/// The runtime's message without its "file:line: function: Status: " prefix: the call site
/// it names is this runner, the scenario's op pointer says more.
std::string runtime_message(const RuntimeError& error) {
    const std::string text = error.what();
    const std::string marker = std::string(": ") + to_string(error.status()) + ": ";
    const std::size_t at = text.find(marker);
    return at == std::string::npos ? text : text.substr(at + marker.size());
}

template <Element T>
std::vector<T> converted(const std::vector<double>& values) {
    std::vector<T> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        if constexpr (std::is_same_v<T, half>) {
            out[i] = half(static_cast<float>(values[i]));
        } else if constexpr (std::is_same_v<T, std::int8_t>) {
            // uint8 buffers are stored as the same bytes through int8.
            out[i] = static_cast<std::int8_t>(static_cast<std::int64_t>(values[i]) & 0xff);
        } else {
            out[i] = static_cast<T>(values[i]);
        }
    }
    return out;
}

template <Element T>
void write_device(Simulator& sim, const DeviceBuffer& buffer, const std::vector<double>& values) {
    sim.write(buffer.as<T>(), converted<T>(values));
}

void write_device(Simulator& sim, const DeviceBuffer& buffer, BufferType type,
                  const std::vector<double>& values) {
    switch (type) {
        case BufferType::Float32:
            return write_device<float>(sim, buffer, values);
        case BufferType::Float16:
            return write_device<half>(sim, buffer, values);
        case BufferType::Int32:
            return write_device<std::int32_t>(sim, buffer, values);
        case BufferType::Int8:
        case BufferType::Uint8:
            return write_device<std::int8_t>(sim, buffer, values);
    }
}

template <Element T>
void write_bytes(std::span<std::byte> bytes, const std::vector<double>& values) {
    const std::vector<T> typed = converted<T>(values);
    std::memcpy(bytes.data(), typed.data(), std::min(bytes.size(), typed.size() * sizeof(T)));
}

void write_host(std::span<std::byte> bytes, BufferType type, const std::vector<double>& values) {
    switch (type) {
        case BufferType::Float32:
            return write_bytes<float>(bytes, values);
        case BufferType::Float16:
            return write_bytes<half>(bytes, values);
        case BufferType::Int32:
            return write_bytes<std::int32_t>(bytes, values);
        case BufferType::Int8:
        case BufferType::Uint8:
            return write_bytes<std::int8_t>(bytes, values);
    }
}

template <Element T>
std::vector<double> as_values(const T* data, std::size_t count, bool is_unsigned) {
    std::vector<double> out(count);
    for (std::size_t i = 0; i < count; ++i) {
        if constexpr (std::is_same_v<T, std::int8_t>) {
            out[i] = is_unsigned ? static_cast<double>(static_cast<std::uint8_t>(data[i]))
                                 : static_cast<double>(data[i]);
        } else {
            out[i] = as_double(data[i]);
        }
    }
    return out;
}

template <Element T>
std::vector<double> read_typed(std::span<const std::byte> bytes, bool is_unsigned) {
    std::vector<T> typed(bytes.size() / sizeof(T));
    std::memcpy(typed.data(), bytes.data(), typed.size() * sizeof(T));
    return as_values(typed.data(), typed.size(), is_unsigned);
}

std::vector<double> values_of(std::span<const std::byte> bytes, BufferType type) {
    switch (type) {
        case BufferType::Float32:
            return read_typed<float>(bytes, false);
        case BufferType::Float16:
            return read_typed<half>(bytes, false);
        case BufferType::Int32:
            return read_typed<std::int32_t>(bytes, false);
        case BufferType::Int8:
            return read_typed<std::int8_t>(bytes, false);
        case BufferType::Uint8:
            return read_typed<std::int8_t>(bytes, true);
    }
    return {};
}

std::string fixed(double value) {
    char text[64];
    std::snprintf(text, sizeof text, "%.6f", value);
    return text;
}

class Executor {
public:
    Executor(Simulator& sim, Runtime& rt, const HostProgramSpec& spec,
             const std::set<std::string>& read_back, HostProgramOutcome& out)
        : m_sim(sim), m_rt(rt), m_spec(spec), m_read_back(read_back), m_out(out) {}

    void run() {
        if (prologue()) {
            for (const ScenarioOp& op : m_spec.ops) {
                if (!execute(op)) break;
            }
        }
        snapshot_host_buffers();
        m_out.finished = true;
    }

    /// Device buffers after run_host returned (all work completed).
    void snapshot_device_buffers() {
        for (const ScenarioBuffer& b : m_spec.buffers) {
            if (b.memory != BufferMemory::Device || !m_read_back.contains(b.name)) continue;
            BufferSnapshot& snap = m_out.buffers[b.name];
            const auto it = m_device.find(b.name);
            if (it == m_device.end()) {
                snap.why_not = m_freed_by.contains(b.name) ? "freed by " + m_freed_by[b.name]
                                                           : "never allocated";
                continue;
            }
            std::vector<std::byte> bytes(b.bytes);
            const std::vector<std::int8_t> raw = m_sim.read(it->second.as<std::int8_t>());
            std::memcpy(bytes.data(), raw.data(), std::min(bytes.size(), raw.size()));
            snap.values = values_of(bytes, b.type);
            snap.read = true;
        }
    }

private:
    /// Makes one call, recording its status and warnings; false when it threw.
    template <class Call>
    bool call(const std::string& pointer, std::string text, Call&& f) {
        HostCallRecord record{pointer, std::move(text)};
        const std::size_t warnings_before = m_rt.warnings().size();
        bool ok = true;
        m_rt.set_call_site(site_prefix + pointer);
        try {
            f(record);
        } catch (const RuntimeError& error) {
            record.status = error.status();
            record.message = runtime_message(error);
            record.threw = true;
            ok = false;
        }
        m_rt.set_call_site({});
        record.message = localized(record.message);
        const std::vector<HostWarning>& warnings = m_rt.warnings();
        for (std::size_t i = warnings_before; i < warnings.size(); ++i)
            record.warnings.push_back(localized(warnings[i].message));
        m_out.calls.push_back(std::move(record));
        if (!ok) m_out.stopped_at = m_out.calls.size() - 1;
        return ok;
    }

    /// The runtime names call sites as "file:line", which for a scenario is this runner: the
    /// site of a stream's destruction becomes the pointer of the op that destroyed it
    /// (found by the "stream N" the message names before the site).
    std::string localized(std::string message) const {
        static const std::string kSelf = "host_program_runner.cpp:";
        for (std::size_t at = message.find(kSelf); at != std::string::npos;
             at = message.find(kSelf, at)) {
            std::size_t end = at + kSelf.size();
            while (end < message.size() && std::isdigit(static_cast<unsigned char>(message[end])))
                ++end;
            std::string site = "the host program";
            std::size_t stream_at = message.rfind("stream ", at);
            while (stream_at != std::string::npos &&
                   (stream_at + 7 >= message.size() ||
                    !std::isdigit(static_cast<unsigned char>(message[stream_at + 7])))) {
                stream_at =
                    stream_at == 0 ? std::string::npos : message.rfind("stream ", stream_at - 1);
            }
            if (stream_at != std::string::npos) {
                const std::uint32_t id = static_cast<std::uint32_t>(
                    std::strtoul(message.c_str() + stream_at + 7, nullptr, 10));
                if (auto it = m_destroyed_by.find(id); it != m_destroyed_by.end())
                    site = it->second;
            }
            message.replace(at, end - at, site);
            at += site.size();
        }
        return message;
    }

    bool prologue() {
        for (const ScenarioBuffer& b : m_spec.buffers) {
            const bool ok = call(b.pointer,
                                 b.memory == BufferMemory::Device ? "malloc(" + b.name + ")"
                                                                  : "malloc_host(" + b.name + ")",
                                 [&](HostCallRecord&) { allocate(b); });
            if (!ok) return false;
        }
        for (std::size_t i = 0; i < m_spec.streams.size(); ++i) {
            const std::string& name = m_spec.streams[i];
            if (!call(child_pointer("/streams", i), "create_stream(" + name + ")",
                      [&](HostCallRecord&) { m_streams[name] = m_rt.create_stream(name); }))
                return false;
        }
        for (const ScenarioEvent& e : m_spec.events) {
            if (!call(e.pointer, "create_event(" + e.name + ")", [&](HostCallRecord&) {
                    m_events[e.name] = m_rt.create_event(e.name, e.flags);
                }))
                return false;
        }
        return true;
    }

    void allocate(const ScenarioBuffer& b) {
        const bool written = b.init.kind != BufferInit::Kind::None;
        if (b.memory == BufferMemory::Device) {
            const DeviceBuffer d = m_rt.malloc(b.bytes, b.name);
            m_device[b.name] = d;
            if (written) write_device(m_sim, d, b.type, initial_values(b));
            return;
        }
        const HostMemoryKind kind = b.memory == BufferMemory::Pinned    ? HostMemoryKind::Pinned
                                    : b.memory == BufferMemory::Managed ? HostMemoryKind::Managed
                                                                        : HostMemoryKind::Pageable;
        const HostBuffer h = m_rt.malloc_host(b.bytes, kind);
        m_host[b.name] = h;
        // Host memory starts zeroed (the runtime's malloc_host).
        if (written && b.init.kind != BufferInit::Kind::Zeros)
            write_host(m_rt.host_bytes(h), b.type, initial_values(b));
    }

    Stream stream(const std::string& name) {
        // A name the program never created (a destroyed one was) is not reachable: the
        // reader checks every reference. Unknown ids make the runtime report InvalidHandle.
        if (name == "default") return m_rt.default_stream();
        const auto it = m_streams.find(name);
        return it == m_streams.end() ? Stream{0xffffffffu} : it->second;
    }
    Event event(const std::string& name) {
        const auto it = m_events.find(name);
        return it == m_events.end() ? Event{0xffffffffu} : it->second;
    }
    bool on_device(const std::string& buffer) const { return m_device.contains(buffer); }
    DeviceBuffer device(const std::string& name) const {
        const auto it = m_device.find(name);
        return it == m_device.end() ? DeviceBuffer{} : it->second;
    }
    HostBuffer host(const std::string& name) const {
        const auto it = m_host.find(name);
        return it == m_host.end() ? HostBuffer{0xffffffffu} : it->second;
    }
    bool is_device(const std::string& name) const {
        const ScenarioBuffer* b = m_spec.find_buffer(name);
        return b != nullptr && b->memory == BufferMemory::Device;
    }

    bool execute(const ScenarioOp& op) {
        const std::string kind = to_string(op.kind);
        switch (op.kind) {
            case ScenarioOpKind::Launch:
                return call(op.pointer, "launch(" + op.kernel + ", " + op.stream + ")",
                            [&](HostCallRecord&) { launch(op); });
            case ScenarioOpKind::Memcpy:
            case ScenarioOpKind::MemcpyAsync: {
                const bool async = op.kind == ScenarioOpKind::MemcpyAsync;
                std::string text = kind + "(" + op.dst + ", " + op.src + ", " +
                                   std::to_string(op.bytes) + (async ? ", " + op.stream : "") + ")";
                return call(op.pointer, std::move(text), [&](HostCallRecord&) { copy(op, async); });
            }
            case ScenarioOpKind::Memset:
            case ScenarioOpKind::MemsetAsync: {
                const bool async = op.kind == ScenarioOpKind::MemsetAsync;
                std::string text = kind + "(" + op.dst + ", " + std::to_string(op.value) + ", " +
                                   std::to_string(op.bytes) + (async ? ", " + op.stream : "") + ")";
                return call(op.pointer, std::move(text), [&](HostCallRecord&) { set(op, async); });
            }
            case ScenarioOpKind::Free:
                return call(op.pointer, "free(" + op.dst + ")", [&](HostCallRecord&) {
                    if (is_device(op.dst)) {
                        m_rt.free(device(op.dst));
                        m_device.erase(op.dst);
                    } else {
                        m_rt.free_host(host(op.dst));
                        m_host.erase(op.dst);
                    }
                    m_freed_by[op.dst] = op.pointer;
                });
            case ScenarioOpKind::CreateStream:
                return call(op.pointer, kind + "(" + op.stream + ")", [&](HostCallRecord&) {
                    m_streams[op.stream] = m_rt.create_stream(op.stream);
                });
            case ScenarioOpKind::DestroyStream:
                return call(op.pointer, kind + "(" + op.stream + ")", [&](HostCallRecord&) {
                    const Stream s = stream(op.stream);
                    m_rt.destroy_stream(s);
                    m_destroyed_by[s.id] = op.pointer;
                });
            case ScenarioOpKind::SynchronizeStream:
                return call(op.pointer, kind + "(" + op.stream + ")",
                            [&](HostCallRecord&) { m_rt.synchronize_stream(stream(op.stream)); });
            case ScenarioOpKind::QueryStream:
                return call(op.pointer, kind + "(" + op.stream + ")", [&](HostCallRecord& r) {
                    r.status = m_rt.query_stream(stream(op.stream));
                });
            case ScenarioOpKind::SynchronizeDevice:
                return call(op.pointer, kind + "()",
                            [&](HostCallRecord&) { m_rt.synchronize_device(); });
            case ScenarioOpKind::RecordEvent:
                return call(op.pointer, kind + "(" + op.event + ", " + op.stream + ")",
                            [&](HostCallRecord&) {
                                m_rt.record_event(event(op.event), stream(op.stream));
                            });
            case ScenarioOpKind::QueryEvent:
                return call(op.pointer, kind + "(" + op.event + ")", [&](HostCallRecord& r) {
                    r.status = m_rt.query_event(event(op.event));
                });
            case ScenarioOpKind::SynchronizeEvent:
                return call(op.pointer, kind + "(" + op.event + ")",
                            [&](HostCallRecord&) { m_rt.synchronize_event(event(op.event)); });
            case ScenarioOpKind::StreamWaitEvent:
                return call(op.pointer, kind + "(" + op.stream + ", " + op.event + ")",
                            [&](HostCallRecord&) {
                                m_rt.stream_wait_event(stream(op.stream), event(op.event));
                            });
            case ScenarioOpKind::DestroyEvent:
                return call(op.pointer, kind + "(" + op.event + ")",
                            [&](HostCallRecord&) { m_rt.destroy_event(event(op.event)); });
            case ScenarioOpKind::ElapsedMs:
                return call(op.pointer, kind + "(" + op.event + ", " + op.end_event + ")",
                            [&](HostCallRecord& r) {
                                r.message =
                                    fixed(m_rt.elapsed_ms(event(op.event), event(op.end_event))) +
                                    " ms";
                            });
            case ScenarioOpKind::BeginCapture:
                return call(op.pointer, kind + "(" + op.stream + ")", [&](HostCallRecord&) {
                    m_rt.begin_capture(stream(op.stream));
                    m_capturing[op.stream] = 0;
                });
            case ScenarioOpKind::EndCapture:
                return call(op.pointer, kind + "(" + op.stream + ", " + op.graph + ")",
                            [&](HostCallRecord&) {
                                const auto kernels = m_capturing.find(op.stream);
                                const std::size_t count =
                                    kernels == m_capturing.end() ? 0 : kernels->second;
                                m_capturing.erase(op.stream);
                                m_graphs[op.graph] = m_rt.end_capture(stream(op.stream));
                                m_graph_kernels[op.graph] = count;
                            });
            case ScenarioOpKind::LaunchGraph:
                return call(op.pointer, kind + "(" + op.graph + ", " + op.stream + ")",
                            [&](HostCallRecord&) {
                                // A graph whose end_capture failed was never made: the
                                // runtime reports the unknown handle.
                                const auto it = m_graphs.find(op.graph);
                                m_rt.launch_graph(
                                    it == m_graphs.end() ? Graph{0xffffffffu} : it->second,
                                    stream(op.stream));
                                for (std::size_t k = 0; k < m_graph_kernels[op.graph]; ++k)
                                    m_out.launch_streams.push_back(op.stream);
                            });
        }
        return false;
    }

    void launch(const ScenarioOp& op) {
        const KernelDefinition* kernel =
            op.definition ? op.definition.get() : find_builtin_kernel(op.kernel);
        KernelBindings bindings;
        for (const auto& [argument, buffer] : op.args) {
            if (is_device(buffer)) {
                const DeviceBuffer d = device(buffer);
                bindings[argument] = {d.address, d.bytes};
            } else {  // pinned or managed host memory in unified-memory mode (checked on load)
                const HostBuffer h = host(buffer);
                bindings[argument] = {m_rt.device_address(h), h.bytes};
            }
        }
        KernelInstance instance = kernel->make_instance(op.blocks, op.params, bindings);
        LaunchSpec spec;
        // Reports name the kernel as the scenario's launch did ("kernel": "syncall"), not by
        // the built-in variant it resolved to ("syncall_hard").
        spec.name = op.kernel;
        spec.blocks = op.blocks;
        spec.type = instance.type;
        spec.schedule_mode = op.schedule_mode;
        m_rt.launch(stream(op.stream), spec, std::move(instance.body));
        // A captured launch runs only when its graph is launched (on that graph's stream).
        const auto capturing = m_capturing.find(op.stream);
        if (capturing != m_capturing.end()) {
            ++capturing->second;
        } else {
            m_out.launch_streams.push_back(op.stream);
        }
    }

    void copy(const ScenarioOp& op, bool async) {
        const Stream s = stream(op.stream);
        if (is_device(op.dst) && is_device(op.src)) {
            async ? m_rt.memcpy_async(device(op.dst), device(op.src), op.bytes, s)
                  : m_rt.memcpy(device(op.dst), device(op.src), op.bytes);
        } else if (is_device(op.dst)) {
            async ? m_rt.memcpy_async(device(op.dst), host(op.src), op.bytes, s)
                  : m_rt.memcpy(device(op.dst), host(op.src), op.bytes);
        } else {
            async ? m_rt.memcpy_async(host(op.dst), device(op.src), op.bytes, s)
                  : m_rt.memcpy(host(op.dst), device(op.src), op.bytes);
        }
    }

    void set(const ScenarioOp& op, bool async) {
        const Stream s = stream(op.stream);
        if (is_device(op.dst)) {
            async ? m_rt.memset_async(device(op.dst), op.value, op.bytes, s)
                  : m_rt.memset(device(op.dst), op.value, op.bytes);
        } else {
            async ? m_rt.memset_async(host(op.dst), op.value, op.bytes, s)
                  : m_rt.memset(host(op.dst), op.value, op.bytes);
        }
    }

    void snapshot_host_buffers() {
        for (const ScenarioBuffer& b : m_spec.buffers) {
            if (b.memory == BufferMemory::Device || !m_read_back.contains(b.name)) continue;
            BufferSnapshot& snap = m_out.buffers[b.name];
            const auto it = m_host.find(b.name);
            if (it == m_host.end()) {
                snap.why_not = m_freed_by.contains(b.name) ? "freed by " + m_freed_by[b.name]
                                                           : "never allocated";
                continue;
            }
            snap.values = values_of(m_rt.host_bytes(it->second), b.type);
            snap.read = true;
        }
    }

    Simulator& m_sim;
    Runtime& m_rt;
    const HostProgramSpec& m_spec;
    const std::set<std::string>& m_read_back;
    HostProgramOutcome& m_out;
    std::map<std::string, DeviceBuffer> m_device;
    std::map<std::string, HostBuffer> m_host;
    std::map<std::string, Stream> m_streams;
    std::map<std::string, Event> m_events;
    std::map<std::string, Graph> m_graphs;
    std::map<std::string, std::size_t> m_capturing;      // stream -> kernels captured so far
    std::map<std::string, std::size_t> m_graph_kernels;  // graph -> its kernels

public:
    /// "file.json#": what the runtime reports as each call's site, before its pointer.
    std::string site_prefix;
    std::map<std::string, std::string> m_freed_by;
    std::map<std::uint32_t, std::string> m_destroyed_by;  // stream id -> op pointer
};

}  // namespace

HostProgramOutcome run_host_program(Simulator& sim, const HostProgramSpec& spec,
                                    const RuntimeOptions& options, const std::string& origin,
                                    const std::set<std::string>& read_back) {
    HostProgramOutcome out;
    std::optional<Executor> executor;
    out.run = sim.run_host(
        [&](Runtime& rt) {
            executor.emplace(sim, rt, spec, read_back, out);
            executor->site_prefix = std::filesystem::path(origin).filename().string() + "#";
            executor->run();
        },
        options);
    if (executor) executor->snapshot_device_buffers();
    for (const std::string& name : read_back) {
        BufferSnapshot& snap = out.buffers[name];
        if (!snap.read && snap.why_not.empty()) snap.why_not = "the host program did not finish";
    }
    return out;
}

}  // namespace npusim
