#include "sync/check/scalar_gm_sync.h"

#include <algorithm>

namespace npusim::check {

void ScalarGmSync::store(const GmBlockKey& by, const Site& site, std::uint64_t address,
                         std::uint64_t bytes, const VectorClock* release) {
    std::vector<Record>& records = m_stores[address];
    if (records.size() >= kPerAddress) records.erase(records.begin());
    Record r;
    r.writer = by;
    r.bytes = bytes;
    r.agent = site.agent;
    r.epoch = site.epoch;
    r.lands = site.time;
    r.publishes = release != nullptr;
    if (release != nullptr) r.release = *release;
    // Landing order: a store lands no earlier than the block's previous one.
    auto at = std::upper_bound(records.begin(), records.end(), r.lands,
                               [](Cycle t, const Record& x) { return t < x.lands; });
    records.insert(at, std::move(r));
}

void ScalarGmSync::clean(const GmBlockKey& by, std::uint64_t address, std::uint64_t bytes) {
    if (bytes == 0) {
        for (auto& [at, records] : m_stores)
            for (Record& r : records)
                if (r.writer == by) r.visible = true;
        return;
    }
    const auto last = m_stores.lower_bound(address + bytes);
    for (auto it = m_stores.lower_bound(address); it != last; ++it)
        for (Record& r : it->second)
            if (r.writer == by && it->first + r.bytes <= address + bytes) r.visible = true;
}

void ScalarGmSync::overwrite(std::uint64_t lo, std::uint64_t hi) {
    // A store starts at most 8 bytes before `lo` and still overlaps it.
    auto first = m_stores.lower_bound(lo >= 8 ? lo - 8 : 0);
    while (first != m_stores.end() && first->first < hi) {
        const bool overlaps =
            std::any_of(first->second.begin(), first->second.end(),
                        [&](const Record& r) { return first->first + r.bytes > lo; });
        first = overlaps ? m_stores.erase(first) : std::next(first);
    }
}

std::optional<ScalarGmSync::Observed> ScalarGmSync::load(const GmBlockKey& by,
                                                         std::uint64_t address, std::uint64_t bytes,
                                                         Cycle read_at) {
    const auto it = m_stores.find(address);
    if (it == m_stores.end()) return std::nullopt;
    // The store the load read: the latest one landed before it read (effects before a cycle
    // are in GM when a load of that cycle reads).
    Record* read = nullptr;
    for (Record& r : it->second)
        if (r.lands < read_at) read = &r;
    if (read == nullptr || read->bytes != bytes || read->writer == by) return std::nullopt;
    if (!read->visible || !read->publishes) return std::nullopt;
    if (std::find(read->seen_by.begin(), read->seen_by.end(), by) == read->seen_by.end())
        read->seen_by.push_back(by);
    return Observed{&read->release, read->agent, read->epoch, read->writer};
}

bool ScalarGmSync::raise_seen(const GmBlockKey& by, std::uint64_t address,
                              VectorClock& clock) const {
    const auto it = m_stores.find(address);
    if (it == m_stores.end()) return false;
    bool any = false;
    for (const Record& r : it->second) {
        if (std::find(r.seen_by.begin(), r.seen_by.end(), by) == r.seen_by.end()) continue;
        clock.raise(r.agent, r.epoch);
        any = true;
    }
    return any;
}

void ScalarGmSync::forget_kernel(std::uint32_t kernel_id) {
    for (auto it = m_stores.begin(); it != m_stores.end();) {
        std::erase_if(it->second, [&](const Record& r) { return r.writer.kernel_id == kernel_id; });
        it = it->second.empty() ? m_stores.erase(it) : std::next(it);
    }
}

}  // namespace npusim::check
