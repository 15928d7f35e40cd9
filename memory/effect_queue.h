// Data effects in simulated-time order.
//
// Instructions are timed when the scalar unit issues them, but their data must move at
// their simulated times so that an unsynchronized program reads stale data as hardware
// would. Each instruction schedules its effects here (read its sources at `start`, write
// its results at `end`); the queue applies them in (time, issue sequence) order once no
// core can still schedule an earlier effect.
//
// Layout: a calendar queue. Effects within kSlots cycles of the last horizon sit in a ring
// of per-cycle FIFO lists (scheduling order is sequence order, so a list needs no sorting);
// effects further ahead wait in a (time, sequence) heap and move into the ring as it comes
// within reach. With many cores the queue holds thousands of effects; a single binary heap
// then costs O(log n) cache-missing sift steps per effect, the ring O(1).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "base/types.h"

namespace npusim {

/// Something with deferred data movement. apply() runs exactly once per scheduled phase.
class DeferredEffect {
public:
    virtual void apply(std::uint32_t phase) = 0;

protected:
    ~DeferredEffect() = default;
};

class EffectQueue final {
public:
    EffectQueue();

    void schedule(Cycle time, DeferredEffect* effect, std::uint32_t phase);
    /// Applies every effect with time < `horizon` (strictly: effects at the horizon may still
    /// be joined by same-time effects from cores that have not run yet).
    void apply_before(Cycle horizon);
    void apply_all();
    std::size_t pending() const { return m_pending; }

private:
    static constexpr std::size_t kSlots = 4096;  // ring span in cycles; a multiple of 64
    static constexpr std::uint32_t kNone = 0xffffffffU;

    struct Node {
        DeferredEffect* effect;
        std::uint32_t phase;
        std::uint32_t next;
    };
    struct Slot {
        std::uint32_t head = kNone;
        std::uint32_t tail = kNone;
    };
    struct Entry {
        Cycle time;
        std::uint64_t sequence;
        DeferredEffect* effect;
        std::uint32_t phase;
    };
    struct Later {
        bool operator()(const Entry& a, const Entry& b) const {
            return a.time != b.time ? a.time > b.time : a.sequence > b.sequence;
        }
    };

    void push_ring(Cycle time, DeferredEffect* effect, std::uint32_t phase);
    /// Moves the ring's start to `base` (no ring effect may be before it) and pulls far
    /// effects that come within reach into the ring.
    void advance_to(Cycle base);
    /// The first cycle in [from, to) with ring effects (to - from <= kSlots).
    bool find_occupied(Cycle from, Cycle to, Cycle& found) const;
    void apply_slot(Cycle time);
    void apply_late(Cycle horizon);

    Cycle m_base = 0;  // the ring holds times [m_base, m_base + kSlots)
    std::vector<Slot> m_slots;
    std::array<std::uint64_t, kSlots / 64> m_occupied{};
    std::vector<Node> m_nodes;
    std::uint32_t m_free = kNone;
    std::size_t m_in_ring = 0;
    std::vector<Entry> m_far;   // heap: time >= m_base + kSlots
    std::vector<Entry> m_late;  // heap: time < m_base (scheduled behind a horizon)
    std::uint64_t m_next_sequence = 0;
    std::size_t m_pending = 0;
};

}  // namespace npusim
