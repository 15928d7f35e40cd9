// LayerNorm, LayerNormGrad and LayerNormGradBeta (vendor API reference, "LayerNorm" with mean
// and variance out, "LayerNormGrad", "LayerNormGradBeta"), composed of basic PIPE_V
// instructions at the kernel's line in the caller's temp buffer (or UB reserved as the
// element-wise APIs do, adv_support.h). Rows are tiling.hLength apart (B x S rows); the first
// originalHLength elements of a row are data. Per row the reductions are GroupReduceSum
// (adv_reduce_rows) into a float slot, and the row's statistics are read by the scalar unit
// (one scalar load each, behind the V -> S wait): npusim's timed approximation of the
// vendor's broadcast of them over blocks of rows. Temp sizes: adv_norm_quant_tiling.h.
#pragma once

#include <cstdint>
#include <type_traits>

#include "npusim_ascendc/adv_norm_quant_tiling.h"
#include "npusim_ascendc/adv_reduce.h"
#include "npusim_ascendc/adv_support.h"
#include "npusim_ascendc/vector.h"

namespace npusim::ascendc {

/// The rows, row stride and data length of a LayerNorm tiling.
struct NormRows {
    std::uint64_t rows = 0, h = 0, n = 0;
};
template <class Tiling>
NormRows norm_rows(const Tiling& t) {
    const std::uint64_t n = t.originalHLength != 0 ? t.originalHLength : t.hLength;
    return {std::uint64_t{t.bLength} * t.sLength, t.hLength, n};
}

/// The temp region of `api` for rows of `h` (the caller's, else reserved UB), size-checked.
inline AscendC::LocalTensor<float> norm_tmp(const char* api, std::uint64_t h,
                                            std::uint32_t type_size,
                                            const AscendC::LocalTensor<std::uint8_t>* shared,
                                            const Loc& loc) {
    return adv::sized_float_tmp(api, norm_quant_tmp_bytes(api, h, type_size), shared, loc);
}

/// out[0] = the sum of x[0..n) (partials in `partials`, h floats; may be x itself).
inline void norm_row_sum(const AscendC::LocalTensor<float>& out,
                         const AscendC::LocalTensor<float>& x,
                         const AscendC::LocalTensor<float>& partials, std::uint64_t n,
                         const Loc& loc) {
    adv_reduce_rows(Op::GroupReduceSum, out, x, partials, 1, n, n, loc);
}

/// dst[row] = f[0] (rounded for half; `scratch` 8 floats of temp): a one-element
/// GroupReduceSum, whose destination may be any element (a plain vector op's must be a
/// 32-byte aligned block).
template <class T>
void norm_store(const AscendC::LocalTensor<T>& dst, std::uint64_t row,
                const AscendC::LocalTensor<float>& f, const AscendC::LocalTensor<float>& scratch,
                const Loc& loc) {
    if constexpr (std::is_same_v<T, float>) {
        issue_group_reduce(Op::GroupReduceSum, dst, f, ReduceBatch{0, row, 1, 1}, loc);
    } else {
        const AscendC::LocalTensor<T> h = scratch.template ReinterpretCast<T>();
        AscendC::Cast(h, f, AscendC::RoundMode::CAST_RINT, 1, loc);
        issue_group_reduce(Op::GroupReduceSum, dst, h, ReduceBatch{0, row, 1, 1}, loc);
    }
}

template <class T>
void adv_layernorm(const AscendC::LocalTensor<T>& y, const AscendC::LocalTensor<T>& mean,
                   const AscendC::LocalTensor<T>& var, const AscendC::LocalTensor<T>& x,
                   const AscendC::LocalTensor<T>& gamma, const AscendC::LocalTensor<T>& beta,
                   const AscendC::LocalTensor<std::uint8_t>* shared, float epsilon,
                   const LayerNormTiling& tiling, const Loc& loc) {
    adv_check_half_float<T>("LayerNorm");
    constexpr const char* api = "LayerNorm";
    const NormRows r = norm_rows(tiling);
    if (r.rows == 0 || r.n == 0) return;
    adv_check_size(x, r.rows * r.h, "inputX", api, loc);
    adv_check_size(y, r.rows * r.h, "output", api, loc);
    adv_check_size(mean, r.rows, "outputMean", api, loc);
    adv_check_size(var, r.rows, "outputVariance", api, loc);
    adv_check_size(gamma, r.n, "gamma", api, loc);
    adv_check_size(beta, r.n, "beta", api, loc);
    const AscendC::LocalTensor<float> w = norm_tmp(api, r.h, sizeof(T), shared, loc);
    const std::uint64_t s = align8(r.h);
    const auto n = static_cast<std::int32_t>(r.n);
    const AscendC::LocalTensor<float> d = w, sq = w[s], f = w[2 * s];
    AscendC::LocalTensor<float> g, b;
    if constexpr (std::is_same_v<T, float>) {
        g = gamma;
        b = beta;
    } else {
        g = w[2 * s + 24];
        b = w[3 * s + 24];
        AscendC::Cast(g, gamma, AscendC::RoundMode::CAST_NONE, n, loc);
        AscendC::Cast(b, beta, AscendC::RoundMode::CAST_NONE, n, loc);
    }
    const float inv_n = 1.0F / static_cast<float>(r.n);
    for (std::uint64_t row = 0; row < r.rows; ++row) {
        AscendC::LocalTensor<float> xr;
        if constexpr (std::is_same_v<T, float>) {
            xr = x[row * r.h];
        } else {
            xr = w[4 * s + 24];
            AscendC::Cast(xr, x[row * r.h], AscendC::RoundMode::CAST_NONE, n, loc);
        }
        norm_row_sum(f, xr, d, r.n, loc);
        AscendC::Muls(f, f, inv_n, 1, loc);
        norm_store(mean, row, f, f[16], loc);
        const float mu = f.GetValue(0, loc);
        AscendC::Adds(d, xr, -mu, n, loc);
        AscendC::Mul(sq, d, d, n, loc);
        norm_row_sum(f[8], sq, sq, r.n, loc);
        AscendC::Muls(f[8], f[8], inv_n, 1, loc);
        norm_store(var, row, f[8], f[16], loc);
        AscendC::Adds(f[8], f[8], epsilon, 1, loc);
        AscendC::Rsqrt(f[8], f[8], 1, loc);
        const float rstd = f.GetValue(8, loc);
        AscendC::Muls(d, d, rstd, n, loc);
        AscendC::Mul(d, d, g, n, loc);
        if constexpr (std::is_same_v<T, float>) {
            AscendC::Add(y[row * r.h], d, b, n, loc);
        } else {
            AscendC::Add(d, d, b, n, loc);
            AscendC::Cast(y[row * r.h], d, AscendC::RoundMode::CAST_RINT, n, loc);
        }
    }
}

/// LayerNormGrad (float): per row, with x_mm = x - mean, rstd = 1 / sqrt(var + epsilon),
/// pd_xl = dy x gamma: resForGamma = x_mm x rstd; pd_var = -rstd^3 / 2 x sum(pd_xl x x_mm);
/// pd_mean = -rstd x sum(pd_xl) - 2 pd_var / H x sum(x_mm);
/// pd_x = pd_xl x rstd + 2 pd_var / H x x_mm + pd_mean / H.
inline void adv_layernorm_grad(
    const AscendC::LocalTensor<float>& pdx, const AscendC::LocalTensor<float>& res,
    const AscendC::LocalTensor<float>& dy, const AscendC::LocalTensor<float>& x,
    const AscendC::LocalTensor<float>& var, const AscendC::LocalTensor<float>& mean,
    const AscendC::LocalTensor<float>& gamma, const AscendC::LocalTensor<std::uint8_t>* shared,
    float epsilon, const LayerNormGradTiling& tiling, const Loc& loc) {
    constexpr const char* api = "LayerNormGrad";
    const NormRows r = norm_rows(tiling);
    if (r.rows == 0 || r.n == 0) return;
    for (const auto* t : {&pdx, &res, &dy, &x})
        adv_check_size(*t, r.rows * r.h, "a row tensor", api, loc);
    adv_check_size(var, r.rows, "inputVariance", api, loc);
    adv_check_size(mean, r.rows, "inputMean", api, loc);
    adv_check_size(gamma, r.n, "inputGamma", api, loc);
    const AscendC::LocalTensor<float> w = norm_tmp(api, r.h, 4, shared, loc);
    const std::uint64_t s = align8(r.h);
    const auto n = static_cast<std::int32_t>(r.n);
    const AscendC::LocalTensor<float> d = w, pxl = w[s], t = w[2 * s], f = w[3 * s];
    const float inv_n = 1.0F / static_cast<float>(r.n);
    for (std::uint64_t row = 0; row < r.rows; ++row) {
        const std::uint64_t at = row * r.h;
        AscendC::Duplicate(f, var.GetValue(row, loc) + epsilon, 8, loc);
        AscendC::Rsqrt(f, f, 1, loc);
        const float rstd = f.GetValue(0, loc);
        const float mu = mean.GetValue(row, loc);
        AscendC::Adds(d, x[at], -mu, n, loc);
        AscendC::Muls(res[at], d, rstd, n, loc);
        AscendC::Mul(pxl, dy[at], gamma, n, loc);
        AscendC::Mul(t, pxl, d, n, loc);
        norm_row_sum(f[8], t, t, r.n, loc);
        norm_row_sum(f[16], pxl, t, r.n, loc);
        norm_row_sum(f[24], d, t, r.n, loc);
        const float s1 = f.GetValue(8, loc), s2 = f.GetValue(16, loc), s3 = f.GetValue(24, loc);
        const float pd_var = -0.5F * rstd * rstd * rstd * s1;
        const float pd_mean = -rstd * s2 - 2.0F * pd_var * inv_n * s3;
        AscendC::Muls(t, d, 2.0F * pd_var * inv_n, n, loc);
        AscendC::Muls(pxl, pxl, rstd, n, loc);
        AscendC::Add(pdx[at], t, pxl, n, loc);
        AscendC::Adds(pdx[at], pdx[at], pd_mean * inv_n, n, loc);
    }
}

/// LayerNormGradBeta (float): pdGamma = sum over rows of dy x resForGamma, pdBeta = sum over
/// rows of dy (a copy of the first row, then one Add per row).
inline void adv_layernorm_grad_beta(const AscendC::LocalTensor<float>& pd_gamma,
                                    const AscendC::LocalTensor<float>& pd_beta,
                                    const AscendC::LocalTensor<float>& res,
                                    const AscendC::LocalTensor<float>& dy,
                                    const AscendC::LocalTensor<std::uint8_t>* shared,
                                    const LayerNormGradBetaTiling& tiling, const Loc& loc) {
    constexpr const char* api = "LayerNormGradBeta";
    const NormRows r = norm_rows(tiling);
    if (r.rows == 0 || r.n == 0) return;
    adv_check_size(res, r.rows * r.h, "resForGamma", api, loc);
    adv_check_size(dy, r.rows * r.h, "inputDy", api, loc);
    adv_check_size(pd_gamma, r.n, "outputPdGamma", api, loc);
    adv_check_size(pd_beta, r.n, "outputPdBeta", api, loc);
    const AscendC::LocalTensor<float> t = norm_tmp(api, r.h, 4, shared, loc);
    const auto n = static_cast<std::int32_t>(r.n);
    for (std::uint64_t row = 0; row < r.rows; ++row) {
        const std::uint64_t at = row * r.h;
        if (row == 0) {
            AscendC::Mul(pd_gamma, dy, res, n, loc);
            AscendC::Adds(pd_beta, dy, 0.0F, n, loc);
            continue;
        }
        AscendC::Mul(t, dy[at], res[at], n, loc);
        AscendC::Add(pd_gamma, pd_gamma, t, n, loc);
        AscendC::Add(pd_beta, pd_beta, dy[at], n, loc);
    }
}

template <class T>
constexpr void norm_grad_float(const char*) {
    static_assert(std::is_same_v<T, float>,
                  "npusim Ascend C: LayerNormGrad / LayerNormGradBeta take float (half is not "
                  "supported yet; docs/ascendc.md, advanced APIs part C)");
}

}  // namespace npusim::ascendc

namespace AscendC {

/// LayerNorm<T, isReuseSource>(output, outputMean, outputVariance, inputX, gamma, beta
/// [, sharedTmpBuffer], epsilon, tiling): per row y = gamma (x - mean) / sqrt(var + epsilon)
/// + beta, mean and (biased) variance out; half computed in float and rounded once.
template <class T, bool isReuseSource = false>
void LayerNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean,
               const LocalTensor<T>& outputVariance, const LocalTensor<T>& inputX,
               const LocalTensor<T>& gamma, const LocalTensor<T>& beta,
               const LocalTensor<std::uint8_t>& sharedTmpBuffer, const T epsilon,
               const LayerNormTiling& tiling, Loc loc = Loc::current()) {
    npusim::ascendc::adv_layernorm(output, outputMean, outputVariance, inputX, gamma, beta,
                                   &sharedTmpBuffer, static_cast<float>(epsilon), tiling, loc);
}
template <class T, bool isReuseSource = false>
void LayerNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean,
               const LocalTensor<T>& outputVariance, const LocalTensor<T>& inputX,
               const LocalTensor<T>& gamma, const LocalTensor<T>& beta, const T epsilon,
               const LayerNormTiling& tiling, Loc loc = Loc::current()) {
    npusim::ascendc::adv_layernorm(output, outputMean, outputVariance, inputX, gamma, beta, nullptr,
                                   static_cast<float>(epsilon), tiling, loc);
}

/// LayerNormGrad<T, isReuseSource>(outputPdX, resForGamma, inputDy, inputX, inputVariance,
/// inputMean, inputGamma[, sharedTmpBuffer], epsilon, tiling): float.
template <class T, bool isReuseSource = false>
void LayerNormGrad(const LocalTensor<T>& outputPdX, const LocalTensor<T>& resForGamma,
                   const LocalTensor<T>& inputDy, const LocalTensor<T>& inputX,
                   const LocalTensor<T>& inputVariance, const LocalTensor<T>& inputMean,
                   const LocalTensor<T>& inputGamma,
                   const LocalTensor<std::uint8_t>& sharedTmpBuffer, const T epsilon,
                   const LayerNormGradTiling& tiling, Loc loc = Loc::current()) {
    npusim::ascendc::norm_grad_float<T>("LayerNormGrad");
    npusim::ascendc::adv_layernorm_grad(outputPdX, resForGamma, inputDy, inputX, inputVariance,
                                        inputMean, inputGamma, &sharedTmpBuffer, epsilon, tiling,
                                        loc);
}
template <class T, bool isReuseSource = false>
void LayerNormGrad(const LocalTensor<T>& outputPdX, const LocalTensor<T>& resForGamma,
                   const LocalTensor<T>& inputDy, const LocalTensor<T>& inputX,
                   const LocalTensor<T>& inputVariance, const LocalTensor<T>& inputMean,
                   const LocalTensor<T>& inputGamma, const T epsilon,
                   const LayerNormGradTiling& tiling, Loc loc = Loc::current()) {
    npusim::ascendc::norm_grad_float<T>("LayerNormGrad");
    npusim::ascendc::adv_layernorm_grad(outputPdX, resForGamma, inputDy, inputX, inputVariance,
                                        inputMean, inputGamma, nullptr, epsilon, tiling, loc);
}

/// LayerNormGradBeta<T, isReuseSource>(outputPdGamma, outputPdBeta, resForGamma, inputDy
/// [, sharedTmpBuffer], tiling): float.
template <class T, bool isReuseSource = false>
void LayerNormGradBeta(const LocalTensor<T>& outputPdGamma, const LocalTensor<T>& outputPdBeta,
                       const LocalTensor<T>& resForGamma, const LocalTensor<T>& inputDy,
                       const LocalTensor<std::uint8_t>& sharedTmpBuffer,
                       const LayerNormGradBetaTiling& tiling, Loc loc = Loc::current()) {
    npusim::ascendc::norm_grad_float<T>("LayerNormGradBeta");
    npusim::ascendc::adv_layernorm_grad_beta(outputPdGamma, outputPdBeta, resForGamma, inputDy,
                                             &sharedTmpBuffer, tiling, loc);
}
template <class T, bool isReuseSource = false>
void LayerNormGradBeta(const LocalTensor<T>& outputPdGamma, const LocalTensor<T>& outputPdBeta,
                       const LocalTensor<T>& resForGamma, const LocalTensor<T>& inputDy,
                       const LayerNormGradBetaTiling& tiling, Loc loc = Loc::current()) {
    npusim::ascendc::norm_grad_float<T>("LayerNormGradBeta");
    npusim::ascendc::adv_layernorm_grad_beta(outputPdGamma, outputPdBeta, resForGamma, inputDy,
                                             nullptr, tiling, loc);
}

}  // namespace AscendC
