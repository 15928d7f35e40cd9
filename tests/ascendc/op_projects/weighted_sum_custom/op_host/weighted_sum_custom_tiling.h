// Tiling data of WeightedSumCustom: the elements per core, the list's length and what the
// weights (read on the host) say.
#ifndef WEIGHTED_SUM_CUSTOM_TILING_H
#define WEIGHTED_SUM_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(WeightedSumCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, count);
TILING_DATA_FIELD_DEF(int64_t, weightSum);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(WeightedSumCustom, WeightedSumCustomTilingData)
}  // namespace optiling
#endif  // WEIGHTED_SUM_CUSTOM_TILING_H
