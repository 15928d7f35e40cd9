// Cube instructions: LoadData (L1 -> L0A/L0B, PIPE_MTE1), Mmad (PIPE_M), Fixpipe (L0C -> GM,
// PIPE_FIX).
//
// Layout difference: npusim keeps matrices row-major (ND) in every memory; hardware keeps
// fractal (NZ / ZZ / ZN) layouts in L1 and L0. LoadData is therefore a plain contiguous copy
// of 512-byte fractals, Mmad multiplies row-major a[m x k] by b[k x n], and Fixpipe copies
// m x n fp32 results to GM. Kernels that reorder data through the fractal layouts get other
// data than on hardware. The automatic synchronization inserts nothing on the cube side.
#pragma once

#include <cstdint>

#include "npusim_ascendc/data_copy.h"

namespace AscendC {

struct LoadData2DParams {
    std::uint16_t startIndex = 0;
    std::uint8_t repeatTimes = 0;
    std::uint16_t srcStride = 0;
    std::uint8_t sid = 0;
    std::uint16_t dstGap = 0;
    bool ifTranspose = false;
    std::uint8_t addrMode = 0;
};

struct MmadParams {
    std::uint16_t m = 0;
    std::uint16_t n = 0;
    std::uint16_t k = 0;
    bool isBias = false;
    std::int32_t fmOffset = 0;
    bool enSsparse = false;
    bool enWinogradA = false;
    bool enWinogradB = false;
    std::uint8_t unitFlag = 0;
    bool kDirectionAlign = false;
    bool cmatrixSource = false;
    bool cmatrixInitVal = true;  // true: c = a x b; false: c += a x b
};

enum class QuantMode_t : std::uint8_t { NoQuant, F322F16, F322BF16, DEQF16, VDEQF16, REQ8, VREQ8 };

template <class T = void>
struct FixpipeParamsV220 {
    std::uint16_t nSize = 0;
    std::uint16_t mSize = 0;
    std::uint16_t srcStride = 0;
    std::uint32_t dstStride = 0;
    bool reluEn = false;
    QuantMode_t quantPre = QuantMode_t::NoQuant;
    std::uint64_t deqScalar = 0;
    std::uint16_t ndNum = 1;
    std::uint16_t srcNdStride = 0;
    std::uint16_t dstNdStride = 0;
    std::uint8_t unitFlag = 0;
};

/// LoadData(l0, l1, params): repeatTimes fractals of 512 bytes from fractal startIndex.
/// Supported: srcStride 1 (or a single repeat), dstGap 0, no transpose.
template <class T>
void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2DParams& params,
              Loc loc = Loc::current()) {
    if ((params.srcStride != 1 && params.repeatTimes > 1) || params.dstGap != 0 ||
        params.ifTranspose) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                  "LoadData: strided, gapped or transposed loads are not "
                                  "supported yet");
    }
    constexpr std::uint64_t kFractal = 512 / sizeof(T);
    npusim::ascendc::copy_elements<T>(dst.native(),
                                      src[std::uint64_t{params.startIndex} * kFractal].native(),
                                      std::uint64_t{params.repeatTimes} * kFractal, loc);
}

/// Mmad(c, a, b, params): c[m x n] (+)= a[m x k] x b[k x n], fp16 in, fp32 out.
template <class C, class A, class B>
void Mmad(const LocalTensor<C>& dst, const LocalTensor<A>& fm, const LocalTensor<B>& filter,
          const MmadParams& params, Loc loc = Loc::current()) {
    static_assert(std::is_same_v<C, float> && std::is_same_v<A, half> && std::is_same_v<B, half>,
                  "npusim Ascend C: Mmad supports fp16 x fp16 -> fp32 only yet");
    if (params.isBias || params.fmOffset != 0 || params.enSsparse || params.enWinogradA ||
        params.enWinogradB || params.cmatrixSource) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                  "Mmad: bias, offsets, sparsity and Winograd are not supported "
                                  "yet");
    }
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    npusim::ascendc::Resume resume(ctx);
    ctx.before_pipe_work(npusim::Pipe::M, {}, loc);
    ctx.block().mmad(dst.native(), fm.native(), filter.native(), params.m, params.n, params.k,
                     !params.cmatrixInitVal, loc);
}

/// Fixpipe(gm, l0c, params): mSize x nSize fp32 results to GM, rows dstStride elements apart.
template <class D, class S, class Config = void>
void Fixpipe(const GlobalTensor<D>& dst, const LocalTensor<S>& src,
             const FixpipeParamsV220<Config>& params, Loc loc = Loc::current()) {
    static_assert(std::is_same_v<D, float> && std::is_same_v<S, float>,
                  "npusim Ascend C: Fixpipe supports fp32 -> fp32 (no quantization) only yet");
    if (params.reluEn || params.quantPre != QuantMode_t::NoQuant || params.ndNum > 1) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                  "Fixpipe: ReLU, quantization and several ND matrices are not "
                                  "supported yet");
    }
    const std::uint64_t row_bytes = std::uint64_t{params.nSize} * sizeof(float);
    const std::uint64_t gap =
        params.dstStride > params.nSize ? (params.dstStride - params.nSize) * sizeof(float) : 0;
    npusim::ascendc::copy_blocks<float>(npusim::ascendc::view_of(dst), src.native(), params.mSize,
                                        row_bytes, 0, gap, loc);
}

template <class... Args>
void SetFixPipeConfig(Args&&...) {
    static_assert(npusim::ascendc::kAlwaysFalse<Args...>,
                  "npusim Ascend C: SetFixPipeConfig (Fixpipe quantization tables) is not "
                  "supported yet (docs/ascendc.md, API status)");
}

}  // namespace AscendC
