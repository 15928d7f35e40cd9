// Cube instructions: LoadData (L1 -> L0A/L0B, PIPE_MTE1), Mmad (PIPE_M), Fixpipe (L0C -> GM,
// PIPE_FIX).
//
// Layouts as on hardware (base/cube_layout.h): DataCopy with Nd2NzParams writes NZ into L1,
// LoadData moves whole 512-byte fractals (strided by srcStride / dstGap, each transposed with
// ifTranspose), Mmad reads a from L0A as ZZ and b from L0B as ZN and writes c into L0C as NZ
// (the cube's types, base/cube_types.h), and Fixpipe reads L0C's NZ (srcStride rows between
// its column blocks) and writes ND rows to GM, converting on the way (quantisation, ReLU).
// The automatic synchronization inserts nothing on the cube side. The bias table (C2) is kept
// in L1: DataCopy(C2, C1) is an L1 -> L1 copy on MTE1, and Mmad's bias form reads the bias
// row from there.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "base/cube_layout.h"
#include "base/cube_types.h"
#include "npusim_ascendc/data_copy.h"
#include "npusim_ascendc/fixpipe_order.h"

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

/// LoadData 2D v2's parameters, an Ascend 950 form (not on A2 / A3, which npusim models):
/// declared so that a kernel naming them in code for that chip compiles (the asc-devkit
/// compatibility samples); a LoadData that uses them fails to compile, saying so.
struct LoadData2DParamsV2 {
    std::uint32_t mStartPosition = 0;
    std::uint32_t kStartPosition = 0;
    std::uint16_t mStep = 0;
    std::uint16_t kStep = 0;
    std::int32_t srcStride = 0;
    std::uint16_t dstStride = 0;
    bool ifTranspose = false;
    std::uint8_t sid = 0;
};
template <class T, class... Rest>
void LoadData(const LocalTensor<T>&, const LocalTensor<T>&, const LoadData2DParamsV2&, Rest...) {
    static_assert(npusim::ascendc::kAlwaysFalse<T>,
                  "npusim Ascend C: LoadData with LoadData2DParamsV2 is an Ascend 950 API (not "
                  "on Atlas A2/A3, which npusim models; docs/ascendc.md)");
}

/// Mmad's parameters with the vendor's constructors (its kernel_struct_mm.h): the fields one
/// by one, (m, n, k, isBias, fmOffset, enSsparse, enWinogradA, enWinogradB) or (m, n, k,
/// unitFlag, cmatrixSource, cmatrixInitVal); (m, n, k) is npusim's own shorthand.
struct MmadParams {
    MmadParams() = default;
    MmadParams(std::uint16_t mIn, std::uint16_t nIn, std::uint16_t kIn) : m(mIn), n(nIn), k(kIn) {}
    MmadParams(std::uint16_t mIn, std::uint16_t nIn, std::uint16_t kIn, bool isBiasIn,
               std::int32_t fmOffsetIn, bool enSsparseIn, bool enWinogradAIn, bool enWinogradBIn)
        : m(mIn),
          n(nIn),
          k(kIn),
          isBias(isBiasIn),
          fmOffset(fmOffsetIn),
          enSsparse(enSsparseIn),
          enWinogradA(enWinogradAIn),
          enWinogradB(enWinogradBIn) {}
    MmadParams(std::uint16_t mIn, std::uint16_t nIn, std::uint16_t kIn, std::uint8_t unitFlagIn,
               bool cmatrixSourceIn, bool cmatrixInitValIn)
        : m(mIn),
          n(nIn),
          k(kIn),
          unitFlag(unitFlagIn),
          cmatrixSource(cmatrixSourceIn),
          cmatrixInitVal(cmatrixInitValIn) {}

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

/// Fixpipe's conversions on A2/A3, in the vendor's order (npusim::FixQuant has the same).
enum class QuantMode_t : std::uint8_t {
    NoQuant,
    F322F16,
    F322BF16,
    DEQF16,
    VDEQF16,
    QF322B8_PRE,
    VQF322B8_PRE,
    REQ8,
    VREQ8,
};
static_assert(static_cast<int>(QuantMode_t::VREQ8) == static_cast<int>(npusim::FixQuant::VREQ8) &&
              static_cast<int>(QuantMode_t::QF322B8_PRE) ==
                  static_cast<int>(npusim::FixQuant::QF322B8));

/// Fixpipe's output layout (its template argument): ROW_MAJOR (NZ -> ND, the default) or NZ.
enum class CO2Layout : std::uint8_t { NZ = 0, ROW_MAJOR, COLUMN_MAJOR };
struct FixpipeConfig {
    CO2Layout format = CO2Layout::ROW_MAJOR;
    bool isToUB = false;
};
inline constexpr FixpipeConfig CFG_NZ{CO2Layout::NZ, false};
inline constexpr FixpipeConfig CFG_ROW_MAJOR{CO2Layout::ROW_MAJOR, false};

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
    bool isChannelSplit = false;  // NZ output of float: 16 x 8 blocks instead of 16 x 16
};

/// LoadDataWithTranspose's parameters (A2/A3): per repeat one square matrix (16 x 16 of 16-bit
/// elements: one fractal) from L1, transposed into L0A / L0B.
struct LoadData2dTransposeParams {
    LoadData2dTransposeParams() = default;
    LoadData2dTransposeParams(std::uint16_t startIndexIn, std::uint8_t repeatTimesIn,
                              std::uint16_t srcStrideIn, std::uint16_t dstGapIn,
                              std::uint16_t dstFracGapIn, std::uint8_t addrModeIn = 0)
        : startIndex(startIndexIn),
          repeatTimes(repeatTimesIn),
          srcStride(srcStrideIn),
          dstGap(dstGapIn),
          dstFracGap(dstFracGapIn),
          addrMode(addrModeIn) {}

    std::uint16_t startIndex = 0;
    std::uint8_t repeatTimes = 0;
    std::uint16_t srcStride = 0;
    std::uint16_t dstGap = 0;
    std::uint16_t dstFracGap = 0;
    std::uint8_t addrMode = 0;
};

}  // namespace AscendC

namespace npusim::ascendc {

/// One LoadData 2D instruction on MTE1 after the automatic sync: `repeats` 512-byte fractals
/// from `first` (each next one `src_pitch` bytes further, 0: the same one) to `dst`
/// (`dst_pitch` bytes apart), each transposed when `transpose` (Block::load_fractals).
/// `square_half` 0 / 1: each repeat reads a square of two fractals (1024 bytes) and writes
/// that fractal of its transpose (LoadDataWithTranspose of 8- and 32-bit types).
template <class T>
void load_fractals(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& first,
                   std::uint64_t repeats, std::uint64_t src_pitch, std::uint64_t dst_pitch,
                   bool transpose, const Loc& loc, int square_half = -1) {
    constexpr std::uint64_t kFractalBytes = 512;
    const std::uint64_t read_bytes = square_half >= 0 ? 2 * kFractalBytes : kFractalBytes;
    KernelContext& ctx = context(loc);
    Resume resume(ctx);
    std::vector<Touch> touches;
    touches.reserve(2 * repeats);
    const auto s = first.native();
    const auto d = dst.native();
    for (std::uint64_t i = 0; i < repeats; ++i) {
        touches.push_back(Touch{s.space, s.address + i * src_pitch, read_bytes, false});
        touches.push_back(Touch{d.space, d.address + i * dst_pitch, kFractalBytes, true});
    }
    ctx.before_pipe_work(Pipe::MTE1, touches, loc);
    npusim::LoadFractalsCall call;
    call.src = s;
    call.dst = d;
    call.fractals = static_cast<std::uint32_t>(repeats);
    call.src_pitch = src_pitch;
    call.dst_pitch = dst_pitch;
    call.transpose = transpose;
    call.square_half = square_half;
    ctx.block().load_fractals(call, loc);
}

}  // namespace npusim::ascendc

namespace AscendC {

/// LoadData(l0, l1, params): repeatTimes fractals of 512 bytes, the first at fractal
/// startIndex of src, each next one srcStride fractals further (0: the same fractal again);
/// in dst one after the other with dstGap fractals between; ifTranspose transposes each
/// fractal (16 x 16, 16-bit types only on A2) (vendor API reference, "LoadData", 2D). Dense
/// loads are one contiguous copy, the others one strided instruction on MTE1; repeatTimes 0
/// does nothing. addrMode 1 (decreasing indexes) applies to GM -> L1 only: a KernelError.
template <class T>
void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2DParams& params,
              Loc loc = Loc::current()) {
    if (params.repeatTimes == 0) return;
    if (params.addrMode != 0) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                  "LoadData: addrMode 1 (decreasing fractal indexes) is for "
                                  "GM -> L1 loads; L1 -> L0A / L0B takes addrMode 0");
    }
    constexpr std::uint64_t kFractalBytes = 512;
    constexpr std::uint64_t kFractal = kFractalBytes / sizeof(T);
    const LocalTensor<T> first = src[std::uint64_t{params.startIndex} * kFractal];
    const std::uint64_t repeats = params.repeatTimes;
    const std::uint64_t src_pitch = std::uint64_t{params.srcStride} * kFractalBytes;
    const std::uint64_t dst_pitch = (1 + std::uint64_t{params.dstGap}) * kFractalBytes;
    if (params.ifTranspose || (params.srcStride == 0 && repeats > 1)) {
        npusim::ascendc::load_fractals(dst, first, repeats, src_pitch, dst_pitch,
                                       params.ifTranspose, loc);
        return;
    }
    if ((params.srcStride == 1 || repeats == 1) && params.dstGap == 0) {
        npusim::ascendc::copy_elements<T>(dst.native(), first.native(), repeats * kFractal, loc);
        return;
    }
    npusim::ascendc::copy_rows<T>(dst.native(), first.native(), repeats, kFractalBytes, src_pitch,
                                  dst_pitch, loc);
}

/// LoadDataWithTranspose(l0, l1, params): repeatTimes square matrices from L1, the first at
/// square startIndex, srcStride squares apart (0: the same one), each transposed into L0A /
/// L0B, (1 + dstGap) fractals from one repeat's first fractal to the next's (vendor API
/// reference, "LoadDataWithTranspose"; asc-devkit load_data_l12l0). A square is one 16 x 16
/// fractal for 16-bit types (the same instruction as LoadData with ifTranspose); two for int8
/// (32 x 32: two 16 x 32 fractals one above the other) and for 32-bit types (16 x 16: two
/// 16 x 8 fractals side by side), whose transpose's two fractals land dstFracGap fractals
/// apart: npusim issues one instruction per half. addrMode 1: a KernelError.
template <class T>
void LoadDataWithTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                           const LoadData2dTransposeParams& params, Loc loc = Loc::current()) {
    if (params.repeatTimes == 0) return;
    if (params.addrMode != 0) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                  "LoadDataWithTranspose: addrMode 1 is not supported yet "
                                  "(docs/ascendc.md)");
    }
    constexpr std::uint64_t kFractalBytes = 512;
    constexpr std::uint64_t kSquareBytes = sizeof(T) == 2 ? kFractalBytes : 2 * kFractalBytes;
    const LocalTensor<T> first = src[std::uint64_t{params.startIndex} * kSquareBytes / sizeof(T)];
    const std::uint64_t src_pitch = std::uint64_t{params.srcStride} * kSquareBytes;
    const std::uint64_t dst_pitch = (1 + std::uint64_t{params.dstGap}) * kFractalBytes;
    if constexpr (sizeof(T) == 2) {
        npusim::ascendc::load_fractals(dst, first, params.repeatTimes, src_pitch, dst_pitch, true,
                                       loc);
    } else {
        const std::uint64_t second = (1 + std::uint64_t{params.dstFracGap}) * kFractalBytes;
        for (int half = 0; half < 2; ++half) {
            npusim::ascendc::load_fractals(dst[half * second / sizeof(T)], first,
                                           params.repeatTimes, src_pitch, dst_pitch, false, loc,
                                           half);
        }
    }
}

}  // namespace AscendC

// The vendor's compiler declares QuantMode_t at global scope: kernels name it unqualified
// (FixpipeParamsV220{..., QuantMode_t::F322F16, ...}).
using AscendC::QuantMode_t;

namespace npusim::ascendc {

/// Whether the cube takes A x B -> C (and a bias of type Bias): a row of its type table
/// (pipes/op_table.h).
template <class C, class A, class B, class Bias>
constexpr bool cube_takes() {
    if constexpr (Element<A> && Element<B> && Element<C> && Element<Bias>) {
        // Rows by value: a pointer compared with null is not a constant expression under
        // UBSan's null checks (the sanitized build), so cube_type() is not used here.
        for (const CubeTypeInfo& row : kCubeTypes) {
            if (row.input == dtype_of<A>)
                return dtype_of<B> == row.input && dtype_of<C> == row.result &&
                       dtype_of<Bias> == row.result;
        }
        return false;
    } else {
        return false;
    }
}

/// The native Mmad of an Ascend C Mmad call: a bias row (in C2, kept in L1) initialises the
/// result; otherwise cmatrixInitVal false (or the deprecated isBias) accumulates onto it.
/// The types (fp16/bf16/fp32 x same -> fp32, int8 x int8 -> int32, the bias of the result
/// type) are checked by the core against the cube's type table: a KernelError naming the line.
template <class C, class A, class B, class Bias>
void issue_mmad(const AscendC::LocalTensor<C>& dst, const AscendC::LocalTensor<A>& fm,
                const AscendC::LocalTensor<B>& filter, const AscendC::LocalTensor<Bias>* bias,
                const AscendC::MmadParams& params, const Loc& loc) {
    static_assert(cube_takes<C, A, B, Bias>(),
                  "npusim Ascend C: Mmad takes half x half, bfloat16_t x bfloat16_t or float x "
                  "float -> float, or int8_t x int8_t -> int32_t, with a bias of the result "
                  "type (the A2 cube's types)");
    if (params.fmOffset != 0 || params.enSsparse || params.enWinogradA || params.enWinogradB) {
        throw KernelError(EventIds::where(loc) +
                          "Mmad: offsets, sparsity and Winograd are not supported yet");
    }
    // cmatrixSource without a bias tensor: the instruction's bias-table address is 0 (the
    // vendor's Mmad(dst, fm, filter, params) passes no other), so C starts from the n
    // elements of the result type at the start of the table.
    npusim::LocalTensor<C> table_bias{MemSpace::BT, 0, params.n};
    const bool from_table = bias == nullptr && params.cmatrixSource && !params.cmatrixInitVal;
    KernelContext& ctx = context(loc);
    Resume resume(ctx);
    std::vector<Touch> touches;
    if (bias != nullptr) {
        touches.push_back(Touch{bias->native().space, bias->native().address,
                                std::uint64_t{params.n} * sizeof(Bias), false});
    } else if (from_table) {
        touches.push_back(Touch{MemSpace::BT, 0, std::uint64_t{params.n} * sizeof(C), false});
    }
    // The result's NZ fractals in L0C: an earlier unordered Mmad on them gets the automatic
    // PipeBarrier<PIPE_M> (back-to-back accumulation).
    const std::uint64_t c_bytes = (std::uint64_t{params.m} + 15) / 16 * 16 *
                                  ((std::uint64_t{params.n} + 15) / 16 * 16) * sizeof(C);
    touches.push_back(Touch{dst.native().space, dst.native().address, c_bytes, true});
    ctx.before_pipe_work(Pipe::M, touches, loc);
    npusim::MmadCall call;
    call.c = dst.native();
    call.a = fm.native();
    call.b = filter.native();
    call.m = params.m;
    call.n = params.n;
    call.k = params.k;
    call.has_bias = bias != nullptr || from_table;
    if (bias != nullptr) call.bias = bias->native();
    if (from_table) call.bias = table_bias;
    call.accumulate = !call.has_bias && (!params.cmatrixInitVal || params.isBias);
    call.layout = CubeLayout::Fractal;
    // kDirectionAlign (fp32 a): L0A holds a's k padded to 16, so its row blocks are
    // ceil(k / 16) x 2 fractals of 16 x 8 apart.
    if (params.kDirectionAlign && sizeof(A) == 4 && params.m != 1)
        call.a_block_stride = (std::uint64_t{params.k} + 15) / 16 * 2 * 128;
    ctx.block().mmad(call, loc);
}

template <class D, class S, class W, class P, template <class> class Out>
void issue_fixpipe(const Out<D>& dst, const AscendC::LocalTensor<S>& src,
                   const AscendC::LocalTensor<W>* scales,
                   const AscendC::FixpipeParamsV220<P>& params,
                   const AscendC::FixpipeConfig& config, const Loc& loc,
                   CubeLayout layout = CubeLayout::Fractal);

/// Fixpipe with NZ output (CFG_NZ, vendor API reference "Fixpipe", NZ2NZ): the result stays
/// in column blocks of C0 columns, each block mSize rows of C0 elements, the blocks dstStride
/// x 32 bytes apart in GM. C0 is 32 bytes of the output type (half / bfloat16_t 16, int8_t /
/// uint8_t 32: two of L0C's 16-column blocks side by side), for float 16 (64 bytes);
/// isChannelSplit (float in 16 x 8 blocks) is a KernelError. npusim issues one Fixpipe
/// instruction per output block (hardware: one for all), each the NZ -> ND Fixpipe of one
/// block with its conversion.
template <class D, class S, class W, class P, template <class> class Out>
void issue_fixpipe_nz(const Out<D>& dst, const AscendC::LocalTensor<S>& src,
                      const AscendC::LocalTensor<W>* scales,
                      const AscendC::FixpipeParamsV220<P>& params, const Loc& loc) {
    constexpr bool kFloatOut = std::is_same_v<D, float>;
    if (params.isChannelSplit) {
        throw KernelError(EventIds::where(loc) +
                          "Fixpipe with NZ output and isChannelSplit (float results in 16 x 8 "
                          "blocks) is not supported yet (docs/ascendc.md)");
    }
    const std::uint32_t c0 = kFloatOut ? 16 : 32 / sizeof(D);
    if ((std::uint64_t{params.dstStride} * 32) % sizeof(D) != 0 ||
        std::uint64_t{params.dstStride} * 32 < std::uint64_t{params.mSize} * c0 * sizeof(D)) {
        throw KernelError(EventIds::where(loc) + "Fixpipe with NZ output: dstStride " +
                          std::to_string(params.dstStride) +
                          " (32-byte units between output column blocks) is less than mSize " +
                          "x C0 = " + std::to_string(std::uint64_t{params.mSize} * c0) +
                          " elements");
    }
    if (params.nSize > 16 && params.srcStride < (params.mSize + 15) / 16 * 16) {
        throw KernelError(EventIds::where(loc) + "Fixpipe: srcStride " +
                          std::to_string(params.srcStride) +
                          " (C0 rows between L0C's column blocks) is less than mSize " +
                          std::to_string(params.mSize) + " rounded up to 16");
    }
    const std::uint64_t block_elements = std::uint64_t{params.dstStride} * 32 / sizeof(D);
    const std::uint32_t blocks = (params.nSize + c0 - 1) / c0;
    const NzBlockOrder order = nz_block_order(dst, scales, blocks, c0, block_elements, loc);
    for (std::size_t i = 0; i < order.blocks.size(); ++i) {
        const std::uint32_t b = order.blocks[i], col = b * c0;
        if (order.barrier_before[i]) {
            KernelContext& ctx = context(loc);
            Resume resume(ctx);
            ctx.pipe_barrier(Pipe::FIX, loc);
        }
        AscendC::FixpipeParamsV220<P> one = params;
        one.nSize = static_cast<std::uint16_t>(std::min<std::uint32_t>(c0, params.nSize - col));
        one.dstStride = c0;
        one.ndNum = 1;
        const std::uint64_t from =
            std::uint64_t{col / 16} * params.srcStride * kFractalSide + col % 16;
        const AscendC::LocalTensor<W> shifted =
            scales != nullptr ? (*scales)[col] : AscendC::LocalTensor<W>{};
        issue_fixpipe<D, S, W, P, Out>(dst[b * block_elements], src[from],
                                       scales != nullptr ? &shifted : nullptr, one,
                                       AscendC::CFG_ROW_MAJOR, loc, CubeLayout::Fractal);
    }
}

/// The native Fixpipe of an Ascend C Fixpipe call: one Fixpipe instruction the core checks
/// against the conversion table (base/cube_types.h), reading L0C as NZ (`layout` Fractal,
/// srcStride rows between column blocks) or, for the Matmul API's own tiles, row-major; a
/// row-major tile without a conversion is the plain L0C -> GM copy (one strided DMA).
template <class D, class S, class W, class P, template <class> class Out>
void issue_fixpipe(const Out<D>& dst, const AscendC::LocalTensor<S>& src,
                   const AscendC::LocalTensor<W>* scales,
                   const AscendC::FixpipeParamsV220<P>& params,
                   const AscendC::FixpipeConfig& config, const Loc& loc, CubeLayout layout) {
    static_assert(std::is_same_v<Out<D>, AscendC::GlobalTensor<D>> ||
                      std::is_same_v<Out<D>, AscendC::LocalTensor<D>>,
                  "npusim Ascend C: Fixpipe writes a GlobalTensor or a LocalTensor in L1");
    if (params.mSize == 0 || params.nSize == 0) return;  // a NOP
    if (config.format == AscendC::CO2Layout::NZ && !config.isToUB &&
        layout == CubeLayout::Fractal) {
        issue_fixpipe_nz(dst, src, scales, params, loc);
        return;
    }
    if (params.ndNum == 0) return;  // a NOP
    if (config.format != AscendC::CO2Layout::ROW_MAJOR || config.isToUB || params.ndNum > 1) {
        throw KernelError(EventIds::where(loc) +
                          "Fixpipe: column-major output, output to UB and several ND "
                          "matrices (ndNum > 1) are not supported yet");
    }
    const auto quant = static_cast<FixQuant>(params.quantPre);
    const std::uint64_t row_bytes = std::uint64_t{params.nSize} * sizeof(D);
    const bool fractal = layout == CubeLayout::Fractal;
    if (fractal && params.nSize > 16 && params.srcStride < (params.mSize + 15) / 16 * 16) {
        throw KernelError(EventIds::where(loc) + "Fixpipe: srcStride " +
                          std::to_string(params.srcStride) +
                          " (C0 rows between L0C's column blocks) is less than mSize " +
                          std::to_string(params.mSize) + " rounded up to 16");
    }
    constexpr bool kToGm = std::is_same_v<Out<D>, AscendC::GlobalTensor<D>>;
    if constexpr (std::is_same_v<D, S> && kToGm) {
        if (!fractal && quant == FixQuant::None && !params.reluEn) {
            const std::uint64_t gap =
                params.dstStride > params.nSize ? (params.dstStride - params.nSize) * sizeof(D) : 0;
            copy_blocks<S>(view_of(dst), src.native(), params.mSize, row_bytes, 0, gap, loc);
            return;
        }
    }
    if (fix_quant_info(quant).per_channel && scales == nullptr) {
        throw KernelError(EventIds::where(loc) + "Fixpipe: quantPre " +
                          std::string(fix_quant_info(quant).name) +
                          " scales each column by a word of the cbufWorkspace tensor: call "
                          "Fixpipe(dst, src, cbufWorkspace, params)");
    }
    const std::uint64_t pitch =
        params.dstStride == 0 ? row_bytes : std::uint64_t{params.dstStride} * sizeof(D);
    KernelContext& ctx = context(loc);
    Resume resume(ctx);
    std::vector<Touch> touches;
    const MatrixShape source =
        fractal ? MatrixShape{MatrixFormat::NZ, params.mSize, params.nSize, kFractalSide,
                              std::uint64_t{params.srcStride} * kFractalSide}
                : MatrixShape{MatrixFormat::ND, params.mSize, params.nSize};
    touches.push_back(Touch{MemSpace::L0C, src.native().address, source.span() * sizeof(S), false});
    for (std::uint64_t row = 0; row < params.mSize; ++row) {
        touches.push_back(Touch{kToGm ? MemSpace::GM : MemSpace::L1,
                                view_of(dst).address + row * pitch, row_bytes, true});
    }
    npusim::FixpipeCall call;
    call.src = src.native();
    if constexpr (kToGm) {
        // A GlobalTensor set without a size (SetGlobalBuffer(ptr)) spans the rows written.
        call.dst =
            dst.native(dst.GetSize() != 0
                           ? 0
                           : ((params.mSize - 1) * pitch + row_bytes + sizeof(D) - 1) / sizeof(D));
    } else {
        call.dst = dst.native();  // L1 (a C1 tensor): the decoder refuses other spaces
    }
    if (scales != nullptr && fix_quant_info(quant).per_channel) {
        touches.push_back(Touch{scales->native().space, scales->native().address,
                                std::uint64_t{params.nSize} * 8, false});
        call.scales = scales->native();
    }
    ctx.before_pipe_work(Pipe::FIX, touches, loc);
    call.m = params.mSize;
    call.n = params.nSize;
    call.dst_pitch = pitch;
    call.quant = quant;
    call.relu = params.reluEn;
    call.quant_word = params.deqScalar;
    call.layout = layout;
    call.src_block_stride = fractal ? source.block_stride : 0;
    ctx.block().fixpipe(call, loc);
}

}  // namespace npusim::ascendc

namespace AscendC {

/// Mmad(c, a, b, params): c[m x n] (+)= a[m x k] x b[k x n]: half, bfloat16_t or float in
/// with a float result, int8_t in with an int32_t result; a in L0A as ZZ (ND when m is 1), b
/// in L0B as ZN, c in L0C as NZ (vendor API reference, "Mmad"; base/cube_layout.h).
template <class C, class A, class B>
void Mmad(const LocalTensor<C>& dst, const LocalTensor<A>& fm, const LocalTensor<B>& filter,
          const MmadParams& params, Loc loc = Loc::current()) {
    npusim::ascendc::issue_mmad<C, A, B, C>(dst, fm, filter, nullptr, params, loc);
}

/// Mmad(c, a, b, bias, params): c[m x n] = a[m x k] x b[k x n] + bias (of the result type, n
/// elements, in C2: one bias row added to every row of the product).
template <class C, class A, class B, class Bias>
void Mmad(const LocalTensor<C>& dst, const LocalTensor<A>& fm, const LocalTensor<B>& filter,
          const LocalTensor<Bias>& bias, const MmadParams& params, Loc loc = Loc::current()) {
    npusim::ascendc::issue_mmad(dst, fm, filter, &bias, params, loc);
}

/// Fixpipe(gm, l0c, params): mSize x nSize results from L0C (NZ, its column blocks srcStride
/// rows of 16 apart) to GM rows dstStride elements apart (NZ -> ND), converted by quantPre with
/// deqScalar (vendor API reference, "Fixpipe": F322F16 / F322BF16 round to nearest even, DEQF16
/// int32 -> half and QF322B8_PRE / REQ8 -> int8 or uint8 scaled by deqScalar, V* modes by one
/// uint64 word per column from the cbufWorkspace tensor in L1), reluEn: negative results become 0
/// (docs/ascendc.md). Fixpipe(l1, l0c, params): the same into L1 (a C1 tensor; A2 / A3
/// fixpipes write L1 too), e.g. NZ results that a next Mmad loads again.
template <class D, class S, const FixpipeConfig& config = CFG_ROW_MAJOR, class P = void,
          template <class> class Out>
void Fixpipe(const Out<D>& dst, const LocalTensor<S>& src, const FixpipeParamsV220<P>& params,
             Loc loc = Loc::current()) {
    npusim::ascendc::issue_fixpipe<D, S, std::uint64_t>(dst, src, nullptr, params, config, loc);
}
/// Fixpipe(dst, l0c, cbufWorkspace, params): the per-column (V*) quantisation modes, one uint64
/// word per column in L1 (TPosition C1).
template <class D, class S, const FixpipeConfig& config = CFG_ROW_MAJOR, class W = std::uint64_t,
          class P = void, template <class> class Out>
void Fixpipe(const Out<D>& dst, const LocalTensor<S>& src, const LocalTensor<W>& cbufWorkspace,
             const FixpipeParamsV220<P>& params, Loc loc = Loc::current()) {
    static_assert(std::is_same_v<W, std::uint64_t>,
                  "npusim Ascend C: Fixpipe's cbufWorkspace is a LocalTensor<uint64_t>");
    npusim::ascendc::issue_fixpipe<D, S, W>(dst, src, &cbufWorkspace, params, config, loc);
}

/// SetFixPipeConfig(preData, isUnitFlag): with an L0C (CO1) tensor it clears L0C's unit flags
/// (vendor API reference, "SetFixPipeConfig"); npusim does not model unit flags (Mmad and
/// Fixpipe are ordered by M -> FIX flags, unitFlag is ignored), so that form has no effect
/// beyond one scalar cycle. The quantisation-table forms (a tensor in the fixpipe buffer,
/// C2PIPE2GM) are not supported: a KernelError naming the line.
template <class T, bool setRelu = false>
void SetFixPipeConfig(const LocalTensor<T>& preData, bool isUnitFlag = false,
                      Loc loc = Loc::current()) {
    (void)isUnitFlag;
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    if (setRelu || preData.native().space != npusim::MemSpace::L0C) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                  "SetFixPipeConfig with a quantisation (or ReLU) table is not "
                                  "supported yet: only the L0C unit-flag form (docs/ascendc.md)");
    }
    npusim::ascendc::Resume resume(ctx);
    ctx.block().scalar_work(1, loc);
}
template <class T, class U>
void SetFixPipeConfig(const LocalTensor<T>&, const LocalTensor<U>&, bool = false) {
    static_assert(npusim::ascendc::kAlwaysFalse<T>,
                  "npusim Ascend C: SetFixPipeConfig (Fixpipe quantization tables) is not "
                  "supported yet (docs/ascendc.md, API status)");
}

}  // namespace AscendC
