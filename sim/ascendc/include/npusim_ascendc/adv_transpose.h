// The advanced Transpose / ConfusionTranspose with a TransposeType and a
// ConfusionTransposeTiling (vendor API reference, "Transpose", scenarios 1 and 2), and its host
// queries (adv_transpose_tiling.h). npusim moves each 16-element row of the source's 16 x 16
// fractal blocks with one PIPE_V copy (a bitwise Or of the row with itself on a 16-bit view: exact
// for every value) at the kernel's line; the vendor's two TransDataTo5HD passes through the temp
// buffer are a timed approximation here (the temp buffer is size-checked, not touched).
//
// Scenario 1, TRANSPOSE_NZ2ND_0213: src NZ [B, N, H/N/16, S/16, 16, 16] of the ND [B, N, S, H/N]
//   -> dst ND [B, S, N, H/N].
// Scenario 2, TRANSPOSE_NZ2NZ_0213: the same src -> dst NZ [B, S, H/N/16, N/16, 16, 16] (of the
//   ND [B, S, N, H/N]; N a multiple of 16).
// The other TransposeTypes are a KernelError (not supported yet).
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "npusim_ascendc/adv_reduce.h"
#include "npusim_ascendc/adv_transpose_tiling.h"
#include "npusim_ascendc/gather_sort.h"
#include "npusim_ascendc/transpose.h"

namespace npusim::ascendc {

template <class T>
void adv_confusion_transpose(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                             const AscendC::LocalTensor<std::uint8_t>* shared,
                             AscendC::TransposeType type, const ConfusionTransposeTiling& tiling,
                             const Loc& loc) {
    static_assert(sizeof(T) == 2 || sizeof(T) == 4,
                  "npusim Ascend C: Transpose with a ConfusionTransposeTiling takes 2- or 4-byte "
                  "elements");
    constexpr const char* api = "Transpose";
    const bool nz_out = type == AscendC::TransposeType::TRANSPOSE_NZ2NZ_0213;
    if (type != AscendC::TransposeType::TRANSPOSE_NZ2ND_0213 && !nz_out) {
        not_supported_yet(loc, "Transpose (ConfusionTranspose) with TransposeType " +
                                   std::to_string(static_cast<int>(type)) +
                                   " (npusim: TRANSPOSE_NZ2ND_0213 and TRANSPOSE_NZ2NZ_0213)");
    }
    const std::uint64_t b = tiling.param0, n = tiling.param1, s = tiling.param2, hn = tiling.param3;
    if (b * n * s * hn == 0) return;
    if (s % 16 != 0 || hn % 16 != 0 || (nz_out && n % 16 != 0)) {
        throw KernelError(EventIds::where(loc) + "Transpose: S " + std::to_string(s) + " and H/N " +
                          std::to_string(hn) +
                          (nz_out ? " and N " + std::to_string(n) : std::string()) +
                          " must be multiples of 16 (the tiling's shape)");
    }
    adv_check_size(src, b * n * s * hn, "srcTensor", api, loc);
    adv_check_size(dst, b * n * s * hn, "dstTensor", api, loc);
    if (shared != nullptr) {
        adv_check_tmp(*shared,
                      confusion_transpose_tmp_bytes(static_cast<std::uint32_t>(s), sizeof(T)), api,
                      loc);
    }
    const auto d16 = dst.template ReinterpretCast<std::uint16_t>();
    const auto s16 = src.template ReinterpretCast<std::uint16_t>();
    constexpr std::uint64_t w = sizeof(T) / 2;  // 16-bit words per element
    const auto row = static_cast<std::int32_t>(16 * w);
    const std::uint64_t hn16 = hn / 16;
    for (std::uint64_t bi = 0; bi < b; ++bi) {
        for (std::uint64_t ni = 0; ni < n; ++ni) {
            for (std::uint64_t j1 = 0; j1 < hn16; ++j1) {
                // The source rows of (b, n, j1): S rows of 16, one after another.
                const std::uint64_t from = ((bi * n + ni) * hn16 + j1) * s * 16;
                for (std::uint64_t si = 0; si < s; ++si) {
                    const std::uint64_t to =
                        nz_out
                            ? ((((bi * s + si) * hn16 + j1) * (n / 16) + ni / 16) * 16 + ni % 16) *
                                  16
                            : ((bi * s + si) * n + ni) * hn + j1 * 16;
                    const auto in = s16[(from + si * 16) * w];
                    AscendC::Or(d16[to * w], in, in, row, loc);
                }
            }
        }
    }
}

}  // namespace npusim::ascendc

namespace AscendC {

/// Transpose(dst, src[, sharedTmpBuffer], transposeType, tiling) and the older name
/// ConfusionTranspose: scenarios 1 and 2 (see above).
template <class T>
void Transpose(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
               TransposeType transposeType, const ConfusionTransposeTiling& tiling,
               Loc loc = Loc::current()) {
    npusim::ascendc::adv_confusion_transpose(dstTensor, srcTensor, nullptr, transposeType, tiling,
                                             loc);
}
template <class T>
void Transpose(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
               const LocalTensor<std::uint8_t>& sharedTmpBuffer, TransposeType transposeType,
               const ConfusionTransposeTiling& tiling, Loc loc = Loc::current()) {
    npusim::ascendc::adv_confusion_transpose(dstTensor, srcTensor, &sharedTmpBuffer, transposeType,
                                             tiling, loc);
}
template <class T>
void ConfusionTranspose(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                        TransposeType transposeType, const ConfusionTransposeTiling& tiling,
                        Loc loc = Loc::current()) {
    npusim::ascendc::adv_confusion_transpose(dstTensor, srcTensor, nullptr, transposeType, tiling,
                                             loc);
}
template <class T>
void ConfusionTranspose(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                        const LocalTensor<std::uint8_t>& sharedTmpBuffer,
                        TransposeType transposeType, const ConfusionTransposeTiling& tiling,
                        Loc loc = Loc::current()) {
    npusim::ascendc::adv_confusion_transpose(dstTensor, srcTensor, &sharedTmpBuffer, transposeType,
                                             tiling, loc);
}

}  // namespace AscendC
