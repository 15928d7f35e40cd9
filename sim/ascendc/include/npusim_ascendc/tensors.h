// GlobalTensor and LocalTensor as Ascend C kernels use them: views over the native
// npusim::GlobalTensor / LocalTensor with scalar access through the automatic synchronization.
#pragma once

#include <cstdint>

#include "npusim_ascendc/basics.h"

namespace npusim::ascendc {

/// A scalar access (GetValue / SetValue) of one element, with the automatic synchronization
/// in front of it.
template <Element T, class View>
T scalar_get(const View& view, std::uint64_t index, const Loc& loc) {
    KernelContext& ctx = context(loc);
    Resume resume(ctx);
    ctx.before_scalar(Touch{view.space, view.address + index * sizeof(T), sizeof(T), false}, loc);
    return ctx.block().load(view, index, loc);
}
template <Element T, class View>
void scalar_set(const View& view, std::uint64_t index, T value, const Loc& loc) {
    KernelContext& ctx = context(loc);
    Resume resume(ctx);
    ctx.before_scalar(Touch{view.space, view.address + index * sizeof(T), sizeof(T), true}, loc);
    ctx.block().store(view, index, value, loc);
}

/// What a native GlobalTensor needs for the scalar helpers above.
template <Element T>
struct GlobalView : npusim::GlobalTensor<T> {
    static constexpr MemSpace space = MemSpace::GM;
    bool bypass_l2 = false;  // GlobalTensor::SetL2CacheHint(CACHE_MODE_DISABLE)
};

}  // namespace npusim::ascendc

namespace AscendC {

/// GlobalTensor::SetL2CacheHint: CACHE_MODE_DISABLE reads do not allocate in L2 (for data
/// read once); the other modes behave as CACHE_MODE_NORMAL.
enum class CacheMode : std::uint8_t { CACHE_MODE_NORMAL, CACHE_MODE_DISABLE, CACHE_MODE_LAST };

template <class T>
class GlobalTensor {
public:
    using PrimType = T;

    /// The buffer at `buffer` (a simulated GM address from the kernel's GM_ADDR argument),
    /// `size` elements (0: unknown; bounds are then checked against the GM buffer only).
    void SetGlobalBuffer(__gm__ T* buffer, std::uint64_t size = 0) {
        m_address = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(buffer));
        m_size = size;
    }
    __gm__ T* GetPhyAddr() const {
        return reinterpret_cast<T*>(static_cast<std::uintptr_t>(m_address));
    }
    __gm__ T* GetPhyAddr(std::uint64_t offset) const {
        return reinterpret_cast<T*>(static_cast<std::uintptr_t>(m_address + offset * sizeof(T)));
    }
    std::uint64_t GetSize() const { return m_size; }
    void SetL2CacheHint(CacheMode mode) { m_bypass_l2 = mode == CacheMode::CACHE_MODE_DISABLE; }
    bool bypasses_l2() const { return m_bypass_l2; }
    GlobalTensor operator[](std::uint64_t offset) const {
        GlobalTensor view = *this;
        view.m_address = m_address + offset * sizeof(T);
        view.m_size = m_size > offset ? m_size - offset : 0;
        return view;
    }
    T GetValue(std::uint64_t index, Loc loc = Loc::current()) const {
        return npusim::ascendc::scalar_get<T>(native_view(), index, loc);
    }
    void SetValue(std::uint64_t index, T value, Loc loc = Loc::current()) const {
        npusim::ascendc::scalar_set<T>(native_view(), index, value, loc);
    }

    /// The native view of `count` elements from the start (count 0: GetSize()).
    npusim::GlobalTensor<T> native(std::uint64_t count = 0) const {
        return {m_address, count != 0 ? count : m_size};
    }
    std::uint64_t address() const { return m_address; }

private:
    npusim::ascendc::GlobalView<T> native_view() const {
        npusim::ascendc::GlobalView<T> view;
        view.address = m_address;
        view.count = m_size;
        return view;
    }
    std::uint64_t m_address = 0;
    std::uint64_t m_size = 0;
    bool m_bypass_l2 = false;
};

template <class T>
class LocalTensor {
public:
    using PrimType = T;

    LocalTensor() = default;
    LocalTensor(npusim::LocalTensor<T> native, TPosition position)
        : m_native(native), m_position(position) {}
    /// Static-tensor style: `length` elements at byte `address` of the position's memory (no
    /// allocation; the kernel lays the memory out and synchronizes with SetFlag/WaitFlag).
    LocalTensor(TPosition position, std::uint64_t address, std::uint64_t length,
                Loc loc = Loc::current())
        : m_native{space_at(position, loc), address, length}, m_position(position) {}

    std::uint64_t GetSize() const { return m_native.count; }
    /// The elements from `offset` to the end.
    LocalTensor operator[](std::uint64_t offset) const {
        const std::uint64_t left = m_native.count > offset ? m_native.count - offset : 0;
        return {m_native.sub(offset, left), m_position};
    }
    T GetValue(std::uint64_t index, Loc loc = Loc::current()) const {
        return npusim::ascendc::scalar_get<T>(m_native, index, loc);
    }
    void SetValue(std::uint64_t index, T value, Loc loc = Loc::current()) const {
        npusim::ascendc::scalar_set<T>(m_native, index, value, loc);
    }
    template <class U>
    LocalTensor<U> ReinterpretCast() const {
        return {npusim::LocalTensor<U>{m_native.space, m_native.address,
                                       m_native.count * sizeof(T) / sizeof(U)},
                m_position};
    }
    TPosition GetPosition() const { return m_position; }
    /// Byte offset inside its local memory.
    std::uint64_t GetPhyAddr() const { return m_native.address; }
    void SetSize(std::uint64_t count) { m_native.count = count; }

    const npusim::LocalTensor<T>& native() const { return m_native; }

private:
    npusim::LocalTensor<T> m_native;
    TPosition m_position = TPosition::VECCALC;
};

}  // namespace AscendC
