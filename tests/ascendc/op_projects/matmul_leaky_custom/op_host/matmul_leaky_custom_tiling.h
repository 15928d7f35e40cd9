// The tiling data of MatmulLeakyCustom: the Matmul API's TCubeTiling as a nested struct, as
// operator projects carry it, and LeakyReLU's slope.
#pragma once
#include "register/tilingdata_base.h"
#include "tiling/tiling_api.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MatmulLeakyCustomTilingData)
TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, cubeTilingData);
TILING_DATA_FIELD_DEF(float, alpha);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(MatmulLeakyCustom, MatmulLeakyCustomTilingData)
}  // namespace optiling
