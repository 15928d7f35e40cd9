// What npusim-bench measures of a case: host seconds and the process's peak RSS.
#pragma once

#include <chrono>
#include <cstdint>
#include <sys/resource.h>

namespace npusim::bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

/// The peak resident set of this process so far, in bytes.
inline std::uint64_t peak_rss_bytes() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

}  // namespace npusim::bench
