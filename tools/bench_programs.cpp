#include "tools/bench_programs.h"

#include <memory>
#include <vector>

#include "sim/host/runtime.h"
#include "sim/simulator.h"
#include "sync/check/checker.h"
#include "tools/bench_measure.h"

namespace npusim::bench {

namespace {

using nlohmann::json;

json program_figures(const RunResult& r, std::uint64_t launches, double seconds,
                     const Checker* checker) {
    json j;
    j["launches"] = launches;
    j["checker"] = checker != nullptr;
    j["completed"] = r.completed();
    j["host_seconds"] = seconds;
    j["host_seconds_per_launch"] = seconds / static_cast<double>(launches);
    j["instructions"] = r.instructions;
    j["simulated_cycles"] = r.cycles();
    if (checker != nullptr) {
        j["checker_findings"] = checker->findings().size();
        const CheckerFootprint held = checker->footprint();
        j["checker_agents"] = held.agents;
        j["checker_block_states"] = held.block_states;
        j["checker_live_kernels"] = held.live_kernels;
    }
    j["peak_rss_bytes"] = peak_rss_bytes();
    return j;
}

}  // namespace

json run_long_program(std::uint32_t launches, bool check) {
    Simulator sim(builtin_chip_config("small"));
    std::unique_ptr<Checker> checker;
    if (check) {
        checker = std::make_unique<Checker>(sim.global_memory());
        sim.attach(*checker);
    }
    const auto start = Clock::now();
    const RunResult r = sim.run_host([&](Runtime& rt) {
        const Stream stream = rt.default_stream();
        for (std::uint32_t k = 0; k < launches; ++k) {
            rt.launch(stream, {.name = "busy", .blocks = 4}, [](Block& b) {
                auto scratch = b.alloc<std::int32_t>(MemSpace::UB, 8);
                b.store(scratch, 0, std::int32_t{0});
                (void)b.load(scratch, 0);
            });
        }
        rt.synchronize_device();
    });
    return program_figures(r, launches, seconds_since(start), checker.get());
}

json run_event_streams(std::uint32_t per_stream, bool check) {
    static constexpr std::uint32_t kStreams = 4;
    static constexpr std::uint32_t kBlocks = 4;
    static constexpr std::uint64_t kTile = 256;  // fp32 elements per block
    // The a2 chip with 1 GiB of GM (it uses 80 KiB): its 64 GiB GM window is more host
    // address space than valgrind grants, and instruction counts are this case's measure.
    ChipConfig chip = builtin_chip_config("a2");
    chip.gm_bytes = std::uint64_t{1} << 30;
    Simulator sim(chip);
    std::unique_ptr<Checker> checker;
    if (check) {
        checker = std::make_unique<Checker>(sim.global_memory());
        sim.attach(*checker);
    }
    const std::uint64_t launches = std::uint64_t{kStreams} * per_stream;
    const auto start = Clock::now();
    const RunResult r = sim.run_host([&](Runtime& rt) {
        std::vector<Stream> streams;
        std::vector<Event> done;
        for (std::uint32_t s = 0; s < kStreams; ++s) {
            streams.push_back(rt.create_stream());
            done.push_back(rt.create_event(EventFlags::DisableTiming));
        }
        const DeviceBuffer x = rt.malloc(kBlocks * kTile * 4, "x");
        const DeviceBuffer z = rt.malloc(kStreams * kBlocks * kTile * 4, "z");
        rt.memset(x, 0, x.bytes);
        for (std::uint64_t k = 0; k < launches; ++k) {
            const auto s = static_cast<std::uint32_t>(k % kStreams);
            if (k >= kStreams) rt.stream_wait_event(streams[s], done[(s + 1) % kStreams]);
            const GlobalTensor<float> in = x.as<float>();
            const GlobalTensor<float> out = z.as<float>().sub(s * kBlocks * kTile, kBlocks * kTile);
            rt.launch(streams[s], {.name = "stream_scale", .blocks = kBlocks}, [in, out](Block& b) {
                auto a = b.alloc<float>(MemSpace::UB, kTile);
                auto c = b.alloc<float>(MemSpace::UB, kTile);
                const std::uint64_t base = b.block_idx() * kTile;
                b.copy(a, in.sub(base, kTile), kTile);
                b.set_flag(Pipe::MTE2, Pipe::V, 0);
                b.wait_flag(Pipe::MTE2, Pipe::V, 0);
                b.add(c, a, a, kTile);
                b.set_flag(Pipe::V, Pipe::MTE3, 0);
                b.wait_flag(Pipe::V, Pipe::MTE3, 0);
                b.copy(out.sub(base, kTile), c, kTile);
            });
            rt.record_event(done[s], streams[s]);
        }
        rt.synchronize_device();
    });
    return program_figures(r, launches, seconds_since(start), checker.get());
}

}  // namespace npusim::bench
