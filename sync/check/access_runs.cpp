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

}  // namespace npusim::check
