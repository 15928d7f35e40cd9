// DataCopy and DataCopyPad: every route of the native API (GM -> UB/L1, UB -> GM,
// L0C -> GM, UB -> UB, L1 -> L0A/L0B, L1 -> the bias table) in the count form and the
// DataCopyParams form.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "npusim_ascendc/tensors.h"

namespace AscendC {

/// Strided form: blockCount blocks of blockLen 32-byte units; srcStride / dstStride are the
/// gaps between blocks in 32-byte units.
struct DataCopyParams {
    std::uint16_t blockCount = 1;
    std::uint16_t blockLen = 0;
    std::uint16_t srcStride = 0;
    std::uint16_t dstStride = 0;
};
/// DataCopyPad form: blockLen in bytes; the GM side's stride in bytes, the local side's in
/// 32-byte units.
struct DataCopyExtParams {
    std::uint16_t blockCount = 1;
    std::uint32_t blockLen = 0;
    std::uint32_t srcStride = 0;
    std::uint32_t dstStride = 0;
    std::uint32_t rsv = 0;
};
struct DataCopyPadParams {
    bool isPad = false;
    std::uint8_t leftPadding = 0;
    std::uint8_t rightPadding = 0;
    std::uint64_t paddingValue = 0;
};
template <class T>
struct DataCopyPadExtParams {
    bool isPad = false;
    std::uint8_t leftPadding = 0;
    std::uint8_t rightPadding = 0;
    T paddingValue = 0;
};

}  // namespace AscendC

namespace npusim::ascendc {

/// The pipe a copy between two spaces runs on (the native copy routes).
inline Pipe copy_pipe(MemSpace dst, MemSpace src) {
    if (src == MemSpace::GM) return Pipe::MTE2;
    if (dst == MemSpace::GM) return src == MemSpace::L0C ? Pipe::FIX : Pipe::MTE3;
    if (src == MemSpace::UB && dst == MemSpace::UB) return Pipe::V;
    return Pipe::MTE1;
}

template <Element T>
npusim::GlobalTensor<T> as_native(const GlobalView<T>& view) {
    return view;
}
template <Element T>
npusim::LocalTensor<T> as_native(const npusim::LocalTensor<T>& view) {
    return view;
}
template <Element T>
GlobalView<T> view_of(const AscendC::GlobalTensor<T>& tensor) {
    GlobalView<T> view;
    view.address = tensor.address();
    view.count = tensor.GetSize();
    view.bypass_l2 = tensor.bypasses_l2();
    return view;
}
template <Element T>
npusim::LocalTensor<T> view_of(const AscendC::LocalTensor<T>& tensor) {
    return tensor.native();
}

/// The rows of a strided copy (DataCopyParams, DataCopyExtParams, Nd2NzParams): `rows` rows
/// of `row_bytes`, `src_pitch` / `dst_pitch` bytes from one row's start to the next.
struct RowShape {
    std::uint64_t rows = 1;
    std::uint64_t src_pitch = 0;
    std::uint64_t dst_pitch = 0;
};

/// One native copy of `count` elements a row between two views, after the automatic sync:
/// one DMA instruction of `shape.rows` rows (Block::dma_rows). `pad` makes it DataCopyPad
/// rows (an unaligned length, padding around the data: Block::pad_dma).
template <Element T, class Dst, class Src>
void copy_elements(const Dst& dst, const Src& src, std::uint64_t count, const Loc& loc,
                   const npusim::PadRow& pad = {}, const RowShape& shape = {}) {
    KernelContext& ctx = context(loc);
    Resume resume(ctx);
    const std::uint64_t bytes = count * sizeof(T);
    const std::uint64_t padding = pad.fill ? std::uint64_t{pad.left_bytes} + pad.right_bytes : 0;
    const std::uint64_t written_at = dst.address + (pad.fill ? 0 : pad.left_bytes);
    std::vector<Touch> touches;
    touches.reserve(2 * shape.rows);
    for (std::uint64_t i = 0; i < shape.rows; ++i) {
        touches.push_back(Touch{src.space, src.address + i * shape.src_pitch, bytes, false});
        touches.push_back(
            Touch{dst.space, written_at + i * shape.dst_pitch, bytes + padding, true});
    }
    ctx.before_pipe_work(copy_pipe(dst.space, src.space), touches, loc);
    if constexpr (requires { src.bypass_l2; }) {
        if (src.bypass_l2) ctx.block().bypass_l2();
    }
    if (pad.unaligned) {
        ctx.block().pad_dma(pad.left_bytes, pad.right_bytes, pad.fill, pad.pad_value);
    }
    const auto span = [&](std::uint64_t pitch, std::uint64_t row) {
        return ((shape.rows - 1) * pitch + row + sizeof(T) - 1) / sizeof(T);
    };
    auto d = dst;
    auto s = src;
    d.count = span(shape.dst_pitch, bytes + (pad.left_bytes + pad.right_bytes));
    s.count = span(shape.src_pitch, bytes);
    if (shape.rows > 1) {
        ctx.block().dma_rows(static_cast<std::uint32_t>(shape.rows), shape.src_pitch,
                             shape.dst_pitch);
    }
    ctx.block().copy(as_native(d), as_native(s), count, loc);
}

/// A strided copy: dense rows (both pitches equal to the row, no padding) are one contiguous
/// copy; otherwise one strided DMA instruction of `rows` rows (docs/cost-model.md).
/// `pad.unaligned`: DataCopyPad rows (any length).
template <Element T, class Dst, class Src>
void copy_rows(const Dst& dst, const Src& src, std::uint64_t rows, std::uint64_t row_bytes,
               std::uint64_t src_pitch, std::uint64_t dst_pitch, const Loc& loc,
               const npusim::PadRow& pad = {}) {
    if (row_bytes % sizeof(T) != 0) {
        throw KernelError(EventIds::where(loc) + "DataCopy: a block of " +
                          std::to_string(row_bytes) + " bytes is not whole elements");
    }
    if (rows == 0 || row_bytes == 0) return;
    const bool padded = pad.left_bytes + pad.right_bytes != 0;
    if (!padded && src_pitch == row_bytes && dst_pitch == row_bytes &&
        (!pad.unaligned || rows * row_bytes % 32 == 0)) {
        copy_elements<T>(dst, src, rows * row_bytes / sizeof(T), loc, pad);
        return;
    }
    copy_elements<T>(dst, src, row_bytes / sizeof(T), loc, pad,
                     RowShape{rows, src_pitch, dst_pitch});
}

/// DataCopyParams rows: blockLen and the gaps between blocks in 32-byte units.
template <Element T, class Dst, class Src>
void copy_blocks(const Dst& dst, const Src& src, std::uint64_t block_count,
                 std::uint64_t block_bytes, std::uint64_t src_gap, std::uint64_t dst_gap,
                 const Loc& loc) {
    copy_rows<T>(dst, src, block_count, block_bytes, block_bytes + src_gap, block_bytes + dst_gap,
                 loc);
}

inline std::uint64_t align32(std::uint64_t bytes) {
    return (bytes + 31) / 32 * 32;
}

}  // namespace npusim::ascendc

namespace AscendC {

template <class T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, std::uint32_t count,
              Loc loc = Loc::current()) {
    npusim::ascendc::copy_elements<T>(dst.native(), npusim::ascendc::view_of(src), count, loc);
}
template <class T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, std::uint32_t count,
              Loc loc = Loc::current()) {
    npusim::ascendc::copy_elements<T>(npusim::ascendc::view_of(dst), src.native(), count, loc);
}
template <class T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, std::uint32_t count,
              Loc loc = Loc::current()) {
    if (dst.native().space == npusim::MemSpace::BT) {
        // C1 -> C2: count x sizeof(T) rounded down to 32 bytes (vendor API reference,
        // "L1ToBiasTable Buffer DataCopy").
        const std::uint64_t bytes = std::uint64_t{count} * sizeof(T) / 32 * 32;
        if (bytes == 0) return;
        npusim::ascendc::copy_elements<T>(dst.native(), src.native(), bytes / sizeof(T), loc);
        return;
    }
    npusim::ascendc::copy_elements<T>(dst.native(), src.native(), count, loc);
}

template <class T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& params,
              Loc loc = Loc::current()) {
    npusim::ascendc::copy_blocks<T>(dst.native(), npusim::ascendc::view_of(src), params.blockCount,
                                    params.blockLen * 32ULL, params.srcStride * 32ULL,
                                    params.dstStride * 32ULL, loc);
}
template <class T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& params,
              Loc loc = Loc::current()) {
    npusim::ascendc::copy_blocks<T>(npusim::ascendc::view_of(dst), src.native(), params.blockCount,
                                    params.blockLen * 32ULL, params.srcStride * 32ULL,
                                    params.dstStride * 32ULL, loc);
}
template <class T>
void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& params,
              Loc loc = Loc::current()) {
    // C1 -> C2 on A2 / A3: blockLen and the destination's gap in 64-byte units, the source's
    // gap in 32-byte units (vendor API reference, "L1ToBiasTable Buffer DataCopy").
    const std::uint64_t dst_unit = dst.native().space == npusim::MemSpace::BT ? 64 : 32;
    npusim::ascendc::copy_blocks<T>(dst.native(), src.native(), params.blockCount,
                                    params.blockLen * dst_unit, params.srcStride * 32ULL,
                                    params.dstStride * dst_unit, loc);
}

/// DataCopy GM -> L1 with the ND -> NZ conversion (vendor API reference, "DataCopy" ND2NZ;
/// the cce reference, copy_gm_to_cbuf_multi_nd2nz): ndNum matrices of nValue rows of dValue
/// elements, the source's rows srcDValue elements apart and its matrices srcNdMatrixStride
/// elements apart. Each lands as NZ: its columns in blocks of C0 (32 bytes), every block's rows
/// 32 bytes apart (dstNzNStride 1, in C0 units), the blocks dstNzC0Stride x 32 bytes apart and
/// the matrices dstNzMatrixStride elements apart; a partial last block is padded with zeros
/// (base/cube_layout.h, NZ). One DMA instruction per matrix on MTE2, timed as its nValue rows.
struct Nd2NzParams {
    std::uint16_t ndNum = 0;
    std::uint16_t nValue = 0;
    std::uint16_t dValue = 0;
    std::uint16_t srcNdMatrixStride = 0;
    std::uint16_t srcDValue = 0;
    std::uint16_t dstNzC0Stride = 0;
    std::uint16_t dstNzNStride = 0;
    std::uint16_t dstNzMatrixStride = 0;
};

template <class T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Nd2NzParams& params,
              Loc loc = Loc::current()) {
    const auto fail = [&](const std::string& what) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                  "DataCopy with Nd2NzParams: " + what);
    };
    if (params.ndNum == 0 || params.nValue == 0 || params.dValue == 0) return;  // a NOP
    if (params.srcDValue < params.dValue)
        fail("srcDValue " + std::to_string(params.srcDValue) + " is less than dValue " +
             std::to_string(params.dValue));
    if (params.dstNzNStride != 1)
        fail("dstNzNStride " + std::to_string(params.dstNzNStride) +
             " (rows of a column block apart) is not supported yet: only 1");
    constexpr std::uint64_t kBlock = 32;
    const std::uint64_t row_bytes = std::uint64_t{params.dValue} * sizeof(T);
    const std::uint64_t blocks = (row_bytes + kBlock - 1) / kBlock;
    const std::uint64_t block_pitch = std::uint64_t{params.dstNzC0Stride} * kBlock;
    const std::uint64_t src_pitch = std::uint64_t{params.srcDValue} * sizeof(T);
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    for (std::uint32_t i = 0; i < params.ndNum; ++i) {
        npusim::ascendc::Resume resume(ctx);
        auto d = dst.native();
        d.address += std::uint64_t{i} * params.dstNzMatrixStride * sizeof(T);
        const std::uint64_t s =
            src.address() + std::uint64_t{i} * params.srcNdMatrixStride * sizeof(T);
        std::vector<npusim::ascendc::Touch> touches;
        for (std::uint64_t r = 0; r < params.nValue; ++r)
            touches.push_back({npusim::MemSpace::GM, s + r * src_pitch, row_bytes, false});
        for (std::uint64_t b = 0; b < blocks; ++b)
            touches.push_back({d.space, d.address + b * block_pitch,
                               std::uint64_t{params.nValue} * kBlock, true});
        ctx.before_pipe_work(npusim::Pipe::MTE2, touches, loc);
        if (src.bypasses_l2()) ctx.block().bypass_l2();
        npusim::Nd2NzCall call;
        call.src = npusim::GlobalTensor<T>{
            s, ((params.nValue - 1) * src_pitch + row_bytes + sizeof(T) - 1) / sizeof(T)};
        d.count = ((blocks - 1) * block_pitch + params.nValue * kBlock) / sizeof(T);
        call.dst = d;
        call.rows = params.nValue;
        call.cols = params.dValue;
        call.src_pitch = src_pitch;
        call.dst_block_pitch = block_pitch;
        ctx.block().nd2nz(call, loc);
    }
}

/// SetPadValue(value): the value DataCopyPad (GM -> UB) writes into its left / right padding
/// when isPad is false (the vendor's pad register; until it is set such padding is not
/// written). One scalar cycle.
template <class T, TPosition pos = TPosition::MAX>
void SetPadValue(T paddingValue, Loc loc = Loc::current()) {
    static_assert(pos == TPosition::VECIN || pos == TPosition::VECOUT || pos == TPosition::MAX,
                  "npusim Ascend C: SetPadValue's position is VECIN, VECOUT or MAX");
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    npusim::ascendc::Resume resume(ctx);
    std::uint64_t bits = 0;
    std::memcpy(&bits, &paddingValue, sizeof(T));
    ctx.set_pad_register({bits, sizeof(T)});
    ctx.block().scalar_work(1, loc);
}

namespace detail {
template <class T>
std::uint64_t pad_bits(T value) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    return bits;
}
template <class T, class PadParams>
npusim::PadRow pad_row(const PadParams& pad, const Loc& loc) {
    npusim::PadRow row{true, 0, 0, false, 0};
    if (!pad.isPad && pad.leftPadding == 0 && pad.rightPadding == 0) return row;
    row.left_bytes = static_cast<std::uint32_t>(pad.leftPadding * sizeof(T));
    row.right_bytes = static_cast<std::uint32_t>(pad.rightPadding * sizeof(T));
    if (row.left_bytes > 32 || row.right_bytes > 32) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                  "DataCopyPad: leftPadding " + std::to_string(pad.leftPadding) +
                                  " / rightPadding " + std::to_string(pad.rightPadding) +
                                  " elements exceed 32 bytes");
    }
    row.fill = pad.isPad;
    if constexpr (std::is_same_v<PadParams, DataCopyPadParams>) {
        row.pad_value = pad.paddingValue;
    } else {
        row.pad_value = pad_bits<T>(pad.paddingValue);
    }
    if (!pad.isPad) {  // the value SetPadValue put in the pad register, if any
        const auto& reg = npusim::ascendc::context(loc).pad_register();
        if (reg.bytes != 0 && reg.bytes != sizeof(T)) {
            throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                      "DataCopyPad: SetPadValue set a " +
                                      std::to_string(reg.bytes) + "-byte value for " +
                                      std::to_string(sizeof(T)) + "-byte elements");
        }
        row.fill = reg.bytes != 0;
        row.pad_value = reg.bits;
    }
    return row;
}
}  // namespace detail

/// GM -> local with blockLen in bytes (any length): each row lands 32-byte aligned in the
/// local memory as leftPadding elements, the row, rightPadding elements (the padding holds
/// paddingValue when isPad, else the value SetPadValue set, else it is not written), rounded up to
/// 32 bytes; dstStride 32-byte blocks follow each row. The GM side's srcStride is in bytes.
// Params defaults to DataCopyParams for a braced list ({1, len, 0, 0}), as the vendor's overload.
template <class T, class Params = DataCopyParams, class PadParams>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Params& params,
                 const PadParams& pad, Loc loc = Loc::current()) {
    const npusim::PadRow row = detail::pad_row<T>(pad, loc);
    const std::uint64_t span =
        npusim::ascendc::align32(row.left_bytes + std::uint64_t{params.blockLen} + row.right_bytes);
    npusim::ascendc::copy_rows<T>(dst.native(), npusim::ascendc::view_of(src), params.blockCount,
                                  params.blockLen,
                                  std::uint64_t{params.blockLen} + params.srcStride,
                                  span + params.dstStride * 32ULL, loc, row);
}
/// Local -> GM with blockLen in bytes (any length): each local row starts 32-byte aligned
/// (its length rounded up to 32 bytes, then srcStride 32-byte blocks); exactly blockLen bytes
/// land in GM, dstStride bytes apart.
template <class T, class Params = DataCopyParams>
void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const Params& params,
                 Loc loc = Loc::current()) {
    npusim::ascendc::copy_rows<T>(
        npusim::ascendc::view_of(dst), src.native(), params.blockCount, params.blockLen,
        npusim::ascendc::align32(params.blockLen) + params.srcStride * 32ULL,
        std::uint64_t{params.blockLen} + params.dstStride, loc, npusim::PadRow{true});
}

}  // namespace AscendC

namespace AscendC {

inline constexpr std::int32_t K_MAX_DIM = 8;

/// One dimension of a sliced DataCopy: elements (rows, ...) startIndex..endIndex (inclusive),
/// `stride` elements (rows) skipped between slices; in dimension 0 each slice is burstLen
/// 32-byte blocks (other dimensions: 1); shapeValue the dimension's length.
struct SliceInfo {
    SliceInfo() = default;
    SliceInfo(std::uint32_t startIndexIn, std::uint32_t endIndexIn, std::uint32_t strideIn,
              std::uint32_t burstLenIn, std::uint32_t shapeValueIn = 0)
        : startIndex(startIndexIn),
          endIndex(endIndexIn),
          stride(strideIn),
          burstLen(burstLenIn),
          shapeValue(shapeValueIn) {}
    std::uint32_t startIndex = 0;
    std::uint32_t endIndex = 0;
    std::uint32_t stride = 0;
    std::uint32_t burstLen = 0;
    std::uint32_t shapeValue = 0;
};

}  // namespace AscendC

namespace npusim::ascendc {

/// A sliced DataCopy's rows: the element offset of each row's first slice (dimensions 1 and
/// up, in the vendor's order: dimension 1 fastest), from the slices' start.
inline std::vector<std::uint64_t> slice_rows(const AscendC::SliceInfo* info, std::uint32_t dims,
                                             std::uint64_t& start, const Loc& loc) {
    std::vector<std::uint64_t> rows{0};
    std::uint64_t size = 1;
    start = info[0].startIndex;
    for (std::uint32_t d = 1; d < dims; ++d) {
        if (info[d - 1].shapeValue == 0) {
            throw KernelError(EventIds::where(loc) +
                              "DataCopy with SliceInfo: shapeValue 0 (the tensor's own shape "
                              "info) is not supported yet");
        }
        size *= info[d - 1].shapeValue;
        start += info[d].startIndex * size;
        const std::uint64_t step = std::uint64_t{info[d].stride} + 1;
        const std::uint64_t count = (info[d].endIndex - info[d].startIndex + step) / step;
        const std::size_t before = rows.size();
        for (std::uint64_t i = 1; i < count; ++i) {
            for (std::size_t k = 0; k < before; ++k) rows.push_back(rows[k] + i * step * size);
        }
    }
    return rows;
}

/// DataCopy with SliceInfo (vendor API reference, "DataCopy" with slices): per row one
/// strided copy of (end - start + 1 + stride) / (burst + stride) slices of burstLen blocks,
/// srcSliceInfo's stride apart in the source, dstSliceInfo's in the destination.
template <Element T, class Dst, class Src>
void copy_slices(const Dst& dst, const Src& src, const AscendC::SliceInfo* dst_info,
                 const AscendC::SliceInfo* src_info, std::uint32_t dims, const Loc& loc) {
    if (dims == 0 || dims > static_cast<std::uint32_t>(AscendC::K_MAX_DIM)) {
        throw KernelError(EventIds::where(loc) + "DataCopy with SliceInfo: dimValue " +
                          std::to_string(dims) + " is outside 1..8");
    }
    std::uint64_t src_start = 0, dst_start = 0;
    const auto src_rows = slice_rows(src_info, dims, src_start, loc);
    const auto dst_rows = slice_rows(dst_info, dims, dst_start, loc);
    if (dst_rows.size() < src_rows.size()) {
        throw KernelError(EventIds::where(loc) + "DataCopy with SliceInfo: the destination has " +
                          std::to_string(dst_rows.size()) + " rows of slices, the source " +
                          std::to_string(src_rows.size()));
    }
    const std::uint64_t burst = std::uint64_t{src_info[0].burstLen} * 32 / sizeof(T);
    const std::uint64_t slices =
        (std::uint64_t{src_info[0].endIndex} - src_info[0].startIndex + 1 + src_info[0].stride) /
        (burst + src_info[0].stride);
    for (std::size_t i = 0; i < src_rows.size(); ++i) {
        copy_blocks<T>(view_of(dst[dst_start + dst_rows[i]]), view_of(src[src_start + src_rows[i]]),
                       slices, burst * sizeof(T), std::uint64_t{src_info[0].stride} * sizeof(T),
                       std::uint64_t{dst_info[0].stride} * sizeof(T), loc);
    }
}

}  // namespace npusim::ascendc

namespace AscendC {

/// DataCopy(dst, src, dstSliceInfo, srcSliceInfo, dimValue): GM -> UB and UB -> GM slices.
template <class T>
void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const SliceInfo dstSliceInfo[],
              const SliceInfo srcSliceInfo[], std::uint32_t dimValue = 1,
              Loc loc = Loc::current()) {
    npusim::ascendc::copy_slices<T>(dst, src, dstSliceInfo, srcSliceInfo, dimValue, loc);
}
template <class T>
void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const SliceInfo dstSliceInfo[],
              const SliceInfo srcSliceInfo[], std::uint32_t dimValue = 1,
              Loc loc = Loc::current()) {
    npusim::ascendc::copy_slices<T>(dst, src, dstSliceInfo, srcSliceInfo, dimValue, loc);
}

}  // namespace AscendC
