// The host runtime, continued (sim/host/runtime.h): stream capture and graphs, unified memory,
// copies sharing GM and host-link bandwidth, and a host that polls a stuck device.
#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "memory/global_memory.h"
#include "sim/host/runtime.h"
#include "test_support.h"

using namespace npusim;

namespace {

using test::catch_runtime_error;
using test::Caught;

constexpr std::uint64_t kCount = 256;
constexpr std::uint64_t kBytes = kCount * sizeof(float);

/// A one-block kernel: x = x * scale + offset over kCount floats.
KernelBody affine(GlobalTensor<float> x, float scale, float offset) {
    return [x, scale, offset](Block& block) {
        auto ub = block.alloc<float>(MemSpace::UB, kCount);
        block.copy(ub, x, kCount);
        block.set_flag(Pipe::MTE2, Pipe::V, 0);
        block.wait_flag(Pipe::MTE2, Pipe::V, 0);
        block.muls(ub, ub, scale, kCount);
        block.pipe_barrier(Pipe::V);
        block.adds(ub, ub, offset, kCount);
        block.set_flag(Pipe::V, Pipe::MTE3, 0);
        block.wait_flag(Pipe::V, Pipe::MTE3, 0);
        block.copy(x, ub, kCount);
    };
}

/// A kernel whose single block spends at least `cycles` on scalar UB reads.
KernelBody busy(std::uint64_t cycles) {
    return [cycles](Block& block) {
        auto ub = block.alloc<float>(MemSpace::UB, 64);
        for (std::uint64_t i = 0; i < cycles / 5; ++i) (void)block.load(ub, 0);
    };
}

std::string this_line(std::source_location where = std::source_location::current()) {
    return "runtime_capture_test.cpp:" + std::to_string(where.line());
}

/// Records the host ops observers see.
class HostOpRecorder final : public TransactionObserver {
public:
    void on_transaction(const Transaction& /*tx*/) override {}
    void on_host_op_queued(const HostOpInfo& op) override { queued.push_back(op); }
    void on_host_op_completed(std::uint64_t op, Cycle /*at*/) override { completed.push_back(op); }
    std::vector<HostOpInfo> queued;
    std::vector<std::uint64_t> completed;
};

/// Fills x with 0, 1, 2, ... and y with zeros; then the work under test, twice; returns x
/// and y. `captured`: the work is captured once into a graph launched twice.
struct Buffers {
    std::vector<float> x;
    std::vector<float> y;
};
Buffers two_kernels_and_a_copy(bool captured, HostOpRecorder* recorder = nullptr) {
    Simulator sim(test::small_chip());
    if (recorder != nullptr) sim.attach(*recorder);
    Buffers out;
    const RunResult result = sim.run_host([&](Runtime& rt) {
        const Stream s = rt.create_stream();
        const HostBuffer h = rt.malloc_host(kBytes, HostMemoryKind::Pinned);
        const std::span<float> init = rt.host_span<float>(h);
        for (std::size_t i = 0; i < init.size(); ++i) init[i] = static_cast<float>(i);
        const DeviceBuffer x = rt.malloc(kBytes);
        const DeviceBuffer y = rt.malloc(kBytes);
        rt.memcpy(x, h, kBytes);
        rt.memset(y, 0, kBytes);
        const auto work = [&] {
            rt.launch(s, {.name = "scale"}, affine(x.as<float>(), 2.0F, 0.0F));
            rt.launch(s, {.name = "shift"}, affine(x.as<float>(), 1.0F, 1.0F));
            rt.memcpy_async(y, x, kBytes / 2, s);
        };
        if (captured) {
            rt.begin_capture(s);
            work();
            const Graph g = rt.end_capture(s);
            rt.launch_graph(g, s);
            const Stream other = rt.create_stream();
            rt.synchronize_stream(s);
            rt.launch_graph(g, other);  // any stream
            rt.synchronize_stream(other);
            rt.destroy_graph(g);
        } else {
            work();
            work();
            rt.synchronize_stream(s);
        }
        rt.memcpy(h, x, kBytes);
        const std::span<float> got = rt.host_span<float>(h);
        out.x.assign(got.begin(), got.end());
        rt.memcpy(h, y, kBytes);
        out.y.assign(got.begin(), got.end());
    });
    REQUIRE(result.completed());
    return out;
}

}  // namespace

TEST_CASE("a graph of two kernels and a copy, launched twice, equals the work run twice",
          "[runtime][capture]") {
    const Buffers direct = two_kernels_and_a_copy(false);
    HostOpRecorder recorder;
    const Buffers graph = two_kernels_and_a_copy(true, &recorder);
    REQUIRE(direct.x.size() == kCount);
    CHECK(direct.x[3] == (3.0F * 2 + 1) * 2 + 1);
    CHECK(direct.y[3] == direct.x[3]);
    CHECK(direct.y[kCount - 1] == 0.0F);  // half copied
    CHECK(graph.x == direct.x);
    CHECK(graph.y == direct.y);
    // Each launch replays the three ops as new ops named after the launch and the capture.
    std::vector<HostOpInfo> replayed;
    for (const HostOpInfo& op : recorder.queued) {
        if (op.call == "launch_graph") replayed.push_back(op);
    }
    REQUIRE(replayed.size() == 6);
    CHECK(replayed[0].kind == HostOpKind::Kernel);
    CHECK(replayed[0].launch.name == "scale");
    CHECK(replayed[2].kind == HostOpKind::Copy);
    CHECK(replayed[2].reads.size() == 1);
    CHECK(replayed[3].stream != replayed[0].stream);
    for (std::size_t i = 1; i < replayed.size(); ++i) CHECK(replayed[i].op > replayed[i - 1].op);
    CHECK_THAT(replayed[0].where, Catch::Matches("runtime_capture_test.cpp:[0-9]+ \\(captured at "
                                                 "runtime_capture_test.cpp:[0-9]+\\)"));
    CHECK(recorder.completed.size() == recorder.queued.size());
}

TEST_CASE("querying an event recorded in a capturing stream fails and invalidates the capture",
          "[runtime][capture]") {
    Simulator sim(test::small_chip());
    Caught query;
    Caught end;
    std::string query_line;
    CaptureStatus during = CaptureStatus::None;
    CaptureStatus after = CaptureStatus::Active;
    Status event_after = Status::NotReady;
    const RunResult result = sim.run_host([&](Runtime& rt) {
        const Stream s = rt.create_stream();
        const Event e = rt.create_event();
        rt.begin_capture(s);
        rt.launch(s, {.name = "captured"}, busy(1'000));
        rt.record_event(e, s);
        // clang-format off
        query_line = this_line(); query = catch_runtime_error([&] { rt.query_event(e); });
        // clang-format on
        during = rt.capture_status(s);
        end = catch_runtime_error([&] { rt.end_capture(s); });
        after = rt.capture_status(s);
        event_after = rt.query_event(e);             // the capture ended: never really recorded
        rt.launch(s, {.name = "after"}, busy(100));  // the stream runs work again
    });
    REQUIRE(result.completed());
    CHECK(query.status == Status::NotPermitted);
    CHECK(query.where == query_line);
    CHECK_THAT(query.message, Catch::Contains("operation not permitted on an event last "
                                              "recorded in a capturing stream"));
    CHECK(during == CaptureStatus::Invalidated);
    CHECK(end.status == Status::NotPermitted);
    CHECK_THAT(end.message, Catch::Contains("invalidated by query_event at " + query_line));
    CHECK(after == CaptureStatus::None);
    CHECK(event_after == Status::Success);
    // The captured kernel never ran.
    REQUIRE(result.kernels.size() == 1);
    CHECK(result.kernels[0].name == "after");
}

TEST_CASE("a capturing stream refuses queries and synchronization", "[runtime][capture]") {
    Simulator sim(test::small_chip());
    std::vector<Caught> caught;
    std::vector<std::string> ends;
    sim.run_host([&](Runtime& rt) {
        const Stream s = rt.create_stream();
        const std::vector<std::function<void()>> refused{
            [&] { rt.query_stream(s); },
            [&] { rt.synchronize_stream(s); },
            [&] { rt.synchronize_device(); },
        };
        for (const auto& call : refused) {
            rt.begin_capture(s);
            caught.push_back(catch_runtime_error(call));
            ends.push_back(catch_runtime_error([&] { rt.end_capture(s); }).message);
        }
    });
    REQUIRE(caught.size() == 3);
    for (const Caught& c : caught) CHECK(c.status == Status::NotPermitted);
    CHECK_THAT(caught[0].message, Catch::Contains("operation not permitted on a capturing stream"));
    CHECK_THAT(ends[0], Catch::Contains("invalidated by query_stream"));
    CHECK_THAT(ends[1], Catch::Contains("invalidated by synchronize_stream"));
    CHECK_THAT(ends[2], Catch::Contains("invalidated by synchronize_device"));
}

TEST_CASE("capture modes: unsafe calls invalidate Global and ThreadLocal captures only",
          "[runtime][capture]") {
    for (const CaptureMode mode :
         {CaptureMode::Global, CaptureMode::ThreadLocal, CaptureMode::Relaxed}) {
        const bool relaxed = mode == CaptureMode::Relaxed;
        INFO("mode=" << static_cast<int>(mode));
        Simulator sim(test::small_chip());
        Caught sync_copy;
        Caught pageable_other_stream;
        Caught pageable_captured;
        Caught end;
        sim.run_host([&](Runtime& rt) {
            const Stream s = rt.create_stream();
            const Stream other = rt.create_stream();
            const HostBuffer pageable = rt.malloc_host(64, HostMemoryKind::Pageable);
            const DeviceBuffer d = rt.malloc(64);
            rt.begin_capture(s, mode);
            sync_copy = catch_runtime_error([&] { rt.memcpy(d, pageable, 64); });
            pageable_other_stream =
                catch_runtime_error([&] { rt.memcpy_async(d, pageable, 64, other); });
            if (relaxed) {
                // Captured copies need pinned host memory in every mode.
                pageable_captured =
                    catch_runtime_error([&] { rt.memcpy_async(d, pageable, 64, s); });
            }
            end = catch_runtime_error([&] { rt.end_capture(s); });
        });
        if (relaxed) {
            CHECK_FALSE(sync_copy.status);
            CHECK_FALSE(pageable_other_stream.status);
            CHECK(pageable_captured.status == Status::NotPermitted);
            CHECK_THAT(pageable_captured.message, Catch::Contains("pinned"));
        } else {
            CHECK(sync_copy.status == Status::NotPermitted);
            CHECK(pageable_other_stream.status == Status::NotPermitted);
            CHECK_THAT(end.message, Catch::Contains("invalidated by memcpy at"));
        }
        CHECK(end.status == Status::NotPermitted);
    }
}

TEST_CASE("with the legacy default stream a synchronous copy refuses every capture mode",
          "[runtime][capture]") {
    Simulator sim(test::small_chip());
    Caught sync_copy;
    sim.run_host(
        [&](Runtime& rt) {
            const Stream s = rt.create_stream();
            const DeviceBuffer d = rt.malloc(64);
            rt.begin_capture(s, CaptureMode::Relaxed);
            sync_copy = catch_runtime_error([&] { rt.memset(d, 0, 64); });
            CHECK(rt.capture_status(s) == CaptureStatus::Invalidated);
            CHECK_THROWS_AS(rt.end_capture(s), RuntimeError);
        },
        {.legacy_default_stream = true});
    CHECK(sync_copy.status == Status::NotPermitted);
    CHECK_THAT(sync_copy.message, Catch::Contains("cudaErrorStreamCaptureImplicit"));
}

TEST_CASE("capture misuse: default stream, nesting, destroy, outside events",
          "[runtime][capture]") {
    Simulator sim(test::small_chip());
    std::vector<Caught> caught;
    Caught default_stream_work;
    Caught end_after_default;
    Caught outside_event;
    Caught end_after_outside;
    sim.run_host([&](Runtime& rt) {
        const Stream s = rt.create_stream();
        const Event outside = rt.create_event();
        rt.record_event(outside, s);
        caught.push_back(catch_runtime_error([&] { rt.begin_capture(rt.default_stream()); }));
        caught.push_back(catch_runtime_error([&] { rt.end_capture(s); }));
        rt.begin_capture(s);
        caught.push_back(catch_runtime_error([&] { rt.begin_capture(s); }));
        caught.push_back(catch_runtime_error([&] { rt.destroy_stream(s); }));
        default_stream_work = catch_runtime_error(
            [&] { rt.launch(rt.default_stream(), {.name = "implicit"}, busy(100)); });
        end_after_default = catch_runtime_error([&] { rt.end_capture(s); });
        rt.begin_capture(s);
        outside_event = catch_runtime_error([&] { rt.stream_wait_event(s, outside); });
        end_after_outside = catch_runtime_error([&] { rt.end_capture(s); });
    });
    REQUIRE(caught.size() == 4);
    for (const Caught& c : caught) CHECK(c.status == Status::NotPermitted);
    CHECK(default_stream_work.status == Status::NotPermitted);
    CHECK_THAT(default_stream_work.message, Catch::Contains("default stream"));
    CHECK_THAT(end_after_default.message, Catch::Contains("invalidated by launch"));
    CHECK(outside_event.status == Status::NotPermitted);
    CHECK_THAT(outside_event.message, Catch::Contains("ACL_ERROR_RT_CAPTURE_DEPENDENCY"));
    CHECK(end_after_outside.status == Status::NotPermitted);
}

TEST_CASE("a graph with an event recorded and waited inside it replays in order",
          "[runtime][capture]") {
    Simulator sim(test::small_chip());
    HostOpRecorder recorder;
    sim.attach(recorder);
    std::vector<float> x_after;
    const RunResult result = sim.run_host([&](Runtime& rt) {
        const Stream s = rt.create_stream();
        const Event e = rt.create_event();
        const DeviceBuffer x = rt.malloc(kBytes);
        rt.memset(x, 0, kBytes);
        rt.begin_capture(s, CaptureMode::Relaxed);
        rt.launch(s, {.name = "add1"}, affine(x.as<float>(), 1.0F, 1.0F));
        rt.record_event(e, s);
        rt.stream_wait_event(s, e);
        rt.launch(s, {.name = "times3"}, affine(x.as<float>(), 3.0F, 0.0F));
        const Graph g = rt.end_capture(s);
        for (int i = 0; i < 3; ++i) rt.launch_graph(g, s);
        rt.synchronize_stream(s);
        const HostBuffer h = rt.malloc_host(kBytes, HostMemoryKind::Pinned);
        rt.memcpy(h, x, kBytes);
        const std::span<float> got = rt.host_span<float>(h);
        x_after.assign(got.begin(), got.end());
    });
    REQUIRE(result.completed());
    CHECK(result.kernels.size() == 6);
    CHECK(x_after[0] == ((1.0F * 3 + 1) * 3 + 1) * 3);  // 39
    // Each replayed wait names the replayed record of the same launch.
    std::uint64_t last_record = 0;
    int waits = 0;
    for (const HostOpInfo& op : recorder.queued) {
        if (op.kind == HostOpKind::EventRecord) last_record = op.op;
        if (op.kind == HostOpKind::EventWait) {
            ++waits;
            CHECK(op.call == "launch_graph");
            CHECK(op.waits_for == last_record);
        }
    }
    CHECK(waits == 3);
}

TEST_CASE("graphs: destroyed graphs and freed memory", "[runtime][capture]") {
    Simulator sim(test::small_chip());
    Caught destroyed;
    Caught freed;
    std::string free_line;
    const RunResult result = sim.run_host([&](Runtime& rt) {
        const Stream s = rt.create_stream();
        const DeviceBuffer x = rt.malloc(kBytes);
        rt.begin_capture(s);
        rt.memset_async(x, 1, kBytes, s);
        const Graph g = rt.end_capture(s);
        const Graph kept = g;
        rt.destroy_graph(g);
        destroyed = catch_runtime_error([&] { rt.launch_graph(kept, s); });
        rt.begin_capture(s);
        rt.memset_async(x, 2, kBytes, s);
        const Graph h = rt.end_capture(s);
        // clang-format off
        free_line = this_line(); rt.free(x);
        // clang-format on
        freed = catch_runtime_error([&] { rt.launch_graph(h, s); });
    });
    REQUIRE(result.completed());
    CHECK(destroyed.status == Status::InvalidHandle);
    CHECK(freed.status == Status::InvalidValue);
    CHECK_THAT(freed.message, Catch::Contains("was freed"));
    REQUIRE(result.warnings.size() == 1);
    CHECK(result.warnings[0].where == free_line);
    CHECK_THAT(result.warnings[0].message, Catch::Contains("graph"));
}

TEST_CASE("unified memory: kernels read managed and write pinned host memory", "[runtime]") {
    Simulator sim(test::small_chip());
    std::vector<float> seen;
    std::vector<float> copied;
    const RunResult result = sim.run_host(
        [&](Runtime& rt) {
            const Stream s = rt.create_stream();
            const HostBuffer in = rt.malloc_host(kBytes, HostMemoryKind::Managed);
            const HostBuffer out = rt.malloc_host(kBytes, HostMemoryKind::Pinned);
            const std::span<float> values = rt.host_span<float>(in);
            for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
            const GlobalTensor<float> x = rt.device_view<float>(in);
            const GlobalTensor<float> y = rt.device_view<float>(out);
            CHECK(x.count == kCount);
            rt.launch(s, {.name = "double"}, [x, y](Block& block) {
                auto ub = block.alloc<float>(MemSpace::UB, kCount);
                block.copy(ub, x, kCount);
                block.set_flag(Pipe::MTE2, Pipe::V, 0);
                block.wait_flag(Pipe::MTE2, Pipe::V, 0);
                block.muls(ub, ub, 2.0F, kCount);
                block.set_flag(Pipe::V, Pipe::MTE3, 0);
                block.wait_flag(Pipe::V, Pipe::MTE3, 0);
                block.copy(y, ub, kCount);
            });
            rt.synchronize_stream(s);
            const std::span<float> got = rt.host_span<float>(out);
            seen.assign(got.begin(), got.end());
            // Copies see the same storage.
            const DeviceBuffer d = rt.malloc(kBytes);
            rt.memcpy(d, out, kBytes);
            const HostBuffer back = rt.malloc_host(kBytes, HostMemoryKind::Pageable);
            rt.memcpy(back, d, kBytes);
            const std::span<float> b = rt.host_span<float>(back);
            copied.assign(b.begin(), b.end());
            rt.free_host(in);
        },
        {.unified_memory = true});
    REQUIRE(result.completed());
    REQUIRE(seen.size() == kCount);
    for (std::size_t i = 0; i < kCount; ++i) REQUIRE(seen[i] == 2.0F * static_cast<float>(i));
    CHECK(copied == seen);
}

TEST_CASE("unified memory: device views need unified memory and pinned or managed kinds",
          "[runtime]") {
    for (const bool unified : {false, true}) {
        INFO("unified=" << unified);
        Simulator sim(test::small_chip());
        Caught pageable;
        Caught pinned;
        sim.run_host(
            [&](Runtime& rt) {
                const HostBuffer p = rt.malloc_host(64, HostMemoryKind::Pageable);
                const HostBuffer q = rt.malloc_host(64, HostMemoryKind::Pinned);
                pageable = catch_runtime_error([&] { rt.device_address(p); });
                pinned = catch_runtime_error([&] { rt.device_view<float>(q); });
            },
            {.unified_memory = unified});
        CHECK(pageable.status == Status::InvalidValue);
        CHECK_THAT(pageable.message, Catch::Contains("pageable"));
        if (unified) {
            CHECK_FALSE(pinned.status);
        } else {
            CHECK(pinned.status == Status::InvalidValue);
            CHECK_THAT(pinned.message, Catch::Contains("unified_memory"));
        }
        // Device-visible host memory goes with the runtime.
        for (const auto& [address, buffer] : sim.global_memory().buffers()) {
            if (buffer.contiguous) CHECK(buffer.freed);
        }
    }
}

namespace {

/// Records when each host op started and completed.
class HostOpTimes final : public TransactionObserver {
public:
    void on_transaction(const Transaction& /*tx*/) override {}
    void on_host_op_queued(const HostOpInfo& op) override { calls[op.op] = op.call; }
    void on_host_op_started(std::uint64_t op, Cycle at) override { started[op] = at; }
    void on_host_op_completed(std::uint64_t op, Cycle at) override { completed[op] = at; }
    /// Start to completion of the only op made by `call`.
    Cycle duration_of(const std::string& call) const {
        Cycle found = 0;
        int count = 0;
        for (const auto& [op, c] : calls) {
            if (c != call) continue;
            ++count;
            found = completed.at(op) - started.at(op);
        }
        REQUIRE(count == 1);
        return found;
    }
    std::map<std::uint64_t, std::string> calls;
    std::map<std::uint64_t, Cycle> started;
    std::map<std::uint64_t, Cycle> completed;
};

/// Four blocks streaming GM into UB: together they ask for twice the small chip's GM rate.
KernelBody gm_heavy(GlobalTensor<float> src, int rounds) {
    return [src, rounds](Block& block) {
        constexpr std::uint64_t kChunk = 8192;  // 32 KiB
        auto ub = block.alloc<float>(MemSpace::UB, kChunk);
        for (int r = 0; r < rounds; ++r) {
            block.copy(ub, src.sub(block.block_idx() * kChunk, kChunk), kChunk);
        }
    };
}

}  // namespace

TEST_CASE("device copies share GM bandwidth with running kernels", "[runtime]") {
    constexpr std::uint64_t kCopyBytes = 1 << 20;
    struct Timing {
        Cycle kernel = 0;
        Cycle copy = 0;
    };
    const auto measure = [&](bool with_kernel, bool with_copy) {
        Simulator sim(test::small_chip());
        HostOpTimes times;
        sim.attach(times);
        const RunResult result = sim.run_host([&](Runtime& rt) {
            const Stream s1 = rt.create_stream();
            const Stream s2 = rt.create_stream();
            const DeviceBuffer src = rt.malloc(4 * 8192 * sizeof(float));
            const DeviceBuffer a = rt.malloc(kCopyBytes);
            const DeviceBuffer b = rt.malloc(kCopyBytes);
            if (with_kernel) {
                rt.launch(s1, {.name = "heavy", .blocks = 4}, gm_heavy(src.as<float>(), 40));
            }
            if (with_copy) rt.memcpy_async(b, a, kCopyBytes, s2);
            rt.synchronize_device();
        });
        REQUIRE(result.completed());
        Timing t;
        if (with_kernel) t.kernel = result.kernels.at(0).end - result.kernels.at(0).start;
        if (with_copy) t.copy = times.duration_of("memcpy_async");
        return t;
    };
    const ChipConfig chip = test::small_chip();
    const Timing kernel_alone = measure(true, false);
    const Timing copy_alone = measure(false, true);
    const Timing both = measure(true, true);
    CHECK(copy_alone.copy == 2 * kCopyBytes / chip.gm_bytes_per_cycle);  // read + write
    INFO("kernel alone " << kernel_alone.kernel << ", with copy " << both.kernel << "; copy alone "
                         << copy_alone.copy << ", with kernel " << both.copy);
    CHECK(both.copy > copy_alone.copy * 5 / 4);
    CHECK(both.kernel > kernel_alone.kernel * 11 / 10);
}

TEST_CASE("host-link transfers in one direction share the link", "[runtime]") {
    constexpr std::uint64_t kLinkBytes = 64 * 1024;
    const ChipConfig chip = test::small_chip();
    enum class Case { One, SameDirection, BothDirections };
    for (const Case c : {Case::One, Case::SameDirection, Case::BothDirections}) {
        INFO("case=" << static_cast<int>(c));
        const int copies = c == Case::One ? 1 : 2;
        Simulator sim(chip);
        HostOpTimes times;
        sim.attach(times);
        const RunResult result = sim.run_host([&](Runtime& rt) {
            std::vector<Stream> streams;
            std::vector<HostBuffer> hosts;
            std::vector<DeviceBuffer> devices;
            for (int i = 0; i < copies; ++i) {
                streams.push_back(rt.create_stream());
                hosts.push_back(rt.malloc_host(kLinkBytes, HostMemoryKind::Pinned));
                devices.push_back(rt.malloc(kLinkBytes));
            }
            rt.memcpy_async(devices[0], hosts[0], kLinkBytes, streams[0]);
            if (c == Case::SameDirection) {
                rt.memcpy_async(devices[1], hosts[1], kLinkBytes, streams[1]);
            } else if (c == Case::BothDirections) {
                rt.memcpy_async(hosts[1], devices[1], kLinkBytes, streams[1]);
            }
            rt.synchronize_device();
        });
        REQUIRE(result.completed());
        REQUIRE(times.started.size() == static_cast<std::size_t>(copies));
        const Cycle transfer = kLinkBytes / chip.host_link_bytes_per_cycle;
        for (const auto& [op, start] : times.started) {
            const Cycle took = times.completed.at(op) - start;
            if (c == Case::SameDirection) {
                // About twice the link time each (the two overlap, less one call's cost).
                CHECK(took > chip.host_link_latency + 2 * transfer * 9 / 10);
                CHECK(took < chip.host_link_latency + 2 * transfer * 11 / 10);
            } else {
                CHECK(took == chip.host_link_latency + transfer);  // full duplex
            }
        }
    }
}

TEST_CASE("a host polling a stuck device is a deadlock, not endless time", "[runtime]") {
    SimOptions options;
    options.deadlock_idle_cycles = 20'000;
    for (const bool by_event : {false, true}) {
        INFO("by_event=" << by_event);
        Simulator sim(test::small_chip(), options);
        std::string poll_line;
        const RunResult result = sim.run_host([&](Runtime& rt) {
            const Stream s = rt.create_stream();
            const Event e = rt.create_event();
            rt.launch(s, {.name = "stuck"}, [](Block& block) {
                block.wait_flag(Pipe::MTE2, Pipe::V, 0);  // never set
            });
            rt.record_event(e, s);
            for (;;) {
                // clang-format off
                poll_line = this_line(); const Status st = by_event ? rt.query_event(e) : rt.query_stream(s);
                // clang-format on
                if (st == Status::Success) break;
            }
        });
        CHECK(result.outcome == RunOutcome::Deadlock);
        CHECK_THAT(result.host_wait, Catch::Contains(by_event ? "query_event" : "query_stream") &&
                                         Catch::Contains(poll_line) && Catch::Contains("polls"));
        REQUIRE(result.stuck.size() == 1);
        CHECK(result.stuck[0].kernel == "stuck");
    }
}

TEST_CASE("a host polling a long kernel is not a deadlock", "[runtime]") {
    SimOptions options;
    options.deadlock_idle_cycles = 5'000;
    for (const Cycle call_cycles : {Cycle{100}, Cycle{0}}) {
        INFO("call_cycles=" << call_cycles);
        ChipConfig chip = test::small_chip();
        chip.runtime_call_cycles = call_cycles;  // 0: a query still lets time move
        Simulator sim(chip, options);
        int polls = 0;
        const RunResult result = sim.run_host([&](Runtime& rt) {
            const Stream s = rt.create_stream();
            const Stream waiting = rt.create_stream();
            const Event e = rt.create_event();
            rt.launch(s, {.name = "long"}, busy(60'000));
            rt.record_event(e, s);
            rt.stream_wait_event(waiting, e);  // a stream blocked on an event, but not stuck
            while (rt.query_stream(waiting) == Status::NotReady) ++polls;
        });
        CHECK(result.completed());
        CHECK(polls > 100);
    }
}

TEST_CASE("legacy default stream: it waits for every stream and they wait for it", "[runtime]") {
    for (const bool legacy : {false, true}) {
        INFO("legacy=" << legacy);
        Simulator sim(test::small_chip());
        HostOpRecorder recorder;
        sim.attach(recorder);
        Cycle copied_at = 0;
        const RunResult result = sim.run_host(
            [&](Runtime& rt) {
                const Stream s1 = rt.create_stream();
                const Stream s2 = rt.create_stream();
                const DeviceBuffer d = rt.malloc(64);
                rt.launch(s1, {.name = "A"}, busy(20'000));
                rt.launch(rt.default_stream(), {.name = "B"}, busy(5'000));
                rt.launch(s2, {.name = "C"}, busy(1'000));
                rt.launch(s1, {.name = "D"}, busy(1'000));
                rt.memset(d, 0, 64);
                copied_at = rt.now();
                rt.synchronize_device();
            },
            {.legacy_default_stream = legacy});
        REQUIRE(result.completed());
        const auto kernel = [&](const std::string& name) {
            for (const KernelResult& k : result.kernels) {
                if (k.name == name) return k;
            }
            FAIL("no kernel " << name);
            return result.kernels.front();
        };
        int implicit_waits = 0;
        for (const HostOpInfo& op : recorder.queued) {
            if (op.call == "legacy_default_stream") ++implicit_waits;
        }
        if (legacy) {
            CHECK(kernel("B").start >= kernel("A").end);
            CHECK(kernel("C").start >= kernel("B").end);
            CHECK(kernel("D").start >= kernel("B").end);
            CHECK(copied_at >= kernel("D").end);  // a synchronous memset waits for all
            CHECK(implicit_waits == 3);           // B on A, C on B, D on B
        } else {
            CHECK(kernel("B").start < kernel("A").end);
            CHECK(kernel("C").start < kernel("B").end);
            CHECK(copied_at < kernel("A").end);
            CHECK(implicit_waits == 0);
        }
    }
}

TEST_CASE("cross-stream capture: a forked stream joins the capture and replays concurrently",
          "[runtime][capture]") {
    Simulator sim(test::small_chip());
    HostOpRecorder recorder;
    sim.attach(recorder);
    const RunResult result = sim.run_host([&](Runtime& rt) {
        const Stream origin = rt.create_stream();
        const Stream side = rt.create_stream();
        const Stream target = rt.create_stream();
        const Event fork = rt.create_event();
        const Event join = rt.create_event();
        rt.begin_capture(origin);
        rt.launch(origin, {.name = "A"}, busy(5'000));
        rt.record_event(fork, origin);
        rt.stream_wait_event(side, fork);  // side joins the capture
        CHECK(rt.capture_status(side) == CaptureStatus::Active);
        rt.launch(side, {.name = "B"}, busy(10'000));
        rt.launch(origin, {.name = "C"}, busy(10'000));
        rt.record_event(join, side);
        rt.stream_wait_event(origin, join);  // side rejoins the origin
        rt.launch(origin, {.name = "D"}, busy(1'000));
        const Graph g = rt.end_capture(origin);
        CHECK(rt.capture_status(side) == CaptureStatus::None);
        rt.launch_graph(g, target);
        const RuntimeWaitState state = rt.wait_state();
        const auto internal = std::count_if(
            state.streams.begin(), state.streams.end(),
            [](const StreamWaitState& st) { return st.graph_internal && st.destroyed; });
        CHECK(internal == 1);
        rt.synchronize_stream(target);  // the whole graph, its internal stream included
        CHECK(rt.query_stream(side) == Status::Success);
    });
    REQUIRE(result.completed());
    REQUIRE(result.kernels.size() == 4);
    const auto kernel = [&](const std::string& name) {
        for (const KernelResult& k : result.kernels) {
            if (k.name == name) return k;
        }
        return KernelResult{};
    };
    CHECK(kernel("B").start >= kernel("A").end);
    CHECK(kernel("C").start >= kernel("A").end);
    CHECK(kernel("B").start < kernel("C").end);  // the branches overlap
    CHECK(kernel("C").start < kernel("B").end);
    CHECK(kernel("D").start >= kernel("B").end);
    CHECK(kernel("D").start >= kernel("C").end);
    // B ran on an internal stream of the launch, the others on the launch stream.
    std::map<std::string, std::uint32_t> stream_of;
    for (const HostOpInfo& op : recorder.queued) {
        if (op.kind == HostOpKind::Kernel) stream_of[op.launch.name] = op.stream;
    }
    CHECK(stream_of["A"] == stream_of["C"]);
    CHECK(stream_of["A"] == stream_of["D"]);
    CHECK(stream_of["B"] != stream_of["A"]);
    CHECK(stream_of["B"] > 3);  // not one of the program's streams
}

TEST_CASE("cross-stream capture: a stream that does not rejoin fails end_capture",
          "[runtime][capture]") {
    Simulator sim(test::small_chip());
    Caught end;
    Caught end_on_side;
    CaptureStatus side_after = CaptureStatus::Active;
    const RunResult result = sim.run_host([&](Runtime& rt) {
        const Stream origin = rt.create_stream();
        const Stream side = rt.create_stream();
        const Event fork = rt.create_event();
        const Event join = rt.create_event();
        rt.begin_capture(origin);
        rt.record_event(fork, origin);
        rt.stream_wait_event(side, fork);
        rt.record_event(join, side);
        rt.stream_wait_event(origin, join);
        rt.launch(side, {.name = "after the join"}, busy(100));  // issued after rejoining
        end_on_side = catch_runtime_error([&] { rt.end_capture(side); });
        end = catch_runtime_error([&] { rt.end_capture(origin); });
        side_after = rt.capture_status(side);
    });
    REQUIRE(result.completed());
    CHECK(end_on_side.status == Status::NotPermitted);
    CHECK_THAT(end_on_side.message, Catch::Contains("origin"));
    CHECK(end.status == Status::NotPermitted);
    CHECK_THAT(end.message, Catch::Contains("ACL_ERROR_RT_STREAM_UNJOINED"));
    CHECK(side_after == CaptureStatus::None);
    CHECK(result.kernels.empty());
}
