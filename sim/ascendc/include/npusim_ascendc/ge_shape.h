// ge::Shape, the graph engine's host-side shape that the advanced APIs' tiling functions take
// (GetReduceMaxMaxMinTmpSize, GetBroadCastMaxMinTmpSize, ...): a list of int64 dimensions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ge {

class Shape {
public:
    Shape() = default;
    explicit Shape(std::vector<std::int64_t> dims) : m_dims(std::move(dims)) {}

    std::size_t GetDimNum() const { return m_dims.size(); }
    /// Dimension `index`; 0 past the last one.
    std::int64_t GetDim(std::size_t index) const {
        return index < m_dims.size() ? m_dims[index] : 0;
    }
    void SetDim(std::size_t index, std::int64_t value) {
        if (index < m_dims.size()) m_dims[index] = value;
    }
    std::vector<std::int64_t> GetDims() const { return m_dims; }
    /// The element count (1 for a scalar shape).
    std::int64_t GetShapeSize() const {
        std::int64_t size = 1;
        for (std::int64_t d : m_dims) size *= d;
        return size;
    }

private:
    std::vector<std::int64_t> m_dims;
};

}  // namespace ge
