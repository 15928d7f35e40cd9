// DataCopy and DataCopyPad: every route of the native API (GM -> UB/L1, UB -> GM,
// L0C -> GM, UB -> UB, L1 -> L0A/L0B) in the count form and the DataCopyParams form.
#pragma once

#include <cstdint>
#include <string>
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

/// One native copy of `count` elements between two views, after the automatic sync.
template <Element T, class Dst, class Src>
void copy_elements(const Dst& dst, const Src& src, std::uint64_t count, const Loc& loc) {
    KernelContext& ctx = context(loc);
    Resume resume(ctx);
    const std::uint64_t bytes = count * sizeof(T);
    const std::vector<Touch> touches{Touch{src.space, src.address, bytes, false},
                                     Touch{dst.space, dst.address, bytes, true}};
    ctx.before_pipe_work(copy_pipe(dst.space, src.space), touches, loc);
    if constexpr (requires { src.bypass_l2; }) {
        if (src.bypass_l2) ctx.block().bypass_l2();
    }
    auto d = dst;
    auto s = src;
    d.count = count;
    s.count = count;
    ctx.block().copy(as_native(d), as_native(s), count, loc);
}

/// blockCount blocks: contiguous when both strides are 0 (one instruction), otherwise one
/// native copy per block, the blocks after the first marked as further bursts of the first
/// (Block::continue_dma): timed as one strided DMA instruction (docs/cost-model.md).
template <Element T, class Dst, class Src>
void copy_blocks(const Dst& dst, const Src& src, std::uint64_t block_count,
                 std::uint64_t block_bytes, std::uint64_t src_gap, std::uint64_t dst_gap,
                 const Loc& loc) {
    if (block_bytes % sizeof(T) != 0) {
        throw KernelError(EventIds::where(loc) + "DataCopy: a block of " +
                          std::to_string(block_bytes) + " bytes is not whole elements");
    }
    if (src_gap == 0 && dst_gap == 0) {
        copy_elements<T>(dst, src, block_count * block_bytes / sizeof(T), loc);
        return;
    }
    for (std::uint64_t i = 0; i < block_count; ++i) {
        auto d = dst;
        auto s = src;
        d.address += i * (block_bytes + dst_gap);
        s.address += i * (block_bytes + src_gap);
        if (i > 0) context(loc).block().continue_dma();
        copy_elements<T>(d, s, block_bytes / sizeof(T), loc);
    }
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
    npusim::ascendc::copy_blocks<T>(dst.native(), src.native(), params.blockCount,
                                    params.blockLen * 32ULL, params.srcStride * 32ULL,
                                    params.dstStride * 32ULL, loc);
}

/// DataCopy GM -> L1 (or UB) with the ND -> NZ conversion: ndNum matrices of nValue rows of
/// dValue elements, the source's rows srcDValue elements apart and its matrices
/// srcNdMatrixStride apart. npusim keeps matrices row-major (ND) in every memory, so the
/// destination gets each matrix as dense rows, dstNzMatrixStride elements apart; the NZ
/// placement fields must describe the plain layout (dstNzNStride 1, dstNzC0Stride >= nValue).
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
    const std::uint64_t row_bytes = std::uint64_t{params.dValue} * sizeof(T);
    if (row_bytes % 32 != 0)
        fail("rows of " + std::to_string(row_bytes) +
             " bytes are not supported yet (npusim keeps rows unpadded; hardware pads each to "
             "32 bytes)");
    if (params.dstNzNStride != 1 || params.dstNzC0Stride < params.nValue)
        fail("dstNzNStride " + std::to_string(params.dstNzNStride) + " / dstNzC0Stride " +
             std::to_string(params.dstNzC0Stride) +
             " is not supported yet (npusim keeps matrices row-major: dstNzNStride 1, "
             "dstNzC0Stride >= nValue)");
    const std::uint64_t matrix = std::uint64_t{params.nValue} * params.dValue;
    if (params.ndNum > 1 && params.dstNzMatrixStride < matrix)
        fail("dstNzMatrixStride " + std::to_string(params.dstNzMatrixStride) +
             " is less than a matrix of " + std::to_string(matrix) +
             " elements in npusim's row-major layout");
    for (std::uint32_t i = 0; i < params.ndNum; ++i) {
        auto d = dst.native();
        auto s = npusim::ascendc::view_of(src);
        d.address += std::uint64_t{i} * params.dstNzMatrixStride * sizeof(T);
        s.address += std::uint64_t{i} * params.srcNdMatrixStride * sizeof(T);
        npusim::ascendc::copy_blocks<T>(
            d, s, params.nValue, row_bytes,
            (std::uint64_t{params.srcDValue} - params.dValue) * sizeof(T), 0, loc);
    }
}

namespace detail {
inline void check_pad_length(std::uint64_t block_bytes, const Loc& loc) {
    if (block_bytes % 32 != 0) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) + "DataCopyPad of " +
                                  std::to_string(block_bytes) +
                                  "-byte blocks: lengths that are not a multiple of 32 bytes "
                                  "are not supported yet");
    }
}
}  // namespace detail

/// GM -> local with blockLen in bytes. Supported for 32-byte multiples without padding.
template <class T, class Params, class PadParams>
void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Params& params,
                 const PadParams& pad, Loc loc = Loc::current()) {
    detail::check_pad_length(params.blockLen, loc);
    if (pad.isPad && (pad.leftPadding != 0 || pad.rightPadding != 0)) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                  "DataCopyPad with padding is not supported yet");
    }
    npusim::ascendc::copy_blocks<T>(dst.native(), npusim::ascendc::view_of(src), params.blockCount,
                                    params.blockLen, params.srcStride, params.dstStride * 32ULL,
                                    loc);
}
/// Local -> GM with blockLen in bytes (the local side's stride in 32-byte units).
template <class T, class Params>
void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const Params& params,
                 Loc loc = Loc::current()) {
    detail::check_pad_length(params.blockLen, loc);
    npusim::ascendc::copy_blocks<T>(npusim::ascendc::view_of(dst), src.native(), params.blockCount,
                                    params.blockLen, params.srcStride * 32ULL, params.dstStride,
                                    loc);
}

}  // namespace AscendC
