// The advanced activation APIs (the vendor's lib/activation): Gelu, FasterGelu, Sigmoid,
// Swish, Silu, SwiGLU, GeGLU. Each is the vendor's formula composed of basic vector APIs in
// float (adv_support.h) at the caller's line; temp sizes in adv_tmp_size.h. Template flags
// that only choose the vendor's instruction sequence (isReuseSource, highPrecision,
// highPerformance) are accepted and do not change the result: npusim computes in float.
#pragma once

#include <cstdint>

#include "npusim_ascendc/adv_support.h"

namespace npusim::ascendc::adv {

/// out = x / (1 + exp(k x)) (k = -beta for Swish, -1.702 for FasterGelu); w0 scratch.
inline void x_over_one_plus_exp(const LocalTensor<float>& out, const LocalTensor<float>& x, float k,
                                const Work& w, const Loc& loc) {
    const auto m = static_cast<std::int32_t>(w.count);
    const LocalTensor<float> t = w.slot(0);
    AscendC::Muls(t, x, k, m, loc);
    AscendC::Exp(t, t, m, loc);
    AscendC::Adds(t, t, 1.0f, m, loc);
    AscendC::Div(out, x, t, m, loc);
}

/// t = gelu(x) = x / (1 + exp(-sqrt(8 / pi) (x + 0.044715 x^3))) into `out`; w0 scratch.
inline void gelu(const LocalTensor<float>& out, const LocalTensor<float>& x, const Work& w,
                 const Loc& loc) {
    const auto m = static_cast<std::int32_t>(w.count);
    const LocalTensor<float> t = w.slot(0);
    AscendC::Mul(t, x, x, m, loc);
    AscendC::Muls(t, t, 0.044715f, m, loc);
    AscendC::Adds(t, t, 1.0f, m, loc);
    AscendC::Mul(t, t, x, m, loc);
    AscendC::Muls(t, t, -1.5957691216057308f, m, loc);
    AscendC::Exp(t, t, m, loc);
    AscendC::Adds(t, t, 1.0f, m, loc);
    AscendC::Div(out, x, t, m, loc);
}

template <class T>
using Src1 = std::array<LocalTensor<T>, 1>;
template <class T>
using Src2 = std::array<LocalTensor<T>, 2>;

}  // namespace npusim::ascendc::adv

namespace AscendC {

/// Gelu (tanh form): x / (1 + exp(-1.5957691 (x + 0.044715 x^3))).
NPUSIM_ADV_UNARY(Gelu, bool highPrecision = false NPUSIM_ADV_COMMA bool highPerformance = false,
                 NPUSIM_ADV_BODY(npusim::ascendc::adv::gelu(out, x, w, loc)))
/// FasterGelu: x / (1 + exp(-1.702 x)).
NPUSIM_ADV_UNARY(FasterGelu,
                 bool highPrecision = false NPUSIM_ADV_COMMA bool highPerformance = false,
                 NPUSIM_ADV_BODY(npusim::ascendc::adv::x_over_one_plus_exp(out, x, -1.702f, w,
                                                                           loc)))
/// Sigmoid: 1 / (1 + exp(-x)).
NPUSIM_ADV_UNARY(Sigmoid, bool isReuseSource = false, NPUSIM_ADV_BODY({
                     const LocalTensor<float> t = w.slot(0);
                     Muls(t, x, -1.0f, m, loc);
                     Exp(t, t, m, loc);
                     Adds(t, t, 1.0f, m, loc);
                     Reciprocal(out, t, m, loc);
                 }))

/// Silu(dst, src, count): x / (1 + exp(-x)).
template <class T, bool isReuseSource = false>
void Silu(const LocalTensor<T>& dst, const LocalTensor<T>& src, std::uint32_t count,
          Loc loc = Loc::current()) {
    npusim::ascendc::adv::elementwise<T, 1>(
        "Silu", dst, {src}, nullptr, count, loc,
        NPUSIM_ADV_BODY(npusim::ascendc::adv::x_over_one_plus_exp(out, x, -1.0f, w, loc)));
}
/// Swish(dst, src, count, beta): x / (1 + exp(-beta x)).
template <class T, bool isReuseSource = false, class U>
void Swish(const LocalTensor<T>& dst, const LocalTensor<T>& src, std::uint32_t count, U beta,
           Loc loc = Loc::current()) {
    const float k = -static_cast<float>(beta);
    npusim::ascendc::adv::elementwise<T, 1>(
        "Swish", dst, {src}, nullptr, count, loc,
        NPUSIM_ADV_BODY(npusim::ascendc::adv::x_over_one_plus_exp(out, x, k, w, loc)));
}

// Two-input GLU APIs: Name(dst, src0, src1[, scalar][, sharedTmpBuffer][, count]).
#define NPUSIM_ADV_GLU_BODY(...)                                                    \
    [&](const std::array<LocalTensor<float>, 2>& in, const LocalTensor<float>& out, \
        const npusim::ascendc::adv::Work& w) {                                      \
        [[maybe_unused]] const auto m = static_cast<std::int32_t>(w.count);         \
        __VA_ARGS__;                                                                \
    }

/// SwiGLU: src0 x swish(src1, beta) = src0 x src1 / (1 + exp(-beta src1)).
template <class T, bool isReuseSource = false>
void swiglu(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
            float beta, const npusim::ascendc::adv::Tmp* tmp, std::uint32_t count, Loc loc) {
    npusim::ascendc::adv::elementwise<T, 2>(
        "SwiGLU", dst, {src0, src1}, tmp, count, loc, NPUSIM_ADV_GLU_BODY({
            const LocalTensor<float> t = w.slot(0);
            npusim::ascendc::adv::x_over_one_plus_exp(t, in[1], -beta, w, loc);
            Mul(out, t, in[0], m, loc);
        }));
}
template <class T, bool isReuseSource = false>
void SwiGLU(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
            const float& scalarValue, const LocalTensor<std::uint8_t>& sharedTmpBuffer,
            std::uint32_t count, Loc loc = Loc::current()) {
    const auto tmp = npusim::ascendc::adv::tmp_of(sharedTmpBuffer);
    swiglu<T>(dst, src0, src1, scalarValue, &tmp, count, loc);
}
template <class T, bool isReuseSource = false>
void SwiGLU(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
            const float& scalarValue, const LocalTensor<std::uint8_t>& sharedTmpBuffer,
            Loc loc = Loc::current()) {
    const auto tmp = npusim::ascendc::adv::tmp_of(sharedTmpBuffer);
    swiglu<T>(dst, src0, src1, scalarValue, &tmp, static_cast<std::uint32_t>(src0.GetSize()), loc);
}
template <class T, bool isReuseSource = false>
void SwiGLU(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
            const float& scalarValue, std::uint32_t count, Loc loc = Loc::current()) {
    swiglu<T>(dst, src0, src1, scalarValue, nullptr, count, loc);
}
template <class T, bool isReuseSource = false>
void SwiGLU(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
            const float& scalarValue, Loc loc = Loc::current()) {
    swiglu<T>(dst, src0, src1, scalarValue, nullptr, static_cast<std::uint32_t>(src0.GetSize()),
              loc);
}

/// GeGLU: src0 x gelu(src1) (the tanh form of Gelu).
template <class T>
void geglu(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
           const npusim::ascendc::adv::Tmp* tmp, std::uint32_t count, Loc loc) {
    npusim::ascendc::adv::elementwise<T, 2>("GeGLU", dst, {src0, src1}, tmp, count, loc,
                                            NPUSIM_ADV_GLU_BODY({
                                                const LocalTensor<float> t = w.slot(0);
                                                npusim::ascendc::adv::gelu(t, in[1], w, loc);
                                                Mul(out, t, in[0], m, loc);
                                            }));
}
template <class T, bool isReuseSource = false>
void GeGLU(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
           const LocalTensor<std::uint8_t>& sharedTmpBuffer, std::uint32_t count,
           Loc loc = Loc::current()) {
    const auto tmp = npusim::ascendc::adv::tmp_of(sharedTmpBuffer);
    geglu<T>(dst, src0, src1, &tmp, count, loc);
}
template <class T, bool isReuseSource = false>
void GeGLU(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
           const LocalTensor<std::uint8_t>& sharedTmpBuffer, Loc loc = Loc::current()) {
    const auto tmp = npusim::ascendc::adv::tmp_of(sharedTmpBuffer);
    geglu<T>(dst, src0, src1, &tmp, static_cast<std::uint32_t>(src0.GetSize()), loc);
}
template <class T, bool isReuseSource = false>
void GeGLU(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
           std::uint32_t count, Loc loc = Loc::current()) {
    geglu<T>(dst, src0, src1, nullptr, count, loc);
}
template <class T, bool isReuseSource = false>
void GeGLU(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
           Loc loc = Loc::current()) {
    geglu<T>(dst, src0, src1, nullptr, static_cast<std::uint32_t>(src0.GetSize()), loc);
}
#undef NPUSIM_ADV_GLU_BODY

}  // namespace AscendC
