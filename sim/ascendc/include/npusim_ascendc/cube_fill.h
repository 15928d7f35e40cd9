// InitConstValue: setting a cube buffer (A1 / B1 in L1, A2 in L0A, B2 in L0B) to one value
// (vendor Ascend C API reference, "InitConstValue", A2 / A3), also spelled Fill(tensor,
// params) in the newer samples.
//
// One instruction a call (Block::init_const): into L1 on MTE2, into L0A / L0B on MTE1 (the
// pipes the public kernels synchronise it with: MTE2_MTE1 after an L1 fill, a
// PipeBarrier<PIPE_MTE1> around an L0 fill). repeatTimes rows of blockNum blocks (32 bytes in
// L1, 512 bytes in L0), each next row dstGap blocks after the previous one's end.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "npusim_ascendc/data_copy.h"

namespace AscendC {

/// InitConstValue's parameters, the vendor's field names.
template <class T>
struct InitConstValueParams {
    InitConstValueParams() = default;
    InitConstValueParams(std::uint16_t repeatTimesIn, T initValueIn)
        : repeatTimes(repeatTimesIn), initValue(initValueIn) {}
    InitConstValueParams(std::uint16_t repeatTimesIn, std::uint16_t blockNumIn,
                         std::uint16_t dstGapIn, T initValueIn)
        : repeatTimes(repeatTimesIn),
          blockNum(blockNumIn),
          dstGap(dstGapIn),
          initValue(initValueIn) {}
    std::uint16_t repeatTimes = 0;
    std::uint16_t blockNum = 0;
    std::uint16_t dstGap = 0;
    T initValue = 0;
};

/// InitConstValue(dst, params): repeatTimes rows of blockNum blocks of dst set to initValue
/// (the two-argument params form: blockNum 0 means one 512-byte block a repeat, the older
/// chips' form). repeatTimes or blockNum 0: nothing. dst's address must be 32-byte (L1) or
/// 512-byte (L0) aligned and the rows must lie in its tensor (KernelError naming the line).
template <class T, class U = T>
void InitConstValue(const LocalTensor<T>& dst, const InitConstValueParams<U>& params,
                    Loc loc = Loc::current()) {
    static_assert(std::is_same_v<T, U>,
                  "npusim Ascend C: InitConstValueParams' type is the tensor's element type");
    static_assert(sizeof(T) == 2 || sizeof(T) == 4,
                  "npusim Ascend C: InitConstValue takes half, bfloat16_t, int16_t, uint16_t, "
                  "float, int32_t or uint32_t on A2 / A3");
    const auto d = dst.native();
    const bool to_l1 = d.space == npusim::MemSpace::L1;
    // The two-argument form: one 512-byte block a repeat (as on the chips it comes from).
    const std::uint64_t blocks =
        params.blockNum != 0 ? params.blockNum : (to_l1 ? 512 / 32 : std::uint64_t{1});
    if (params.repeatTimes == 0) return;
    const std::uint64_t block = to_l1 ? 32 : 512;
    const std::uint64_t row_bytes = blocks * block;
    const std::uint64_t pitch = (blocks + params.dstGap) * block;
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    npusim::ascendc::Resume resume(ctx);
    std::vector<npusim::ascendc::Touch> touches;
    if (params.dstGap == 0) {
        touches.push_back(
            npusim::ascendc::Touch{d.space, d.address, row_bytes * params.repeatTimes, true});
    } else {
        for (std::uint64_t r = 0; r < params.repeatTimes; ++r)
            touches.push_back(
                npusim::ascendc::Touch{d.space, d.address + r * pitch, row_bytes, true});
    }
    ctx.before_pipe_work(to_l1 ? npusim::Pipe::MTE2 : npusim::Pipe::MTE1, touches, loc);
    npusim::InitConstCall call;
    call.dst = d;
    call.repeats = params.repeatTimes;
    call.blocks = static_cast<std::uint32_t>(blocks);
    call.gap = params.dstGap;
    std::memcpy(&call.value_bits, &params.initValue, sizeof(T));
    ctx.block().init_const(call, loc);
}

/// Fill(dst, params): InitConstValue under the newer samples' name.
template <class T, class U = T>
void Fill(const LocalTensor<T>& dst, const InitConstValueParams<U>& params,
          Loc loc = Loc::current()) {
    InitConstValue(dst, params, loc);
}

}  // namespace AscendC
