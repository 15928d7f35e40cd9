// The static-tensor style of the current vendor examples: no TPipe/TQue, tensors at fixed
// local addresses and explicit SetFlag/WaitFlag (or PipeBarrier) between the pipes.
//   InitSocState()                       the core's control state to its defaults
//   LocalMemAllocator<Hardware::UB|L1|L0A|L0B|L0C|BIAS>   consecutive tensors in one memory
//   LocalTensor<T>(TPosition, address, length)       a tensor at a literal byte address
// The tensors are ordinary npusim local tensors: every access goes through the Block and the
// checker sees it as any other (a missing flag is a race at the kernel's lines). Nothing is
// synchronized implicitly except what the compiler's auto-sync inserts (docs/ascendc.md).
#pragma once

#include <cstdint>

#include "npusim_ascendc/tensors.h"

namespace AscendC {

/// The physical memories (LocalMemAllocator's template argument).
enum class Hardware : std::uint8_t { GM, UB, L1, L0A, L0B, L0C, BIAS, FIXBUF, MAX };

namespace detail {
template <Hardware hard>
constexpr TPosition default_position() {
    if constexpr (hard == Hardware::UB) {
        return TPosition::VECCALC;
    } else if constexpr (hard == Hardware::L1) {
        return TPosition::A1;
    } else if constexpr (hard == Hardware::L0A) {
        return TPosition::A2;
    } else if constexpr (hard == Hardware::L0B) {
        return TPosition::B2;
    } else if constexpr (hard == Hardware::L0C) {
        return TPosition::CO1;
    } else if constexpr (hard == Hardware::BIAS) {
        return TPosition::C2;  // the bias table
    } else {
        static_assert(npusim::ascendc::kAlwaysFalse<decltype(hard)>,
                      "npusim Ascend C: LocalMemAllocator supports Hardware::UB, L1, L0A, L0B, "
                      "L0C and BIAS (FIXBUF is not supported yet, docs/ascendc.md)");
        return TPosition::MAX;
    }
}
}  // namespace detail

/// InitSocState: on hardware it resets the core's control registers (atomic mode, masks) at
/// the start of a static-tensor kernel. npusim's block starts in that state; the call clears
/// an atomic mode left on, and takes no simulated time.
inline void InitSocState(Loc loc = Loc::current()) {
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    npusim::ascendc::Resume resume(ctx);
    ctx.block().clear_atomic(loc);
}

/// Consecutive tensors in one local memory, from its start. npusim allocates them with the
/// block's allocator (32-byte aligned, 512 on L0A / L0B / L0C, 64 in the bias table; a
/// KernelError naming the line when the memory is full), so they do not overlap TBufs or other
/// allocators' tensors.
template <Hardware hard = Hardware::UB>
class LocalMemAllocator {
public:
    LocalMemAllocator() = default;

    std::uint32_t GetCurAddr() const { return m_head; }

    template <class T, std::uint32_t tileSize>
    LocalTensor<T> Alloc(Loc loc = Loc::current()) {
        return take<T>(detail::default_position<hard>(), tileSize, loc);
    }
    template <TPosition pos, class T, std::uint32_t tileSize>
    LocalTensor<T> Alloc(Loc loc = Loc::current()) {
        return take<T>(pos, tileSize, loc);
    }
    template <class T>
    LocalTensor<T> Alloc(std::uint32_t tileSize, Loc loc = Loc::current()) {
        return take<T>(detail::default_position<hard>(), tileSize, loc);
    }
    template <TPosition pos, class T>
    LocalTensor<T> Alloc(std::uint32_t tileSize, Loc loc = Loc::current()) {
        return take<T>(pos, tileSize, loc);
    }

private:
    template <class T>
    LocalTensor<T> take(TPosition pos, std::uint64_t count, const Loc& loc) {
        npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
        npusim::ascendc::Resume resume(ctx);
        const npusim::MemSpace space = space_at(pos, loc);
        const npusim::LocalTensor<T> t = ctx.block().alloc<T>(space, count, loc);
        m_head = static_cast<std::uint32_t>(t.address + count * sizeof(T));
        return {t, pos};
    }
    std::uint32_t m_head = 0;
};

}  // namespace AscendC
