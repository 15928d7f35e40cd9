// The checker on runtime programs (Simulator::run_host): stream order, events and host
// synchronization order accesses; work of different streams with none of them between it
// races whatever the timing, and so does a host access of memory that pending device work
// touches.
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "base/tensor.h"
#include "core/block.h"
#include "sim/host/runtime.h"
#include "sim/simulator.h"
#include "sync/check/check_report.h"
#include "sync/check/checker.h"
#include "sync/check/findings.h"
#include "test_support.h"

using namespace npusim;

namespace {

constexpr std::uint64_t N = 256;  // floats: 1 KiB
constexpr std::uint64_t kBytes = N * sizeof(float);

unsigned g_store_line = 0;
unsigned g_load_line = 0;

/// One block: about `delay` cycles of scalar work, then stores `value` over x[0, N).
KernelBody store_kernel(GlobalTensor<float> x, float value, std::uint64_t delay = 0) {
    return [=](Block& b) {
        auto scratch = b.alloc<float>(MemSpace::UB, 8);
        for (std::uint64_t i = 0; i < delay / 5; ++i) b.store(scratch, 0, 0.0F);
        auto ub = b.alloc<float>(MemSpace::UB, N);
        b.fill(ub, value, N);
        b.set_flag(Pipe::V, Pipe::MTE3, 0);
        b.wait_flag(Pipe::V, Pipe::MTE3, 0);
        g_store_line = __LINE__ + 1;
        b.copy(x, ub, N);
    };
}

/// One block: loads x[0, N) and stores it to y.
KernelBody load_kernel(GlobalTensor<float> x, GlobalTensor<float> y) {
    return [=](Block& b) {
        auto ub = b.alloc<float>(MemSpace::UB, N);
        g_load_line = __LINE__ + 1;
        b.copy(ub, x, N);
        b.set_flag(Pipe::MTE2, Pipe::MTE3, 0);
        b.wait_flag(Pipe::MTE2, Pipe::MTE3, 0);
        b.copy(y, ub, N);
    };
}

std::string site(unsigned line) {
    return "checker_streams_test.cpp:" + std::to_string(line);
}

std::vector<const Finding*> races(const std::vector<Finding>& findings) {
    std::vector<const Finding*> out;
    for (const Finding& f : findings)
        if (is_race(f.kind)) out.push_back(&f);
    return out;
}

const KernelResult& kernel_named(const RunResult& result, const std::string& name) {
    for (const KernelResult& k : result.kernels)
        if (k.name == name) return k;
    FAIL("no kernel named " << name);
    return result.kernels.front();
}

/// Device buffers a program works on, initialized by the host thread (synchronously).
struct Buffers {
    DeviceBuffer x, y, z;
    HostBuffer h;
};
Buffers make_buffers(Runtime& rt) {
    Buffers b;
    b.h = rt.malloc_host(kBytes, HostMemoryKind::Pinned);
    b.x = rt.malloc(kBytes, "x");
    b.y = rt.malloc(kBytes, "y");
    b.z = rt.malloc(kBytes, "z");
    rt.memcpy(b.x, b.h, kBytes);
    return b;
}

struct Lines {
    unsigned a = 0, b = 0, c = 0;
};

/// Kernels A then B on stream 1, C on stream 2: A stores x (slowly), B and C load it. With
/// `event`, stream 2 waits for an event recorded after A.
RunResult a_b_c(Simulator& sim, bool event, Lines& lines) {
    return sim.run_host([&](Runtime& rt) {
        const Buffers buf = make_buffers(rt);
        const Stream s1 = rt.create_stream();
        const Stream s2 = rt.create_stream();
        const Event a_done = rt.create_event();
        lines.a = __LINE__ + 1;
        rt.launch(s1, {.name = "A"}, store_kernel(buf.x.as<float>(), 1.0F, 60'000));
        rt.record_event(a_done, s1);
        lines.b = __LINE__ + 1;
        rt.launch(s1, {.name = "B"}, load_kernel(buf.x.as<float>(), buf.y.as<float>()));
        if (event) rt.stream_wait_event(s2, a_done);
        lines.c = __LINE__ + 1;
        rt.launch(s2, {.name = "C"}, load_kernel(buf.x.as<float>(), buf.z.as<float>()));
        rt.synchronize_device();
    });
}

}  // namespace

TEST_CASE("checker streams: an event makes C wait for A, in happens-before and in time",
          "[checker][streams]") {
    Simulator sim(test::small_chip());
    Checker checker(sim.global_memory());
    sim.attach(checker);
    Lines lines;
    const RunResult result = a_b_c(sim, true, lines);
    REQUIRE(result.completed());
    CHECK(checker.findings().empty());
    INFO(format_findings(checker.findings()));
    const KernelResult& a = kernel_named(result, "A");
    CHECK(kernel_named(result, "B").start >= a.end);  // stream order
    CHECK(kernel_named(result, "C").start >= a.end);  // the event
}

TEST_CASE("checker streams: without the event, C races with A, naming both launches",
          "[checker][streams]") {
    Simulator sim(test::small_chip());
    Checker checker(sim.global_memory());
    sim.attach(checker);
    Lines lines;
    const RunResult result = a_b_c(sim, false, lines);
    REQUIRE(result.completed());
    const std::string text = format_findings(checker.findings());
    INFO(text);
    // C ran alongside A: it loaded x before A's slow store landed. Reported by program
    // order all the same: A (queued first) writes, C reads.
    CHECK(kernel_named(result, "C").start < kernel_named(result, "A").end);
    const std::vector<const Finding*> found = races(checker.findings());
    REQUIRE(found.size() == 1);
    REQUIRE(checker.findings().size() == 1);
    const Finding& f = *found.front();
    CHECK(f.kind == FindingKind::RaceRAW);
    CHECK(f.scope == RaceScope::InterStream);
    CHECK(f.space == MemSpace::GM);
    REQUIRE(f.sites.size() == 2);
    const AccessSite& first = f.sites[0];
    const AccessSite& second = f.sites[1];
    CHECK(first.kernel == "A");
    CHECK(first.origin == AccessOrigin::Kernel);
    CHECK(first.stream == 1);
    CHECK(first.call == "launch");
    CHECK(first.call_site == site(lines.a));
    CHECK(first.where.line() == g_store_line);
    CHECK(first.write);
    CHECK(second.kernel == "C");
    CHECK(second.stream == 2);
    CHECK(second.call_site == site(lines.c));
    CHECK(second.where.line() == g_load_line);
    CHECK_FALSE(second.write);
    CHECK(f.fix == "record an event on stream 1 after launch at " + site(lines.a) +
                       " and make stream 2 wait for it before launch at " + site(lines.c));
    CHECK_THAT(text, Catch::Contains("between kernel A on stream 1 and kernel C on stream 2"));
    CHECK_THAT(text, Catch::Contains("scope: inter-stream"));
    CHECK_THAT(text, Catch::Contains("(launch on stream 2 at " + site(lines.c) + ")"));

    const nlohmann::json json = findings_to_json(checker.findings());
    CHECK(json[0]["scope"] == "inter-stream");
    CHECK(json[0]["accesses"][0]["call_site"] == site(lines.a));
    CHECK(json[0]["accesses"][0]["stream"] == 1);
    CHECK(json[0]["accesses"][0]["origin"] == "kernel");
    CHECK(json[0]["accesses"][1]["kernel"] == "C");
}

TEST_CASE("checker streams: unordered even when the earlier kernel happened to finish first",
          "[checker][streams]") {
    Simulator sim(test::small_chip());
    Checker checker(sim.global_memory());
    sim.attach(checker);
    unsigned launch_a = 0, launch_c = 0;
    const RunResult result = sim.run_host([&](Runtime& rt) {
        const Buffers buf = make_buffers(rt);
        const Stream s1 = rt.create_stream();
        const Stream s2 = rt.create_stream();
        // Stream 2 is busy for a long time first: C starts long after A finished.
        rt.launch(s2, {.name = "slow"}, store_kernel(buf.y.as<float>(), 2.0F, 20'000));
        launch_a = __LINE__ + 1;
        rt.launch(s1, {.name = "A"}, store_kernel(buf.x.as<float>(), 1.0F));
        launch_c = __LINE__ + 1;
        rt.launch(s2, {.name = "C"}, load_kernel(buf.x.as<float>(), buf.z.as<float>()));
        rt.synchronize_device();
    });
    REQUIRE(result.completed());
    CHECK(kernel_named(result, "C").start > kernel_named(result, "A").end);
    INFO(format_findings(checker.findings()));
    REQUIRE(checker.findings().size() == 1);
    const Finding& f = checker.findings().front();
    CHECK(f.kind == FindingKind::RaceRAW);
    CHECK(f.scope == RaceScope::InterStream);
    CHECK(f.sites[0].call_site == site(launch_a));
    CHECK(f.sites[1].call_site == site(launch_c));
}

TEST_CASE("checker streams: stream order alone orders kernels of one stream",
          "[checker][streams]") {
    Simulator sim(test::small_chip());
    Checker checker(sim.global_memory());
    sim.attach(checker);
    sim.run_host([&](Runtime& rt) {
        const Buffers buf = make_buffers(rt);
        const Stream s1 = rt.create_stream();
        rt.launch(s1, {.name = "A"}, store_kernel(buf.x.as<float>(), 1.0F));
        rt.launch(s1, {.name = "B"}, load_kernel(buf.x.as<float>(), buf.y.as<float>()));
        rt.launch(s1, {.name = "A2"}, store_kernel(buf.x.as<float>(), 3.0F));
        rt.memcpy_async(buf.z, buf.x, kBytes, s1);
        rt.synchronize_stream(s1);
    });
    INFO(format_findings(checker.findings()));
    CHECK(checker.findings().empty());
}

TEST_CASE("checker streams: an event recorded before the write orders nothing of it",
          "[checker][streams]") {
    Simulator sim(test::small_chip());
    Checker checker(sim.global_memory());
    sim.attach(checker);
    sim.run_host([&](Runtime& rt) {
        const Buffers buf = make_buffers(rt);
        const Stream s1 = rt.create_stream();
        const Stream s2 = rt.create_stream();
        const Event early = rt.create_event();
        rt.record_event(early, s1);  // captures the work queued so far: none
        rt.launch(s1, {.name = "A"}, store_kernel(buf.x.as<float>(), 1.0F, 2'000));
        rt.stream_wait_event(s2, early);
        rt.launch(s2, {.name = "C"}, load_kernel(buf.x.as<float>(), buf.z.as<float>()));
        rt.synchronize_device();
    });
    INFO(format_findings(checker.findings()));
    REQUIRE(races(checker.findings()).size() == 1);
    CHECK(checker.findings().front().scope == RaceScope::InterStream);
}

TEST_CASE("checker streams: a wait on a never-recorded event orders nothing",
          "[checker][streams]") {
    Simulator sim(test::small_chip());
    Checker checker(sim.global_memory());
    sim.attach(checker);
    sim.run_host([&](Runtime& rt) {
        const Buffers buf = make_buffers(rt);
        const Stream s1 = rt.create_stream();
        const Stream s2 = rt.create_stream();
        const Event never = rt.create_event();
        rt.launch(s1, {.name = "A"}, store_kernel(buf.x.as<float>(), 1.0F, 2'000));
        rt.stream_wait_event(s2, never);  // a no-op
        rt.launch(s2, {.name = "C"}, load_kernel(buf.x.as<float>(), buf.z.as<float>()));
        rt.synchronize_device();
    });
    INFO(format_findings(checker.findings()));
    REQUIRE(races(checker.findings()).size() == 1);
    CHECK(checker.findings().front().scope == RaceScope::InterStream);
}

TEST_CASE("checker streams: host synchronization orders host accesses after device work",
          "[checker][streams]") {
    enum class Sync { None, Stream, Device, Event, QueryStream, QueryEvent, FailedQuery };
    for (const Sync sync : {Sync::None, Sync::Stream, Sync::Device, Sync::Event, Sync::QueryStream,
                            Sync::QueryEvent, Sync::FailedQuery}) {
        INFO("sync=" << static_cast<int>(sync));
        Simulator sim(test::small_chip());
        Checker checker(sim.global_memory());
        sim.attach(checker);
        unsigned launch = 0, read = 0;
        sim.run_host([&](Runtime& rt) {
            const Buffers buf = make_buffers(rt);
            const Stream s1 = rt.create_stream();
            const Event done = rt.create_event();
            launch = __LINE__ + 1;
            rt.launch(s1, {.name = "A"}, store_kernel(buf.x.as<float>(), 1.0F, 3'000));
            rt.record_event(done, s1);
            switch (sync) {
                case Sync::None:
                    break;
                case Sync::Stream:
                    rt.synchronize_stream(s1);
                    break;
                case Sync::Device:
                    rt.synchronize_device();
                    break;
                case Sync::Event:
                    rt.synchronize_event(done);
                    break;
                case Sync::QueryStream:
                    while (rt.query_stream(s1) != Status::Success) {
                    }
                    break;
                case Sync::QueryEvent:
                    while (rt.query_event(done) != Status::Success) {
                    }
                    break;
                case Sync::FailedQuery:
                    CHECK(rt.query_stream(s1) == Status::NotReady);
                    break;
            }
            read = __LINE__ + 1;
            rt.memcpy(buf.h, buf.x, kBytes);  // device to host on the host thread
            rt.synchronize_device();
        });
        const std::string text = format_findings(checker.findings());
        INFO(text);
        if (sync != Sync::None && sync != Sync::FailedQuery) {
            CHECK(checker.findings().empty());
            continue;
        }
        // The host read x while A, which writes it, was pending.
        REQUIRE(checker.findings().size() == 1);
        const Finding& f = checker.findings().front();
        CHECK(f.kind == FindingKind::RaceRAW);
        CHECK(f.scope == RaceScope::Host);
        REQUIRE(f.sites.size() == 2);
        CHECK(f.sites[0].kernel == "A");
        CHECK(f.sites[0].call_site == site(launch));
        CHECK(f.sites[1].origin == AccessOrigin::HostThread);
        CHECK(f.sites[1].call == "memcpy");
        CHECK(f.sites[1].call_site == site(read));
        CHECK_FALSE(f.sites[1].write);
        CHECK(f.fix ==
              "synchronize stream 1 (synchronize_stream, or synchronize_event on an event "
              "recorded after launch at " +
                  site(launch) + ") before memcpy at " + site(read));
        CHECK_THAT(text, Catch::Contains("between kernel A on stream 1 and memcpy on the host "
                                         "thread"));
        CHECK_THAT(text,
                   Catch::Contains("memcpy Read at x+0x0 on the host thread at " + site(read)));
        CHECK_THAT(text, Catch::Contains("scope: host"));
    }
}

TEST_CASE(
    "checker streams: an async copy races a kernel on another stream unless an event "
    "orders them",
    "[checker][streams]") {
    for (const bool event : {false, true}) {
        INFO("event=" << event);
        Simulator sim(test::small_chip());
        Checker checker(sim.global_memory());
        sim.attach(checker);
        unsigned launch = 0, copy_in = 0, copy_out = 0;
        sim.run_host([&](Runtime& rt) {
            const Buffers buf = make_buffers(rt);
            const Stream s1 = rt.create_stream();
            const Stream s2 = rt.create_stream();
            const Event done = rt.create_event();
            launch = __LINE__ + 1;
            rt.launch(s1, {.name = "A"}, load_kernel(buf.x.as<float>(), buf.y.as<float>()));
            rt.record_event(done, s1);
            if (event) rt.stream_wait_event(s2, done);
            copy_in = __LINE__ + 1;
            rt.memcpy_async(buf.x, buf.h, kBytes, s2);  // overwrites what A loads
            copy_out = __LINE__ + 1;
            rt.memcpy_async(buf.h, buf.y, kBytes, s2);  // reads what A stores
            rt.synchronize_device();
        });
        const std::string text = format_findings(checker.findings());
        INFO(text);
        if (event) {
            CHECK(checker.findings().empty());
            continue;
        }
        REQUIRE(checker.findings().size() == 2);
        bool war = false, raw = false;
        for (const Finding& f : checker.findings()) {
            CHECK(f.scope == RaceScope::InterStream);
            REQUIRE(f.sites.size() == 2);
            CHECK(f.sites[0].kernel == "A");
            CHECK(f.sites[0].call_site == site(launch));
            CHECK(f.sites[1].origin == AccessOrigin::Stream);
            CHECK(f.sites[1].call == "memcpy_async");
            CHECK(f.sites[1].stream == 2);
            if (f.kind == FindingKind::RaceWAR) {  // A loads x, the copy overwrites it
                war = true;
                CHECK(f.sites[0].where.line() == g_load_line);
                CHECK(f.sites[1].call_site == site(copy_in));
                CHECK(f.sites[1].buffer == "x");
            } else if (f.kind == FindingKind::RaceRAW) {  // A stores y, the copy reads it
                raw = true;
                CHECK(f.sites[1].call_site == site(copy_out));
                CHECK(f.sites[1].buffer == "y");
                CHECK(f.fix == "record an event on stream 1 after launch at " + site(launch) +
                                   " and make stream 2 wait for it before memcpy_async at " +
                                   site(copy_out));
            }
        }
        CHECK(war);
        CHECK(raw);
        CHECK_THAT(text,
                   Catch::Contains("memcpy_async Write at x+0x0 on stream 2 at " + site(copy_in)));
        const nlohmann::json json = findings_to_json(checker.findings());
        const nlohmann::json& copy = json[0]["accesses"][1];
        CHECK(copy["origin"] == "stream");
        CHECK(copy["stream"] == 2);
        CHECK_FALSE(copy.contains("block"));
    }
}

TEST_CASE("checker streams: the host reads a buffer a running kernel writes",
          "[checker][streams]") {
    Simulator sim(test::small_chip());
    Checker checker(sim.global_memory());
    sim.attach(checker);
    const RunResult result = sim.run_host([&](Runtime& rt) {
        const Buffers buf = make_buffers(rt);
        const Stream s1 = rt.create_stream();
        rt.launch(s1, {.name = "A"}, store_kernel(buf.x.as<float>(), 1.0F, 10'000));
        const HostBuffer pageable = rt.malloc_host(kBytes, HostMemoryKind::Pageable);
        rt.memcpy(pageable, buf.x, kBytes);  // A still runs: its store lands later
        rt.synchronize_stream(s1);
        rt.memcpy(pageable, buf.x, kBytes);  // ordered
    });
    REQUIRE(result.completed());
    INFO(format_findings(checker.findings()));
    REQUIRE(checker.findings().size() == 1);
    const Finding& f = checker.findings().front();
    CHECK(f.kind == FindingKind::RaceRAW);  // by program order: A's write, then the read
    CHECK(f.scope == RaceScope::Host);
    CHECK(f.count == 1);
}

TEST_CASE("checker streams: memset_async is ordered on its stream and races across streams",
          "[checker][streams]") {
    for (const bool same_stream : {true, false}) {
        INFO("same_stream=" << same_stream);
        Simulator sim(test::small_chip());
        Checker checker(sim.global_memory());
        sim.attach(checker);
        unsigned memset = 0;
        sim.run_host([&](Runtime& rt) {
            const Buffers buf = make_buffers(rt);
            const Stream s1 = rt.create_stream();
            const Stream s2 = rt.create_stream();
            rt.launch(s1, {.name = "A"}, load_kernel(buf.x.as<float>(), buf.y.as<float>()));
            memset = __LINE__ + 1;
            rt.memset_async(buf.x, 0, kBytes, same_stream ? s1 : s2);
            rt.launch(s1, {.name = "B"}, load_kernel(buf.x.as<float>(), buf.z.as<float>()));
            rt.synchronize_device();
        });
        INFO(format_findings(checker.findings()));
        if (same_stream) {
            CHECK(checker.findings().empty());
            continue;
        }
        // A loads x (queued first), the memset on stream 2 overwrites it: a WAR; B loads
        // what the memset writes: a RAW. Both inter-stream.
        REQUIRE(checker.findings().size() == 2);
        for (const Finding& f : checker.findings()) {
            CHECK(f.scope == RaceScope::InterStream);
            const AccessSite& m = f.kind == FindingKind::RaceWAR ? f.sites[1] : f.sites[0];
            CHECK(m.call == "memset_async");
            CHECK(m.origin == AccessOrigin::Stream);
            CHECK(m.call_site == site(memset));
            CHECK(m.write);
        }
    }
}

TEST_CASE("checker streams: a program's work is done for the host after run_host returns",
          "[checker][streams]") {
    Simulator sim(test::small_chip());
    Checker checker(sim.global_memory());
    sim.attach(checker);
    auto x = sim.allocate<float>(N, "x");
    auto y = sim.allocate<float>(N, "y");
    sim.write(x, std::vector<float>(N, 1.0F));
    // The program never synchronizes: run_host still drains its streams before returning.
    sim.run_host([&](Runtime& rt) {
        const Stream s1 = rt.create_stream();
        rt.launch(s1, {.name = "A"}, store_kernel(x, 2.0F));
    });
    sim.run({.name = "after"}, [=](Block& b) { load_kernel(x, y)(b); });
    sim.write(x, std::vector<float>(N, 3.0F));
    // A second program: op ids restart, its first op comes after the first program.
    sim.run_host([&](Runtime& rt) {
        const Stream s1 = rt.create_stream();
        rt.launch(s1, {.name = "A2"}, store_kernel(x, 4.0F));
    });
    sim.run_host([&](Runtime& rt) {
        const Stream s2 = rt.create_stream();
        rt.create_stream();
        rt.launch(s2, {.name = "C"}, load_kernel(x, y));
    });
    INFO(format_findings(checker.findings()));
    CHECK(checker.findings().empty());
}

TEST_CASE("checker streams: the same program gives byte-identical reports", "[checker][streams]") {
    std::string texts[2];
    std::string jsons[2];
    for (int run = 0; run < 2; ++run) {
        Simulator sim(test::small_chip());
        Checker checker(sim.global_memory());
        sim.attach(checker);
        Lines lines;
        a_b_c(sim, false, lines);
        texts[run] = format_findings(checker.findings());
        jsons[run] = findings_to_json(checker.findings()).dump();
    }
    CHECK_FALSE(texts[0].empty());
    CHECK(texts[0] == texts[1]);
    CHECK(jsons[0] == jsons[1]);
}
