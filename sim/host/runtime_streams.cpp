// Runtime::Impl (sim/host/runtime_engine.h): queueing ops on streams, the legacy default stream's
// implicit waits, and the worker thread that runs a stream's queue in order.
#include "base/launch_identity.h"
#include "core/process_guard.h"
#include "sim/host/runtime_engine.h"

namespace npusim {

std::shared_ptr<HostOpState> Runtime::Impl::submit(StreamState& stream, HostOp op,
                                                   const std::source_location& where) {
    check_queue_allowed(stream, op.info.call.c_str(), where);
    if (stream.capture) {
        capture_op(stream, std::move(op));
        return nullptr;
    }
    queue_legacy_waits(stream, where);
    return enqueue(stream, std::move(op));
}

std::vector<StreamState*> Runtime::Impl::legacy_dependencies(const StreamState& stream) const {
    std::vector<StreamState*> dependencies;
    if (!options.legacy_default_stream) return dependencies;
    for (const auto& [id, other] : streams) {
        if (id == stream.id || other->queue.empty()) continue;
        if (stream.id == 0 || id == 0) dependencies.push_back(other.get());
    }
    return dependencies;
}

void Runtime::Impl::queue_legacy_waits(StreamState& stream, const std::source_location& where) {
    for (StreamState* other : legacy_dependencies(stream)) {
        const HostOp& last = other->queue.back();
        HostOp wait;
        wait.kind = HostOp::Kind::Wait;
        wait.info.kind = HostOpKind::EventWait;
        wait.info.call = "legacy_default_stream";
        wait.info.where = site_of(where);
        wait.info.waits_for = last.info.op;
        wait.wait_for = last.state;
        wait.wait_stream = other->id;
        enqueue(stream, std::move(wait));
    }
}

void Runtime::Impl::legacy_synchronous_wait(const char* call, const std::source_location& where) {
    if (!options.legacy_default_stream) return;
    std::vector<std::shared_ptr<HostOpState>> pending;
    for (const auto& [id, s] : streams) {
        if (!s->queue.empty()) pending.push_back(s->queue.back().state);
    }
    if (pending.empty()) return;
    block(
        [pending] {
            return std::all_of(pending.begin(), pending.end(),
                               [](const auto& state) { return state->done; });
        },
        call_text(call, where) +
            ": waits for the work of every stream (legacy default stream semantics)",
        {HostWait::Kind::Device, 0, 0, 0, call, site_of(where)});
}

std::shared_ptr<HostOpState> Runtime::Impl::enqueue(StreamState& stream, HostOp op) {
    std::shared_ptr<HostOpState> state = op.state;
    op.info.op = next_op++;
    op.info.stream = stream.id;
    op.info.stream_name = stream.name;
    if (op.kind == HostOp::Kind::Kernel) {
        op.info.launch.stream = stream.id;
        op.info.launch.stream_name = stream.name;
        op.info.launch.host_op = op.info.op;
        op.info.launch.launch_site = op.info.where;
    }
    stream.last_op = op.info.op;
    publish([&](TransactionObserver& o) { o.on_host_op_queued(op.info); });
    for (std::uint64_t address : op.device_buffers) ++device[address].pending;
    for (std::uint32_t id : op.host_buffers) ++host[id].pending;
    ++active_ops;
    stream.queue.push_back(std::move(op));
    if (!stream.worker) {
        stream.worker = true;
        std::shared_ptr<StreamState> shared = streams.at(stream.id);
        sc_core::sc_spawn_options spawn;
        spawn.set_stack_size(128 * 1024);
        sc_core::sc_spawn([this, shared] { work(shared); }, nullptr, &spawn);
    } else if (stream.worker_idle) {
        stream.worker_idle = false;
        stream.work_arrived.notify(sc_core::SC_ZERO_TIME);
    }
    return state;
}

// One thread per stream for the whole host program: spawning one per burst of ops would
// make a long program's cost grow with its length (SystemC keeps every process it named).
void Runtime::Impl::work(const std::shared_ptr<StreamState>& stream) {
    try {
        for (;;) {
            while (!stream->queue.empty()) {
                HostOp& op = stream->queue.front();
                run(op);
                complete(op);
                stream->queue.pop_front();
            }
            if (host_returned) break;  // nothing more can be queued
            stream->worker_idle = true;
            sc_core::wait(stream->work_arrived | chip.abort_event);
            stream->worker_idle = false;
            check_abort();
        }
    } catch (const HostAborted&) {
        // the run ends; the queue is dropped with the runtime
    } catch (const sc_core::sc_unwind_exception&) {
        throw;
    } catch (...) {
        const std::string site = stream->queue.empty() ? std::string()
                                                       : stream->queue.front().info.call + " at " +
                                                             stream->queue.front().info.where;
        fail_with_current_exception(chip, stream_label(stream->id, stream->name) +
                                              (site.empty() ? std::string() : ", " + site));
    }
    stream->worker_idle = false;
    stream->worker = false;
}

void Runtime::Impl::release_idle_workers() {
    for (auto& [id, stream] : streams) {
        if (!stream->worker_idle) continue;
        stream->worker_idle = false;
        stream->work_arrived.notify(sc_core::SC_ZERO_TIME);
    }
}

void Runtime::Impl::run(HostOp& op) {
    check_abort();
    publish([&](TransactionObserver& o) { o.on_host_op_started(op.info.op, now()); });
    switch (op.kind) {
        case HostOp::Kind::Kernel: {
            KernelLaunch kernel = std::move(*op.kernel);
            kernel.identity() = op.info.launch;  // with its stream, op id and call site
            const std::uint32_t id = scheduler.launch(std::move(kernel), now());
            running_kernels[id] = op.state;
            op.state->kernel_id = id;
            scheduler.dispatch();
            while (!op.state->kernel_done) {
                check_abort();
                sc_core::wait(changed | chip.abort_event);
            }
            // A block reports its end in its core's local time, which may run ahead.
            if (op.state->kernel_end > now()) wait_cycles(op.state->kernel_end - now());
            break;
        }
        case HostOp::Kind::Transfer:
            move_bytes(op.path, op.path_bytes);
            if (op.effect) op.effect();
            break;
        case HostOp::Kind::Record:
            break;
        case HostOp::Kind::Wait:
            while (!op.wait_for->done) {
                check_abort();
                sc_core::wait(changed | chip.abort_event);
            }
            break;
    }
    check_abort();
}

void Runtime::Impl::complete(const HostOp& op) {
    op.state->done = true;
    op.state->end = now();
    --active_ops;
    publish([&](TransactionObserver& o) { o.on_host_op_completed(op.info.op, now()); });
    for (std::uint64_t address : op.device_buffers) {
        DeviceAllocation& d = device[address];
        if (--d.pending == 0 && d.freed) {
            chip.gm.free(address);
            device.erase(address);
        }
    }
    for (std::uint32_t id : op.host_buffers) {
        HostAllocation& h = host[id];
        if (--h.pending == 0 && h.freed) release_host(id);
    }
    changed.notify(sc_core::SC_ZERO_TIME);
}

void Runtime::Impl::release_host(std::uint32_t id) {
    const auto it = host.find(id);
    if (it->second.gm_address != 0) chip.gm.free(it->second.gm_address);
    host.erase(it);
}

void Runtime::Impl::kernel_finished(const KernelResult& result) {
    const auto it = running_kernels.find(result.id);
    if (it == running_kernels.end()) return;
    it->second->kernel_done = true;
    it->second->kernel_end = result.end;
    running_kernels.erase(it);
    changed.notify(sc_core::SC_ZERO_TIME);
}

void Runtime::Impl::wait_stream(StreamState& stream, const char* call,
                                const std::source_location& where) {
    std::shared_ptr<StreamState> shared = streams.at(stream.id);
    block([shared] { return shared->queue.empty(); },
          call_text(call, where) + ": waits for the work queued on stream " +
              std::to_string(stream.id),
          {HostWait::Kind::Stream, stream.id, stream.last_op, 0, call, site_of(where)});
    synchronized(stream);
}

}  // namespace npusim
