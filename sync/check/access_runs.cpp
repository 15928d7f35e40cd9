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
        m_refs.push_back(0);
    }
    remake(id, site, lo, bytes);
    return id;
}

void RunPool::remake(std::uint32_t id, const Site& site, std::uint64_t lo, std::uint64_t bytes) {
    Run& r = m_runs[id];
    r.first = site;
    r.origin = lo;
    r.size = bytes;
    r.pieces = 1;
    r.epoch_step = 0;
    r.serial_step = 0;
    r.last_time = site.time;
}

bool RunPool::extend(std::uint32_t left, const Site& b, std::uint64_t lo, std::uint64_t bytes,
                     std::uint32_t pieces) {
    Run& a = m_runs[left];
    // Same agent is not enough: successive blocks on a core may share agents
    // (sync/check/agents.h), and a run names one block. The source line first: neighbouring
    // buffers written by one pipe from different lines are the common refusal.
    if (pieces != 1 || !same_location(a.first.where, b.where) || a.first.agent != b.agent ||
        a.first.block != b.block || a.first.core_type != b.core_type || a.size != bytes ||
        a.origin + a.pieces * a.size != lo || b.epoch <= a.first.epoch ||
        b.serial < a.first.serial || a.first.kernel_id != b.kernel_id ||
        a.first.launch != b.launch || a.first.atomic != b.atomic)
        return false;
    if (a.pieces == 1) {
        a.epoch_step = b.epoch - a.first.epoch;
        a.serial_step = b.serial - a.first.serial;
    } else if (b.epoch != a.first.epoch + a.pieces * a.epoch_step ||
               b.serial != a.first.serial + a.pieces * a.serial_step) {
        return false;
    }
    ++a.pieces;
    a.last_time = b.time;
    return true;
}

}  // namespace npusim::check
