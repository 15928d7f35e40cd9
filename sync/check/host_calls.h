// The host calls of a runtime program (Simulator::run_host) that make device work or touch GM:
// kernel launches, asynchronous copies and memsets on a stream, synchronous accesses of the
// host thread. A Site names its call by id (Site::launch), so that a report can say which
// launches race and how to order them (an event, a synchronize) without the Site growing.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sync/check/findings.h"

namespace npusim::check {

struct HostCall {
    AccessOrigin origin = AccessOrigin::Kernel;  // Kernel: a kernel launch
    /// Host program order, for reports (RaceOrder::Program): 2 x the op id of a stream
    /// operation, 2 x (the last op queued) + 1 for a host-thread access made after it.
    std::uint64_t order = 0;
    std::uint32_t stream = 0;
    std::string stream_name;
    std::string call;   // "launch", "memcpy_async", "memcpy", "launch_graph", ...
    std::string where;  // its call site
    std::string kernel;
};

/// Contract: ids start at 1 (0 is "no host call"); equal (origin, stream, call, where, kernel)
/// get the same id and keep the first one's order, so a loop that launches one kernel at one
/// line costs one entry however many times it runs.
class HostCalls final {
public:
    std::uint32_t intern(HostCall call) {
        auto key = std::tuple(call.origin, call.stream, call.call, call.where, call.kernel);
        const auto it = m_ids.find(key);
        if (it != m_ids.end()) return remember(it->second);
        m_calls.push_back(std::move(call));
        const auto id = static_cast<std::uint32_t>(m_calls.size());
        m_ids.emplace(std::move(key), id);
        return remember(id);
    }
    /// The id of an equal call interned lately (a loop's launches repeat a few calls), 0 if
    /// none: found without building a HostCall or a key.
    std::uint32_t recent(AccessOrigin origin, std::uint32_t stream, const std::string& call,
                         const std::string& where, const std::string& kernel) const {
        for (const std::uint32_t id : m_recent) {
            if (id == 0) continue;
            const HostCall& c = m_calls[id - 1];
            if (c.origin == origin && c.stream == stream && c.where == where && c.call == call &&
                c.kernel == kernel)
                return id;
        }
        return 0;
    }
    const HostCall& operator[](std::uint32_t id) const { return m_calls[id - 1]; }

private:
    std::uint32_t remember(std::uint32_t id) {
        if (std::find(m_recent.begin(), m_recent.end(), id) == m_recent.end()) {
            m_recent[m_next_recent] = id;
            m_next_recent = (m_next_recent + 1) % m_recent.size();
        }
        return id;
    }
    std::array<std::uint32_t, 8> m_recent{};  // ids interned lately (0: none)
    std::size_t m_next_recent = 0;
    std::vector<HostCall> m_calls;
    std::map<std::tuple<AccessOrigin, std::uint32_t, std::string, std::string, std::string>,
             std::uint32_t>
        m_ids;
};

}  // namespace npusim::check
