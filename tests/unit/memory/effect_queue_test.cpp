// The effect queue applies effects in (time, issue sequence) order: the calendar ring with
// its far and late heaps must match a single binary heap exactly, whatever the spread of
// times and the horizons asked for.
#include "memory/effect_queue.h"

#include <algorithm>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

using namespace npusim;

namespace {

/// The reference: one (time, sequence) heap, as the queue was first written.
struct ReferenceQueue {
    struct Entry {
        Cycle time;
        std::uint64_t sequence;
        int id;
    };
    static bool later(const Entry& a, const Entry& b) {
        return a.time != b.time ? a.time > b.time : a.sequence > b.sequence;
    }
    void schedule(Cycle time, int id) {
        heap.push_back({time, next_sequence++, id});
        std::push_heap(heap.begin(), heap.end(), later);
    }
    void apply_before(Cycle horizon, std::vector<int>& out) {
        while (!heap.empty() && heap.front().time < horizon) {
            std::pop_heap(heap.begin(), heap.end(), later);
            out.push_back(heap.back().id);
            heap.pop_back();
        }
    }
    std::vector<Entry> heap;
    std::uint64_t next_sequence = 0;
};

struct Recorder final : DeferredEffect {
    std::vector<int>* out = nullptr;
    int id = 0;
    void apply(std::uint32_t phase) override { out->push_back(id * 2 + static_cast<int>(phase)); }
};

}  // namespace

TEST_CASE("effect queue: same order as a single (time, sequence) heap", "[unit][effects]") {
    std::mt19937_64 rng(20240601);
    const std::vector<Cycle> spreads{1, 10, 300, 3000, 5000, 20000, 1000000};
    for (int trial = 0; trial < 300; ++trial) {
        EffectQueue queue;
        ReferenceQueue reference;
        std::vector<int> got, want;
        std::vector<Recorder> effects(3000);
        int next = 0;
        Cycle now = rng() % 3 != 0 ? 0 : rng() % 100000;
        const Cycle spread = spreads[rng() % spreads.size()];
        for (int step = 0; step < 150 && next + 20 < static_cast<int>(effects.size()); ++step) {
            const int count = static_cast<int>(rng() % 20);
            for (int i = 0; i < count; ++i) {
                Cycle time = now + rng() % spread;
                if (rng() % 7 == 0) time = now;
                if (rng() % 50 == 0 && now > 0) time = now - 1 - rng() % std::min<Cycle>(now, 50);
                const auto phase = static_cast<std::uint32_t>(rng() % 2);
                effects[next].out = &got;
                effects[next].id = next;
                queue.schedule(time, &effects[next], phase);
                reference.schedule(time, next * 2 + static_cast<int>(phase));
                ++next;
            }
            Cycle horizon = now + (rng() % 4 == 0 ? 0 : rng() % (spread / 2 + 2));
            if (rng() % 20 == 0) horizon = now + rng() % 50000;
            if (rng() % 30 == 0 && now > 5) horizon = now - rng() % 5;  // behind a horizon
            queue.apply_before(horizon);
            reference.apply_before(horizon, want);
            REQUIRE(got == want);
            REQUIRE(queue.pending() == reference.heap.size());
            now = std::max(now, horizon);
        }
        queue.apply_all();
        reference.apply_before(~Cycle{0}, want);
        REQUIRE(got == want);
        REQUIRE(queue.pending() == 0);
    }
}
