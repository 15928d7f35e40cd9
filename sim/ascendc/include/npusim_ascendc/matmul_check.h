// What npusim's Matmul (npusim_ascendc/matmul.h) takes, checked at compile time: the element
// types (the cube's and fixpipe's tables, matmul_config.h), positions, formats, and the
// configuration fields and template options that change the result (matmul_static.h). Each
// limit is a static_assert naming it (docs/ascendc.md, "The Matmul API").
#pragma once

#include <cstdint>
#include <type_traits>

#include "npusim_ascendc/matmul_config.h"
#include "npusim_ascendc/matmul_static.h"
#include "npusim_ascendc/pipe.h"

namespace npusim::ascendc {

template <class A_TYPE, class B_TYPE, class C_TYPE, const auto& MM_CFG, class CB, class POLICY>
struct MatmulChecks {
    static constexpr const AscendC::MatmulConfig& CFG = matmul_config_of(MM_CFG);
    using TPosition = AscendC::TPosition;
    using CubeFormat = AscendC::CubeFormat;
    using SrcT = typename A_TYPE::T;
    using DstT = typename C_TYPE::T;
    using L0cT = MatmulL0cT<SrcT>;
    static_assert(std::is_same_v<SrcT, typename B_TYPE::T> && cube_takes<L0cT, SrcT, SrcT, L0cT>(),
                  "npusim Ascend C: the Matmul API takes A and B of one type, half, bfloat16_t, "
                  "float or int8_t (the cube's types, docs/ascendc.md)");
    static_assert(
        matmul_writes<L0cT, DstT>(),
        "npusim Ascend C: the Matmul API writes C as float, half or bfloat16_t from "
        "half / bfloat16_t / float inputs and as int32_t from int8_t inputs (or as half, scaled "
        "by SetQuantScalar / SetQuantVector), only yet (docs/ascendc.md)");
    static_assert((A_TYPE::pos == TPosition::GM ||
                   (A_TYPE::pos == TPosition::TSCM && A_TYPE::format == CubeFormat::NZ &&
                    sizeof(SrcT) == 2)) &&
                      B_TYPE::pos == TPosition::GM,
                  "npusim Ascend C: the Matmul API reads A from GM or (NZ, half / bfloat16_t) "
                  "from TSCM, and B from GM, only yet");
    // A GEMV's A (CubeFormat::VECTOR, one row) is read as ND.
    static_assert((A_TYPE::format == CubeFormat::ND || A_TYPE::format == CubeFormat::NZ ||
                   A_TYPE::format == CubeFormat::VECTOR) &&
                      (B_TYPE::format == CubeFormat::ND || B_TYPE::format == CubeFormat::NZ),
                  "npusim Ascend C: the Matmul API takes ND or NZ A and B only yet");
    static_assert(C_TYPE::format == CubeFormat::ND || C_TYPE::format == CubeFormat::ND_ALIGN ||
                      (C_TYPE::format == CubeFormat::NZ && std::is_same_v<DstT, L0cT>),
                  "npusim Ascend C: the Matmul API writes ND or ND_ALIGN C, or NZ C of L0C's "
                  "type (float, int32_t), only yet");
    static_assert(C_TYPE::pos != TPosition::CO1 ||
                      (C_TYPE::format == CubeFormat::NZ && std::is_same_v<DstT, L0cT>),
                  "npusim Ascend C: a Matmul's C in CO1 is NZ of L0C's type "
                  "(GetMmDstType<A>::Type)");
    static_assert(!CFG.isEnableChannelSplit ||
                      (C_TYPE::format == CubeFormat::NZ && std::is_same_v<DstT, float> &&
                       C_TYPE::pos == TPosition::GM),
                  "npusim Ascend C: MatmulConfig::isEnableChannelSplit takes an NZ float C in "
                  "GM (16 x 8 fractals)");
    static_assert(!CFG.isCO1Shared && !CFG.intraBlockPartSum && !CFG.enableRelu &&
                      CFG.decompMode == AscendC::DecompressionMode::DECOMP_NONE,
                  "npusim Ascend C: MatmulConfig's isCO1Shared, intraBlockPartSum, enableRelu "
                  "and decompMode are not supported yet");
    static_assert(!CB::npusim_custom_out,
                  "npusim Ascend C: MatmulCallBackFunc's DataCopyOut (C out of L0C by a user "
                  "function) is not supported yet (CopyA1 and CopyB1 are)");
    static_assert(POLICY::npusim_policy == AscendC::Impl::Detail::NpusimPolicy::Default ||
                      POLICY::npusim_policy == AscendC::Impl::Detail::NpusimPolicy::NBuffer33,
                  "npusim Ascend C: the Matmul API's triangle and split policies are not "
                  "supported yet");
    static constexpr bool value = true;
};

}  // namespace npusim::ascendc

namespace AscendC {

/// TSCM<src, depth>: a queue in the AIC's L1 that the kernel fills itself (MTE2, GM -> L1), for
/// a Matmul to read A in place (MatmulType's TPosition::TSCM): an A1 queue of the cube core,
/// so its EnQue / DeQue order the kernel's copy before the Matmul's loads (MTE2 -> MTE1) and
/// its FreeTensor their reads before a reuse. From an AIV (no L1) a KernelError names it.
template <TPosition src, std::int32_t depth, auto... config>
class TSCM : public TQue<TPosition::A1, depth, config...> {};

}  // namespace AscendC
