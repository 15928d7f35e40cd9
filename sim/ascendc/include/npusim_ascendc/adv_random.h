// PhiloxRandom (vendor API reference, "PhiloxRandom"): the Philox4x32 counter-based generator
// (7 or 10 rounds), composed of basic PIPE_V instructions at the kernel's line in UB the API
// reserves (adv_support.h; the API takes no temp buffer).
//
// Output group q (4 values) is Philox4x32(counter + ctr(q), key): continuous mode ctr(q) = q;
// stride mode (rows of `column` values, rows `stride` values apart in the counter space)
// ctr(q) = q + floor(q / (column / 4)) x (stride - column) / 4. Each round, with the
// multipliers M0 = 0xD2511F53, M1 = 0xCD9E8D57:
//   (hi0, lo0) = M0 x c0, (hi1, lo1) = M1 x c2 (64-bit products),
//   c = {hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0}, then the key grows by {0x9E3779B9, 0xBB67AE85}
// (not after the last round). Out: c0, c1, c2, c3 of each group in turn; float output is the
// low 23 bits as a mantissa of [1, 2), minus 1. The counters of one chunk are four vectors:
// 32 x 32 -> 64 products from 16-bit halves (Muls, shifts, Add), XOR as (a | b) & ~(a & b)
// on 16-bit views, the interleave a Gather.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <type_traits>

#include "npusim_ascendc/adv_norm_quant_tiling.h"
#include "npusim_ascendc/adv_support.h"
#include "npusim_ascendc/gather_sort.h"
#include "npusim_ascendc/vector_bits.h"

namespace AscendC {

using PhiloxKey = std::uint32_t[2];
using PhiloxCounter = std::uint32_t[4];
struct PhiloxRandomParams {
    std::uint32_t stride;
    std::uint32_t row;
    std::uint32_t column;
};

}  // namespace AscendC

namespace npusim::ascendc {

inline constexpr std::uint32_t kPhiloxM[2] = {0xD2511F53U, 0xCD9E8D57U};
inline constexpr std::uint32_t kPhiloxW[2] = {0x9E3779B9U, 0xBB67AE85U};
/// Counter vectors of a chunk: 4 counters, 4 products, 8 scratch, 2 keys, 4 offsets.
inline constexpr std::uint32_t kPhiloxSlots = 22;
inline constexpr std::uint64_t kPhiloxMaxChunk = 256;

using U32 = AscendC::LocalTensor<std::uint32_t>;

struct PhiloxChunk {
    std::uint64_t address = 0, c = 0;  // slot base, counters per slot (a multiple of 8)
    /// Slots i .. i + count - 1 as one tensor.
    U32 slot(std::uint32_t i, std::uint32_t count = 1) const {
        return {npusim::LocalTensor<std::uint32_t>{MemSpace::UB, address + i * c * 4, count * c},
                AscendC::TPosition::VECCALC};
    }
};

/// dst = a ^ b over n uint32 (on 16-bit views; `t` scratch).
inline void philox_xor(const U32& dst, const U32& a, const U32& b, const U32& t, std::uint64_t n,
                       const Loc& loc) {
    const auto h = static_cast<std::int32_t>(2 * n);
    const auto d16 = dst.template ReinterpretCast<std::uint16_t>(),
               a16 = a.template ReinterpretCast<std::uint16_t>(),
               b16 = b.template ReinterpretCast<std::uint16_t>(),
               t16 = t.template ReinterpretCast<std::uint16_t>();
    AscendC::And(t16, a16, b16, h, loc);
    AscendC::Not(t16, t16, h, loc);
    AscendC::Or(d16, a16, b16, h, loc);
    AscendC::And(d16, d16, t16, h, loc);
}

/// (hi, lo) = the 64-bit product m x c over n uint32; s: 8 scratch slots.
inline void philox_mulhilo(const U32& hi, const U32& lo, const U32& c, std::uint32_t m,
                           const std::array<U32, 8>& s, std::uint64_t n, const Loc& loc) {
    const auto k = static_cast<std::int32_t>(n);
    const std::uint32_t ml = m & 0xFFFFU, mh = m >> 16;
    const U32 &chi = s[0], &clo = s[1], &t = s[2], &mid = s[3];
    const U32 &p0 = s[4], &p1 = s[5], &p2 = s[6], &p3 = s[7];
    AscendC::Muls(lo, c, m, k, loc);
    AscendC::ShiftRight(chi, c, 16U, k, loc);
    AscendC::ShiftLeft(t, chi, 16U, k, loc);
    AscendC::Sub(clo, c, t, k, loc);
    AscendC::Muls(p0, clo, ml, k, loc);
    AscendC::Muls(p1, clo, mh, k, loc);
    AscendC::Muls(p2, chi, ml, k, loc);
    AscendC::Muls(p3, chi, mh, k, loc);
    // The carry out of the low half: (p0 >> 16) + low16(p1) + low16(p2), then >> 16.
    AscendC::ShiftRight(mid, p0, 16U, k, loc);
    for (const U32* p : {&p1, &p2}) {
        AscendC::ShiftLeft(t, *p, 16U, k, loc);
        AscendC::ShiftRight(t, t, 16U, k, loc);
        AscendC::Add(mid, mid, t, k, loc);
    }
    AscendC::ShiftRight(mid, mid, 16U, k, loc);
    AscendC::Add(hi, p3, mid, k, loc);
    for (const U32* p : {&p1, &p2}) {
        AscendC::ShiftRight(t, *p, 16U, k, loc);
        AscendC::Add(hi, hi, t, k, loc);
    }
}

/// Writes groups [q0, q0 + n) of output (values 4 q0 .. 4 q0 + count) into dst.
template <std::uint16_t Rounds, class T>
void philox_chunk(const AscendC::LocalTensor<T>& dst, const std::uint32_t key[2],
                  const std::uint32_t counter[4], std::uint64_t q0, std::uint64_t n,
                  std::uint64_t values, std::uint64_t cols4, std::uint64_t skip,
                  const PhiloxChunk& w, const Loc& loc) {
    const auto k = static_cast<std::int32_t>(n);
    std::array<std::uint32_t, 8> at = {0, 1, 2, 3, 4, 5, 6, 7};  // X0..X3, H0, L0, H1, L1
    const auto x = [&](std::uint32_t i) -> U32 { return w.slot(at[i]); };
    std::array<U32, 8> s;
    for (std::uint32_t i = 0; i < 8; ++i) s[i] = w.slot(8 + i);
    const U32 k0 = w.slot(16), k1 = w.slot(17);
    // ctr(q) = q + floor((q + 0.5) / cols4) x skip, computed in int32 / float.
    const auto q = x(0).template ReinterpretCast<std::int32_t>();
    AscendC::CreateVecIndex(q, static_cast<std::int32_t>(q0), static_cast<std::uint32_t>(n), loc);
    if (skip != 0) {
        const auto qf = s[0].template ReinterpretCast<float>();
        const auto r = s[1].template ReinterpretCast<std::int32_t>();
        AscendC::Cast(qf, q, AscendC::RoundMode::CAST_NONE, k, loc);
        AscendC::Adds(qf, qf, 0.5F, k, loc);
        AscendC::Muls(qf, qf, 1.0F / static_cast<float>(cols4), k, loc);
        AscendC::Cast(r, qf, AscendC::RoundMode::CAST_FLOOR, k, loc);
        AscendC::Muls(r, r, static_cast<std::int32_t>(skip), k, loc);
        AscendC::Add(q, q, r, k, loc);
    }
    AscendC::Adds(x(0), x(0), counter[0], k, loc);
    for (std::uint32_t i = 1; i < 4; ++i) AscendC::Duplicate(x(i), counter[i], k, loc);
    std::uint32_t key0 = key[0], key1 = key[1];
    for (std::uint16_t round = 0; round < Rounds; ++round) {
        philox_mulhilo(x(4), x(5), x(0), kPhiloxM[0], s, n, loc);
        philox_mulhilo(x(6), x(7), x(2), kPhiloxM[1], s, n, loc);
        AscendC::Duplicate(k0, key0, k, loc);
        AscendC::Duplicate(k1, key1, k, loc);
        philox_xor(x(1), x(6), x(1), s[0], n, loc);
        philox_xor(x(1), x(1), k0, s[0], n, loc);
        philox_xor(x(3), x(4), x(3), s[0], n, loc);
        philox_xor(x(3), x(3), k1, s[0], n, loc);
        // New counters {X1, L1, X3, L0}; X0, X2, H0, H1 become the next products.
        at = {at[1], at[7], at[3], at[5], at[0], at[2], at[4], at[6]};
        key0 += kPhiloxW[0];
        key1 += kPhiloxW[1];
    }
    // The four counter vectors side by side in s[0..3] (c apart), interleaved into dst by a
    // Gather: value e = 4 i + j is s[j][i], at byte 4 (j c + i) = 4 c e + (4 - 16 c) i (the
    // slots' unused tails zeroed: the Gather reads the whole span).
    const U32 side = w.slot(8, 4);
    if (n < w.c) AscendC::Duplicate(side, 0U, static_cast<std::int32_t>(4 * w.c), loc);
    for (std::uint32_t i = 0; i < 4; ++i) AscendC::Adds(s[i], x(i), 0U, k, loc);
    const auto m = static_cast<std::int32_t>(4 * n);
    const auto e =
        w.slot(18, 4).template ReinterpretCast<std::int32_t>();  // slots 18..21: 4 n values
    const auto i4 = w.slot(12, 4).template ReinterpretCast<std::int32_t>();  // s[4..7]: 4 n values
    const auto c = static_cast<std::int32_t>(w.c);
    AscendC::CreateVecIndex(e, 0, static_cast<std::uint32_t>(m), loc);
    AscendC::ShiftRight(i4, e, 2, m, loc);
    AscendC::Muls(i4, i4, 4 - 16 * c, m, loc);
    AscendC::Muls(e, e, 4 * c, m, loc);
    AscendC::Add(e, e, i4, m, loc);
    const auto out = std::min<std::uint64_t>(4 * n, values - 4 * q0);
    AscendC::Gather(dst.template ReinterpretCast<std::uint32_t>()[4 * q0], side,
                    e.template ReinterpretCast<std::uint32_t>(), 0, static_cast<std::uint32_t>(out),
                    loc);
}

/// PhiloxRandom of `groups` output groups (`values` values) into dst; see the file comment.
template <std::uint16_t Rounds, class T>
void adv_philox(const AscendC::LocalTensor<T>& dst, const std::uint32_t key[2],
                const std::uint32_t counter[4], std::uint64_t groups, std::uint64_t values,
                std::uint64_t cols4, std::uint64_t skip, const Loc& loc) {
    static_assert(Rounds == 7 || Rounds == 10, "npusim Ascend C: PhiloxRandom's Rounds is 7 or 10");
    static_assert(std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::int32_t> ||
                      std::is_same_v<T, float>,
                  "npusim Ascend C: PhiloxRandom writes uint32_t, int32_t or float");
    constexpr const char* api = "PhiloxRandom";
    if (values == 0) return;
    if (dst.GetSize() < values) {
        adv::fail(loc, api,
                  "dstLocal holds " + std::to_string(dst.GetSize()) + " elements, " +
                      std::to_string(values) + " are generated");
    }
    const std::uint64_t last = groups - 1 + (cols4 == 0 ? 0 : (groups - 1) / cols4 * skip);
    if (std::uint64_t{counter[0]} + last > 0xFFFFFFFFULL || groups >= (1ULL << 22)) {
        not_supported_yet(loc,
                          "PhiloxRandom with a counter whose low word carries over (or 2^22 "
                          "groups and more)");
    }
    const std::uint64_t want = std::min<std::uint64_t>(kPhiloxMaxChunk, align8(groups));
    const adv::Tmp tmp = adv::internal_tmp(api, kPhiloxSlots * 8 * 4, kPhiloxSlots * want * 4, loc);
    const std::uint64_t c = std::min<std::uint64_t>(want, tmp.bytes / (kPhiloxSlots * 4) / 8 * 8);
    const PhiloxChunk w{tmp.address, c};
    for (std::uint64_t q0 = 0; q0 < groups; q0 += c) {
        philox_chunk<Rounds>(dst, key, counter, q0, std::min(c, groups - q0), values, cols4, skip,
                             w, loc);
    }
    if constexpr (std::is_same_v<T, float>) {
        // [1, 2) from the low 23 bits, minus 1.
        const auto u = dst.template ReinterpretCast<std::uint32_t>();
        const auto k = static_cast<std::int32_t>(values);
        AscendC::ShiftLeft(u, u, 9U, k, loc);
        AscendC::ShiftRight(u, u, 9U, k, loc);
        AscendC::Adds(u, u, 0x3F800000U, k, loc);
        AscendC::Adds(dst, dst, -1.0F, k, loc);
    }
}

}  // namespace npusim::ascendc

namespace AscendC {

/// PhiloxRandom<Rounds, T>(dstLocal, philoxKey, philoxCounter, count): `count` values, the
/// counter growing by one every 4 values.
template <std::uint16_t Rounds = 7, class T>
void PhiloxRandom(const LocalTensor<T>& dstLocal, const PhiloxKey& philoxKey,
                  const PhiloxCounter& philoxCounter, std::uint16_t count,
                  Loc loc = Loc::current()) {
    npusim::ascendc::adv_philox<Rounds>(dstLocal, philoxKey, philoxCounter, (count + 3U) / 4U,
                                        count, 0, 0, loc);
}
/// PhiloxRandom<Rounds, T>(dstLocal, philoxKey, philoxCounter, {stride, row, column}): `row`
/// rows of `column` values written one after another, the counter space rows `stride` values
/// apart (column and stride multiples of 4, stride >= column, else a KernelError).
template <std::uint16_t Rounds = 7, class T>
void PhiloxRandom(const LocalTensor<T>& dstLocal, const PhiloxKey& philoxKey,
                  const PhiloxCounter& philoxCounter, const PhiloxRandomParams& params,
                  Loc loc = Loc::current()) {
    if (params.column % 4 != 0 || params.stride % 4 != 0 || params.stride < params.column) {
        npusim::ascendc::adv::fail(loc, "PhiloxRandom",
                                   "params need column % 4 == 0, stride % 4 == 0 and stride >= "
                                   "column (stride " +
                                       std::to_string(params.stride) + ", column " +
                                       std::to_string(params.column) + ")");
    }
    const std::uint64_t values = std::uint64_t{params.row} * params.column;
    npusim::ascendc::adv_philox<Rounds>(dstLocal, philoxKey, philoxCounter, values / 4, values,
                                        params.column / 4, (params.stride - params.column) / 4,
                                        loc);
}

}  // namespace AscendC
