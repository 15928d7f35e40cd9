// Cube instructions: LoadData (L1 -> L0A/L0B, PIPE_MTE1), Mmad (PIPE_M), Fixpipe (L0C -> GM,
// PIPE_FIX).
//
// Layout difference: npusim keeps matrices row-major (ND) in every memory; hardware keeps
// fractal (NZ / ZZ / ZN) layouts in L1 and L0. LoadData is therefore a plain contiguous copy
// of 512-byte fractals, Mmad multiplies row-major a[m x k] by b[k x n], and Fixpipe copies
// m x n fp32 results to GM. Kernels that reorder data through the fractal layouts get other
// data than on hardware. The automatic synchronization inserts nothing on the cube side.
// The bias table (C2) is kept in L1: DataCopy(C2, C1) is an L1 -> L1 copy on MTE1, and
// Mmad's bias form reads the bias row (fp32) from there.
#pragma once

#include <cstdint>
#include <vector>

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

}  // namespace AscendC

namespace npusim::ascendc {

/// The native Mmad of an Ascend C Mmad call: a bias row (in C2, kept in L1) initialises the
/// result; otherwise cmatrixInitVal false (or the deprecated isBias) accumulates onto it.
template <class C, class A, class B>
void issue_mmad(const AscendC::LocalTensor<C>& dst, const AscendC::LocalTensor<A>& fm,
                const AscendC::LocalTensor<B>& filter, const AscendC::LocalTensor<float>* bias,
                const AscendC::MmadParams& params, const Loc& loc) {
    static_assert(std::is_same_v<C, float> && std::is_same_v<A, half> && std::is_same_v<B, half>,
                  "npusim Ascend C: Mmad supports fp16 x fp16 -> fp32 only yet");
    if (params.fmOffset != 0 || params.enSsparse || params.enWinogradA || params.enWinogradB) {
        throw KernelError(EventIds::where(loc) +
                          "Mmad: offsets, sparsity and Winograd are not supported yet");
    }
    if (bias == nullptr && params.cmatrixSource && !params.cmatrixInitVal) {
        throw KernelError(EventIds::where(loc) +
                          "Mmad: cmatrixSource (C from the bias table) needs the bias tensor "
                          "argument: Mmad(dst, fm, filter, bias, params)");
    }
    KernelContext& ctx = context(loc);
    Resume resume(ctx);
    std::vector<Touch> touches;
    if (bias != nullptr) {
        touches.push_back(Touch{MemSpace::L1, bias->native().address,
                                std::uint64_t{params.n} * sizeof(float), false});
    }
    ctx.before_pipe_work(Pipe::M, touches, loc);
    Block::MmadCall call;
    call.c = dst.native();
    call.a = fm.native();
    call.b = filter.native();
    call.m = params.m;
    call.n = params.n;
    call.k = params.k;
    call.has_bias = bias != nullptr;
    if (bias != nullptr) call.bias = bias->native();
    call.accumulate = bias == nullptr && (!params.cmatrixInitVal || params.isBias);
    ctx.block().mmad(call, loc);
}

}  // namespace npusim::ascendc

namespace AscendC {

/// Mmad(c, a, b, params): c[m x n] (+)= a[m x k] x b[k x n], fp16 in, fp32 out.
template <class C, class A, class B>
void Mmad(const LocalTensor<C>& dst, const LocalTensor<A>& fm, const LocalTensor<B>& filter,
          const MmadParams& params, Loc loc = Loc::current()) {
    npusim::ascendc::issue_mmad(dst, fm, filter, nullptr, params, loc);
}

/// Mmad(c, a, b, bias, params): c[m x n] = a[m x k] x b[k x n] + bias (fp32, n elements, in
/// C2: one bias row added to every row of the product).
template <class C, class A, class B, class Bias>
void Mmad(const LocalTensor<C>& dst, const LocalTensor<A>& fm, const LocalTensor<B>& filter,
          const LocalTensor<Bias>& bias, const MmadParams& params, Loc loc = Loc::current()) {
    static_assert(std::is_same_v<Bias, float>, "npusim Ascend C: Mmad's bias is fp32 only yet");
    npusim::ascendc::issue_mmad(dst, fm, filter, &bias, params, loc);
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
