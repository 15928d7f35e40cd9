// LayerNorm's [A, R] form (LayerNormPara, LayerNormConfig: mean and rstd out), Normalize and
// DeepNorm (vendor API reference, "LayerNorm", "Normalize", "DeepNorm"), composed of basic
// PIPE_V instructions at the kernel's line in the caller's temp buffer or reserved UB (as
// adv_layernorm.h does). Per row: the row sums are GroupReduceSum (adv_reduce_rows) into a
// float slot and the row's statistics are read by the scalar unit (a timed approximation of the
// vendor's broadcast of them, as for LayerNorm). half computes in float and rounds once.
// Temp sizes: adv_norm_v2_tiling.h.
#pragma once

#include <cstdint>
#include <type_traits>

#include "npusim_ascendc/adv_layernorm.h"
#include "npusim_ascendc/adv_norm_v2_tiling.h"

namespace npusim::ascendc {

/// One row's normalisation. `xr` holds the row (n floats, not modified); d, sq: row slots; f:
/// 24 floats of scalars. Writes mean (unless null), the variance or rstd (`second`, unless
/// null), and y = (x - mean) x rstd [x g] [+ b] rounded to T.
struct NormRowSlots {
    AscendC::LocalTensor<float> d, sq, f;
};
template <class T, class M>
void norm_v2_row(const AscendC::LocalTensor<T>& y, const AscendC::LocalTensor<float>& xr,
                 const AscendC::LocalTensor<float>* g, const AscendC::LocalTensor<float>* b,
                 const AscendC::LocalTensor<M>* mean, const AscendC::LocalTensor<M>* second,
                 bool second_is_rstd, std::uint64_t row, std::uint64_t n, float epsilon,
                 const NormRowSlots& s, const Loc& loc) {
    const auto m = static_cast<std::int32_t>(n);
    const float inv_n = 1.0F / static_cast<float>(n);
    const AscendC::LocalTensor<float>& f = s.f;
    norm_row_sum(f, xr, s.d, n, loc);
    AscendC::Muls(f, f, inv_n, 1, loc);
    if (mean != nullptr) norm_store(*mean, row, f, f[16], loc);
    const float mu = f.GetValue(0, loc);
    AscendC::Adds(s.d, xr, -mu, m, loc);
    AscendC::Mul(s.sq, s.d, s.d, m, loc);
    norm_row_sum(f[8], s.sq, s.sq, n, loc);
    AscendC::Muls(f[8], f[8], inv_n, 1, loc);
    if (second != nullptr && !second_is_rstd) norm_store(*second, row, f[8], f[16], loc);
    AscendC::Adds(f[8], f[8], epsilon, 1, loc);
    AscendC::Rsqrt(f[8], f[8], 1, loc);
    if (second != nullptr && second_is_rstd) norm_store(*second, row, f[8], f[16], loc);
    const float rstd = f.GetValue(8, loc);
    AscendC::LocalTensor<float> out = s.d;
    if constexpr (std::is_same_v<T, float>) out = y;
    AscendC::Muls(g != nullptr || b != nullptr ? s.d : out, s.d, rstd, m, loc);
    if (g != nullptr) AscendC::Mul(b != nullptr ? s.d : out, s.d, *g, m, loc);
    if (b != nullptr) AscendC::Add(out, s.d, *b, m, loc);
    if constexpr (!std::is_same_v<T, float>) {
        AscendC::Cast(y, s.d, AscendC::RoundMode::CAST_RINT, m, loc);
    }
}

/// `src` (n elements of U) as floats: itself for float, else cast into `slot`.
template <class U>
AscendC::LocalTensor<float> as_float(const AscendC::LocalTensor<U>& src,
                                     const AscendC::LocalTensor<float>& slot, std::uint64_t n,
                                     const Loc& loc) {
    if constexpr (std::is_same_v<U, float>) {
        return src;
    } else {
        AscendC::Cast(slot, src, AscendC::RoundMode::CAST_NONE, static_cast<std::int32_t>(n), loc);
        return slot;
    }
}

template <class T>
constexpr void norm_v2_types() {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, float>,
                  "npusim Ascend C: LayerNorm / Normalize / DeepNorm take half or float on "
                  "Atlas A2/A3 (docs/ascendc.md, advanced APIs part E)");
}

/// The [A, R] LayerNorm: rows of para.rLengthWithPadding, the first rLength are data.
template <class U, class T, const AscendC::LayerNormConfig& config>
void adv_layernorm_rstd(const AscendC::LocalTensor<T>& y, const AscendC::LocalTensor<float>& mean,
                        const AscendC::LocalTensor<float>& rstd, const AscendC::LocalTensor<T>& x,
                        const AscendC::LocalTensor<U>& gamma, const AscendC::LocalTensor<U>& beta,
                        float epsilon, const AscendC::LocalTensor<std::uint8_t>* shared,
                        const AscendC::LayerNormPara& para, const Loc& loc) {
    norm_v2_types<T>();
    norm_v2_types<U>();
    static_assert(config.isOutputRstd,
                  "npusim Ascend C: LayerNorm with isOutputRstd = false (variance out) is an "
                  "Ascend 950 form; Atlas A2/A3 output rstd");
    constexpr const char* api = "LayerNorm";
    const std::uint64_t rows = para.aLength, n = para.rLength, h = para.rLengthWithPadding;
    if (rows == 0 || n == 0) return;
    if (h < n) {
        adv::fail(loc, api,
                  "para.rLengthWithPadding " + std::to_string(h) + " is below rLength " +
                      std::to_string(n));
    }
    adv_check_size(x, rows * h, "inputX", api, loc);
    adv_check_size(y, rows * h, "output", api, loc);
    if (!config.isOnlyOutput) {
        adv_check_size(mean, rows, "outputMean", api, loc);
        adv_check_size(rstd, rows, "outputRstd", api, loc);
    }
    if (!config.isNoGamma) adv_check_size(gamma, n, "gamma", api, loc);
    if (!config.isNoBeta) adv_check_size(beta, n, "beta", api, loc);
    const AscendC::LocalTensor<float> w = adv::sized_float_tmp(
        api, norm_v2_tmp_bytes("LayerNormRstd", h, rows, sizeof(T)), shared, loc);
    const std::uint64_t s = align8(h);
    const NormRowSlots slots{w, w[s], w[2 * s]};
    const AscendC::LocalTensor<float> g =
        config.isNoGamma ? w : as_float(gamma, w[2 * s + 24], n, loc);
    const AscendC::LocalTensor<float> b =
        config.isNoBeta ? w : as_float(beta, w[3 * s + 24], n, loc);
    const AscendC::LocalTensor<float>* mean_out = config.isOnlyOutput ? nullptr : &mean;
    const AscendC::LocalTensor<float>* rstd_out = config.isOnlyOutput ? nullptr : &rstd;
    for (std::uint64_t row = 0; row < rows; ++row) {
        const AscendC::LocalTensor<float> xr = as_float(x[row * h], w[4 * s + 24], n, loc);
        norm_v2_row(y[row * h], xr, config.isNoGamma ? nullptr : &g, config.isNoBeta ? nullptr : &b,
                    mean_out, rstd_out, true, row, n, epsilon, slots, loc);
    }
}

/// Normalize: rstd = 1 / sqrt(var + epsilon) for every row (two instructions over A), then
/// per row y = (x - mean) x rstd [x gamma] [+ beta].
template <class U, class T, const AscendC::NormalizeConfig& config>
void adv_normalize(const AscendC::LocalTensor<T>& y, const AscendC::LocalTensor<float>& rstd,
                   const AscendC::LocalTensor<float>& mean, const AscendC::LocalTensor<float>& var,
                   const AscendC::LocalTensor<T>& x, const AscendC::LocalTensor<U>& gamma,
                   const AscendC::LocalTensor<U>& beta, float epsilon,
                   const AscendC::LocalTensor<std::uint8_t>* shared,
                   const AscendC::NormalizePara& para, const Loc& loc) {
    norm_v2_types<T>();
    norm_v2_types<U>();
    static_assert(config.reducePattern == AscendC::ReducePattern::AR,
                  "npusim Ascend C: Normalize supports ReducePattern::AR only (as the vendor)");
    constexpr const char* api = "Normalize";
    const std::uint64_t rows = config.aLength > 0 ? config.aLength : para.aLength;
    const std::uint64_t n = para.rLength, h = para.rLengthWithPadding;
    if (rows == 0 || n == 0) return;
    adv_check_size(x, rows * h, "inputX", api, loc);
    adv_check_size(y, rows * h, "output", api, loc);
    adv_check_size(mean, rows, "inputMean", api, loc);
    adv_check_size(var, rows, "inputVariance", api, loc);
    if (!config.isOnlyOutput) adv_check_size(rstd, rows, "outputRstd", api, loc);
    if (!config.isNoGamma) adv_check_size(gamma, n, "gamma", api, loc);
    if (!config.isNoBeta) adv_check_size(beta, n, "beta", api, loc);
    const AscendC::LocalTensor<float> w =
        adv::sized_float_tmp(api, norm_v2_tmp_bytes("Normalize", h, rows, sizeof(T)), shared, loc);
    const std::uint64_t s = align8(h);
    const auto a = static_cast<std::int32_t>(rows), m = static_cast<std::int32_t>(n);
    const AscendC::LocalTensor<float> ve = w;  // align8(rows) floats
    const AscendC::LocalTensor<float> rows_rstd = config.isOnlyOutput ? ve : rstd;
    AscendC::Adds(ve, var, epsilon, a, loc);
    AscendC::Rsqrt(rows_rstd, ve, a, loc);
    const std::uint64_t at = align8(rows);
    const AscendC::LocalTensor<float> g = config.isNoGamma ? w : as_float(gamma, w[at], n, loc);
    const AscendC::LocalTensor<float> b = config.isNoBeta ? w : as_float(beta, w[at + s], n, loc);
    for (std::uint64_t row = 0; row < rows; ++row) {
        const AscendC::LocalTensor<float> xr = as_float(x[row * h], w[at + 2 * s], n, loc);
        AscendC::LocalTensor<float> out = w[at + 3 * s];
        if constexpr (std::is_same_v<T, float>) out = y[row * h];
        const float mu = mean.GetValue(row, loc), r = rows_rstd.GetValue(row, loc);
        AscendC::Adds(out, xr, -mu, m, loc);
        AscendC::Muls(out, out, r, m, loc);
        if (!config.isNoGamma) AscendC::Mul(out, out, g, m, loc);
        if (!config.isNoBeta) AscendC::Add(out, out, b, m, loc);
        if constexpr (!std::is_same_v<T, float>) {
            AscendC::Cast(y[row * h], out, AscendC::RoundMode::CAST_RINT, m, loc);
        }
    }
}

/// DeepNorm: per row x1 = alpha x + gx, then LayerNorm of x1 (mean and variance out, T).
template <class T>
void adv_deepnorm(const AscendC::LocalTensor<T>& y, const AscendC::LocalTensor<T>& mean,
                  const AscendC::LocalTensor<T>& var, const AscendC::LocalTensor<T>& x,
                  const AscendC::LocalTensor<T>& gx, const AscendC::LocalTensor<T>& beta,
                  const AscendC::LocalTensor<T>& gamma,
                  const AscendC::LocalTensor<std::uint8_t>* shared, float alpha, float epsilon,
                  const DeepNormTiling& tiling, const Loc& loc) {
    norm_v2_types<T>();
    constexpr const char* api = "DeepNorm";
    const NormRows r = norm_rows(tiling);
    if (r.rows == 0 || r.n == 0) return;
    for (const auto* t : {&y, &x, &gx}) adv_check_size(*t, r.rows * r.h, "a row tensor", api, loc);
    adv_check_size(mean, r.rows, "meanLocal", api, loc);
    adv_check_size(var, r.rows, "rstdLocal (the variance)", api, loc);
    adv_check_size(gamma, r.n, "gammaLocal", api, loc);
    adv_check_size(beta, r.n, "betaLocal", api, loc);
    const AscendC::LocalTensor<float> w =
        adv::sized_float_tmp(api, norm_v2_tmp_bytes("DeepNorm", r.h, 1, sizeof(T)), shared, loc);
    const std::uint64_t s = align8(r.h);
    const auto m = static_cast<std::int32_t>(r.n);
    const NormRowSlots slots{w[s], w[2 * s], w[3 * s]};
    const AscendC::LocalTensor<float> x1 = w;
    const AscendC::LocalTensor<float> g = as_float(gamma, w[3 * s + 24], r.n, loc);
    const AscendC::LocalTensor<float> b = as_float(beta, w[4 * s + 24], r.n, loc);
    for (std::uint64_t row = 0; row < r.rows; ++row) {
        const std::uint64_t at = row * r.h;
        if constexpr (std::is_same_v<T, float>) {
            AscendC::Muls(x1, x[at], alpha, m, loc);
            AscendC::Add(x1, x1, gx[at], m, loc);
        } else {
            const AscendC::LocalTensor<float> gxf = w[5 * s + 24];
            AscendC::Cast(x1, x[at], AscendC::RoundMode::CAST_NONE, m, loc);
            AscendC::Cast(gxf, gx[at], AscendC::RoundMode::CAST_NONE, m, loc);
            AscendC::Muls(x1, x1, alpha, m, loc);
            AscendC::Add(x1, x1, gxf, m, loc);
        }
        norm_v2_row(y[at], x1, &g, &b, &mean, &var, false, row, r.n, epsilon, slots, loc);
    }
}

}  // namespace npusim::ascendc

namespace AscendC {

/// LayerNorm<U, T, isReuseSource, config>(output, outputMean, outputRstd, inputX, gamma, beta,
/// epsilon[, sharedTmpBuffer], para, tiling): per row of para.rLength (rows
/// rLengthWithPadding apart) y = gamma (x - mean) rstd + beta, rstd = 1 / sqrt(var +
/// epsilon); mean and rstd out as float. The tiling is not read (para carries the shape).
template <class U, class T, bool isReuseSource = false, const LayerNormConfig& config = LNCFG_NORM>
void LayerNorm(const LocalTensor<T>& output, const LocalTensor<float>& outputMean,
               const LocalTensor<float>& outputRstd, const LocalTensor<T>& inputX,
               const LocalTensor<U>& gamma, const LocalTensor<U>& beta, const float epsilon,
               const LocalTensor<std::uint8_t>& sharedTmpBuffer, const LayerNormPara& para,
               const LayerNormSeparateTiling& /*tiling*/, Loc loc = Loc::current()) {
    npusim::ascendc::adv_layernorm_rstd<U, T, config>(output, outputMean, outputRstd, inputX, gamma,
                                                      beta, epsilon, &sharedTmpBuffer, para, loc);
}
template <class U, class T, bool isReuseSource = false, const LayerNormConfig& config = LNCFG_NORM>
void LayerNorm(const LocalTensor<T>& output, const LocalTensor<float>& outputMean,
               const LocalTensor<float>& outputRstd, const LocalTensor<T>& inputX,
               const LocalTensor<U>& gamma, const LocalTensor<U>& beta, const float epsilon,
               const LayerNormPara& para, const LayerNormSeparateTiling& /*tiling*/,
               Loc loc = Loc::current()) {
    npusim::ascendc::adv_layernorm_rstd<U, T, config>(output, outputMean, outputRstd, inputX, gamma,
                                                      beta, epsilon, nullptr, para, loc);
}

/// Normalize<U, T, isReuseSource, config>(output, outputRstd, inputMean, inputVariance,
/// inputX, gamma, beta[, sharedTmpBuffer], epsilon, para).
template <class U, class T, bool isReuseSource = false, const NormalizeConfig& config = NLCFG_NORM>
void Normalize(const LocalTensor<T>& output, const LocalTensor<float>& outputRstd,
               const LocalTensor<float>& inputMean, const LocalTensor<float>& inputVariance,
               const LocalTensor<T>& inputX, const LocalTensor<U>& gamma,
               const LocalTensor<U>& beta, const LocalTensor<std::uint8_t>& sharedTmpBuffer,
               const float epsilon, const NormalizePara& para, Loc loc = Loc::current()) {
    npusim::ascendc::adv_normalize<U, T, config>(output, outputRstd, inputMean, inputVariance,
                                                 inputX, gamma, beta, epsilon, &sharedTmpBuffer,
                                                 para, loc);
}
template <class U, class T, bool isReuseSource = false, const NormalizeConfig& config = NLCFG_NORM>
void Normalize(const LocalTensor<T>& output, const LocalTensor<float>& outputRstd,
               const LocalTensor<float>& inputMean, const LocalTensor<float>& inputVariance,
               const LocalTensor<T>& inputX, const LocalTensor<U>& gamma,
               const LocalTensor<U>& beta, const float epsilon, const NormalizePara& para,
               Loc loc = Loc::current()) {
    npusim::ascendc::adv_normalize<U, T, config>(output, outputRstd, inputMean, inputVariance,
                                                 inputX, gamma, beta, epsilon, nullptr, para, loc);
}

/// DeepNorm<T, isReuseSrc, isBasicBlock>(dst, mean, rstd, src, gx, beta, gamma
/// [, sharedTmpBuffer], alpha, epsilon, tiling): per row x1 = alpha src + gx, dst = gamma (x1 -
/// mean) / sqrt(var + epsilon) + beta; `rstd` receives the (biased) variance, as the vendor's.
template <class T, bool isReuseSrc = false, bool isBasicBlock = false>
void DeepNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& meanLocal,
              const LocalTensor<T>& rstdLocal, const LocalTensor<T>& srcLocal,
              const LocalTensor<T>& gxLocal, const LocalTensor<T>& betaLocal,
              const LocalTensor<T>& gammaLocal, const LocalTensor<std::uint8_t>& sharedTmpBuffer,
              const T alpha, const T epsilon, const DeepNormTiling& tiling,
              Loc loc = Loc::current()) {
    npusim::ascendc::adv_deepnorm(dstLocal, meanLocal, rstdLocal, srcLocal, gxLocal, betaLocal,
                                  gammaLocal, &sharedTmpBuffer, static_cast<float>(alpha),
                                  static_cast<float>(epsilon), tiling, loc);
}
template <class T, bool isReuseSrc = false, bool isBasicBlock = false>
void DeepNorm(const LocalTensor<T>& dstLocal, const LocalTensor<T>& meanLocal,
              const LocalTensor<T>& rstdLocal, const LocalTensor<T>& srcLocal,
              const LocalTensor<T>& gxLocal, const LocalTensor<T>& betaLocal,
              const LocalTensor<T>& gammaLocal, const T alpha, const T epsilon,
              const DeepNormTiling& tiling, Loc loc = Loc::current()) {
    npusim::ascendc::adv_deepnorm(dstLocal, meanLocal, rstdLocal, srcLocal, gxLocal, betaLocal,
                                  gammaLocal, nullptr, static_cast<float>(alpha),
                                  static_cast<float>(epsilon), tiling, loc);
}

}  // namespace AscendC
