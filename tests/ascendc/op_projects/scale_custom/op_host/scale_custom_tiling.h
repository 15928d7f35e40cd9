// Tiling data of ScaleCustom: the scalar and, in a nested struct, each core's share and tile.
#ifndef SCALE_CUSTOM_TILING_H
#define SCALE_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ScaleShape)
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ScaleShapeOp, ScaleShape)

BEGIN_TILING_DATA_DEF(ScaleCustomTilingData)
TILING_DATA_FIELD_DEF(float, alpha);
TILING_DATA_FIELD_DEF_ARR(uint32_t, 2, reserved);
TILING_DATA_FIELD_DEF_STRUCT(ScaleShape, shape);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ScaleCustom, ScaleCustomTilingData)
}  // namespace optiling
#endif
