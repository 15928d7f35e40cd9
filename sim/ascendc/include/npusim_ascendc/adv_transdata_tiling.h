// The advanced TransData's shared facts (vendor API reference, "TransData",
// "GetTransDataMaxMinTmpSize"): TransDataConfig, the four conversions, the shapes each takes,
// and the temp bytes both the kernel (adv_transdata.h) and the host query read.
//   NCDHW -> NDC1HWC0      [N, C, D, H, W] -> [N, D, C1, H, W, C0]
//   NDC1HWC0 -> NCDHW      the reverse
//   NCDHW -> FRACTAL_Z_3D  [N, C, D, H, W] -> [D, C1, H, W, N1, N0, C0]
//   FRACTAL_Z_3D -> NCDHW  the reverse
// 16-bit elements: C0 = N0 = 16, C1 = ceil(C / 16), N1 = ceil(N / 16). An NCDHW tensor's H x W
// elements are padded to a multiple of 16 in memory (P = align16(H x W) per (n, c, d)).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "npusim_ascendc/ge_data_type.h"
#include "npusim_ascendc/ge_shape.h"
#include "npusim_ascendc/shape_info.h"
#include "tiling/platform/platform_ascendc.h"

namespace AscendC {

struct TransDataConfig {
    DataFormat srcFormat;
    DataFormat dstFormat;
};

}  // namespace AscendC

namespace npusim::ascendc {

enum class TransDataKind { None, NcdhwToNdc1hwc0, Ndc1hwc0ToNcdhw, NcdhwToFz3d, Fz3dToNcdhw };

constexpr TransDataKind transdata_kind(const AscendC::TransDataConfig& config) {
    using F = AscendC::DataFormat;
    const F s = config.srcFormat, d = config.dstFormat;
    if (s == F::NCDHW && d == F::NDC1HWC0) return TransDataKind::NcdhwToNdc1hwc0;
    if (s == F::NDC1HWC0 && d == F::NCDHW) return TransDataKind::Ndc1hwc0ToNcdhw;
    if (s == F::NCDHW && d == F::FRACTAL_Z_3D) return TransDataKind::NcdhwToFz3d;
    if (s == F::FRACTAL_Z_3D && d == F::NCDHW) return TransDataKind::Fz3dToNcdhw;
    return TransDataKind::None;
}

/// The modes of each format's shape.
constexpr std::size_t transdata_rank(AscendC::DataFormat format) {
    switch (format) {
        case AscendC::DataFormat::NCDHW:
            return 5;
        case AscendC::DataFormat::NDC1HWC0:
            return 6;
        case AscendC::DataFormat::FRACTAL_Z_3D:
            return 7;
        default:
            return 0;
    }
}

/// A conversion's NCDHW extents and the derived sizes (in elements).
struct TransDataDims {
    std::int64_t n = 0, c = 0, d = 0, h = 0, w = 0;
    std::int64_t hw() const { return h * w; }
    std::int64_t padded_hw() const { return (hw() + 15) / 16 * 16; }
    std::int64_t c1() const { return (c + 15) / 16; }
    std::int64_t n1() const { return (n + 15) / 16; }
    std::int64_t ncdhw_elements() const { return n * c * d * padded_hw(); }
    std::int64_t ndc1hwc0_elements() const { return n * d * c1() * hw() * 16; }
    std::int64_t fz3d_elements() const { return d * c1() * hw() * n1() * 256; }
};

/// The NCDHW extents of shapes `src` and `dst` for `kind`: "" when they agree with the formats
/// (the split axes C1 x C0 = align16(C), N1 x N0 = align16(N), C0 = N0 = 16), else why not.
inline std::string transdata_dims(TransDataKind kind, const std::vector<std::int64_t>& src,
                                  const std::vector<std::int64_t>& dst, TransDataDims& out) {
    const bool from_ncdhw =
        kind == TransDataKind::NcdhwToNdc1hwc0 || kind == TransDataKind::NcdhwToFz3d;
    const std::vector<std::int64_t>& plain = from_ncdhw ? src : dst;
    const std::vector<std::int64_t>& split = from_ncdhw ? dst : src;
    const bool fz = kind == TransDataKind::NcdhwToFz3d || kind == TransDataKind::Fz3dToNcdhw;
    if (kind == TransDataKind::None) return "the conversion is not one of the four supported";
    if (plain.size() != 5 || split.size() != (fz ? 7U : 6U)) {
        return "the shapes have " + std::to_string(src.size()) + " and " +
               std::to_string(dst.size()) + " modes, the formats " +
               (from_ncdhw ? "5 and " + std::to_string(fz ? 7 : 6)
                           : std::to_string(fz ? 7 : 6) + " and 5");
    }
    out = {plain[0], plain[1], plain[2], plain[3], plain[4]};
    for (const std::int64_t v : plain) {
        if (v <= 0) return "the NCDHW shape has a mode that is not positive";
    }
    // FRACTAL_Z_3D [D, C1, H, W, N1, N0, C0]; NDC1HWC0 [N, D, C1, H, W, C0].
    const bool agree = fz ? split[0] == out.d && split[1] == out.c1() && split[2] == out.h &&
                                split[3] == out.w && split[4] == out.n1() && split[5] == 16 &&
                                split[6] == 16
                          : split[0] == out.n && split[1] == out.d && split[2] == out.c1() &&
                                split[3] == out.h && split[4] == out.w && split[5] == 16;
    if (!agree) {
        return std::string("the ") + (fz ? "FRACTAL_Z_3D" : "NDC1HWC0") +
               " shape does not split the NCDHW shape (C0 = N0 = 16, C1 = ceil(C / 16), N1 = "
               "ceil(N / 16))";
    }
    return {};
}

/// The temp bytes a conversion takes (the vendor's sizes; max = min).
inline std::uint64_t transdata_tmp_bytes(TransDataKind kind, const TransDataDims& s) {
    const auto p = static_cast<std::uint64_t>(s.padded_hw()), d = static_cast<std::uint64_t>(s.d);
    const auto c1 = static_cast<std::uint64_t>(s.c1()), n1 = static_cast<std::uint64_t>(s.n1());
    const auto c = static_cast<std::uint64_t>(s.c), hw = static_cast<std::uint64_t>(s.hw());
    constexpr std::uint64_t b = 2;  // bytes per element
    switch (kind) {
        case TransDataKind::NcdhwToNdc1hwc0:
            return d * p * b + d * c1 * 16 * p * b;
        case TransDataKind::Ndc1hwc0ToNcdhw:
            return d * c1 * 16 * p * b + 512;
        case TransDataKind::NcdhwToFz3d:
            return std::max(c * d * p * b, d * hw * n1 * 16 * b) + n1 * 16 * d * c1 * 16 * p * b;
        case TransDataKind::Fz3dToNcdhw: {
            const bool aligned = s.n % 16 == 0 && s.c % 16 == 0;
            return n1 * 16 * c1 * 16 * d * p * b * (aligned ? 1 : 2);
        }
        default:
            return 0;
    }
}

}  // namespace npusim::ascendc

namespace AscendC {

/// GetTransDataMaxMinTmpSize: the temp bytes TransData takes for srcShape -> dstShape (the
/// shapes of its params' layouts); false for another conversion, data type (16-bit types only)
/// or shapes that do not fit the formats.
inline bool GetTransDataMaxMinTmpSize(const platform_ascendc::PlatformAscendC& /*platform*/,
                                      const ge::Shape& srcShape, const ge::Shape& dstShape,
                                      const ge::DataType dataType, const TransDataConfig& config,
                                      std::uint32_t& maxValue, std::uint32_t& minValue) {
    using npusim::ascendc::TransDataDims;
    const bool sixteen_bit =
        dataType == ge::DataType::DT_FLOAT16 || dataType == ge::DataType::DT_BF16 ||
        dataType == ge::DataType::DT_INT16 || dataType == ge::DataType::DT_UINT16;
    const auto kind = npusim::ascendc::transdata_kind(config);
    TransDataDims dims;
    if (!sixteen_bit ||
        !npusim::ascendc::transdata_dims(kind, srcShape.GetDims(), dstShape.GetDims(), dims)
             .empty()) {
        return false;
    }
    maxValue = minValue =
        static_cast<std::uint32_t>(npusim::ascendc::transdata_tmp_bytes(kind, dims));
    return true;
}

}  // namespace AscendC
