#include "sync/check/access_runs.h"

namespace npusim::check {

std::uint32_t RunPool::make(const Site& site, std::uint64_t lo, std::uint64_t bytes) {
    std::uint32_t id;
    if (!m_free.empty()) {
        id = m_free.back();
        m_free.pop_back();
    } else {
        id = static_cast<std::uint32_t>(m_runs.size());
        m_runs.emplace_back();
    }
    Run& r = m_runs[id];
    r = Run{};
    r.first = site;
    r.origin = lo;
    r.size = bytes;
    r.last_time = site.time;
    return id;
}

bool RunPool::extend(std::uint32_t left, std::uint32_t right) {
    Run& a = m_runs[left];
    const Run& b = m_runs[right];
    // Same agent is not enough: successive blocks on a core may share agents
    // (sync/check/agents.h), and a run names one block.
    if (b.pieces != 1 || a.first.agent != b.first.agent || a.first.block != b.first.block ||
        a.first.core_type != b.first.core_type || a.size != b.size ||
        a.origin + a.pieces * a.size != b.origin || b.first.epoch <= a.first.epoch ||
        b.first.serial < a.first.serial || a.first.kernel_id != b.first.kernel_id ||
        a.first.launch != b.first.launch || a.first.atomic != b.first.atomic ||
        !same_location(a.first.where, b.first.where))
        return false;
    if (a.pieces == 1) {
        a.epoch_step = b.first.epoch - a.first.epoch;
        a.serial_step = b.first.serial - a.first.serial;
    } else if (b.first.epoch != a.first.epoch + a.pieces * a.epoch_step ||
               b.first.serial != a.first.serial + a.pieces * a.serial_step) {
        return false;
    }
    ++a.pieces;
    a.last_time = b.first.time;
    return true;
}

}  // namespace npusim::check
