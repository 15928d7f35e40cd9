// Data effects in simulated-time order.
//
// Instructions are timed when the scalar unit issues them, but their data must move at
// their simulated times so that an unsynchronized program reads stale data as hardware
// would. Each instruction schedules its effects here (read its sources at `start`, write
// its results at `end`); the queue applies them in (time, issue sequence) order once no
// core can still schedule an earlier effect.
#pragma once

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
    void schedule(Cycle time, DeferredEffect* effect, std::uint32_t phase);
    /// Applies every effect with time < `horizon` (strictly: effects at the horizon may still
    /// be joined by same-time effects from cores that have not run yet).
    void apply_before(Cycle horizon);
    void apply_all();
    std::size_t pending() const { return m_heap.size(); }

private:
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
    std::vector<Entry> m_heap;
    std::uint64_t m_next_sequence = 0;
};

}  // namespace npusim
