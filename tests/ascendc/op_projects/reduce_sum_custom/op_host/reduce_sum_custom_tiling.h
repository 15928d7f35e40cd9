// Tiling data of ReduceSumCustom: the element count and each core's share.
#pragma once
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ReduceSumCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength)
TILING_DATA_FIELD_DEF(uint32_t, blockLength)
END_TILING_DATA_DEF

REGISTER_TILING_DATA_CLASS(ReduceSumCustom, ReduceSumCustomTilingData);
}  // namespace optiling
