// LoadData 3D v2 (img2col, L1 -> L0A / L0B on PIPE_MTE1) and its registers: SetFmatrix,
// SetLoadDataPaddingValue, SetLoadDataBoundary, SetLoadDataRepeat (vendor Ascend C API
// reference, "LoadData" 3D and its auxiliary configuration interfaces, A2 / A3).
//
// One native LoadImg2Col instruction a call (base/img2col.h says which feature-map element
// each destination element is): into L0A the window as ZZ (enTranspose: its transpose as ZZ,
// 16- and 32-bit types), into L0B always as ZN (16- and 32-bit types). The feature map lies in
// L1 as NC1HWC0. Not supported (KernelError naming the line): channelSize, kStartPt or
// kExtension not a multiple of C0, fMatrixCtrl true, enSmallK, SetLoadDataRepeat with more
// than one repeat, reads that wrap at SetLoadDataBoundary's bound more than once (reads past
// it continue at L1's start, as on hardware).
// LoadData3DParamsV1 is an Ascend 310 / 910 API: not declared (a compile error).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "base/img2col.h"
#include "npusim_ascendc/data_copy.h"

namespace AscendC {

/// Whether LoadData 3D takes the feature map's shape and padding (isSetFMatrix) and the pad
/// value (isSetPadding) from its parameters (true) or from SetFmatrix /
/// SetLoadDataPaddingValue (false).
struct IsResetLoad3dConfig {
    bool isSetFMatrix = true;
    bool isSetPadding = true;
};
inline constexpr IsResetLoad3dConfig IS_RESER_LOAD3D_DEFAULT_CONFIG = {true, true};

enum class FmatrixMode : std::uint8_t { FMATRIX_LEFT = 0, FMATRIX_RIGHT = 1 };

/// The entries of a padList (left, right, top, bottom).
inline constexpr std::int32_t PAD_SIZE = 4;

/// SetLoadDataRepeat's parameters; A2 / A3 have no dstStride (Ascend 950 only).
struct LoadDataRepeatParam {
    LoadDataRepeatParam() = default;
    LoadDataRepeatParam(std::uint16_t repeatStrideIn, std::uint8_t repeatTimeIn,
                        std::uint8_t repeatModeIn, std::uint16_t dstStrideIn = 0)
        : repeatStride(repeatStrideIn),
          repeatTime(repeatTimeIn),
          repeatMode(repeatModeIn),
          dstStride(dstStrideIn) {}
    std::uint16_t repeatStride = 0;
    std::uint8_t repeatTime = 1;
    std::uint8_t repeatMode = 0;
    std::uint16_t dstStride = 0;
};

/// LoadData 3D v2's parameters, the vendor's field names ("LoadData" 3D, table 4).
template <class T>
struct LoadData3DParamsV2 {
    std::uint8_t padList[4] = {0, 0, 0, 0};  // left, right, top, bottom
    std::uint16_t l1H = 0;
    std::uint16_t l1W = 0;
    std::uint16_t channelSize = 0;
    std::uint16_t kExtension = 0;
    std::uint16_t mExtension = 0;
    std::uint16_t kStartPt = 0;
    std::uint16_t mStartPt = 0;
    std::uint8_t strideW = 1;
    std::uint8_t strideH = 1;
    std::uint8_t filterW = 1;
    std::uint8_t filterH = 1;
    std::uint8_t dilationFilterW = 1;
    std::uint8_t dilationFilterH = 1;
    bool enTranspose = false;
    bool enSmallK = false;
    T padValue = 0;
    bool filterSizeW = false;
    bool filterSizeH = false;
    bool fMatrixCtrl = false;
};

/// LoadData 3D v2's packed form ("Load3Dv2Pro"): the feature map's shape and padding always
/// from SetFmatrix, the pad value from SetLoadDataPaddingValue; extConfig packs kExtension
/// (bits 0-15), mExtension (16-31), kStartPt (32-47) and mStartPt (48-63); filterConfig packs
/// strideW, strideH, filterW, filterH, dilationFilterW and dilationFilterH, a byte each from
/// bit 0 (the default: all 1).
struct LoadData3DParamsV2Pro {
    LoadData3DParamsV2Pro() = default;
    LoadData3DParamsV2Pro(std::uint16_t channelSizeIn, bool enTransposeIn, bool enSmallKIn,
                          bool filterSizeWIn, bool filterSizeHIn, bool fMatrixCtrlIn,
                          std::uint64_t extConfigIn, std::uint64_t filterConfigIn)
        : channelSize(channelSizeIn),
          enTranspose(enTransposeIn),
          enSmallK(enSmallKIn),
          filterSizeW(filterSizeWIn),
          filterSizeH(filterSizeHIn),
          fMatrixCtrl(fMatrixCtrlIn),
          extConfig(extConfigIn),
          filterConfig(filterConfigIn) {}
    std::uint16_t channelSize = 0;
    bool enTranspose = false;
    bool enSmallK = false;
    bool filterSizeW = false;
    bool filterSizeH = false;
    bool fMatrixCtrl = false;
    std::uint64_t extConfig = 0;
    std::uint64_t filterConfig = 0x10101010101ULL;
};

/// SetFmatrix(l1H, l1W, padList, mode): the feature map's shape and padding a LoadData 3D
/// with isSetFMatrix false uses (the reference supports FMATRIX_LEFT only; both matrices
/// read it).
inline void SetFmatrix(std::uint16_t l1H, std::uint16_t l1W, const std::uint8_t padList[4],
                       const FmatrixMode& fmatrixMode, Loc loc = Loc::current()) {
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    if (fmatrixMode != FmatrixMode::FMATRIX_LEFT) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                  "SetFmatrix: only FMATRIX_LEFT is supported (the vendor "
                                  "reference's rule; docs/ascendc.md)");
    }
    auto& regs = ctx.load3d_registers();
    regs.l1_h = l1H;
    regs.l1_w = l1W;
    for (std::size_t i = 0; i < 4; ++i) regs.pads[i] = padList[i];
    npusim::ascendc::Resume resume(ctx);
    ctx.block().scalar_work(1, loc);
}

/// SetLoadDataPaddingValue(value): the pad value of a LoadData 3D with isSetPadding false.
template <class T>
void SetLoadDataPaddingValue(const T padValue, Loc loc = Loc::current()) {
    static_assert(sizeof(T) <= 8);
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    std::uint64_t bits = 0;
    std::memcpy(&bits, &padValue, sizeof(T));
    ctx.load3d_registers().pad_bits = bits;
    npusim::ascendc::Resume resume(ctx);
    ctx.block().scalar_work(1, loc);
}

/// SetLoadDataBoundary(bytes): LoadData 3D's reads at L1 addresses at or past this one
/// continue at L1's start (address - bytes); 0: no bound.
inline void SetLoadDataBoundary(std::uint32_t boundaryValue, Loc loc = Loc::current()) {
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    ctx.load3d_registers().boundary = boundaryValue;
    npusim::ascendc::Resume resume(ctx);
    ctx.block().scalar_work(1, loc);
}

/// SetLoadDataRepeat(params): LoadData 3D's repeats; one repeat (the default) is supported,
/// repeatTime 0 makes LoadData 3D a NOP, more repeats are a KernelError at the LoadData.
inline void SetLoadDataRepeat(const LoadDataRepeatParam& repeatParams, Loc loc = Loc::current()) {
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    ctx.load3d_registers().repeat_time = repeatParams.repeatTime;
    npusim::ascendc::Resume resume(ctx);
    ctx.block().scalar_work(1, loc);
}

/// LoadData(l0, l1, LoadData3DParamsV2): the window of mExtension rows from mStartPt and
/// kExtension columns from kStartPt of the img2col matrix of the NC1HWC0 feature map in src
/// (l1H x l1W positions, channelSize channels, the kernel's size, stride, dilation and
/// padding), into L0A as ZZ (enTranspose: its transpose as ZZ) or into L0B as ZN. l1H, l1W,
/// channelSize, kExtension or mExtension 0 (or a filter size 0): a NOP.
template <class T, IsResetLoad3dConfig defaultConfig = IS_RESER_LOAD3D_DEFAULT_CONFIG, class U>
void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src,
              const LoadData3DParamsV2<U>& params, Loc loc = Loc::current()) {
    static_assert(std::is_same_v<T, U>,
                  "npusim Ascend C: LoadData3DParamsV2's padValue type is the tensors' type");
    using npusim::KernelError;
    using npusim::ascendc::EventIds;
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    const auto& regs = ctx.load3d_registers();
    if (params.fMatrixCtrl || params.enSmallK) {
        throw KernelError(EventIds::where(loc) +
                          "LoadData 3D: fMatrixCtrl true and enSmallK are not supported (the "
                          "vendor reference: false only)");
    }
    const std::uint32_t filter_w = params.filterW + (params.filterSizeW ? 256U : 0U);
    const std::uint32_t filter_h = params.filterH + (params.filterSizeH ? 256U : 0U);
    npusim::Img2Col g;
    g.l1_h = defaultConfig.isSetFMatrix ? params.l1H : regs.l1_h;
    g.l1_w = defaultConfig.isSetFMatrix ? params.l1W : regs.l1_w;
    const auto pad = [&](std::size_t i) -> std::uint32_t {
        return defaultConfig.isSetFMatrix ? params.padList[i] : regs.pads[i];
    };
    g.pad_left = pad(0);
    g.pad_right = pad(1);
    g.pad_top = pad(2);
    g.pad_bottom = pad(3);
    g.channels = params.channelSize;
    g.k_start = params.kStartPt;
    g.k_extent = params.kExtension;
    g.m_start = params.mStartPt;
    g.m_extent = params.mExtension;
    g.stride_h = params.strideH;
    g.stride_w = params.strideW;
    g.filter_h = filter_h;
    g.filter_w = filter_w;
    g.dilation_h = params.dilationFilterH;
    g.dilation_w = params.dilationFilterW;
    const bool to_b = dst.native().space == npusim::MemSpace::L0B;
    g.transpose = params.enTranspose && !to_b;  // into L0B the flag has no effect
    if (g.l1_h == 0 || g.l1_w == 0 || g.channels == 0 || g.k_extent == 0 || g.m_extent == 0 ||
        filter_w == 0 || filter_h == 0 || regs.repeat_time == 0) {
        return;  // a NOP (the reference)
    }
    if (regs.repeat_time > 1) {
        throw KernelError(EventIds::where(loc) +
                          "LoadData 3D with SetLoadDataRepeat's repeatTime > 1 is not supported "
                          "yet (docs/ascendc.md)");
    }
    std::uint64_t pad_bits = regs.pad_bits;
    if (defaultConfig.isSetPadding) {
        pad_bits = 0;
        std::memcpy(&pad_bits, &params.padValue, sizeof(U));
    }
    constexpr std::uint64_t kC0 = 32 / sizeof(T);
    const npusim::Img2ColRead read = npusim::img2col_read(g, kC0);
    const auto s = src.native();
    const auto d = dst.native();
    // Reads past SetLoadDataBoundary's bound continue at L1's start (the decoder splits them).
    const std::uint64_t lo = s.address + read.lo * sizeof(T), hi = s.address + read.hi * sizeof(T);
    const bool wraps = regs.boundary != 0 && read.hi > read.lo && hi > regs.boundary;
    if (wraps) g.wrap_bytes = regs.boundary;
    npusim::ascendc::Resume resume(ctx);
    std::vector<npusim::ascendc::Touch> touches;
    const npusim::MatrixShape shape = npusim::img2col_destination(g, kC0, to_b);
    touches.push_back(npusim::ascendc::Touch{d.space, d.address, shape.span() * sizeof(T), true});
    if (wraps && lo < regs.boundary && hi - regs.boundary <= regs.boundary) {
        touches.push_back(npusim::ascendc::Touch{s.space, lo, regs.boundary - lo, false});
        touches.push_back(npusim::ascendc::Touch{s.space, 0, hi - regs.boundary, false});
    } else if (read.hi > read.lo) {
        touches.push_back(npusim::ascendc::Touch{s.space, lo, hi - lo, false});
    }
    ctx.before_pipe_work(npusim::Pipe::MTE1, touches, loc);
    npusim::LoadFractalsCall call;
    call.src = s;
    call.dst = d;
    call.img2col = true;
    call.geometry = g;
    call.pad_value = pad_bits;
    ctx.block().load_fractals(call, loc);
}

/// LoadData(l0, l1, LoadData3DParamsV2Pro): LoadData 3D v2 with the packed fields unpacked,
/// the feature map's shape, padding and pad value from their registers.
template <class T>
void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src,
              const LoadData3DParamsV2Pro& params, Loc loc = Loc::current()) {
    LoadData3DParamsV2<T> p;
    p.channelSize = params.channelSize;
    p.kExtension = static_cast<std::uint16_t>(params.extConfig);
    p.mExtension = static_cast<std::uint16_t>(params.extConfig >> 16);
    p.kStartPt = static_cast<std::uint16_t>(params.extConfig >> 32);
    p.mStartPt = static_cast<std::uint16_t>(params.extConfig >> 48);
    const auto byte = [&](int i) {
        return static_cast<std::uint8_t>(params.filterConfig >> (8 * i));
    };
    p.strideW = byte(0);
    p.strideH = byte(1);
    p.filterW = byte(2);
    p.filterH = byte(3);
    p.dilationFilterW = byte(4);
    p.dilationFilterH = byte(5);
    p.enTranspose = params.enTranspose;
    p.enSmallK = params.enSmallK;
    p.filterSizeW = params.filterSizeW;
    p.filterSizeH = params.filterSizeH;
    p.fMatrixCtrl = params.fMatrixCtrl;
    static constexpr IsResetLoad3dConfig kFromRegisters = {false, false};
    LoadData<T, kFromRegisters>(dst, src, p, loc);
}

}  // namespace AscendC
