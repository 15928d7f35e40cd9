// Tiling of uneven_tiles_custom: per-block ranges in arrays, at global scope, with the
// trailing `;` everywhere.
#pragma once
#include "kernel_tiling/kernel_tiling.h"

BEGIN_TILING_DATA_DEF(UnevenTilingData)
TILING_DATA_FIELD_DEF_ARR(uint32_t, 8, offsets);
TILING_DATA_FIELD_DEF_ARR(uint32_t, 8, lengths);
TILING_DATA_FIELD_DEF(float, scale);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(UnevenTiles, UnevenTilingData);
