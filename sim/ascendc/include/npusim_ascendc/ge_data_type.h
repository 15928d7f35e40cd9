// The graph engine's element types with their documented numeric values (ge::DataType), the
// one definition both an operator project's host code (npusim_ascendc/op_types.h) and the
// matmul host tiling (tiling/tiling_api.h: matmul_tiling::DataType) use. Kept alone so that
// the tiling header stays light.
#pragma once

namespace ge {

enum DataType {
    DT_FLOAT = 0,
    DT_FLOAT16 = 1,
    DT_INT8 = 2,
    DT_INT32 = 3,
    DT_UINT8 = 4,
    DT_INT16 = 6,
    DT_UINT16 = 7,
    DT_UINT32 = 8,
    DT_INT64 = 9,
    DT_UINT64 = 10,
    DT_DOUBLE = 11,
    DT_BOOL = 12,
    DT_BF16 = 27,
    DT_UNDEFINED = 28,
};

}  // namespace ge
