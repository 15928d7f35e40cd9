// TCubeTiling: the tiling of one matmul as the host fills it (matmul_tiling::MatmulApiTiling,
// tiling/tiling_api.h) and the kernel's Matmul object reads it (Matmul::Init). The fields the
// vendor's struct has and npusim's Matmul reads or the host fills; all int32_t as there.
#pragma once

#include <cstdint>

struct TCubeTiling {
    std::int32_t usedCoreNum = 0;
    std::int32_t M = 0;  // the whole problem: A is M x Ka, B is Kb x N
    std::int32_t N = 0;
    std::int32_t Ka = 0;
    std::int32_t Kb = 0;
    std::int32_t singleCoreM = 0;  // one core's share
    std::int32_t singleCoreN = 0;
    std::int32_t singleCoreK = 0;
    std::int32_t baseM = 0;  // one Mmad (L0 tiles)
    std::int32_t baseN = 0;
    std::int32_t baseK = 0;
    std::int32_t depthA1 = 1;  // L1 buffers of A / B tiles
    std::int32_t depthB1 = 1;
    std::int32_t stepM = 1;
    std::int32_t stepN = 1;
    std::int32_t isBias = 0;
    std::int32_t transLength = 0;
    std::int32_t iterateOrder = 0;  // 0: along M first, 1: along N first
    std::int32_t shareMode = 0;
    std::int32_t shareL1Size = 0;
    std::int32_t shareL0CSize = 0;
    std::int32_t shareUbSize = 0;
    std::int32_t batchM = 0;
    std::int32_t batchN = 0;
    std::int32_t singleBatchM = 0;
    std::int32_t singleBatchN = 0;
    std::int32_t stepKa = 1;
    std::int32_t stepKb = 1;
    std::int32_t depthAL1CacheUB = 0;
    std::int32_t depthBL1CacheUB = 0;
    std::int32_t dbL0A = 2;  // L0A / L0B / L0C buffers (2: double buffering)
    std::int32_t dbL0B = 2;
    std::int32_t dbL0C = 1;
};

/// The same struct under the names the vendor's newer samples and operator projects use:
/// AscendC::tiling::TCubeTiling (a kernel parameter of the single-source samples) and
/// optiling::TCubeTiling (TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, ...) in op_host headers).
namespace AscendC::tiling {
using ::TCubeTiling;
}  // namespace AscendC::tiling
namespace optiling {
using ::TCubeTiling;
}  // namespace optiling
