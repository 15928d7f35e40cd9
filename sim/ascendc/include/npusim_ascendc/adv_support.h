// The machinery of the advanced element-wise APIs (adv_activation.h, adv_math.h): the temp
// buffer (the caller's sharedTmpBuffer, or UB the API reserves itself), its size check, and
// the chunk loop that casts half / bfloat16 inputs to float and back. Every step is a basic
// vector API call (vector.h, compare_select.h) at the caller's source line, so the timing,
// the trace and the checker see the PIPE_V instructions the composition issues.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "npusim_ascendc/adv_tmp_size.h"
#include "npusim_ascendc/compare_select.h"
#include "npusim_ascendc/vector.h"

namespace npusim::ascendc::adv {

using AscendC::LocalTensor;

template <class T>
inline constexpr bool kFloatType = std::is_same_v<T, float> || std::is_same_v<T, npusim::half> ||
                                   std::is_same_v<T, npusim::bfloat16>;

/// A temp region of UB: {byte address, bytes}.
struct Tmp {
    std::uint64_t address = 0;
    std::uint64_t bytes = 0;
};

inline Tmp tmp_of(const LocalTensor<std::uint8_t>& shared) {
    return {shared.native().address, shared.GetSize()};
}

[[noreturn]] inline void fail(const Loc& loc, std::string_view api, const std::string& what) {
    throw KernelError(EventIds::where(loc) + std::string(api) + ": " + what);
}

/// UB the API reserves when no sharedTmpBuffer is given (the vendor takes it from UB the
/// TPipe left free): allocated from the block's UB at the first such call and kept for the
/// block's later calls, grown when a later call wants more. Too little UB left is a
/// KernelError naming the line.
inline Tmp internal_tmp(std::string_view api, std::uint64_t min_bytes, std::uint64_t want_bytes,
                        const Loc& loc) {
    KernelContext& ctx = context(loc);
    auto& reserved = ctx.adv_tmp();
    if (reserved.second >= want_bytes) return {reserved.first, reserved.second};
    Resume resume(ctx);
    for (const std::uint64_t bytes : {want_bytes, std::max<std::uint64_t>(min_bytes, 1)}) {
        if (bytes <= reserved.second) break;
        try {
            const auto t = ctx.block().alloc<std::uint8_t>(MemSpace::UB, bytes, loc);
            reserved = {t.address, bytes};
            return {reserved.first, reserved.second};
        } catch (const KernelError&) {
        }
    }
    if (reserved.second >= min_bytes) return {reserved.first, reserved.second};
    fail(loc, api,
         "no sharedTmpBuffer given and " + std::to_string(min_bytes) +
             " bytes of UB for the internal temp buffer are not free (pass a sharedTmpBuffer; "
             "docs/ascendc.md, advanced APIs)");
}

/// Views into one chunk of the temp buffer: slot i holds `chunk` elements of `bytes` each.
struct Work {
    std::uint64_t address = 0;
    std::uint64_t chunk = 0;
    std::uint64_t count = 0;  // elements in this chunk
    std::uint64_t bytes = 4;  // bytes per element of a slot
    template <class U = float>
    LocalTensor<U> slot(std::uint32_t i) const {
        return {npusim::LocalTensor<U>{MemSpace::UB, address + i * chunk * bytes, count},
                AscendC::TPosition::VECCALC};
    }
};

inline void require_count(std::string_view api, std::uint64_t count, std::uint64_t size,
                          const char* operand, const Loc& loc) {
    if (size != 0 && count > size) {
        fail(loc, api,
             "calCount " + std::to_string(count) + " exceeds " + operand + "'s " +
                 std::to_string(size) + " elements");
    }
}

/// The temp region for `count` elements of `api` (the caller's, else the internal one) after
/// the size check; {0, 0} when the API needs none.
inline Tmp checked_tmp(std::string_view api, std::uint64_t count, std::uint32_t type_size,
                       const Tmp* shared, const Loc& loc) {
    const AdvNeed need = adv_need(api);
    if (adv_bytes_per_element(need, type_size) == 0) return {};
    const std::uint64_t min_bytes = adv_min_tmp(need, count, type_size);
    const Tmp tmp = shared != nullptr
                        ? *shared
                        : internal_tmp(api, min_bytes, adv_max_tmp(need, count, type_size), loc);
    if (tmp.bytes < min_bytes) {
        fail(loc, api,
             "sharedTmpBuffer holds " + std::to_string(tmp.bytes) + " bytes, at least " +
                 std::to_string(min_bytes) + " are needed (Get" + std::string(api) +
                 "MaxMinTmpSize)");
    }
    return tmp;
}

/// The temp region of at least `need` bytes (the caller's sharedTmpBuffer, else reserved UB)
/// as float elements, for the APIs whose size rule is their own (LayerNorm, Pad, UnPad).
inline LocalTensor<float> sized_float_tmp(const char* api, std::uint64_t need,
                                          const LocalTensor<std::uint8_t>* shared, const Loc& loc) {
    const Tmp tmp = shared != nullptr ? tmp_of(*shared) : internal_tmp(api, need, need, loc);
    if (tmp.bytes < need) {
        fail(loc, api,
             "sharedTmpBuffer holds " + std::to_string(tmp.bytes) + " bytes, at least " +
                 std::to_string(need) + " are needed (Get" + api + "MaxMinTmpSize)");
    }
    return {npusim::LocalTensor<float>{MemSpace::UB, tmp.address, tmp.bytes / 4},
            AscendC::TPosition::VECCALC};
}

/// Runs `body(in, out, work)` over chunks of the count elements, computing in C (float, or T
/// itself for the integer APIs): `in` the inputs, `out` the result view (when C is T: the
/// sources and dst themselves, so body must not read an input after writing out), `work` the
/// chunk's temp slots. half / bfloat16 inputs are cast to float slots first and the result
/// cast back with round-to-nearest-even.
template <class T, std::size_t In, class C = float, class Body>
void elementwise(std::string_view api, const LocalTensor<T>& dst,
                 const std::array<LocalTensor<T>, In>& src, const Tmp* shared, std::uint64_t count,
                 const Loc& loc, Body body) {
    static_assert(kFloatType<T> || std::is_same_v<C, T>,
                  "npusim Ascend C: this advanced API takes half, float or bfloat16_t tensors");
    const AdvNeed need = adv_need(api);
    require_count(api, count, dst.GetSize(), "dst", loc);
    for (const auto& s : src) require_count(api, count, s.GetSize(), "src", loc);
    if (count == 0) return;
    const std::uint64_t per = adv_bytes_per_element(need, sizeof(T));
    const Tmp tmp = checked_tmp(api, count, sizeof(T), shared, loc);
    const std::uint64_t chunk = per == 0 ? count : tmp.bytes / per / kAdvGranule * kAdvGranule;
    for (std::uint64_t at = 0; at < count; at += chunk) {
        const Work w{tmp.address, chunk, std::min(chunk, count - at), sizeof(C)};
        const auto m = static_cast<std::int32_t>(w.count);
        std::array<LocalTensor<C>, In> in{};
        if constexpr (std::is_same_v<C, T>) {
            for (std::size_t j = 0; j < In; ++j) in[j] = src[j][at];
            body(in, dst[at], w);
        } else {
            for (std::size_t j = 0; j < In; ++j) {
                in[j] = w.slot(need.work + static_cast<std::uint32_t>(j));
                AscendC::Cast(in[j], src[j][at], AscendC::RoundMode::CAST_NONE, m, loc);
            }
            const LocalTensor<float> out = w.slot(need.work + static_cast<std::uint32_t>(In));
            body(in, out, w);
            AscendC::Cast(dst[at], out, AscendC::RoundMode::CAST_RINT, m, loc);
        }
    }
}

/// out = x rounded to an integer under `mode` (CAST_FLOOR, CAST_CEIL, CAST_TRUNC, CAST_ROUND,
/// CAST_RINT): through int32 where |x| < 2^23; larger values, infinities and NaN are already
/// integral and kept. Uses work slots s, s + 1 and s + 2 (int32, |x|, the mask bits).
inline void round_integer(const LocalTensor<float>& out, const LocalTensor<float>& x,
                          AscendC::RoundMode mode, const Work& w, std::uint32_t s, const Loc& loc) {
    const auto m = static_cast<std::int32_t>(w.count);
    const LocalTensor<std::int32_t> as_int = w.slot<std::int32_t>(s);
    const LocalTensor<float> magnitude = w.slot(s + 1);
    const LocalTensor<std::uint8_t> small = w.slot<std::uint8_t>(s + 2);
    AscendC::Abs(magnitude, x, m, loc);
    AscendC::CompareScalar(small, magnitude, 8388608.0f, AscendC::CMPMODE::LT,
                           static_cast<std::uint32_t>(m), loc);
    AscendC::Cast(as_int, x, mode, m, loc);
    AscendC::Cast(magnitude, as_int, AscendC::RoundMode::CAST_NONE, m, loc);
    AscendC::Select(out, small, magnitude, x, AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE,
                    static_cast<std::uint32_t>(m), loc);
}

}  // namespace npusim::ascendc::adv

// One-input APIs: Name(dst, src, sharedTmpBuffer, count), Name(dst, src, count),
// Name(dst, src, sharedTmpBuffer), Name(dst, src) (count: src's size).
#define NPUSIM_ADV_UNARY(Name, Params, body)                                                    \
    template <class T, Params>                                                                  \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                             \
              const LocalTensor<std::uint8_t>& sharedTmpBuffer, std::uint32_t count,            \
              Loc loc = Loc::current()) {                                                       \
        const auto tmp = npusim::ascendc::adv::tmp_of(sharedTmpBuffer);                         \
        npusim::ascendc::adv::elementwise<T, 1>(#Name, dst, {src}, &tmp, count, loc, body);     \
    }                                                                                           \
    template <class T, Params>                                                                  \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, std::uint32_t count,        \
              Loc loc = Loc::current()) {                                                       \
        npusim::ascendc::adv::elementwise<T, 1>(#Name, dst, {src}, nullptr, count, loc, body);  \
    }                                                                                           \
    template <class T, Params>                                                                  \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src,                             \
              const LocalTensor<std::uint8_t>& sharedTmpBuffer, Loc loc = Loc::current()) {     \
        const auto tmp = npusim::ascendc::adv::tmp_of(sharedTmpBuffer);                         \
        npusim::ascendc::adv::elementwise<T, 1>(#Name, dst, {src}, &tmp, src.GetSize(), loc,    \
                                                body);                                          \
    }                                                                                           \
    template <class T, Params>                                                                  \
    void Name(const LocalTensor<T>& dst, const LocalTensor<T>& src, Loc loc = Loc::current()) { \
        npusim::ascendc::adv::elementwise<T, 1>(#Name, dst, {src}, nullptr, src.GetSize(), loc, \
                                                body);                                          \
    }

#define NPUSIM_ADV_COMMA ,
#define NPUSIM_ADV_BODY(...)                                                        \
    [&](const std::array<LocalTensor<float>, 1>& in, const LocalTensor<float>& out, \
        const npusim::ascendc::adv::Work& w) {                                      \
        [[maybe_unused]] const auto m = static_cast<std::int32_t>(w.count);         \
        [[maybe_unused]] const LocalTensor<float>& x = in[0];                       \
        __VA_ARGS__;                                                                \
    }
