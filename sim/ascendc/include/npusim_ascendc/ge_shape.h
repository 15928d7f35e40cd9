// ge::Shape: the graph engine's tensor shape, as host code passes it to the advanced APIs'
// temp-size and tiling queries (AscendC::GetGeluMaxMinTmpSize(ge::Shape({n}), ...)).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ge {

class Shape {
public:
    Shape() = default;
    explicit Shape(const std::vector<std::int64_t>& dims) : m_dims(dims) {}
    std::size_t GetDimNum() const { return m_dims.size(); }
    /// Dimension `index` (0 past the last).
    std::int64_t GetDim(std::size_t index) const {
        return index < m_dims.size() ? m_dims[index] : 0;
    }
    void SetDim(std::size_t index, std::int64_t value) {
        if (index < m_dims.size()) m_dims[index] = value;
    }
    std::vector<std::int64_t> GetDims() const { return m_dims; }
    /// The element count (0 for a shape without dimensions, as the graph engine answers).
    std::int64_t GetShapeSize() const {
        if (m_dims.empty()) return 0;
        std::int64_t size = 1;
        for (const std::int64_t dim : m_dims) size *= dim;
        return size;
    }

private:
    std::vector<std::int64_t> m_dims;
};

}  // namespace ge
