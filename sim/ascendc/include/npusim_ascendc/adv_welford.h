// WelfordUpdate and WelfordFinalize (vendor API reference, "WelfordUpdate",
// "WelfordFinalize"), composed of basic PIPE_V instructions at the kernel's line in the
// caller's temp buffer or reserved UB. Temp sizes: adv_norm_v2_tiling.h.
//
// WelfordUpdate, per element of the first abComputeLength of each of rnLength rows (abLength
// apart), with delta = x - mean_in:
//   mean_out = mean_in + delta x nRec,  M_out = M_in + delta x (x - mean_out).
// isInplace: the outputs beyond abComputeLength are the inputs (copied first, whole rows).
// WelfordFinalize over abLength partial results, with counts c (the counts tensor, or headCount
// for the first headCountLength and tailCount for the rest):
//   no tail (tailCountLength 0, no counts):  Mean = abRec x sum(mean_i),
//                                            Var = rRec x (sum(M_i) + headCount x sum((mean_i -
//                                            Mean)^2))
//   otherwise:  Mean = rRec x sum(c_i mean_i),  Var = rRec x (sum(M_i) + sum(c_i (mean_i -
//   Mean)^2)).
// Each writes element 0 of its output (one value).
#pragma once

#include <cstdint>
#include <type_traits>

#include "npusim_ascendc/adv_layernorm.h"
#include "npusim_ascendc/adv_norm_v2_tiling.h"

namespace npusim::ascendc {

template <class T, bool inplace>
void adv_welford_update(const AscendC::LocalTensor<float>& mean_out,
                        const AscendC::LocalTensor<float>& var_out,
                        const AscendC::LocalTensor<float>& mean_in,
                        const AscendC::LocalTensor<float>& var_in, const AscendC::LocalTensor<T>& x,
                        const AscendC::LocalTensor<std::uint8_t>* shared,
                        const AscendC::WelfordUpdateParam& para, const Loc& loc) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>,
                  "npusim Ascend C: WelfordUpdate takes half or float inputX (Atlas A2/A3)");
    constexpr const char* api = "WelfordUpdate";
    const std::uint64_t rows = para.rnLength, ab = para.abLength, n = para.abComputeLength;
    if (rows == 0 || ab == 0) return;
    if (n > ab) {
        adv::fail(
            loc, api,
            "abComputeLength " + std::to_string(n) + " exceeds abLength " + std::to_string(ab));
    }
    for (const auto* t : {&mean_out, &var_out, &mean_in, &var_in}) {
        adv_check_size(*t, rows * ab, "a mean / variance tensor", api, loc);
    }
    adv_check_size(x, rows * ab, "inputX", api, loc);
    const AscendC::LocalTensor<float> w = adv::sized_float_tmp(
        api, norm_v2_tmp_bytes("WelfordUpdate", ab, 1, sizeof(T)), shared, loc);
    const std::uint64_t s = align8(ab);
    const AscendC::LocalTensor<float> delta = w, t = w[s];
    const auto m = static_cast<std::int32_t>(n), whole = static_cast<std::int32_t>(ab);
    for (std::uint64_t row = 0; row < rows; ++row) {
        const std::uint64_t at = row * ab;
        if constexpr (inplace) {
            if (n < ab) {
                AscendC::Adds(mean_out[at], mean_in[at], 0.0F, whole, loc);
                AscendC::Adds(var_out[at], var_in[at], 0.0F, whole, loc);
            }
        }
        if (n == 0) continue;
        AscendC::LocalTensor<float> xr;
        if constexpr (std::is_same_v<T, float>) {
            xr = x[at];
        } else {
            xr = w[2 * s];
            AscendC::Cast(xr, x[at], AscendC::RoundMode::CAST_NONE, m, loc);
        }
        AscendC::Sub(delta, xr, mean_in[at], m, loc);
        AscendC::Muls(t, delta, para.nRec, m, loc);
        AscendC::Add(mean_out[at], mean_in[at], t, m, loc);
        AscendC::Sub(t, xr, mean_out[at], m, loc);
        AscendC::Mul(t, delta, t, m, loc);
        AscendC::Add(var_out[at], var_in[at], t, m, loc);
    }
}

inline void adv_welford_finalize(const AscendC::LocalTensor<float>& mean_out,
                                 const AscendC::LocalTensor<float>& var_out,
                                 const AscendC::LocalTensor<float>& mean_in,
                                 const AscendC::LocalTensor<float>& var_in,
                                 const AscendC::LocalTensor<std::int32_t>* counts,
                                 const AscendC::LocalTensor<std::uint8_t>* shared,
                                 const AscendC::WelfordFinalizePara& para, const Loc& loc) {
    constexpr const char* api = "WelfordFinalize";
    const std::uint64_t ab = para.abLength;
    if (ab == 0) return;
    if (ab % 8 != 0) {
        adv::fail(loc, api,
                  "para.abLength " + std::to_string(ab) + " is not a multiple of 8 (32 bytes)");
    }
    if (counts == nullptr && para.headCountLength + para.tailCountLength != ab) {
        adv::fail(loc, api, "para.headCountLength + tailCountLength differs from abLength");
    }
    if (counts == nullptr && para.tailCount == 0 && para.tailCountLength != 0) {
        adv::fail(loc, api, "para.tailCount is 0 with a nonzero tailCountLength (Atlas A2/A3)");
    }
    adv_check_size(mean_in, ab, "inputMean", api, loc);
    adv_check_size(var_in, ab, "inputVariance", api, loc);
    adv_check_size(mean_out, 1, "outputMean", api, loc);
    adv_check_size(var_out, 1, "outputVariance", api, loc);
    if (counts != nullptr) adv_check_size(*counts, ab, "counts", api, loc);
    const AscendC::LocalTensor<float> w =
        adv::sized_float_tmp(api, norm_v2_tmp_bytes("WelfordFinalize", ab, 1, 4), shared, loc);
    const AscendC::LocalTensor<float> c = w, t = w[ab], f = w[2 * ab];
    const auto m = static_cast<std::int32_t>(ab);
    const bool uniform = counts == nullptr && para.tailCountLength == 0;
    if (counts != nullptr) {
        AscendC::Cast(c, *counts, AscendC::RoundMode::CAST_NONE, m, loc);
    } else if (!uniform) {
        AscendC::Duplicate(c, static_cast<float>(para.tailCount), m, loc);
        AscendC::Duplicate(c, static_cast<float>(para.headCount),
                           static_cast<std::int32_t>(para.headCountLength), loc);
    }
    if (uniform) {
        norm_row_sum(f, mean_in, t, ab, loc);
        AscendC::Muls(f, f, para.abRec, 1, loc);
    } else {
        AscendC::Mul(t, c, mean_in, m, loc);
        norm_row_sum(f, t, t, ab, loc);
        AscendC::Muls(f, f, para.rRec, 1, loc);
    }
    norm_store(mean_out, 0, f, f[8], loc);
    const float mu = f.GetValue(0, loc);
    AscendC::Adds(t, mean_in, -mu, m, loc);
    AscendC::Mul(t, t, t, m, loc);
    if (uniform) {
        AscendC::Muls(t, t, static_cast<float>(para.headCount), m, loc);
    } else {
        AscendC::Mul(t, t, c, m, loc);
    }
    AscendC::Add(t, t, var_in, m, loc);
    norm_row_sum(f[8], t, t, ab, loc);
    AscendC::Muls(f[8], f[8], para.rRec, 1, loc);
    norm_store(var_out, 0, f[8], f[8], loc);
}

}  // namespace npusim::ascendc

namespace AscendC {

/// WelfordUpdate<T, U, isReuseSource, config>(outputMean, outputVariance, inputMean,
/// inputVariance, inputX[, sharedTmpBuffer], para): U is float.
template <class T, class U, bool isReuseSource = false,
          const WelfordUpdateConfig& config = WFUPDATE_DEFAULT_CFG>
void WelfordUpdate(const LocalTensor<U>& outputMean, const LocalTensor<U>& outputVariance,
                   const LocalTensor<U>& inputMean, const LocalTensor<U>& inputVariance,
                   const LocalTensor<T>& inputX, const LocalTensor<std::uint8_t>& sharedTmpBuffer,
                   const WelfordUpdateParam& para, Loc loc = Loc::current()) {
    static_assert(std::is_same_v<U, float>, "npusim Ascend C: WelfordUpdate's U is float");
    npusim::ascendc::adv_welford_update<T, config.isInplace>(
        outputMean, outputVariance, inputMean, inputVariance, inputX, &sharedTmpBuffer, para, loc);
}
template <class T, class U, bool isReuseSource = false,
          const WelfordUpdateConfig& config = WFUPDATE_DEFAULT_CFG>
void WelfordUpdate(const LocalTensor<U>& outputMean, const LocalTensor<U>& outputVariance,
                   const LocalTensor<U>& inputMean, const LocalTensor<U>& inputVariance,
                   const LocalTensor<T>& inputX, const WelfordUpdateParam& para,
                   Loc loc = Loc::current()) {
    static_assert(std::is_same_v<U, float>, "npusim Ascend C: WelfordUpdate's U is float");
    npusim::ascendc::adv_welford_update<T, config.isInplace>(
        outputMean, outputVariance, inputMean, inputVariance, inputX, nullptr, para, loc);
}

#define NPUSIM_WELFORD_FINALIZE_CONFIG                                                        \
    static_assert(!config.isCorrection,                                                       \
                  "npusim Ascend C: WelfordFinalize with isCorrection is an Ascend 950 form " \
                  "(Atlas A2/A3: false)")

/// WelfordFinalize<isReuseSource, config>(outputMean, outputVariance, inputMean,
/// inputVariance[, counts][, sharedTmpBuffer], para).
template <bool isReuseSource = false, const WelfordFinalizeConfig& config = WFFINALIZE_DEFAULT_CFG>
void WelfordFinalize(const LocalTensor<float>& outputMean, const LocalTensor<float>& outputVariance,
                     const LocalTensor<float>& inputMean, const LocalTensor<float>& inputVariance,
                     const LocalTensor<std::uint8_t>& sharedTmpBuffer,
                     const WelfordFinalizePara& para, Loc loc = Loc::current()) {
    NPUSIM_WELFORD_FINALIZE_CONFIG;
    npusim::ascendc::adv_welford_finalize(outputMean, outputVariance, inputMean, inputVariance,
                                          nullptr, &sharedTmpBuffer, para, loc);
}
template <bool isReuseSource = false, const WelfordFinalizeConfig& config = WFFINALIZE_DEFAULT_CFG>
void WelfordFinalize(const LocalTensor<float>& outputMean, const LocalTensor<float>& outputVariance,
                     const LocalTensor<float>& inputMean, const LocalTensor<float>& inputVariance,
                     const LocalTensor<std::int32_t>& counts,
                     const LocalTensor<std::uint8_t>& sharedTmpBuffer,
                     const WelfordFinalizePara& para, Loc loc = Loc::current()) {
    NPUSIM_WELFORD_FINALIZE_CONFIG;
    npusim::ascendc::adv_welford_finalize(outputMean, outputVariance, inputMean, inputVariance,
                                          &counts, &sharedTmpBuffer, para, loc);
}
template <bool isReuseSource = false, const WelfordFinalizeConfig& config = WFFINALIZE_DEFAULT_CFG>
void WelfordFinalize(const LocalTensor<float>& outputMean, const LocalTensor<float>& outputVariance,
                     const LocalTensor<float>& inputMean, const LocalTensor<float>& inputVariance,
                     const WelfordFinalizePara& para, Loc loc = Loc::current()) {
    NPUSIM_WELFORD_FINALIZE_CONFIG;
    npusim::ascendc::adv_welford_finalize(outputMean, outputVariance, inputMean, inputVariance,
                                          nullptr, nullptr, para, loc);
}
template <bool isReuseSource = false, const WelfordFinalizeConfig& config = WFFINALIZE_DEFAULT_CFG>
void WelfordFinalize(const LocalTensor<float>& outputMean, const LocalTensor<float>& outputVariance,
                     const LocalTensor<float>& inputMean, const LocalTensor<float>& inputVariance,
                     const LocalTensor<std::int32_t>& counts, const WelfordFinalizePara& para,
                     Loc loc = Loc::current()) {
    NPUSIM_WELFORD_FINALIZE_CONFIG;
    npusim::ascendc::adv_welford_finalize(outputMean, outputVariance, inputMean, inputVariance,
                                          &counts, nullptr, para, loc);
}
#undef NPUSIM_WELFORD_FINALIZE_CONFIG

}  // namespace AscendC
