// The layout API (vendor API reference, "Layout", "Coordinate"): Shape, Stride and Coord (all
// Std::tuple), MakeShape / MakeStride / MakeCoord, Layout<Shape, Stride> (GetShape, GetStride,
// layout(), layout(coord)), MakeLayout, is_layout, Crd2Idx, and the compile-time integers
// Std::integral_constant / Std::Int. Pure index arithmetic, the same on the host and in
// kernels (no simulated time): the index of coordinate (c0, ..., cn) is c0 x s0 + ... + cn x sn.
// Shapes and strides may nest; a scalar coordinate against a nested shape is first split
// column-major (c mod d0, (c / d0) mod d1, ..., the last mode taking the rest). When every
// coordinate and stride is a Std::Int the index is one too (a compile-time constant).
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

namespace AscendC::Std {
using std::bool_constant;
using std::false_type;
using std::get;  // as utilities.h declares them: this header stands alone (host code)
using std::integral_constant;
using std::true_type;
using std::tuple;
/// A compile-time size_t (the vendor's shorthand).
template <std::size_t v>
using Int = std::integral_constant<std::size_t, v>;
}  // namespace AscendC::Std

namespace npusim::ascendc::layout_detail {

template <class T>
struct is_tuple : std::false_type {};
template <class... Ts>
struct is_tuple<std::tuple<Ts...>> : std::true_type {};
template <class T>
inline constexpr bool kTuple = is_tuple<std::remove_cvref_t<T>>::value;

template <class T>
struct is_static : std::false_type {};
template <class T, T v>
struct is_static<std::integral_constant<T, v>> : std::true_type {};
template <class T>
inline constexpr bool kStatic = is_static<std::remove_cvref_t<T>>::value;

/// a x b, a + b, a / b, a % b: a Std::Int when both are, else the dynamic operand's type.
template <class A, class B, class Op>
constexpr auto combine(const A& a, const B& b, Op op) {
    if constexpr (kStatic<A> && kStatic<B>) {
        return AscendC::Std::Int<static_cast<std::size_t>(op(A::value, B::value))>{};
    } else if constexpr (kStatic<A>) {
        return op(static_cast<B>(A::value), b);
    } else if constexpr (kStatic<B>) {
        return op(a, static_cast<A>(B::value));
    } else {
        return op(a, b);
    }
}
constexpr auto kMul = [](auto a, auto b) { return a * b; };
constexpr auto kAdd = [](auto a, auto b) { return a + b; };
constexpr auto kDiv = [](auto a, auto b) { return a / b; };
constexpr auto kMod = [](auto a, auto b) { return a % b; };

template <class Acc>
constexpr auto fold_mul(const Acc& acc) {
    return acc;
}
template <class Acc, class D, class... Ds>
constexpr auto fold_mul(const Acc& acc, const D& d, const Ds&... ds) {
    return fold_mul(combine(acc, d, kMul), ds...);
}

/// The number of elements of a (possibly nested) shape.
template <class S>
constexpr auto size_of(const S& shape) {
    if constexpr (kTuple<S>) {
        return std::apply(
            [](const auto&... d) { return fold_mul(AscendC::Std::Int<1>{}, size_of(d)...); },
            shape);
    } else {
        return shape;
    }
}

template <class C, class S, class D>
constexpr auto crd2idx(const C& coord, const S& shape, const D& stride);

/// A scalar coordinate split over the modes I.. of a tuple shape (column-major; the last mode
/// takes what is left).
template <std::size_t I, class C, class S, class D>
constexpr auto split_scalar(const C& coord, const S& shape, const D& stride) {
    constexpr std::size_t rank = std::tuple_size_v<S>;
    if constexpr (I + 1 == rank) {
        return crd2idx(coord, std::get<I>(shape), std::get<I>(stride));
    } else {
        const auto extent = size_of(std::get<I>(shape));
        const auto here =
            crd2idx(combine(coord, extent, kMod), std::get<I>(shape), std::get<I>(stride));
        return combine(here, split_scalar<I + 1>(combine(coord, extent, kDiv), shape, stride),
                       kAdd);
    }
}

template <std::size_t I, class C, class S, class D>
constexpr auto sum_modes(const C& coord, const S& shape, const D& stride) {
    const auto here = crd2idx(std::get<I>(coord), std::get<I>(shape), std::get<I>(stride));
    if constexpr (I + 1 == std::tuple_size_v<C>) {
        return here;
    } else {
        return combine(here, sum_modes<I + 1>(coord, shape, stride), kAdd);
    }
}

template <class C, class S, class D>
constexpr auto crd2idx(const C& coord, const S& shape, const D& stride) {
    if constexpr (kTuple<C>) {
        static_assert(
            kTuple<S> && kTuple<D>,
            "npusim Ascend C: Crd2Idx: a tuple coordinate needs a tuple shape and stride");
        static_assert(std::tuple_size_v<C> == std::tuple_size_v<S> &&
                          std::tuple_size_v<S> == std::tuple_size_v<D>,
                      "npusim Ascend C: Crd2Idx: the coordinate, the shape and the stride must "
                      "have the same number of modes");
        if constexpr (std::tuple_size_v<C> == 0) {
            return AscendC::Std::Int<0>{};
        } else {
            return sum_modes<0>(coord, shape, stride);
        }
    } else if constexpr (kTuple<D>) {
        static_assert(kTuple<S> && std::tuple_size_v<S> == std::tuple_size_v<D>,
                      "npusim Ascend C: Crd2Idx: the shape and the stride must have the same "
                      "number of modes");
        static_assert(std::tuple_size_v<D> > 0,
                      "npusim Ascend C: Crd2Idx: the layout has no strides (MakeStride())");
        return split_scalar<0>(coord, shape, stride);
    } else {
        return combine(coord, stride, kMul);
    }
}

}  // namespace npusim::ascendc::layout_detail

namespace AscendC {

template <class... Shapes>
using Shape = Std::tuple<Shapes...>;
template <class... Strides>
using Stride = Std::tuple<Strides...>;
template <class... Coords>
using Coord = Std::tuple<Coords...>;

template <class... Ts>
constexpr Shape<Ts...> MakeShape(const Ts&... t) {
    return Shape<Ts...>(t...);
}
template <class... Ts>
constexpr Stride<Ts...> MakeStride(const Ts&... t) {
    return Stride<Ts...>(t...);
}
template <class... Ts>
constexpr Coord<Ts...> MakeCoord(const Ts&... t) {
    return Coord<Ts...>(t...);
}

/// Crd2Idx(coord, shape, stride): the memory index of `coord` (see the file comment).
template <class CoordType, class ShapeType, class StrideType>
constexpr auto Crd2Idx(const CoordType& coord, const ShapeType& shape, const StrideType& stride) {
    return npusim::ascendc::layout_detail::crd2idx(coord, shape, stride);
}

/// A shape and its strides (in elements). A layout built with an empty MakeStride() carries a
/// shape only (as the advanced APIs take it); indexing it is a compile error.
template <class ShapeType, class StrideType>
struct Layout : private Std::tuple<ShapeType, StrideType> {
    constexpr Layout(const ShapeType& shape = {}, const StrideType& stride = {})
        : Std::tuple<ShapeType, StrideType>(shape, stride) {}

    constexpr decltype(auto) layout() { return *this; }
    constexpr decltype(auto) layout() const { return *this; }
    constexpr decltype(auto) GetShape() { return std::get<0>(base()); }
    constexpr decltype(auto) GetShape() const { return std::get<0>(base()); }
    constexpr decltype(auto) GetStride() { return std::get<1>(base()); }
    constexpr decltype(auto) GetStride() const { return std::get<1>(base()); }

    /// The memory index of `coord`: Crd2Idx(coord, GetShape(), GetStride()).
    template <class CoordType>
    constexpr auto operator()(const CoordType& coord) const {
        return Crd2Idx(coord, GetShape(), GetStride());
    }

private:
    constexpr Std::tuple<ShapeType, StrideType>& base() { return *this; }
    constexpr const Std::tuple<ShapeType, StrideType>& base() const { return *this; }
};

template <class ShapeType, class StrideType>
constexpr auto MakeLayout(const ShapeType& shape, const StrideType& stride) {
    return Layout<ShapeType, StrideType>(shape, stride);
}

}  // namespace AscendC

namespace npusim::ascendc::layout_detail {
template <class T>
struct is_layout_type : std::false_type {};
template <class ShapeType, class StrideType>
struct is_layout_type<AscendC::Layout<ShapeType, StrideType>> : std::true_type {};
}  // namespace npusim::ascendc::layout_detail

namespace AscendC {

template <class CoordType, class ShapeType, class StrideType>
constexpr auto Crd2Idx(const CoordType& coord, const Layout<ShapeType, StrideType>& layout) {
    return layout(coord);
}

/// is_layout<T>::value: whether T (const or not) is a Layout.
template <class T>
struct is_layout : npusim::ascendc::layout_detail::is_layout_type<std::remove_cv_t<T>> {};

}  // namespace AscendC
