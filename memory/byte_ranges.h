// A set of byte ranges [lo, hi), kept merged: what a caller has recorded as written.
//
// The simulator keeps the GM bytes the host wrote with this, so an observer attached later
// (a checker) learns which bytes were already defined. Cost grows with the number of
// disjoint ranges, not with their bytes.
#pragma once

#include <cstdint>
#include <map>

namespace npusim {

class ByteRanges final {
public:
    /// Adds [lo, hi), merging with the ranges it overlaps or touches. Empty ranges are ignored.
    void add(std::uint64_t lo, std::uint64_t hi);
    /// Removes [lo, hi), splitting a range that straddles either end.
    void remove(std::uint64_t lo, std::uint64_t hi);
    /// Calls fn(lo, hi) for each recorded range inside [lo, hi) (clipped), in address order.
    template <class Fn>
    void for_each(std::uint64_t lo, std::uint64_t hi, Fn&& fn) const {
        auto it = m_ranges.upper_bound(lo);
        if (it != m_ranges.begin()) --it;
        for (; it != m_ranges.end() && it->first < hi; ++it) {
            const std::uint64_t a = it->first > lo ? it->first : lo;
            const std::uint64_t b = it->second < hi ? it->second : hi;
            if (a < b) fn(a, b);
        }
    }
    std::size_t size() const { return m_ranges.size(); }
    bool empty() const { return m_ranges.empty(); }

private:
    std::map<std::uint64_t, std::uint64_t> m_ranges;  // lo -> hi, disjoint, not touching
};

}  // namespace npusim
