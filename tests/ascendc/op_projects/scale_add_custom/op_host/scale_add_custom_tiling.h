// Tiling data of ScaleAddCustom: the two scalars (alpha * weights), the ReLU flag and each
// core's share and tile.
#ifndef SCALE_ADD_CUSTOM_TILING_H
#define SCALE_ADD_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ScaleAddCustomTilingData)
TILING_DATA_FIELD_DEF(float, xScale);
TILING_DATA_FIELD_DEF(float, yScale);
TILING_DATA_FIELD_DEF(uint32_t, relu);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ScaleAddCustom, ScaleAddCustomTilingData)
}  // namespace optiling
#endif
