// The vendor's operator forms of the element-wise binary APIs on whole tensors: `dst = a + b`
// is Add(dst, a, b, dst.GetSize()), likewise -, * and / (Sub, Mul, Div). The
// right operand's implicit conversion carries the kernel's line (a binary operator takes no
// defaulted source-location parameter), which the instruction is issued at.
#pragma once

#include <cstdint>
#include <type_traits>

#include "npusim_ascendc/tensors.h"
#include "npusim_ascendc/vector.h"

namespace npusim::ascendc {

enum class TensorOp : std::uint8_t { Add, Sub, Mul, Div };

/// An operand of a tensor operator, with the line of the expression.
template <class T>
struct TensorOperand {
    TensorOperand(const AscendC::LocalTensor<T>& t, Loc where = Loc::current())
        : tensor(t), loc(where) {}
    AscendC::LocalTensor<T> tensor;
    Loc loc;
};

/// `a op b`, evaluated by the assignment into a LocalTensor (LocalTensor::operator=).
template <class T>
struct TensorExpr {
    TensorOp op;
    AscendC::LocalTensor<T> a, b;
    Loc loc;
    void npusim_assign(const AscendC::LocalTensor<T>& dst) const {
        const auto n = static_cast<std::int32_t>(dst.GetSize());
        switch (op) {
            case TensorOp::Add:
                AscendC::Add(dst, a, b, n, loc);
                break;
            case TensorOp::Sub:
                AscendC::Sub(dst, a, b, n, loc);
                break;
            case TensorOp::Mul:
                AscendC::Mul(dst, a, b, n, loc);
                break;
            case TensorOp::Div:
                AscendC::Div(dst, a, b, n, loc);
                break;
        }
    }
};

}  // namespace npusim::ascendc

namespace AscendC {

#define NPUSIM_TENSOR_OPERATOR(sym, name)                                                     \
    template <class T>                                                                        \
    npusim::ascendc::TensorExpr<T> operator sym(                                              \
        const LocalTensor<T>& a, std::type_identity_t<npusim::ascendc::TensorOperand<T>> b) { \
        return {npusim::ascendc::TensorOp::name, a, b.tensor, b.loc};                         \
    }
NPUSIM_TENSOR_OPERATOR(+, Add)
NPUSIM_TENSOR_OPERATOR(-, Sub)
NPUSIM_TENSOR_OPERATOR(*, Mul)
NPUSIM_TENSOR_OPERATOR(/, Div)
#undef NPUSIM_TENSOR_OPERATOR

}  // namespace AscendC
