// Host-side tiling declaration of tiling_add_custom, as op projects write it: inside
// namespace optiling, fields ending in `;`, END_TILING_DATA_DEF with a `;` and
// REGISTER_TILING_DATA_CLASS without one.
#pragma once
#include "kernel_tiling/kernel_tiling.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TileShape)
TILING_DATA_FIELD_DEF(uint32_t, tileNum);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

BEGIN_TILING_DATA_DEF(AddTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF_STRUCT(TileShape, shape);
TILING_DATA_FIELD_DEF_ARR(float, 2, coefficients);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(TilingAddCustom, AddTilingData)
}  // namespace optiling
