#include "sim/report/trace_writer.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <source_location>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "base/errors.h"
#include "base/transaction.h"
#include "temp_dir.h"

namespace {

using nlohmann::json;
using npusim::ChromeTraceWriter;
using npusim::CoreType;
using npusim::MemSpace;
using npusim::Op;
using npusim::Pipe;
using npusim::Transaction;

constexpr std::uint64_t kMhz = 1800;
using npusim::test::TempDir;

std::string read_text(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

json read_json(const std::filesystem::path& file) {
    return json::parse(read_text(file));
}

Transaction make_tx(Op op, Pipe pipe, std::uint64_t serial, npusim::Cycle start, npusim::Cycle end,
                    std::source_location where = std::source_location::current()) {
    Transaction tx;
    tx.kernel_id = 0;
    tx.block = 3;
    tx.core = 3;
    tx.core_type = CoreType::Vector;
    tx.pipe = pipe;
    tx.op = op;
    tx.serial = serial;
    tx.where = where;
    tx.issue = start;
    tx.start = start;
    tx.end = end;
    tx.pipe_free = end;
    return tx;
}

Transaction make_copy(std::uint64_t serial, npusim::Cycle start, npusim::Cycle end) {
    Transaction tx = make_tx(Op::Copy, Pipe::MTE2, serial, start, end);
    tx.add_access(MemSpace::GM, false, 0x1000, 8192);
    tx.add_access(MemSpace::UB, true, 0, 8192);
    return tx;
}

Transaction make_flag(Op op, Pipe pipe, std::uint64_t serial, npusim::Cycle at) {
    Transaction tx = make_tx(op, pipe, serial, at, at);
    tx.flag_src = Pipe::MTE2;
    tx.flag_dst = Pipe::V;
    tx.event_id = 0;
    return tx;
}

// The scenario most tests look at: one vector core moving data in, a flag hand-off to the
// vector pipe, a barrier, and one cube instruction on another core.
struct Scenario {
    std::vector<Transaction> txs;
    npusim::KernelInfo kernel{{.id = 0, .name = "add_\"custom\"\\kernel", .blocks = 8},
                              CoreType::Vector};
};

Scenario make_scenario() {
    Scenario s;
    s.txs.push_back(make_copy(1, 1800, 3600));                     // 1.000 .. 2.000 us
    s.txs.push_back(make_flag(Op::SetFlag, Pipe::MTE2, 2, 3600));  // zero duration
    Transaction wait = make_flag(Op::WaitFlag, Pipe::V, 3, 3601);
    wait.partner_serial = 2;
    s.txs.push_back(wait);
    Transaction add = make_tx(Op::Add, Pipe::V, 4, 3700, 3790);
    add.add_access(MemSpace::UB, false, 0, 4096);
    add.add_access(MemSpace::UB, false, 4096, 4096);
    add.add_access(MemSpace::UB, true, 8192, 4096);
    s.txs.push_back(add);
    s.txs.push_back(make_tx(Op::PipeBarrier, Pipe::V, 5, 3790, 3791));
    Transaction mmad = make_tx(Op::Mmad, Pipe::M, 1, 100, 1900);
    mmad.core = 0;
    mmad.block = 0;
    mmad.core_type = CoreType::Cube;
    s.txs.push_back(mmad);
    return s;
}

void write_scenario(const std::filesystem::path& file, const Scenario& s) {
    ChromeTraceWriter writer(file, kMhz);
    writer.on_kernel_start(s.kernel, 0);
    for (const Transaction& tx : s.txs) writer.on_transaction(tx);
    writer.on_kernel_end(s.kernel, 9000);
    writer.finish();
}

std::vector<json> events_with(const json& trace, const std::string& ph) {
    std::vector<json> out;
    for (const json& e : trace.at("traceEvents")) {
        if (e.at("ph") == ph) out.push_back(e);
    }
    return out;
}

// Slices that start (out) or end (in) a flow arrow: flow v2 attributes on the slice.
std::vector<json> flow_slices(const json& trace, bool out) {
    std::vector<json> found;
    for (const json& e : events_with(trace, "X")) {
        if (e.value(out ? "flow_out" : "flow_in", false)) found.push_back(e);
    }
    return found;
}

json slice_named(const json& trace, const std::string& name) {
    for (const json& e : events_with(trace, "X")) {
        if (e.at("name") == name) return e;
    }
    FAIL("no slice named " << name);
    return {};
}

}  // namespace

TEST_CASE("format_trace_time prints microseconds on the nanosecond grid", "[trace]") {
    CHECK(npusim::format_trace_time(1800, 1800) == "1.000");
    CHECK(npusim::format_trace_time(0, 1800) == "0.000");
    CHECK(npusim::format_trace_time(1, 1800) == "0.000");  // 0.556 ns, truncated
    CHECK(npusim::format_trace_time(2, 1800) == "0.001");  // 1.111 ns
    CHECK(npusim::format_trace_time(1, 1000) == "0.001");
    CHECK(npusim::format_trace_time(123'456'789, 1000) == "123456.789");
    CHECK(npusim::format_trace_time(1'800'000'000, 1800) == "1000000.000");
    // Large cycle counts stay exact (no overflow in cycles * 1000).
    CHECK(npusim::format_trace_time(18'000'000'000'000'000'000ull, 1800) ==
          "10000000000000000.000");
    CHECK_THROWS_AS(npusim::format_trace_time(1, 0), npusim::UsageError);
}

TEST_CASE("trace writer reports a file it cannot open", "[trace]") {
    TempDir dir;
    const auto file = dir.file("missing_dir") / "t.json";
    try {
        ChromeTraceWriter writer(file, kMhz);
        FAIL("expected UsageError");
    } catch (const npusim::UsageError& e) {
        CHECK(std::string(e.what()) == file.string() + ": cannot write the trace: no folder " +
                                           dir.file("missing_dir").string());
    }
    CHECK_THROWS_AS(ChromeTraceWriter(dir.file("t.json"), 0), npusim::UsageError);
}

TEST_CASE("trace is valid Chrome trace JSON with processes, lanes and slices", "[trace]") {
    TempDir dir;
    const Scenario s = make_scenario();
    const auto file = dir.file("t.json");
    std::uint64_t events = 0;
    {
        ChromeTraceWriter writer(file, kMhz);
        writer.on_kernel_start(s.kernel, 0);
        for (const Transaction& tx : s.txs) writer.on_transaction(tx);
        writer.on_kernel_end(s.kernel, 9000);
        writer.finish();
        events = writer.events_written();
    }
    const json trace = read_json(file);

    REQUIRE(trace.is_object());
    CHECK(trace.at("displayTimeUnit") == "ns");
    CHECK(trace.at("otherData").at("clock_mhz") == kMhz);
    REQUIRE(trace.at("traceEvents").is_array());
    CHECK(trace.at("traceEvents").size() == events);

    SECTION("process metadata once per core, vector cores sorted before cube cores") {
        std::map<int, std::string> names;
        std::map<int, int> sort_index;
        for (const json& e : events_with(trace, "M")) {
            const int pid = e.at("pid");
            if (e.at("name") == "process_name") {
                CHECK(names.count(pid) == 0);
                names[pid] = e.at("args").at("name");
            } else if (e.at("name") == "process_sort_index") {
                CHECK(sort_index.count(pid) == 0);
                sort_index[pid] = e.at("args").at("sort_index");
            }
        }
        CHECK(names ==
              std::map<int, std::string>{{4, "aiv 3"}, {1001, "aic 0"}, {999999, "kernels"}});
        REQUIRE(sort_index.size() == 3);
        CHECK(sort_index[4] < sort_index[1001]);
    }

    SECTION("thread metadata once per pipe lane, in data-flow order") {
        std::map<std::pair<int, int>, std::string> names;
        std::map<std::pair<int, int>, int> order;
        for (const json& e : events_with(trace, "M")) {
            if (!e.contains("tid")) continue;
            const std::pair<int, int> lane{e.at("pid"), e.at("tid")};
            if (e.at("name") == "thread_name") {
                CHECK(names.count(lane) == 0);
                names[lane] = e.at("args").at("name");
            } else if (e.at("name") == "thread_sort_index") {
                CHECK(order.count(lane) == 0);
                order[lane] = e.at("args").at("sort_index");
            }
        }
        CHECK(names[{4, 5}] == "PIPE_MTE2");  // pipe_t 4 + 1
        CHECK(names[{4, 2}] == "PIPE_V");     // pipe_t 1 + 1
        CHECK(names[{1001, 3}] == "PIPE_M");  // pipe_t 2 + 1
        CHECK(names[{999999, 1}] == "kernels");
        CHECK(names.size() == 4);
        CHECK(order[{4, 5}] < order[{4, 2}]);  // MTE2 above V
    }

    SECTION("one complete slice per transaction with times, names and args") {
        CHECK(events_with(trace, "X").size() == s.txs.size() + 1);  // + the kernel

        const json copy = slice_named(trace, "DataCopy GM->UB");
        CHECK(copy.at("pid") == 4);
        CHECK(copy.at("tid") == 5);
        CHECK(copy.at("ts").get<double>() == Approx(1.0));
        CHECK(copy.at("dur").get<double>() == Approx(1.0));
        CHECK(copy.at("args").at("block") == 3);
        CHECK(copy.at("args").at("serial") == 1);
        CHECK(copy.at("args").at("bytes") == 16384);
        CHECK(copy.at("args").at("loc") == npusim::format_location(s.txs[0].where));

        const json set = slice_named(trace, "SetFlag MTE2_V #0");
        CHECK(set.at("tid") == 5);
        CHECK(set.at("dur").get<double>() == 0.0);
        CHECK_FALSE(set.at("args").contains("bytes"));

        const json wait = slice_named(trace, "WaitFlag MTE2_V #0");
        CHECK(wait.at("tid") == 2);
        CHECK(wait.at("ts").get<double>() == Approx(2.000));  // 3601 cycles = 2000.555 ns

        const json add = slice_named(trace, "Add");
        CHECK(add.at("args").at("bytes") == 12288);
        CHECK(add.at("dur").get<double>() == Approx(0.050));  // 2055..2105 ns

        const json barrier = slice_named(trace, "PipeBarrier V");
        CHECK(barrier.at("tid") == 2);

        const json mmad = slice_named(trace, "Mmad");
        CHECK(mmad.at("pid") == 1001);
        CHECK(mmad.at("tid") == 3);
        CHECK(mmad.at("ts").get<double>() == Approx(0.055));

        const json kernel = slice_named(trace, s.kernel.name);  // escaping round-trips
        CHECK(kernel.at("pid") == 999999);
        CHECK(kernel.at("ts").get<double>() == 0.0);
        CHECK(kernel.at("dur").get<double>() == Approx(5.0));
        CHECK(kernel.at("args").at("blocks") == 8);
    }

    SECTION("times are printed with three fixed decimals") {
        const std::string text = read_text(file);
        CHECK(text.find(R"("ts":1.000,"dur":1.000,"name":"DataCopy GM->UB")") != std::string::npos);
        CHECK(text.find(R"("ts":2.000,"dur":0.000,"name":"SetFlag MTE2_V #0")") !=
              std::string::npos);
    }

    SECTION("a flow arrow goes from the SetFlag to the WaitFlag that consumed it") {
        const auto starts = flow_slices(trace, true);
        const auto ends = flow_slices(trace, false);
        REQUIRE(starts.size() == 1);
        REQUIRE(ends.size() == 1);
        CHECK(starts[0] == slice_named(trace, "SetFlag MTE2_V #0"));
        CHECK(ends[0] == slice_named(trace, "WaitFlag MTE2_V #0"));
        CHECK(starts[0].at("bind_id") == ends[0].at("bind_id"));
        CHECK(starts[0].at("bind_id").is_number_unsigned());
    }
}

TEST_CASE("flow ids identify each SetFlag, also when a later block consumes it", "[trace]") {
    TempDir dir;
    const auto file = dir.file("t.json");
    {
        ChromeTraceWriter writer(file, kMhz);
        // Block 3 sets twice and waits once (consuming serial 2); the second set (serial 4)
        // is left on the core and block 5 consumes it with partner_serial 4. Block 5's own
        // serial 4 is not a SetFlag: the arrow must not point into block 5.
        writer.on_transaction(make_flag(Op::SetFlag, Pipe::MTE2, 2, 100));
        Transaction wait = make_flag(Op::WaitFlag, Pipe::V, 3, 200);
        wait.partner_serial = 2;
        writer.on_transaction(wait);
        writer.on_transaction(make_flag(Op::SetFlag, Pipe::MTE2, 4, 300));
        Transaction late_wait = make_flag(Op::WaitFlag, Pipe::V, 2, 400);
        late_wait.block = 5;
        late_wait.partner_serial = 4;
        writer.on_transaction(late_wait);
    }  // the destructor finishes the file
    const json trace = read_json(file);
    const auto starts = flow_slices(trace, true);
    const auto ends = flow_slices(trace, false);
    REQUIRE(starts.size() == 2);
    REQUIRE(ends.size() == 2);
    CHECK(starts[0].at("bind_id") != starts[1].at("bind_id"));
    CHECK(ends[0].at("bind_id") == starts[0].at("bind_id"));
    CHECK(ends[1].at("bind_id") == starts[1].at("bind_id"));
}

TEST_CASE("overlapping kernels get separate lanes of the kernels process", "[trace]") {
    TempDir dir;
    const auto file = dir.file("t.json");
    {
        ChromeTraceWriter writer(file, kMhz);
        const npusim::KernelInfo a{{.id = 0, .name = "a", .blocks = 1}, CoreType::Vector};
        const npusim::KernelInfo b{{.id = 1, .name = "b", .blocks = 1}, CoreType::Cube};
        const npusim::KernelInfo c{{.id = 2, .name = "c", .blocks = 1}, CoreType::Vector};
        writer.on_kernel_start(a, 0);
        writer.on_kernel_start(b, 100);
        writer.on_kernel_end(a, 1000);
        writer.on_kernel_start(c, 1000);
        writer.on_kernel_end(b, 1500);
        writer.on_kernel_end(c, 2000);
        writer.finish();
    }
    const json trace = read_json(file);
    CHECK(slice_named(trace, "a").at("tid") == 1);
    CHECK(slice_named(trace, "b").at("tid") == 2);
    CHECK(slice_named(trace, "c").at("tid") == 1);  // starts when a ended
}

TEST_CASE("identical input gives a byte-identical trace", "[trace]") {
    TempDir dir;
    const Scenario s = make_scenario();
    write_scenario(dir.file("one.json"), s);
    write_scenario(dir.file("two.json"), s);
    const std::string one = read_text(dir.file("one.json"));
    CHECK_FALSE(one.empty());
    CHECK(one == read_text(dir.file("two.json")));
}

TEST_CASE("finish is idempotent and later events are ignored", "[trace]") {
    TempDir dir;
    const auto file = dir.file("t.json");
    ChromeTraceWriter writer(file, kMhz);
    writer.on_transaction(make_copy(1, 0, 10));
    writer.finish();
    const std::uint64_t events = writer.events_written();
    const std::string text = read_text(file);
    writer.on_transaction(make_copy(2, 10, 20));
    writer.finish();
    CHECK(writer.events_written() == events);
    CHECK(read_text(file) == text);
    CHECK_NOTHROW(json::parse(text));
}

TEST_CASE("an empty trace is still valid JSON", "[trace]") {
    TempDir dir;
    const auto file = dir.file("t.json");
    { ChromeTraceWriter writer(file, kMhz); }
    const json trace = read_json(file);
    CHECK(trace.at("traceEvents").empty());
}

TEST_CASE("a long trace stays compact and parses across buffer flushes", "[trace]") {
    TempDir dir;
    const auto small = dir.file("small.json");
    const auto large = dir.file("large.json");
    constexpr int kSlices = 20000;  // several MiB buffer flushes' worth
    // A typical slice late in a long run: big serial, timestamps in the tens of ms.
    const auto typical = [](int i) {
        Transaction tx = make_copy(500'000 + static_cast<std::uint64_t>(i), 0, 0);
        tx.start = 90'000'000 + static_cast<npusim::Cycle>(i) * 4000;
        tx.end = tx.start + 3333;
        tx.pipe_free = tx.end;
        tx.block = 17;
        return tx;
    };
    {
        ChromeTraceWriter writer(small, kMhz);
        writer.on_transaction(typical(0));
    }
    {
        ChromeTraceWriter writer(large, kMhz);
        for (int i = 0; i < kSlices; ++i) writer.on_transaction(typical(i));
    }
    const auto extra = std::filesystem::file_size(large) - std::filesystem::file_size(small);
    const double bytes_per_slice = static_cast<double>(extra) / (kSlices - 1);
    INFO("bytes per slice: " << bytes_per_slice);
    CHECK(bytes_per_slice < 170.0);

    const json trace = read_json(large);
    CHECK(events_with(trace, "X").size() == static_cast<std::size_t>(kSlices));
    CHECK(events_with(trace, "M").size() == 4);  // one process, one lane
}
