// Runtime::Impl (sim/host/runtime_engine.h): copies and memsets, on the host thread or queued on a
// stream, and what moving their bytes costs (the chip's GM bandwidth or the host link).
#include "sim/host/runtime_engine.h"

namespace npusim {

void Runtime::Impl::move_bytes(TransferPath path, std::uint64_t bytes) {
    const Cycle start = now();
    if (path == TransferPath::Gm) {
        wait_cycles(chip.bandwidth.transfer(now(), bytes, config.gm_bytes_per_cycle) - now());
    } else {
        GmBandwidth& link = path == TransferPath::HostToDevice ? host_to_device : device_to_host;
        const std::uint64_t rate = config.host_link_bytes_per_cycle;
        wait_cycles(config.host_link_latency);
        // Chunks of at least kLinkChunkCycles: the sharing stays even for transfers of a
        // few chunks, and a large copy costs a SystemC wait per chunk, not per window.
        const std::uint64_t chunk =
            rate * std::max<std::uint64_t>(kLinkChunkCycles, config.gm_window_cycles);
        while (bytes > 0) {
            const std::uint64_t take = std::min(bytes, chunk);
            link.forget_before(now());
            wait_cycles(link.transfer(now(), take, rate) - now());
            bytes -= take;
        }
    }
    if (now() == start) wait_cycles(1);
}

void Runtime::Impl::wait_cycles(Cycle cycles) {
    if (cycles > 0) sc_core::wait(sc_core::sc_time::from_value(cycles), chip.abort_event);
    check_abort();
}

HostOpInfo Runtime::Impl::data_op(HostOpKind kind, const StreamState* stream, const char* call,
                                  std::vector<GmRange> reads, std::vector<GmRange> writes) {
    HostOpInfo info;
    info.kind = kind;
    info.call = std::string(call) + (stream != nullptr ? "_async" : "");
    info.reads = std::move(reads);
    info.writes = std::move(writes);
    return info;
}

void Runtime::Impl::transfer(StreamState* stream, TransferPath path, std::uint64_t path_bytes,
                             std::function<void()> effect,
                             std::vector<std::uint64_t> device_buffers,
                             std::vector<std::uint32_t> host_buffers, bool pageable,
                             HostOpInfo info, const std::source_location& where) {
    if (stream == nullptr && options.legacy_default_stream) {
        refuse_in_capture(true, info.call.c_str(),
                          "with the legacy default stream it would implicitly synchronize "
                          "the capturing stream, cudaErrorStreamCaptureImplicit",
                          where);
    }
    if (stream == nullptr) {
        refuse_in_capture(false, info.call.c_str(),
                          "a synchronous copy or memset is unsafe in Global and ThreadLocal "
                          "capture modes",
                          where);
    } else if (pageable) {
        if (stream->capture) {
            invalidate(*stream->capture, info.call, where);
            fail(Status::NotPermitted,
                 info.call + " with pageable host memory into " + capture_text(*stream->capture) +
                     ": captured copies need pinned host memory; the capture is invalidated",
                 where);
        }
        refuse_in_capture(false, info.call.c_str(),
                          "an async copy with pageable host memory is unsafe in Global "
                          "and ThreadLocal capture modes",
                          where);
    }
    advance(config.runtime_call_cycles);
    info.where = site_of(where);
    if (stream == nullptr) {
        legacy_synchronous_wait(info.call.c_str(), where);
        move_bytes(path, path_bytes);
        effect();
        for (const GmRange& r : info.reads) {
            publish([&](TransactionObserver& o) {
                o.on_host_access({r, false, info.call, info.where});
            });
        }
        for (const GmRange& r : info.writes) {
            publish([&](TransactionObserver& o) {
                o.on_host_access({r, true, info.call, info.where});
            });
        }
        return;
    }
    HostOp op;
    op.kind = HostOp::Kind::Transfer;
    op.info = std::move(info);
    op.path = path;
    op.path_bytes = path_bytes;
    op.effect = std::move(effect);
    op.device_buffers = std::move(device_buffers);
    op.host_buffers = std::move(host_buffers);
    std::shared_ptr<HostOpState> state = submit(*stream, std::move(op), where);
    if (pageable && state) {
        const std::uint64_t id = stream->last_op;
        block([state] { return state->done; },
              call_text("memcpy_async", where) +
                  ": waits for a copy staged through pageable host memory",
              {HostWait::Kind::Copy, stream->id, id, 0, "memcpy_async", site_of(where)});
        synchronized_op(id);
    }
}

void Runtime::Impl::copy_h2d(DeviceBuffer dst, HostBuffer src, std::uint64_t bytes,
                             StreamState* stream, const std::source_location& where) {
    device_of(dst, bytes, where);
    HostAllocation& h = host_of(src, bytes, where);
    const bool pageable = h.kind == HostMemoryKind::Pageable;
    transfer(
        stream, TransferPath::HostToDevice, bytes,
        [this, dst, id = src.id, bytes] {
            std::vector<std::byte> data(bytes);
            host_read(id, data.data(), bytes);
            gm_write(dst.address, data.data(), bytes);
        },
        {dst.address}, {src.id}, pageable,
        data_op(HostOpKind::Copy, stream, "memcpy", host_ranges(h, bytes), {{dst.address, bytes}}),
        where);
}

void Runtime::Impl::copy_d2h(HostBuffer dst, DeviceBuffer src, std::uint64_t bytes,
                             StreamState* stream, const std::source_location& where) {
    device_of(src, bytes, where);
    HostAllocation& h = host_of(dst, bytes, where);
    const bool pageable = h.kind == HostMemoryKind::Pageable;
    transfer(
        stream, TransferPath::DeviceToHost, bytes,
        [this, src, id = dst.id, bytes] {
            std::vector<std::byte> data(bytes);
            gm_read(src.address, data.data(), bytes);
            host_write(id, data.data(), bytes);
        },
        {src.address}, {dst.id}, pageable,
        data_op(HostOpKind::Copy, stream, "memcpy", {{src.address, bytes}}, host_ranges(h, bytes)),
        where);
}

void Runtime::Impl::copy_d2d(DeviceBuffer dst, DeviceBuffer src, std::uint64_t bytes,
                             StreamState* stream, const std::source_location& where) {
    device_of(dst, bytes, where);
    device_of(src, bytes, where);
    transfer(
        stream, TransferPath::Gm, 2 * bytes,  // read and write
        [this, dst, src, bytes] {
            std::vector<std::byte> data(bytes);
            gm_read(src.address, data.data(), bytes);
            gm_write(dst.address, data.data(), bytes);
        },
        {dst.address, src.address}, {}, false,
        data_op(HostOpKind::Copy, stream, "memcpy", {{src.address, bytes}}, {{dst.address, bytes}}),
        where);
}

void Runtime::Impl::fill_device(DeviceBuffer dst, std::uint8_t value, std::uint64_t bytes,
                                StreamState* stream, const std::source_location& where) {
    device_of(dst, bytes, where);
    transfer(
        stream, TransferPath::Gm, bytes,
        [this, dst, value, bytes] {
            const std::vector<std::byte> data(bytes, static_cast<std::byte>(value));
            gm_write(dst.address, data.data(), bytes);
        },
        {dst.address}, {}, false,
        data_op(HostOpKind::Memset, stream, "memset", {}, {{dst.address, bytes}}), where);
}

void Runtime::Impl::fill_host(HostBuffer dst, std::uint8_t value, std::uint64_t bytes,
                              StreamState* stream, const char* call,
                              const std::source_location& where) {
    HostAllocation& h = host_of(dst, bytes, where);
    if (h.kind == HostMemoryKind::Pageable) {
        fail(Status::InvalidValue,
             std::string(call) +
                 " on pageable host memory: the device cannot write it (use device memory, "
                 "or a kernel that writes the value)",
             where);
    }
    if (!options.unified_memory) {
        fail(Status::InvalidValue,
             std::string(call) + " on " + to_string(h.kind) +
                 " host memory needs RuntimeOptions::unified_memory",
             where);
    }
    transfer(
        stream, TransferPath::DeviceToHost, bytes,
        [this, id = dst.id, value, bytes] {
            const std::vector<std::byte> data(bytes, static_cast<std::byte>(value));
            host_write(id, data.data(), bytes);
        },
        {}, {dst.id}, false,
        data_op(HostOpKind::Memset, stream, "memset", {}, host_ranges(h, bytes)), where);
}

}  // namespace npusim
