// GlobalTensor and LocalTensor as Ascend C kernels use them: views over the native
// npusim::GlobalTensor / LocalTensor with scalar access through the automatic synchronization.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "npusim_ascendc/basics.h"
#include "npusim_ascendc/gm_pointer.h"
#include "npusim_ascendc/shape_info.h"

namespace npusim::ascendc {

/// A scalar access (GetValue / SetValue) of one element, with the automatic synchronization
/// in front of it.
template <Element T, class View>
T scalar_get(const View& view, std::uint64_t index, const Loc& loc) {
    KernelContext& ctx = context(loc);
    Resume resume(ctx);
    ctx.before_scalar(Touch{view.space, view.address + index * sizeof(T), sizeof(T), false}, loc);
    if constexpr (std::is_same_v<T, bool>) {  // any non-zero byte is true
        if constexpr (std::is_base_of_v<npusim::GlobalTensor<T>, View>) {
            return ctx.block().load(npusim::GlobalTensor<std::uint8_t>{view.address, view.count},
                                    index, loc) != 0;
        } else {
            return ctx.block().load(
                       npusim::LocalTensor<std::uint8_t>{view.space, view.address, view.count},
                       index, loc) != 0;
        }
    } else {
        return ctx.block().load(view, index, loc);
    }
}
template <Element T, class View>
void scalar_set(const View& view, std::uint64_t index, T value, const Loc& loc) {
    KernelContext& ctx = context(loc);
    Resume resume(ctx);
    ctx.before_scalar(Touch{view.space, view.address + index * sizeof(T), sizeof(T), true}, loc);
    ctx.block().store(view, index, value, loc);
}

/// What `tensor(i)` returns: the vendor's operator() gives a reference to element i (an access
/// of the scalar unit); here a proxy whose reads are GetValue and whose writes are SetValue at
/// the line of the `tensor(i)` expression, so the automatic synchronization and the checker
/// see them as those calls. Unlike a reference, `auto v = tensor(i)` keeps the proxy (it reads
/// when used); write `T v = tensor(i)` for a copy.
template <class T, class Tensor>
class ElementRef {
public:
    ElementRef(const Tensor& tensor, std::uint64_t index, const Loc& loc)
        : m_tensor(tensor), m_index(index), m_loc(loc) {}
    ElementRef(const ElementRef&) = default;
    ~ElementRef() = default;

    operator T() const { return m_tensor.GetValue(m_index, m_loc); }  // NOLINT: a reference
    /// static_cast<float>(t(i)) of a half / bfloat16_t element (two conversions otherwise).
    template <class U>
    requires(std::is_arithmetic_v<U> && !std::is_arithmetic_v<T>) explicit operator U() const {
        return static_cast<U>(static_cast<T>(*this));
    }
    const ElementRef& operator=(T value) const {
        m_tensor.SetValue(m_index, value, m_loc);
        return *this;
    }
    const ElementRef& operator=(const ElementRef& other) const {
        return *this = static_cast<T>(other);
    }
    template <class U>
    const ElementRef& operator+=(U value) const {
        return *this = static_cast<T>(static_cast<T>(*this) + value);
    }
    template <class U>
    const ElementRef& operator-=(U value) const {
        return *this = static_cast<T>(static_cast<T>(*this) - value);
    }
    template <class U>
    const ElementRef& operator*=(U value) const {
        return *this = static_cast<T>(static_cast<T>(*this) * value);
    }
    template <class U>
    const ElementRef& operator/=(U value) const {
        return *this = static_cast<T>(static_cast<T>(*this) / value);
    }

private:
    Tensor m_tensor;
    std::uint64_t m_index;
    Loc m_loc;
};

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

/// A 4-bit signed integer (-8..7): tensors of them hold two a byte, element 2i in the low
/// nibble of byte i (the packing of the vendor's cast sample); see LocalTensor<int4b_t>.
struct int4b_t {
    std::uint8_t storage = 0;
};

template <class T>
class GlobalTensor {
public:
    using PrimType = T;

    /// The buffer at `buffer` (a `__gm__` pointer: npusim_ascendc/gm_pointer.h), `size`
    /// elements (0: unknown; bounds are then checked against the GM buffer only).
    void SetGlobalBuffer(__gm__ T* buffer, std::uint64_t size = 0,
                         const std::source_location& loc = std::source_location::current()) {
        m_address = npusim::ascendc::gm_address(buffer, loc);
        m_size = size;
    }
    __gm__ T* GetPhyAddr() const { return npusim::ascendc::gm_pointer<T>(m_address); }
    __gm__ T* GetPhyAddr(std::uint64_t offset) const {
        return npusim::ascendc::gm_pointer<T>(m_address + offset * sizeof(T));
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
    /// Element `index` as a reference (reads GetValue, writes SetValue).
    npusim::ascendc::ElementRef<T, GlobalTensor> operator()(std::uint64_t index,
                                                            Loc loc = Loc::current()) const {
        return {*this, index, loc};
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

    /// `dst = a + b` and the other operator forms (npusim_ascendc/tensor_operators.h).
    template <class Expr, class = decltype(&Expr::npusim_assign)>
    LocalTensor& operator=(const Expr& e) {
        e.npusim_assign(*this);
        return *this;
    }

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
    /// Element `index` as a reference (reads GetValue, writes SetValue).
    npusim::ascendc::ElementRef<T, LocalTensor> operator()(std::uint64_t index,
                                                           Loc loc = Loc::current()) const {
        return {*this, index, loc};
    }
    template <class U>
    LocalTensor<U> ReinterpretCast() const {
        if constexpr (std::is_same_v<U, int4b_t>) {
            return {npusim::LocalTensor<std::int8_t>{m_native.space, m_native.address,
                                                     m_native.count * sizeof(T)},
                    m_native.count * sizeof(T) * 2, m_position};
        } else {
            return {npusim::LocalTensor<U>{m_native.space, m_native.address,
                                           m_native.count * sizeof(T) / sizeof(U)},
                    m_position};
        }
    }
    TPosition GetPosition() const { return m_position; }
    /// Byte offset inside its local memory.
    std::uint64_t GetPhyAddr() const { return m_native.address; }
    void SetSize(std::uint64_t count) { m_native.count = count; }
    /// The shape the advanced APIs may read (kept with this view; no simulated time).
    void SetShapeInfo(const ShapeInfo& shape) { m_shape = shape; }
    const ShapeInfo& GetShapeInfo() const { return m_shape; }

    const npusim::LocalTensor<T>& native() const { return m_native; }

private:
    npusim::LocalTensor<T> m_native;
    TPosition m_position = TPosition::VECCALC;
    ShapeInfo m_shape;
};

/// 4-bit elements: a view of the packed bytes (npusim::LocalTensor<int8_t>) and the element
/// count; a view may start at an even element only (a byte boundary).
template <>
class LocalTensor<int4b_t> {
public:
    using PrimType = int4b_t;

    LocalTensor() = default;
    LocalTensor(npusim::LocalTensor<std::int8_t> bytes, std::uint64_t count, TPosition position)
        : m_bytes(bytes), m_count(count), m_position(position) {}
    LocalTensor(TPosition position, std::uint64_t address, std::uint64_t length,
                Loc loc = Loc::current())
        : m_bytes{space_at(position, loc), address, (length + 1) / 2},
          m_count(length),
          m_position(position) {}

    std::uint64_t GetSize() const { return m_count; }
    LocalTensor operator[](std::uint64_t offset) const {
        if (offset % 2 != 0) {
            throw npusim::KernelError("LocalTensor<int4b_t>[" + std::to_string(offset) +
                                      "]: an odd element starts inside a byte (npusim: not "
                                      "supported, docs/ascendc.md)");
        }
        const std::uint64_t left = m_count > offset ? m_count - offset : 0;
        return {m_bytes.sub(offset / 2, (left + 1) / 2), left, m_position};
    }
    template <class U>
    LocalTensor<U> ReinterpretCast() const {
        return {npusim::LocalTensor<U>{m_bytes.space, m_bytes.address, m_bytes.count / sizeof(U)},
                m_position};
    }
    TPosition GetPosition() const { return m_position; }
    std::uint64_t GetPhyAddr() const { return m_bytes.address; }
    void SetSize(std::uint64_t count) {
        m_count = count;
        m_bytes.count = (count + 1) / 2;
    }
    /// The packed bytes.
    const npusim::LocalTensor<std::int8_t>& bytes() const { return m_bytes; }

private:
    npusim::LocalTensor<std::int8_t> m_bytes;
    std::uint64_t m_count = 0;
    TPosition m_position = TPosition::VECCALC;
};

/// 4-bit elements in GM, packed as in LocalTensor<int4b_t>.
template <>
class GlobalTensor<int4b_t> {
public:
    using PrimType = int4b_t;

    void SetGlobalBuffer(__gm__ int4b_t* buffer, std::uint64_t size = 0,
                         const std::source_location& loc = std::source_location::current()) {
        m_address = npusim::ascendc::gm_address(buffer, loc);
        m_size = size;
    }
    __gm__ int4b_t* GetPhyAddr() const { return npusim::ascendc::gm_pointer<int4b_t>(m_address); }
    std::uint64_t GetSize() const { return m_size; }
    GlobalTensor operator[](std::uint64_t offset) const {
        if (offset % 2 != 0) {
            throw npusim::KernelError("GlobalTensor<int4b_t>[" + std::to_string(offset) +
                                      "]: an odd element starts inside a byte (npusim: not "
                                      "supported, docs/ascendc.md)");
        }
        GlobalTensor view = *this;
        view.m_address = m_address + offset / 2;
        view.m_size = m_size > offset ? m_size - offset : 0;
        return view;
    }
    /// The packed bytes as a GlobalTensor<int8_t>.
    GlobalTensor<std::int8_t> bytes() const {
        GlobalTensor<std::int8_t> view;
        view.SetGlobalBuffer(npusim::ascendc::gm_pointer<std::int8_t>(m_address), (m_size + 1) / 2);
        return view;
    }
    std::uint64_t address() const { return m_address; }

private:
    std::uint64_t m_address = 0;
    std::uint64_t m_size = 0;
};

}  // namespace AscendC
