// Tiling data of VaddCustom: the element count and the tiles per core.
#ifndef VADD_CUSTOM_TILING_H
#define VADD_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(VaddCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileNum);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(VaddCustom, VaddCustomTilingData)
}  // namespace optiling
#endif  // VADD_CUSTOM_TILING_H
