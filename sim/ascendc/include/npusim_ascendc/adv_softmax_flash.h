// SoftmaxFlashV2 and SoftmaxGrad / SoftmaxGradFront, ND, float (host side:
// adv_softmax_flash_tiling.h). Row by row as SoftMax (adv_softmax.h), with its helpers: the
// row's ReduceMax / ReduceSum, one Brcb of the result into a 32-byte block, level-0 Sub / Mul
// of such a block against the row, and 8-element ops on the blocks. Max, sum and expMax
// tensors hold one 32-byte block (8 floats, all equal) per row. Outputs may be the same
// tensors as the inputs (the vendor's sample passes them so): each row reads its inputs
// before writing them.
#pragma once

#include <cstdint>
#include <type_traits>

#include "npusim_ascendc/adv_softmax.h"
#include "npusim_ascendc/adv_softmax_flash_tiling.h"

namespace npusim::ascendc::adv {

template <class T>
void require_float_softmax(std::string_view api) {
    (void)api;
    static_assert(std::is_same_v<T, float>,
                  "npusim Ascend C: SoftmaxFlashV2 / SoftmaxGrad take float tensors (half is not "
                  "supported yet; docs/ascendc.md)");
}

inline Tmp softmax_work(std::string_view api, std::uint32_t need, const Tmp* shared,
                        const Loc& loc) {
    const Tmp tmp = shared != nullptr ? *shared : internal_tmp(api, need, need, loc);
    if (tmp.bytes < need) {
        fail(loc, api,
             "sharedTmpBuffer holds " + std::to_string(tmp.bytes) + " bytes, at least " +
                 std::to_string(need) + " are needed (Get" +
                 std::string(api == "SoftmaxFlashV2" ? "SoftMaxFlashV2" : "SoftMaxGrad") +
                 "MinTmpSize)");
    }
    return tmp;
}

/// isUpdate false: max = rowmax(x), dst = exp(x - max), expSum = rowsum(dst). isUpdate true:
/// max = max(inMax, rowmax(x)), dst = exp(x - max), expMax = exp(inMax - max), expSum =
/// expMax x inExpSum + rowsum(dst).
inline void softmax_flash_v2(bool update, const LocalTensor<float>& dst,
                             const LocalTensor<float>& exp_sum, const LocalTensor<float>& max,
                             const LocalTensor<float>& src, const LocalTensor<float>& exp_max,
                             const LocalTensor<float>& in_sum, const LocalTensor<float>& in_max,
                             const Tmp* shared, const AscendC::SoftMaxShapeInfo& shape,
                             const Loc& loc) {
    constexpr std::string_view api = "SoftmaxFlashV2";
    const std::uint32_t k = shape.srcK, valid = shape.oriSrcK, rows = shape.srcM;
    if (k % 8 != 0) fail(loc, api, "srcK " + std::to_string(k) + " is not a multiple of 8");
    require_count(api, std::uint64_t{rows} * k, src.GetSize(), "src", loc);
    require_count(api, std::uint64_t{rows} * k, dst.GetSize(), "dst", loc);
    require_count(api, std::uint64_t{rows} * 8, exp_sum.GetSize(), "expSumTensor", loc);
    require_count(api, std::uint64_t{rows} * 8, max.GetSize(), "maxTensor", loc);
    if (update) {
        require_count(api, std::uint64_t{rows} * 8, exp_max.GetSize(), "expMaxTensor", loc);
        require_count(api, std::uint64_t{rows} * 8, in_sum.GetSize(), "inExpSumTensor", loc);
        require_count(api, std::uint64_t{rows} * 8, in_max.GetSize(), "inMaxTensor", loc);
    }
    const Tmp tmp = softmax_work(api, softmax_flash_tmp_bytes(), shared, loc);
    auto block = [&](std::uint64_t offset) {
        return LocalTensor<float>(npusim::LocalTensor<float>{MemSpace::UB, tmp.address + offset, 8},
                                  AscendC::TPosition::VECCALC);
    };
    const LocalTensor<float> reduced = block(0), new_max = block(32), row_sum = block(64),
                             scaled = block(96);
    const auto n = static_cast<std::int32_t>(valid);
    for (std::uint32_t row = 0; row < rows; ++row) {
        const LocalTensor<float> x = src[row * k], y = dst[row * k];
        const std::uint64_t b = std::uint64_t{row} * 8;
        AscendC::ReduceMax(reduced, x, reduced, n, false, loc);
        broadcast_block(new_max, reduced, loc);
        if (update) {
            AscendC::Max(new_max, new_max, in_max[b], 8, loc);
            AscendC::Sub(exp_max[b], in_max[b], new_max, 8, loc);
            AscendC::Exp(exp_max[b], exp_max[b], 8, loc);
            AscendC::Mul(scaled, exp_max[b], in_sum[b], 8, loc);
        }
        AscendC::Adds(max[b], new_max, 0.0F, 8, loc);
        row_op_block(false, y, x, new_max, valid, loc);
        AscendC::Exp(y, y, n, loc);
        AscendC::ReduceSum(reduced, y, reduced, n, loc);
        if (update) {
            broadcast_block(row_sum, reduced, loc);
            AscendC::Add(exp_sum[b], scaled, row_sum, 8, loc);
        } else {
            broadcast_block(exp_sum[b], reduced, loc);
        }
    }
}

/// Per row s = sum(grad x src); front: dst's row block = s; else dst = (grad - s) x src.
inline void softmax_grad(bool front, const LocalTensor<float>& dst, const LocalTensor<float>& grad,
                         const LocalTensor<float>& src, const Tmp* shared,
                         const AscendC::SoftMaxShapeInfo& shape, std::string_view api,
                         const Loc& loc) {
    const std::uint32_t k = shape.srcK, valid = shape.oriSrcK, rows = shape.srcM;
    if (k % 8 != 0) fail(loc, api, "srcK " + std::to_string(k) + " is not a multiple of 8");
    require_count(api, std::uint64_t{rows} * k, src.GetSize(), "src", loc);
    require_count(api, std::uint64_t{rows} * k, grad.GetSize(), "grad", loc);
    require_count(api, std::uint64_t{rows} * (front ? 8 : k), dst.GetSize(), "dst", loc);
    const Tmp tmp = softmax_work("SoftmaxGrad", softmax_grad_tmp_bytes(k), shared, loc);
    const LocalTensor<float> reduced(npusim::LocalTensor<float>{MemSpace::UB, tmp.address, 8},
                                     AscendC::TPosition::VECCALC);
    const LocalTensor<float> sum_block(
        npusim::LocalTensor<float>{MemSpace::UB, tmp.address + 32, 8}, AscendC::TPosition::VECCALC);
    const LocalTensor<float> work(
        npusim::LocalTensor<float>{MemSpace::UB, tmp.address + kSoftmaxFixedTmp, k},
        AscendC::TPosition::VECCALC);
    const auto n = static_cast<std::int32_t>(valid);
    for (std::uint32_t row = 0; row < rows; ++row) {
        const LocalTensor<float> g = grad[row * k], s = src[row * k];
        AscendC::Mul(work, g, s, n, loc);
        AscendC::ReduceSum(reduced, work, reduced, n, loc);
        if (front) {
            broadcast_block(dst[std::uint64_t{row} * 8], reduced, loc);
            continue;
        }
        broadcast_block(sum_block, reduced, loc);
        row_op_block(false, work, g, sum_block, valid, loc);
        AscendC::Mul(dst[row * k], work, s, n, loc);
    }
}

}  // namespace npusim::ascendc::adv

namespace AscendC {

/// The kernel-side form: the tiling for a SoftMaxShapeInfo.
constexpr SoftMaxTiling SoftMaxFlashV2TilingFunc(
    const SoftMaxShapeInfo& shapeInfo, const std::uint32_t /*dataTypeSize1*/,
    const std::uint32_t /*dataTypeSize2*/, const std::uint32_t /*localWorkSpaceSize*/,
    const bool /*isUpdate*/ = false, const bool /*isBasicBlock*/ = false,
    const bool /*isDataFormatNZ*/ = false, const bool /*isFlashOutputBrc*/ = false) {
    SoftMaxTiling t{};
    t.srcM = shapeInfo.srcM;
    t.srcK = shapeInfo.srcK;
    t.srcSize = shapeInfo.srcM * shapeInfo.srcK;
    return t;
}

/// SoftmaxFlashV2<T, isUpdate, ...>(dst, expSum, max, src, expMax, inExpSum, inMax
/// [, sharedTmpBuffer], tiling, shapeInfo): see softmax_flash_v2 above (float).
template <class T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftmaxFlashV2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& expSumTensor,
                    const LocalTensor<T>& maxTensor, const LocalTensor<T>& srcTensor,
                    const LocalTensor<T>& expMaxTensor, const LocalTensor<T>& inExpSumTensor,
                    const LocalTensor<T>& inMaxTensor,
                    const LocalTensor<std::uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}, Loc loc = Loc::current()) {
    npusim::ascendc::adv::require_float_softmax<T>("SoftmaxFlashV2");
    npusim::ascendc::adv::require_nd<isDataFormatNZ>("SoftmaxFlashV2", loc);
    const auto tmp = npusim::ascendc::adv::tmp_of(sharedTmpBuffer);
    npusim::ascendc::adv::softmax_flash_v2(
        isUpdate, dstTensor, expSumTensor, maxTensor, srcTensor, expMaxTensor, inExpSumTensor,
        inMaxTensor, &tmp,
        npusim::ascendc::adv::softmax_shape(tiling, softmaxShapeInfo, "SoftmaxFlashV2", loc), loc);
}
template <class T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
void SoftmaxFlashV2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& expSumTensor,
                    const LocalTensor<T>& maxTensor, const LocalTensor<T>& srcTensor,
                    const LocalTensor<T>& expMaxTensor, const LocalTensor<T>& inExpSumTensor,
                    const LocalTensor<T>& inMaxTensor, const SoftMaxTiling& tiling,
                    const SoftMaxShapeInfo& softmaxShapeInfo = {}, Loc loc = Loc::current()) {
    npusim::ascendc::adv::require_float_softmax<T>("SoftmaxFlashV2");
    npusim::ascendc::adv::require_nd<isDataFormatNZ>("SoftmaxFlashV2", loc);
    npusim::ascendc::adv::softmax_flash_v2(
        isUpdate, dstTensor, expSumTensor, maxTensor, srcTensor, expMaxTensor, inExpSumTensor,
        inMaxTensor, nullptr,
        npusim::ascendc::adv::softmax_shape(tiling, softmaxShapeInfo, "SoftmaxFlashV2", loc), loc);
}

/// SoftmaxGrad<T, isReuseSource, isDataFormatNZ>(dst, grad, src[, sharedTmpBuffer], tiling,
/// isFront, shapeInfo): dst = (grad - sum(grad x src)) x src per row; isFront: dst holds the
/// row sums, one block a row (as SoftmaxGradFront).
template <class T, bool isReuseSource = false, bool isDataFormatNZ = false>
void SoftmaxGrad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor,
                 const LocalTensor<T>& srcTensor, const LocalTensor<std::uint8_t>& sharedTmpBuffer,
                 const SoftMaxTiling& tiling, bool isFront = false,
                 const SoftMaxShapeInfo& softmaxShapeInfo = {}, Loc loc = Loc::current()) {
    npusim::ascendc::adv::require_float_softmax<T>("SoftmaxGrad");
    npusim::ascendc::adv::require_nd<isDataFormatNZ>("SoftmaxGrad", loc);
    const auto tmp = npusim::ascendc::adv::tmp_of(sharedTmpBuffer);
    npusim::ascendc::adv::softmax_grad(
        isFront, dstTensor, gradTensor, srcTensor, &tmp,
        npusim::ascendc::adv::softmax_shape(tiling, softmaxShapeInfo, "SoftmaxGrad", loc),
        "SoftmaxGrad", loc);
}
template <class T, bool isReuseSource = false, bool isDataFormatNZ = false>
void SoftmaxGrad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor,
                 const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling, bool isFront = false,
                 const SoftMaxShapeInfo& softmaxShapeInfo = {}, Loc loc = Loc::current()) {
    npusim::ascendc::adv::require_float_softmax<T>("SoftmaxGrad");
    npusim::ascendc::adv::require_nd<isDataFormatNZ>("SoftmaxGrad", loc);
    npusim::ascendc::adv::softmax_grad(
        isFront, dstTensor, gradTensor, srcTensor, nullptr,
        npusim::ascendc::adv::softmax_shape(tiling, softmaxShapeInfo, "SoftmaxGrad", loc),
        "SoftmaxGrad", loc);
}
/// SoftmaxGradFront<T, isBasicBlock, isDataFormatNZ>(dst, grad, src[, sharedTmpBuffer], tiling,
/// shapeInfo): dst's block of row i = sum(grad x src) of row i.
template <class T, bool isBasicBlock = false, bool isDataFormatNZ = false>
void SoftmaxGradFront(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor,
                      const LocalTensor<T>& srcTensor,
                      const LocalTensor<std::uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                      const SoftMaxShapeInfo& softmaxShapeInfo = {}, Loc loc = Loc::current()) {
    SoftmaxGrad<T, false, isDataFormatNZ>(dstTensor, gradTensor, srcTensor, sharedTmpBuffer, tiling,
                                          true, softmaxShapeInfo, loc);
}
template <class T, bool isBasicBlock = false, bool isDataFormatNZ = false>
void SoftmaxGradFront(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor,
                      const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling,
                      const SoftMaxShapeInfo& softmaxShapeInfo = {}, Loc loc = Loc::current()) {
    SoftmaxGrad<T, false, isDataFormatNZ>(dstTensor, gradTensor, srcTensor, tiling, true,
                                          softmaxShapeInfo, loc);
}

}  // namespace AscendC
