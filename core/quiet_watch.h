// Whether the whole chip is stuck while a block polls GM (a soft SyncAll, a flag in GM, a
// kernel's own scalar poll loop): progress is any instruction that is not a synchronization
// primitive's own traffic or a poll that saw nothing new (ChipResources::progress_epoch).
#pragma once

#include <cstdint>

#include "core/chip_resources.h"

namespace npusim {

/// Tracks whether the whole chip is stuck while this block polls: progress is any instruction
/// that is not a synchronization primitive's own traffic (ChipResources::progress_epoch).
class QuietWatch final {
public:
    QuietWatch(ChipResources& chip, Cycle now)
        : m_chip(chip), m_seen_epoch(chip.progress_epoch), m_quiet_since(now) {}
    ~QuietWatch() { leave(); }
    QuietWatch(const QuietWatch&) = delete;
    QuietWatch& operator=(const QuietWatch&) = delete;

    /// After one poll at `now`: true when the chip can make no more progress.
    bool stuck_after_poll(Cycle now) { return stuck_after_poll(now, m_chip.busy_cores, 1); }
    /// The same for a flag in GM: `busy` is the cores busy when the poll read (a core that
    /// finished after it may have set the flag), and every busy core must have looked stuck on
    /// `confirmations` polls in a row (a waiter that just saw its flag may still count as a
    /// quiet spinner at the moment of this poll).
    bool stuck_after_poll(Cycle now, std::uint32_t busy, int confirmations) {
        if (m_chip.progress_epoch != m_seen_epoch) {
            m_seen_epoch = m_chip.progress_epoch;
            m_quiet_since = now;
            m_quiet_polls = 0;
            leave();
        } else if (++m_quiet_polls >= 2 && !m_counted) {
            ++m_chip.quiet_spinners;
            m_counted = true;
        }
        const bool everyone_stuck =
            m_counted && m_chip.quiet_spinners + m_chip.blocked_cores >= busy;
        m_stuck_polls = everyone_stuck ? m_stuck_polls + 1 : 0;
        if (!everyone_stuck && now - m_quiet_since > m_chip.idle_limit) {
            m_chip.idle_limit_hit = true;
        }
        if (m_stuck_polls >= confirmations || now - m_quiet_since > m_chip.idle_limit) {
            m_chip.deadlock = true;
        }
        return m_chip.deadlock;
    }
    void leave() {
        if (m_counted) --m_chip.quiet_spinners;
        m_counted = false;
    }

private:
    ChipResources& m_chip;
    std::uint64_t m_seen_epoch;
    Cycle m_quiet_since;
    int m_quiet_polls = 0;
    int m_stuck_polls = 0;
    bool m_counted = false;
};

}  // namespace npusim
