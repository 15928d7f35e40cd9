// TCubeTiling: the tiling of one matmul as the host fills it (matmul_tiling::MatmulApiTiling,
// tiling/tiling_api.h) and the kernel's Matmul object reads it (Matmul::Init). The fields the
// vendor's struct has and npusim's Matmul reads or the host fills; all int32_t as there. A
// field the vendor's struct has beyond these is a compile error ("no member named ...").
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

// The fields, in the struct's order, with their defaults (written once: the members and the
// host's set_<field>/get_<field> accessors come from this list).
#define NPUSIM_TCUBE_TILING_FIELDS(X)                               \
    X(usedCoreNum, 0)                                               \
    X(M, 0) /* the whole problem: A is M x Ka, B is Kb x N */       \
    X(N, 0)                                                         \
    X(Ka, 0)                                                        \
    X(Kb, 0)                                                        \
    X(singleCoreM, 0) /* one core's share */                        \
    X(singleCoreN, 0)                                               \
    X(singleCoreK, 0)                                               \
    X(baseM, 0) /* one Mmad (L0 tiles) */                           \
    X(baseN, 0)                                                     \
    X(baseK, 0)                                                     \
    X(depthA1, 1) /* L1 buffers of A / B tiles */                   \
    X(depthB1, 1)                                                   \
    X(stepM, 1)                                                     \
    X(stepN, 1)                                                     \
    X(isBias, 0)                                                    \
    X(transLength, 0)                                               \
    X(iterateOrder, 0) /* 0: along M first, 1: along N first */     \
    X(shareMode, 0)                                                 \
    X(shareL1Size, 0)                                               \
    X(shareL0CSize, 0)                                              \
    X(shareUbSize, 0)                                               \
    X(batchM, 0)                                                    \
    X(batchN, 0)                                                    \
    X(singleBatchM, 0)                                              \
    X(singleBatchN, 0)                                              \
    X(stepKa, 1)                                                    \
    X(stepKb, 1)                                                    \
    X(depthAL1CacheUB, 0)                                           \
    X(depthBL1CacheUB, 0)                                           \
    X(dbL0A, 2) /* L0A / L0B / L0C buffers (2: double buffering) */ \
    X(dbL0B, 2)                                                     \
    X(dbL0C, 1)                                                     \
    X(ALayoutInfoB, 0) /* batch layouts: A's B, S, N, G, D axes */  \
    X(ALayoutInfoS, 0)                                              \
    X(ALayoutInfoN, 0)                                              \
    X(ALayoutInfoG, 0)                                              \
    X(ALayoutInfoD, 0)                                              \
    X(BLayoutInfoB, 0)                                              \
    X(BLayoutInfoS, 0)                                              \
    X(BLayoutInfoN, 0)                                              \
    X(BLayoutInfoG, 0)                                              \
    X(BLayoutInfoD, 0)                                              \
    X(CLayoutInfoB, 0) /* C's B, S1, N, G, S2 axes */               \
    X(CLayoutInfoS1, 0)                                             \
    X(CLayoutInfoN, 0)                                              \
    X(CLayoutInfoG, 0)                                              \
    X(CLayoutInfoS2, 0)                                             \
    X(BatchNum, 0) /* the most batches one IterateBatch takes */

#define NPUSIM_TCUBE_TILING_MEMBER(field, init) std::int32_t field = init;
#define NPUSIM_TCUBE_TILING_ACCESSORS(field, init) \
    void set_##field(std::int32_t value) {         \
        field = value;                             \
    }                                              \
    std::int32_t get_##field() const {             \
        return field;                              \
    }

/// Its bytes are the members alone (the accessors, SaveToBuffer and GetDataSize are what the
/// host's tiling-data struct of the same name offers: an op_host tiling function sets fields
/// of `tiling.cubeTilingData` after GetTiling, e.g. set_stepM, and reads get_usedCoreNum).
struct TCubeTiling {
    NPUSIM_TCUBE_TILING_FIELDS(NPUSIM_TCUBE_TILING_MEMBER)
    NPUSIM_TCUBE_TILING_FIELDS(NPUSIM_TCUBE_TILING_ACCESSORS)
    void SaveToBuffer(void* buffer, std::size_t capacity) const {
        if (buffer == nullptr || capacity < sizeof(TCubeTiling)) {
            throw std::length_error(
                "tiling data TCubeTiling (" + std::to_string(sizeof(TCubeTiling)) +
                " bytes) does not fit the tiling buffer (" + std::to_string(capacity) + " bytes)");
        }
        std::memcpy(buffer, this, sizeof(TCubeTiling));
    }
    std::size_t GetDataSize() const { return sizeof(TCubeTiling); }
};

#undef NPUSIM_TCUBE_TILING_MEMBER
#undef NPUSIM_TCUBE_TILING_ACCESSORS

/// The same struct under the names the vendor's newer samples and operator projects use:
/// AscendC::tiling::TCubeTiling (a kernel parameter of the single-source samples) and
/// optiling::TCubeTiling (TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, ...) in op_host headers).
namespace AscendC::tiling {
using ::TCubeTiling;
}  // namespace AscendC::tiling
namespace optiling {
using ::TCubeTiling;
}  // namespace optiling
