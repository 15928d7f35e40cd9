// Transpose (the 16 x 16 form of 2-byte types and TransposeParamsExt: [N,C,H,W] <-> [N,H,W,C])
// and TransDataTo5HD (16 address lists, 2-byte types) on PIPE_V, with the semantics of the
// vendor's API reference (docs/ascendc.md, "API status"), each a native Transpose instruction.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "npusim_ascendc/gather_sort.h"
#include "npusim_ascendc/vector.h"

namespace AscendC {

/// The vendor's TransposeType, in its order; A2/A3 implement TRANSPOSE_ND2ND_B16,
/// TRANSPOSE_NCHW2NHWC and TRANSPOSE_NHWC2NCHW ("currently not supported" for the rest).
enum class TransposeType : std::uint8_t {
    TRANSPOSE_TYPE_NONE,
    TRANSPOSE_NZ2ND_0213,
    TRANSPOSE_NZ2NZ_0213,
    TRANSPOSE_NZ2NZ_012_WITH_N,
    TRANSPOSE_NZ2ND_012_WITH_N,
    TRANSPOSE_NZ2ND_012_WITHOUT_N,
    TRANSPOSE_NZ2NZ_012_WITHOUT_N,
    TRANSPOSE_ND2ND_ONLY,
    TRANSPOSE_ND_UB_GM,
    TRANSPOSE_GRAD_ND_UB_GM,
    TRANSPOSE_ND2ND_B16,
    TRANSPOSE_NCHW2NHWC,
    TRANSPOSE_NHWC2NCHW,
};

struct TransposeParamsExt {
    TransposeParamsExt() = default;
    TransposeParamsExt(std::uint16_t n, std::uint16_t c, std::uint16_t h, std::uint16_t w,
                       TransposeType type)
        : nSize(n), cSize(c), hSize(h), wSize(w), transposeType(type) {}
    std::uint16_t nSize = 0;
    std::uint16_t cSize = 0;
    std::uint16_t hSize = 0;
    std::uint16_t wSize = 0;
    TransposeType transposeType = TransposeType::TRANSPOSE_ND2ND_B16;
};

inline constexpr std::uint32_t NCHW_CONV_ADDR_LIST_SIZE = 16;

/// TransDataTo5HD's control: repeats, and per repeat the step of every list address in 32-byte
/// blocks (with repeatTimes 1 the step is applied once, as the reference says). The high/low
/// half selection is for 8-bit types.
struct TransDataTo5HDParams {
    TransDataTo5HDParams() = default;
    TransDataTo5HDParams(bool dstHigh, bool srcHigh, std::uint8_t repeats, std::uint16_t dstRep,
                         std::uint16_t srcRep)
        : dstHighHalf(dstHigh),
          srcHighHalf(srcHigh),
          repeatTimes(repeats),
          dstRepStride(dstRep),
          srcRepStride(srcRep) {}
    bool dstHighHalf = false;
    bool srcHighHalf = false;
    std::uint8_t repeatTimes = 1;
    std::uint16_t dstRepStride = 0;
    std::uint16_t srcRepStride = 0;
};

}  // namespace AscendC

namespace npusim::ascendc {

/// One Transpose instruction: dst (cols x rows) = src (rows x cols); each side's rows
/// `pitch` bytes apart (0: dense). The automatic synchronization sees every row.
template <class T>
void transpose_instruction(std::uint64_t dst_address, std::uint64_t src_address, std::uint32_t rows,
                           std::uint64_t cols, std::uint64_t src_pitch, std::uint64_t dst_pitch,
                           const Loc& loc) {
    auto rows_of = [](std::uint64_t at, std::uint64_t n, std::uint64_t bytes, std::uint64_t pitch,
                      bool write, std::vector<Touch>& out) {
        if (pitch == 0) return out.push_back(Touch{MemSpace::UB, at, n * bytes, write});
        for (std::uint64_t i = 0; i < n; ++i) {
            out.push_back(Touch{MemSpace::UB, at + i * pitch, bytes, write});
        }
    };
    std::vector<Touch> touches;
    rows_of(src_address, rows, cols * sizeof(T), src_pitch, false, touches);
    rows_of(dst_address, cols, rows * sizeof(T), dst_pitch, true, touches);
    const auto span = [&](std::uint64_t n, std::uint64_t bytes, std::uint64_t pitch) {
        return (pitch == 0 ? n * bytes : (n - 1) * pitch + bytes) / sizeof(T);
    };
    const npusim::LocalTensor<T> src{MemSpace::UB, src_address,
                                     span(rows, cols * sizeof(T), src_pitch)};
    const npusim::LocalTensor<T> dst{MemSpace::UB, dst_address,
                                     span(cols, rows * sizeof(T), dst_pitch)};
    KernelContext& ctx = context(loc);
    Resume resume(ctx);
    ctx.before_pipe_work(Pipe::V, touches, loc);
    ctx.block().vector_call({.op = Op::Transpose,
                             .count = rows * cols,
                             .rows = rows,
                             .src_pitch = src_pitch,
                             .dst_pitch = dst_pitch},
                            dst, src, loc);
}

[[noreturn]] inline void transpose_error(const Loc& loc, const std::string& what) {
    throw KernelError(EventIds::where(loc) + what);
}

/// The distance between consecutive addresses of a TransDataTo5HD list: every address must
/// follow the previous one by the same number of bytes, at least one 32-byte block (npusim
/// issues the 16 blocks as one strided operand).
inline std::uint64_t list_pitch(const std::uint64_t* list, const char* role, const Loc& loc) {
    const std::uint64_t first = list[0];
    const std::uint64_t pitch = list[1] > first ? list[1] - first : 0;
    for (std::uint32_t i = 0; i < AscendC::NCHW_CONV_ADDR_LIST_SIZE; ++i) {
        if (pitch < 32 || list[i] != first + i * pitch) {
            not_supported_yet(loc, std::string("TransDataTo5HD with ") + role +
                                       " addresses that are not evenly spaced by 32 bytes or "
                                       "more (address " +
                                       std::to_string(i) + ")");
        }
    }
    return pitch;
}

}  // namespace npusim::ascendc

namespace AscendC {

/// Transpose(dst, src): the 16 x 16 matrix of 2-byte elements (int16_t, uint16_t, half)
/// transposed; dst may be src.
template <class T>
void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src, Loc loc = Loc::current()) {
    static_assert(std::is_same_v<T, half> || std::is_same_v<T, std::int16_t> ||
                      std::is_same_v<T, std::uint16_t>,
                  "npusim Ascend C: Transpose (16 x 16) takes int16_t, uint16_t or half");
    npusim::ascendc::transpose_instruction<T>(dst.native().address, src.native().address, 16, 16, 0,
                                              0, loc);
}

/// Transpose(dst, src, sharedTmpBuffer, TransposeParamsExt): TRANSPOSE_ND2ND_B16 (uint16_t, the
/// 16 x 16 form), TRANSPOSE_NCHW2NHWC and TRANSPOSE_NHWC2NCHW (1-, 2- and 4-byte types; per
/// batch one instruction, the vendor issues several through sharedTmpBuffer, which npusim
/// checks for size but does not use).
template <class T, class U>
void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
               const LocalTensor<U>& sharedTmpBuffer, const TransposeParamsExt& params,
               Loc loc = Loc::current()) {
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4,
                  "npusim Ascend C: Transpose takes 1-, 2- or 4-byte elements");
    using npusim::ascendc::transpose_error;
    if (params.transposeType == TransposeType::TRANSPOSE_ND2ND_B16) {
        if constexpr (!std::is_same_v<T, std::uint16_t>) {
            transpose_error(loc,
                            "Transpose with TRANSPOSE_ND2ND_B16 takes uint16_t on Atlas A2/A3");
        } else {
            Transpose(dst, src, loc);
        }
        return;
    }
    const bool to_nhwc = params.transposeType == TransposeType::TRANSPOSE_NCHW2NHWC;
    if (!to_nhwc && params.transposeType != TransposeType::TRANSPOSE_NHWC2NCHW) {
        npusim::ascendc::not_supported_yet(
            loc, "Transpose with TransposeType " +
                     std::to_string(static_cast<int>(params.transposeType)) +
                     " (A2/A3 have ND2ND_B16, NCHW2NHWC and NHWC2NCHW)");
    }
    const std::uint64_t n = params.nSize, c = params.cSize;
    const std::uint64_t hw = std::uint64_t{params.hSize} * params.wSize;
    if (n == 0 || c == 0 || hw == 0) return;  // the reference: nothing is written
    if (c > 4095 || hw > 4095 || hw * sizeof(T) % 32 != 0) {
        transpose_error(loc, "Transpose: cSize " + std::to_string(c) + " and hSize x wSize " +
                                 std::to_string(hw) +
                                 " must be at most 4095 and hSize x wSize x sizeof(T) a "
                                 "multiple of 32 bytes");
    }
    const std::uint64_t h0 = sizeof(T) == 1 ? 32 : 16;
    const std::uint64_t need = (to_nhwc ? c + 2 : 2 * c + 1) * h0 * (32 / sizeof(T)) * sizeof(T);
    if (sharedTmpBuffer.GetSize() * sizeof(U) < need) {
        transpose_error(loc, "Transpose: sharedTmpBuffer holds " +
                                 std::to_string(sharedTmpBuffer.GetSize() * sizeof(U)) +
                                 " bytes, this shape needs " + std::to_string(need));
    }
    const std::uint64_t bytes = n * c * hw * sizeof(T);
    const std::uint64_t d = dst.native().address, s = src.native().address;
    if (d < s + bytes && s < d + bytes) {
        transpose_error(loc, "Transpose with NCHW2NHWC / NHWC2NCHW cannot write over its source");
    }
    const std::uint64_t rows = to_nhwc ? c : hw, cols = to_nhwc ? hw : c;
    for (std::uint64_t b = 0; b < n; ++b) {
        const std::uint64_t at = b * c * hw * sizeof(T);
        npusim::ascendc::transpose_instruction<T>(d + at, s + at, static_cast<std::uint32_t>(rows),
                                                  cols, 0, 0, loc);
    }
}

/// TransDataTo5HD(dstList, srcList, params) for 2-byte types: per repeat, block i of the source
/// (16 elements at srcList[i]) becomes column i of the 16 x 16 result, whose row j lands at
/// dstList[j]; each repeat moves every address by dstRepStride / srcRepStride blocks. One
/// instruction per repeat; the addresses must be evenly spaced (npusim: not supported yet
/// otherwise), as they are in NCHW -> NC1HWC0 conversions.
template <class T>
void TransDataTo5HD(const std::uint64_t dstList[NCHW_CONV_ADDR_LIST_SIZE],
                    const std::uint64_t srcList[NCHW_CONV_ADDR_LIST_SIZE],
                    const TransDataTo5HDParams& params, Loc loc = Loc::current()) {
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4,
                  "npusim Ascend C: TransDataTo5HD takes 1-, 2- or 4-byte elements");
    if constexpr (sizeof(T) != 2) {
        npusim::ascendc::not_supported_yet(loc, "TransDataTo5HD of 1- or 4-byte elements");
    } else {
        const std::uint64_t dst_pitch = npusim::ascendc::list_pitch(dstList, "destination", loc);
        const std::uint64_t src_pitch = npusim::ascendc::list_pitch(srcList, "source", loc);
        const std::uint64_t repeats = params.repeatTimes;
        for (std::uint64_t r = 0; r < repeats; ++r) {
            const std::uint64_t step = repeats == 1 ? 1 : r;
            npusim::ascendc::transpose_instruction<T>(dstList[0] + step * params.dstRepStride * 32,
                                                      srcList[0] + step * params.srcRepStride * 32,
                                                      16, 16, src_pitch, dst_pitch, loc);
        }
    }
}
/// The addresses held in two uint64_t tensors (read by the scalar unit).
template <class T>
void TransDataTo5HD(const LocalTensor<std::uint64_t>& dst, const LocalTensor<std::uint64_t>& src,
                    const TransDataTo5HDParams& params, Loc loc = Loc::current()) {
    std::uint64_t d[NCHW_CONV_ADDR_LIST_SIZE], s[NCHW_CONV_ADDR_LIST_SIZE];
    for (std::uint32_t i = 0; i < NCHW_CONV_ADDR_LIST_SIZE; ++i) {
        d[i] = npusim::ascendc::scalar_get<std::uint64_t>(dst.native(), i, loc);
        s[i] = npusim::ascendc::scalar_get<std::uint64_t>(src.native(), i, loc);
    }
    TransDataTo5HD<T>(static_cast<const std::uint64_t*>(d), static_cast<const std::uint64_t*>(s),
                      params, loc);
}
/// The lists as tensors.
template <class T>
void TransDataTo5HD(const LocalTensor<T> (&dstList)[NCHW_CONV_ADDR_LIST_SIZE],
                    const LocalTensor<T> (&srcList)[NCHW_CONV_ADDR_LIST_SIZE],
                    const TransDataTo5HDParams& params, Loc loc = Loc::current()) {
    std::uint64_t d[NCHW_CONV_ADDR_LIST_SIZE], s[NCHW_CONV_ADDR_LIST_SIZE];
    for (std::uint32_t i = 0; i < NCHW_CONV_ADDR_LIST_SIZE; ++i) {
        d[i] = dstList[i].native().address;
        s[i] = srcList[i].native().address;
    }
    TransDataTo5HD<T>(static_cast<const std::uint64_t*>(d), static_cast<const std::uint64_t*>(s),
                      params, loc);
}

}  // namespace AscendC
