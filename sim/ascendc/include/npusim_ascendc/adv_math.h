// The advanced math APIs (the vendor's lib/math) that Atlas A2 / A3 have: Exp (with the
// Taylor expansion), Log / Log2 / Log10, Erf, Acosh, Atanh, Tanh, Sinh, Cosh, Ceil, Floor,
// Trunc, Round, Frac, Fmod, Power, ClampMax / ClampMin, the mixed-type Axpy and Xor, each
// composed of basic vector APIs at the caller's line (adv_support.h); CumSum is in
// adv_cumsum.h. The Ascend 950 ones (Rint, Fma, Where, Clamp, IsFinite, BitwiseAnd,
// LogicalAnd, ...) are compile errors that say so.
#pragma once

#include <cstdint>
#include <limits>

#include "npusim_ascendc/adv_support.h"

namespace npusim::ascendc::adv {

/// Erf (Abramowitz & Stegun 7.1.26, absolute error below 1.5e-7):
/// |erf(x)| = 1 - t (a1 + t (a2 + t (a3 + t (a4 + t a5)))) exp(-x^2), t = 1 / (1 + p |x|),
/// the sign of x restored by a select. Slots 0-3.
inline void erf(const LocalTensor<float>& out, const LocalTensor<float>& x, const Work& w,
                const Loc& loc) {
    using namespace AscendC;
    const auto m = static_cast<std::int32_t>(w.count);
    const LocalTensor<float> t = w.slot(0), poly = w.slot(1), e = w.slot(2);
    const LocalTensor<std::uint8_t> negative = w.slot<std::uint8_t>(3);
    Abs(t, x, m, loc);
    Mul(e, t, t, m, loc);
    Muls(e, e, -1.0f, m, loc);
    Exp(e, e, m, loc);
    Muls(t, t, 0.3275911f, m, loc);
    Adds(t, t, 1.0f, m, loc);
    Reciprocal(t, t, m, loc);
    Muls(poly, t, 1.061405429f, m, loc);
    for (const float a : {-1.453152027f, 1.421413741f, -0.284496736f, 0.254829592f}) {
        Adds(poly, poly, a, m, loc);
        Mul(poly, poly, t, m, loc);
    }
    Mul(poly, poly, e, m, loc);
    Muls(poly, poly, -1.0f, m, loc);
    Adds(poly, poly, 1.0f, m, loc);
    Muls(t, poly, -1.0f, m, loc);
    CompareScalar(negative, x, 0.0f, CMPMODE::LT, static_cast<std::uint32_t>(m), loc);
    Select(out, negative, t, poly, SELMODE::VSEL_TENSOR_TENSOR_MODE, static_cast<std::uint32_t>(m),
           loc);
}

/// exp(x) = exp(floor(x)) x the Taylor series of exp(x - floor(x)) to `level` terms (level 0:
/// the Exp instruction alone). Slots 0-3.
inline void exp_taylor(const LocalTensor<float>& out, const LocalTensor<float>& x,
                       std::uint32_t level, const Work& w, const Loc& loc) {
    using namespace AscendC;
    const auto m = static_cast<std::int32_t>(w.count);
    if (level == 0) {
        Exp(out, x, m, loc);
        return;
    }
    const LocalTensor<float> whole = w.slot(0), part = w.slot(1), item = w.slot(2), sum = w.slot(3);
    round_integer(whole, x, AscendC::RoundMode::CAST_FLOOR, w, 1, loc);
    Sub(part, x, whole, m, loc);
    Exp(whole, whole, m, loc);
    Duplicate(item, 1.0f, m, loc);
    Duplicate(sum, 1.0f, m, loc);
    for (std::uint32_t i = 1; i <= level; ++i) {
        Mul(item, item, part, m, loc);
        Muls(item, item, 1.0f / static_cast<float>(i), m, loc);
        Add(sum, sum, item, m, loc);
    }
    Mul(out, whole, sum, m, loc);
}

/// pow(a, b) = exp(b ln|a|), negated for a < 0 and an odd integer b, NaN for a < 0 and a
/// non-integer b, 1 for b = 0. Slots 0-5.
inline void power(const LocalTensor<float>& out, const LocalTensor<float>& a,
                  const LocalTensor<float>& b, const Work& w, const Loc& loc) {
    using namespace AscendC;
    const auto m = static_cast<std::int32_t>(w.count);
    const auto n = static_cast<std::uint32_t>(m);
    const LocalTensor<float> magnitude = w.slot(0), sign = w.slot(1), whole = w.slot(2);
    const LocalTensor<std::uint8_t> bits = w.slot<std::uint8_t>(3);
    const LocalTensor<std::uint8_t> nonzero = w.slot<std::uint8_t>(4);
    Abs(magnitude, a, m, loc);
    Ln(magnitude, magnitude, m, loc);
    Mul(magnitude, magnitude, b, m, loc);
    Exp(magnitude, magnitude, m, loc);
    // sign = 1 - 2 |b - 2 trunc(b / 2)|: 1 for even, -1 for odd integers
    Muls(sign, b, 0.5f, m, loc);
    round_integer(sign, sign, AscendC::RoundMode::CAST_TRUNC, w, 2, loc);
    Muls(sign, sign, 2.0f, m, loc);
    Sub(sign, b, sign, m, loc);
    Abs(sign, sign, m, loc);
    Muls(sign, sign, -2.0f, m, loc);
    Adds(sign, sign, 1.0f, m, loc);
    round_integer(whole, b, AscendC::RoundMode::CAST_TRUNC, w, 3, loc);
    Compare(bits, whole, b, CMPMODE::EQ, n, loc);
    Select(sign, bits, sign, std::numeric_limits<float>::quiet_NaN(),
           SELMODE::VSEL_TENSOR_SCALAR_MODE, n, loc);
    Mul(sign, sign, magnitude, m, loc);
    CompareScalar(bits, a, 0.0f, CMPMODE::LT, n, loc);
    Select(magnitude, bits, sign, magnitude, SELMODE::VSEL_TENSOR_TENSOR_MODE, n, loc);
    CompareScalar(nonzero, b, 0.0f, CMPMODE::NE, n, loc);
    Select(out, nonzero, magnitude, 1.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, n, loc);
}

}  // namespace npusim::ascendc::adv

namespace AscendC {

/// Exp<T, taylorExpandLevel, isReuseSource>: level 0 is the Exp instruction; otherwise
/// exp(floor(x)) x the Taylor series of the fraction to `taylorExpandLevel` terms.
NPUSIM_ADV_UNARY(Exp, std::uint8_t taylorExpandLevel NPUSIM_ADV_COMMA bool isReuseSource = false,
                 NPUSIM_ADV_BODY(npusim::ascendc::adv::exp_taylor(out, x, taylorExpandLevel, w,
                                                                  loc)))
NPUSIM_ADV_UNARY(Log, bool isReuseSource = false, NPUSIM_ADV_BODY(Ln(out, x, m, loc)))
/// Log2 and Log10: ln(x) / ln(base); they share Log's temp size.
template <class T, bool isReuseSource = false>
void Log2(const LocalTensor<T>& dst, const LocalTensor<T>& src, std::uint32_t count,
          Loc loc = Loc::current()) {
    npusim::ascendc::adv::elementwise<T, 1>("Log", dst, {src}, nullptr, count, loc,
                                            NPUSIM_ADV_BODY({
                                                Ln(out, x, m, loc);
                                                Muls(out, out, 1.4426950408889634f, m, loc);
                                            }));
}
template <class T, bool isReuseSource = false>
void Log10(const LocalTensor<T>& dst, const LocalTensor<T>& src, std::uint32_t count,
           Loc loc = Loc::current()) {
    npusim::ascendc::adv::elementwise<T, 1>("Log", dst, {src}, nullptr, count, loc,
                                            NPUSIM_ADV_BODY({
                                                Ln(out, x, m, loc);
                                                Muls(out, out, 0.4342944819032518f, m, loc);
                                            }));
}
NPUSIM_ADV_UNARY(Erf, bool isReuseSource = false,
                 NPUSIM_ADV_BODY(npusim::ascendc::adv::erf(out, x, w, loc)))
/// Acosh: ln(x + sqrt(x^2 - 1)).
NPUSIM_ADV_UNARY(Acosh, bool isReuseSource = false, NPUSIM_ADV_BODY({
                     const LocalTensor<float> t = w.slot(0);
                     Mul(t, x, x, m, loc);
                     Adds(t, t, -1.0f, m, loc);
                     Sqrt(t, t, m, loc);
                     Add(t, t, x, m, loc);
                     Ln(out, t, m, loc);
                 }))
/// Atanh: ln((1 + x) / (1 - x)) / 2.
NPUSIM_ADV_UNARY(Atanh, bool isReuseSource = false, NPUSIM_ADV_BODY({
                     const LocalTensor<float> t = w.slot(0);
                     Muls(t, x, -1.0f, m, loc);
                     Adds(t, t, 1.0f, m, loc);
                     Adds(out, x, 1.0f, m, loc);
                     Div(out, out, t, m, loc);
                     Ln(out, out, m, loc);
                     Muls(out, out, 0.5f, m, loc);
                 }))
/// Tanh: 1 - 2 / (exp(2x) + 1).
NPUSIM_ADV_UNARY(Tanh, bool isReuseSource = false, NPUSIM_ADV_BODY({
                     const LocalTensor<float> t = w.slot(0);
                     Muls(t, x, 2.0f, m, loc);
                     Exp(t, t, m, loc);
                     Adds(t, t, 1.0f, m, loc);
                     Reciprocal(t, t, m, loc);
                     Muls(t, t, -2.0f, m, loc);
                     Adds(out, t, 1.0f, m, loc);
                 }))
/// Sinh and Cosh: (exp(x) -/+ exp(-x)) / 2.
NPUSIM_ADV_UNARY(Sinh, bool isReuseSource = false, NPUSIM_ADV_BODY({
                     const LocalTensor<float> t = w.slot(0);
                     Exp(t, x, m, loc);
                     Reciprocal(out, t, m, loc);
                     Sub(out, t, out, m, loc);
                     Muls(out, out, 0.5f, m, loc);
                 }))
NPUSIM_ADV_UNARY(Cosh, bool isReuseSource = false, NPUSIM_ADV_BODY({
                     const LocalTensor<float> t = w.slot(0);
                     Exp(t, x, m, loc);
                     Reciprocal(out, t, m, loc);
                     Add(out, t, out, m, loc);
                     Muls(out, out, 0.5f, m, loc);
                 }))
/// Ceil, Floor, Trunc, Round (half away from zero): to an integer, infinities and NaN kept.
NPUSIM_ADV_UNARY(Ceil, bool isReuseSource = false,
                 NPUSIM_ADV_BODY(npusim::ascendc::adv::round_integer(out, x, RoundMode::CAST_CEIL,
                                                                     w, 0, loc)))
NPUSIM_ADV_UNARY(Floor, bool isReuseSource = false,
                 NPUSIM_ADV_BODY(npusim::ascendc::adv::round_integer(out, x,
                                                                     AscendC::RoundMode::CAST_FLOOR,
                                                                     w, 0, loc)))
NPUSIM_ADV_UNARY(Trunc, bool isReuseSource = false,
                 NPUSIM_ADV_BODY(npusim::ascendc::adv::round_integer(out, x,
                                                                     AscendC::RoundMode::CAST_TRUNC,
                                                                     w, 0, loc)))
NPUSIM_ADV_UNARY(Round, bool isReuseSource = false,
                 NPUSIM_ADV_BODY(npusim::ascendc::adv::round_integer(out, x, RoundMode::CAST_ROUND,
                                                                     w, 0, loc)))
/// Frac: x - trunc(x) (Frac(-258.41888) = -0.41888428, as the vendor's reference).
NPUSIM_ADV_UNARY(Frac, bool isReuseSource = false, NPUSIM_ADV_BODY({
                     const LocalTensor<float> t = w.slot(3);
                     npusim::ascendc::adv::round_integer(t, x, AscendC::RoundMode::CAST_TRUNC, w, 0,
                                                         loc);
                     Sub(out, x, t, m, loc);
                 }))

// Two-input APIs: Name(dst, src0, src1[, sharedTmpBuffer][, count]).
#define NPUSIM_ADV_BINARY(Name, C, body)                                                           \
    template <class T, bool isReuseSource = false>                                                 \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,   \
              const LocalTensor<std::uint8_t>& sharedTmpBuffer, std::uint32_t count,               \
              Loc loc = Loc::current()) {                                                          \
        const auto tmp = npusim::ascendc::adv::tmp_of(sharedTmpBuffer);                            \
        npusim::ascendc::adv::elementwise<T, 2, C>(#Name, dst, {src0, src1}, &tmp, count, loc,     \
                                                   body);                                          \
    }                                                                                              \
    template <class T, bool isReuseSource = false>                                                 \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,   \
              const LocalTensor<std::uint8_t>& sharedTmpBuffer, Loc loc = Loc::current()) {        \
        const auto tmp = npusim::ascendc::adv::tmp_of(sharedTmpBuffer);                            \
        npusim::ascendc::adv::elementwise<T, 2, C>(#Name, dst, {src0, src1}, &tmp, src0.GetSize(), \
                                                   loc, body);                                     \
    }                                                                                              \
    template <class T, bool isReuseSource = false>                                                 \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,   \
              std::uint32_t count, Loc loc = Loc::current()) {                                     \
        npusim::ascendc::adv::elementwise<T, 2, C>(#Name, dst, {src0, src1}, nullptr, count, loc,  \
                                                   body);                                          \
    }                                                                                              \
    template <class T, bool isReuseSource = false>                                                 \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,   \
              Loc loc = Loc::current()) {                                                          \
        npusim::ascendc::adv::elementwise<T, 2, C>(#Name, dst, {src0, src1}, nullptr,              \
                                                   src0.GetSize(), loc, body);                     \
    }
#define NPUSIM_ADV_BODY2(C, ...)                                            \
    [&](const std::array<LocalTensor<C>, 2>& in, const LocalTensor<C>& out, \
        const npusim::ascendc::adv::Work& w) {                              \
        [[maybe_unused]] const auto m = static_cast<std::int32_t>(w.count); \
        __VA_ARGS__;                                                        \
    }

/// Fmod: a - trunc(a / b) x b (the sign of a, as C's fmod).
NPUSIM_ADV_BINARY(Fmod, float, NPUSIM_ADV_BODY2(float, {
                      const LocalTensor<float> q = w.slot(3);
                      Div(q, in[0], in[1], m, loc);
                      npusim::ascendc::adv::round_integer(q, q, AscendC::RoundMode::CAST_TRUNC, w,
                                                          0, loc);
                      Mul(q, q, in[1], m, loc);
                      Sub(out, in[0], q, m, loc);
                  }))
/// Xor (int16_t, uint16_t): (a | b) & ~(a & b).
NPUSIM_ADV_BINARY(Xor, T, NPUSIM_ADV_BODY2(T, {
                      static_assert(
                          std::is_same_v<T, std::int16_t> || std::is_same_v<T, std::uint16_t>,
                          "npusim Ascend C: Xor takes int16_t or uint16_t tensors");
                      const LocalTensor<T> both = w.slot<T>(0);
                      And(both, in[0], in[1], m, loc);
                      Or(out, in[0], in[1], m, loc);
                      Not(both, both, m, loc);
                      And(out, out, both, m, loc);
                  }))
/// Power: the tensor-tensor form (base, exponent); pow semantics in npusim::ascendc::adv::power.
NPUSIM_ADV_BINARY(Power, float, NPUSIM_ADV_BODY2(float, {
                      npusim::ascendc::adv::power(out, in[0], in[1], w, loc);
                  }))
#undef NPUSIM_ADV_BODY2
#undef NPUSIM_ADV_BINARY

/// Power with a scalar exponent (base tensor) or a scalar base (exponent tensor): the scalar
/// is duplicated into temp slot 6.
template <class T, bool isReuseSource = false>
void power_scalar(const LocalTensor<T>& dst, const LocalTensor<T>& src, T scalar,
                  bool scalar_is_base, const npusim::ascendc::adv::Tmp* tmp, std::uint32_t count,
                  Loc loc) {
    const auto value = static_cast<float>(scalar);
    npusim::ascendc::adv::elementwise<T, 1>("Power", dst, {src}, tmp, count, loc, NPUSIM_ADV_BODY({
                                                const LocalTensor<float> s = w.slot(6);
                                                Duplicate(s, value, m, loc);
                                                if (scalar_is_base) {
                                                    npusim::ascendc::adv::power(out, s, x, w, loc);
                                                } else {
                                                    npusim::ascendc::adv::power(out, x, s, w, loc);
                                                }
                                            }));
}
template <class T, bool isReuseSource = false>
void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,
           const LocalTensor<std::uint8_t>& sharedTmpBuffer, std::uint32_t count,
           Loc loc = Loc::current()) {
    const auto tmp = npusim::ascendc::adv::tmp_of(sharedTmpBuffer);
    power_scalar(dst, src, scalarValue, false, &tmp, count, loc);
}
template <class T, bool isReuseSource = false>
void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,
           const LocalTensor<std::uint8_t>& sharedTmpBuffer, Loc loc = Loc::current()) {
    const auto tmp = npusim::ascendc::adv::tmp_of(sharedTmpBuffer);
    power_scalar(dst, src, scalarValue, false, &tmp, static_cast<std::uint32_t>(src.GetSize()),
                 loc);
}
template <class T, bool isReuseSource = false>
void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T& scalarValue,
           std::uint32_t count, Loc loc = Loc::current()) {
    power_scalar(dst, src, scalarValue, false, nullptr, count, loc);
}
template <class T, bool isReuseSource = false>
void Power(const LocalTensor<T>& dst, const T& scalarValue, const LocalTensor<T>& src,
           const LocalTensor<std::uint8_t>& sharedTmpBuffer, std::uint32_t count,
           Loc loc = Loc::current()) {
    const auto tmp = npusim::ascendc::adv::tmp_of(sharedTmpBuffer);
    power_scalar(dst, src, scalarValue, true, &tmp, count, loc);
}
template <class T, bool isReuseSource = false>
void Power(const LocalTensor<T>& dst, const T& scalarValue, const LocalTensor<T>& src,
           const LocalTensor<std::uint8_t>& sharedTmpBuffer, Loc loc = Loc::current()) {
    const auto tmp = npusim::ascendc::adv::tmp_of(sharedTmpBuffer);
    power_scalar(dst, src, scalarValue, true, &tmp, static_cast<std::uint32_t>(src.GetSize()), loc);
}
template <class T, bool isReuseSource = false>
void Power(const LocalTensor<T>& dst, const T& scalarValue, const LocalTensor<T>& src,
           std::uint32_t count, Loc loc = Loc::current()) {
    power_scalar(dst, src, scalarValue, true, nullptr, count, loc);
}

/// ClampMax: min(x, scalar); ClampMin: max(x, scalar). One Mins / Maxs in T (no temp needed;
/// the sharedTmpBuffer forms accept one).
template <class T, bool isReuseSource = false>
void ClampMax(const LocalTensor<T>& dst, const LocalTensor<T>& src,
              const LocalTensor<std::uint8_t>& /*sharedTmpBuffer*/, const T scalar,
              std::uint32_t count, Loc loc = Loc::current()) {
    npusim::ascendc::adv::require_count("ClampMax", count, src.GetSize(), "src", loc);
    Mins(dst, src, scalar, static_cast<std::int32_t>(count), loc);
}
template <class T, bool isReuseSource = false>
void ClampMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T scalar,
              std::uint32_t count, Loc loc = Loc::current()) {
    npusim::ascendc::adv::require_count("ClampMax", count, src.GetSize(), "src", loc);
    Mins(dst, src, scalar, static_cast<std::int32_t>(count), loc);
}
template <class T, bool isReuseSource = false>
void ClampMin(const LocalTensor<T>& dst, const LocalTensor<T>& src,
              const LocalTensor<std::uint8_t>& /*sharedTmpBuffer*/, const T scalar,
              std::uint32_t count, Loc loc = Loc::current()) {
    npusim::ascendc::adv::require_count("ClampMin", count, src.GetSize(), "src", loc);
    Maxs(dst, src, scalar, static_cast<std::int32_t>(count), loc);
}
template <class T, bool isReuseSource = false>
void ClampMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const T scalar,
              std::uint32_t count, Loc loc = Loc::current()) {
    npusim::ascendc::adv::require_count("ClampMin", count, src.GetSize(), "src", loc);
    Maxs(dst, src, scalar, static_cast<std::int32_t>(count), loc);
}

/// The advanced Axpy(dst, src, scalar, sharedTmpBuffer, count): dst += src x scalar with a
/// float dst and a half src (src cast to float in the temp buffer, then Muls and Add); same
/// types: the basic Axpy instruction.
template <class T, class U, bool isReuseSource = false>
void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U scalarValue,
          const LocalTensor<std::uint8_t>& sharedTmpBuffer, std::uint32_t count,
          Loc loc = Loc::current()) {
    npusim::ascendc::adv::require_count("Axpy", count, dst.GetSize(), "dst", loc);
    npusim::ascendc::adv::require_count("Axpy", count, src.GetSize(), "src", loc);
    if constexpr (std::is_same_v<T, U>) {
        Axpy(dst, src, scalarValue, static_cast<std::int32_t>(count), loc);
    } else {
        static_assert(std::is_same_v<T, float> && std::is_same_v<U, half>,
                      "npusim Ascend C: Axpy takes T = U, or a float dst and a half src");
        const auto shared = npusim::ascendc::adv::tmp_of(sharedTmpBuffer);
        const auto tmp = npusim::ascendc::adv::checked_tmp("Axpy", count, sizeof(U), &shared, loc);
        const std::uint64_t chunk =
            tmp.bytes / 4 / npusim::ascendc::kAdvGranule * npusim::ascendc::kAdvGranule;
        for (std::uint64_t at = 0; at < count; at += chunk) {
            const auto m = static_cast<std::int32_t>(std::min<std::uint64_t>(chunk, count - at));
            const LocalTensor<float> t(npusim::LocalTensor<float>{npusim::MemSpace::UB, tmp.address,
                                                                  static_cast<std::uint64_t>(m)},
                                       TPosition::VECCALC);
            Cast(t, src[at], RoundMode::CAST_NONE, m, loc);
            Muls(t, t, static_cast<float>(scalarValue), m, loc);
            Add(dst[at], dst[at], t, m, loc);
        }
    }
}

// Ascend 950 math APIs (not on Atlas A2 / A3): compile errors that say so.
#define NPUSIM_ADV_950_ONLY(Name)                                   \
    template <class... T, class... Args>                            \
    void Name(Args&&...) {                                          \
        static_assert(npusim::ascendc::kAlwaysFalse<Args...>,       \
                      "npusim Ascend C: " #Name                     \
                      " is an Ascend 950 API (not on Atlas A2/A3, " \
                      "which npusim models; docs/ascendc.md)");     \
    }
NPUSIM_ADV_950_ONLY(Rint)
NPUSIM_ADV_950_ONLY(Fma)
NPUSIM_ADV_950_ONLY(Where)
NPUSIM_ADV_950_ONLY(Clamp)
NPUSIM_ADV_950_ONLY(IsFinite)
NPUSIM_ADV_950_ONLY(BitwiseAnd)
NPUSIM_ADV_950_ONLY(LogicalAnd)
#undef NPUSIM_ADV_950_ONLY

}  // namespace AscendC
