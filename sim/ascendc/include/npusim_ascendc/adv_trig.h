// The advanced trigonometric APIs (the vendor's lib/math): Sin, Cos, Tan, Asin, Acos, Atan,
// each composed of basic vector APIs at the caller's line in float (adv_support.h; half and
// bfloat16 cast in and out). Temp needs: adv_tmp_size.h's table.
//   Sin / Cos: k = rint(x / pi) (Cos: rint(x / pi - 1/2)), r = x - k' pi with pi split in two
//     (Cody-Waite: k' pi_hi exact), sin(r) by its Taylor polynomial to r^11 (|r| <= pi/2,
//     error below 1e-7 relative), the sign (-1)^k from k's parity (Cos: -(-1)^k).
//   Tan = Sin / Cos. Atan: a = |x|, a > 1 -> 1 / a, two half-angle steps t / (1 + sqrt(1 +
//     t^2)) to t <= tan(pi/16), atan's series to t^11, x 4, pi/2 - v where a > 1, x's sign.
//   Asin = Atan(x / sqrt((1 - x)(1 + x))), Acos = pi/2 - Asin. Accuracy: within about 1e-6
//   absolute for |x| up to 1e4 (Sin / Cos: the reduction's error grows with |x|).
#pragma once

#include <cstdint>

#include "npusim_ascendc/adv_support.h"

namespace npusim::ascendc::adv {

inline constexpr float kPi = 3.14159265358979F, kHalfPi = 1.57079632679490F;

/// out = sin(x) (shift 0) or cos(x) (shift 1); slots s .. s + 6.
inline void sin_cos(const LocalTensor<float>& out, const LocalTensor<float>& x, bool cosine,
                    const Work& w, std::uint32_t s, const Loc& loc) {
    using namespace AscendC;
    const auto m = static_cast<std::int32_t>(w.count);
    const LocalTensor<float> k = w.slot(s), r = w.slot(s + 1), p = w.slot(s + 2),
                             sign = w.slot(s + 3);
    Muls(k, x, 1.0F / kPi, m, loc);
    if (cosine) Adds(k, k, -0.5F, m, loc);
    round_integer(k, k, AscendC::RoundMode::CAST_RINT, w, s + 4, loc);
    // r = x - (k [+ 1/2]) pi, pi = 3.140625 + 9.6765358979e-4 (the first part exact in k').
    if (cosine) Adds(sign, k, 0.5F, m, loc);
    const LocalTensor<float>& kp = cosine ? sign : k;
    Muls(r, kp, -3.140625F, m, loc);
    Add(r, r, x, m, loc);
    Muls(p, kp, -9.6765358979e-4F, m, loc);
    Add(r, r, p, m, loc);
    // The sign: parity q = k - 2 floor(k / 2); (-1)^k = 1 - 2 q (Cos: 2 q - 1).
    Muls(sign, k, 0.5F, m, loc);
    round_integer(sign, sign, AscendC::RoundMode::CAST_FLOOR, w, s + 4, loc);
    Muls(sign, sign, -2.0F, m, loc);
    Add(sign, sign, k, m, loc);
    Muls(sign, sign, cosine ? 2.0F : -2.0F, m, loc);
    Adds(sign, sign, cosine ? -1.0F : 1.0F, m, loc);
    // sin(r) = r (1 + r^2 (-1/6 + r^2 (1/120 + r^2 (-1/5040 + r^2 (1/362880 - r^2 / 39916800))))).
    Mul(k, r, r, m, loc);
    Muls(p, k, -2.5052108e-8F, m, loc);
    for (const float c : {2.7557319e-6F, -1.9841270e-4F, 8.3333333e-3F, -1.6666667e-1F, 1.0F}) {
        Adds(p, p, c, m, loc);
        if (c != 1.0F) Mul(p, p, k, m, loc);
    }
    Mul(p, p, r, m, loc);
    Mul(out, p, sign, m, loc);
}

/// out = atan(x); slots s .. s + 6.
inline void arctan(const LocalTensor<float>& out, const LocalTensor<float>& x, const Work& w,
                   std::uint32_t s, const Loc& loc) {
    using namespace AscendC;
    const auto m = static_cast<std::int32_t>(w.count);
    const auto n = static_cast<std::uint32_t>(w.count);
    const LocalTensor<float> a = w.slot(s), inv = w.slot(s + 1), t = w.slot(s + 2),
                             q = w.slot(s + 3), p = w.slot(s + 6);
    const LocalTensor<std::uint8_t> big = w.slot<std::uint8_t>(s + 4),
                                    negative = w.slot<std::uint8_t>(s + 5);
    constexpr auto kMode = SELMODE::VSEL_TENSOR_TENSOR_MODE;
    Abs(a, x, m, loc);
    CompareScalar(big, a, 1.0F, CMPMODE::GT, n, loc);
    CompareScalar(negative, x, 0.0F, CMPMODE::LT, n, loc);
    Reciprocal(inv, a, m, loc);
    Select(t, big, inv, a, kMode, n, loc);
    for (int step = 0; step < 2; ++step) {  // atan(t) = 2 atan(t / (1 + sqrt(1 + t^2)))
        Mul(q, t, t, m, loc);
        Adds(q, q, 1.0F, m, loc);
        Sqrt(q, q, m, loc);
        Adds(q, q, 1.0F, m, loc);
        Div(t, t, q, m, loc);
    }
    // atan(t) = t (1 + t^2 (-1/3 + t^2 (1/5 + t^2 (-1/7 + t^2 (1/9 - t^2 / 11))))), x 4.
    Mul(q, t, t, m, loc);
    Muls(p, q, -1.0F / 11.0F, m, loc);
    for (const float c : {1.0F / 9.0F, -1.0F / 7.0F, 1.0F / 5.0F, -1.0F / 3.0F, 1.0F}) {
        Adds(p, p, c, m, loc);
        if (c != 1.0F) Mul(p, p, q, m, loc);
    }
    Mul(p, p, t, m, loc);
    Muls(p, p, 4.0F, m, loc);
    Muls(inv, p, -1.0F, m, loc);
    Adds(inv, inv, kHalfPi, m, loc);
    Select(p, big, inv, p, kMode, n, loc);
    Muls(inv, p, -1.0F, m, loc);
    Select(out, negative, inv, p, kMode, n, loc);
}

/// out = asin(x) (acos: pi/2 - asin); slots 0 .. 8.
inline void asin_acos(const LocalTensor<float>& out, const LocalTensor<float>& x, bool acos,
                      const Work& w, const Loc& loc) {
    using namespace AscendC;
    const auto m = static_cast<std::int32_t>(w.count);
    const LocalTensor<float> y = w.slot(7), d = w.slot(8);
    Muls(y, x, -1.0F, m, loc);
    Adds(y, y, 1.0F, m, loc);
    Adds(d, x, 1.0F, m, loc);
    Mul(d, d, y, m, loc);
    Sqrt(d, d, m, loc);
    Div(y, x, d, m, loc);
    arctan(out, y, w, 0, loc);
    if (acos) {
        Muls(out, out, -1.0F, m, loc);
        Adds(out, out, kHalfPi, m, loc);
    }
}

}  // namespace npusim::ascendc::adv

namespace AscendC {

/// Sin, Cos, Tan, Asin, Acos, Atan<T, isReuseSource>(dst, src[, sharedTmpBuffer][, calCount])
/// for half, float and bfloat16_t (see above).
NPUSIM_ADV_UNARY(Sin, bool isReuseSource = false,
                 NPUSIM_ADV_BODY(npusim::ascendc::adv::sin_cos(out, x, false, w, 0, loc)))
NPUSIM_ADV_UNARY(Cos, bool isReuseSource = false,
                 NPUSIM_ADV_BODY(npusim::ascendc::adv::sin_cos(out, x, true, w, 0, loc)))
NPUSIM_ADV_UNARY(Tan, bool isReuseSource = false, NPUSIM_ADV_BODY({
                     npusim::ascendc::adv::sin_cos(w.slot(7), x, false, w, 0, loc);
                     npusim::ascendc::adv::sin_cos(out, x, true, w, 0, loc);
                     Div(out, w.slot(7), out, m, loc);
                 }))
NPUSIM_ADV_UNARY(Atan, bool isReuseSource = false,
                 NPUSIM_ADV_BODY(npusim::ascendc::adv::arctan(out, x, w, 0, loc)))
NPUSIM_ADV_UNARY(Asin, bool isReuseSource = false,
                 NPUSIM_ADV_BODY(npusim::ascendc::adv::asin_acos(out, x, false, w, loc)))
NPUSIM_ADV_UNARY(Acos, bool isReuseSource = false,
                 NPUSIM_ADV_BODY(npusim::ascendc::adv::asin_acos(out, x, true, w, loc)))

}  // namespace AscendC
