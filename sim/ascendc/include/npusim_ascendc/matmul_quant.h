// The Matmul API's copy of C out of L0C (npusim_ascendc/matmul.h derives from MatmulQuantApi):
// the fixpipe's conversion to C's type (matmul_config.h), and for int8 inputs with half C the
// dequantisation the kernel sets: SetQuantScalar (DEQF16: every result times one scale, the
// float's bits in the low word) or SetQuantVector (VDEQF16: column j times word j of a uint64
// vector in GM). The vector part of each tile goes GM -> L1 (MTE2) before its Fixpipe, which
// reads it there (the basic API's Fixpipe with a cbufWorkspace); MTE2 -> FIX and FIX -> MTE2
// flags order the copy before the Fixpipe and the next tile's copy after it.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "npusim_ascendc/matmul_config.h"
#include "npusim_ascendc/matmul_mix.h"
#include "npusim_ascendc/matmul_operands.h"
#include "npusim_ascendc/matmul_tile.h"
#include "npusim_ascendc/pipe.h"

namespace npusim::ascendc {

template <class Derived, class A_TYPE, class C_TYPE>
class MatmulQuantApi {
    using L0cT = MatmulL0cT<typename A_TYPE::T>;
    using DstT = typename C_TYPE::T;
    static constexpr bool kCNz = C_TYPE::format == AscendC::CubeFormat::NZ;
    /// int32 L0C to half C: the fixpipe's DEQF16 / VDEQF16, which need a scale.
    static constexpr bool kDequant =
        std::is_same_v<L0cT, std::int32_t> && std::is_same_v<DstT, half>;

public:
    /// DEQF16: each int32 result times the float whose bits are `quantScalar`'s low word.
    void SetQuantScalar(const std::uint64_t quantScalar, Loc loc = Loc::current()) {
        check(loc);
        m_mode = Mode::Scalar;
        m_scalar = quantScalar;
    }
    /// VDEQF16: column j of C times word j of `quantTensor` (the columns of this object's C).
    void SetQuantVector(const AscendC::GlobalTensor<std::uint64_t>& quantTensor,
                        Loc loc = Loc::current()) {
        check(loc);
        const GlobalView<std::uint64_t> v = view_of(quantTensor);
        m_mode = Mode::Vector;
        m_vector = {v.address, v.count, false, true};
    }

    /// AIC: the current tile `c` (rows x cols from column n0 of the single-core C) to GM at
    /// `address`, rows `stride` elements apart (NZ C: column blocks of `stride` rows).
    void npusim_write_tile(const AscendC::LocalTensor<L0cT>& c, std::uint64_t address,
                           std::uint64_t count, std::uint64_t stride, bool atomic, const Loc& loc) {
        Derived& d = static_cast<Derived&>(*this);
        const std::uint64_t rows = d.cur_m(), cols = d.cur_n();
        if constexpr (!kDequant) {
            write_c_tile<DstT, kCNz, L0cT, Derived::kNzC0>(c, address, count, rows, cols, stride,
                                                           atomic, matmul_quant<L0cT, DstT>(),
                                                           d.fractal(), loc);
        } else {
            if (m_mode == Mode::None) {
                fail(
                    "int8 inputs with half C need SetQuantScalar or SetQuantVector first (the "
                    "fixpipe's DEQF16 / VDEQF16 scale)",
                    loc);
            }
            if (m_mode == Mode::Scalar) {
                write_c_tile<DstT, kCNz>(c, address, count, rows, cols, stride, atomic,
                                         FixQuant::DEQF16, d.fractal(), loc, m_scalar);
                return;
            }
            const std::uint64_t n0 = d.m_tile_n * static_cast<std::uint64_t>(d.m_tiling.baseN);
            if (n0 + cols > m_vector.count) {
                fail("SetQuantVector's tensor holds " + std::to_string(m_vector.count) +
                         " words, the tile needs columns up to " + std::to_string(n0 + cols),
                     loc);
            }
            if (m_buffer_bytes == 0) {
                AscendC::TPipe* pipe = AscendC::GetTPipePtr(loc);
                if (pipe == nullptr) fail("SetQuantVector needs a TPipe", loc);
                m_buffer_bytes = static_cast<std::uint32_t>(d.m_tiling.baseN) * 8;
                pipe->InitBuffer(m_buffer, m_buffer_bytes, loc);
            }
            const AscendC::LocalTensor<std::uint64_t> scales =
                m_buffer.template Get<std::uint64_t>();
            GlobalView<std::uint64_t> src;
            src.address = m_vector.address + n0 * sizeof(std::uint64_t);
            src.count = m_vector.count - n0;
            copy_elements<std::uint64_t>(scales.native(), src, cols, loc);
            matmul_order(Pipe::MTE2, Pipe::FIX, loc);
            write_c_tile<DstT, kCNz>(c, address, count, rows, cols, stride, atomic,
                                     FixQuant::VDEQF16, d.fractal(), loc, 0, &scales);
            matmul_order(Pipe::FIX, Pipe::MTE2, loc);
        }
    }

private:
    enum class Mode : std::uint8_t { None, Scalar, Vector };
    [[noreturn]] static void fail(const std::string& what, const Loc& loc) {
        throw KernelError(EventIds::where(loc) + "Matmul: " + what);
    }
    void check(const Loc& loc) const {
        if (!kDequant) fail("SetQuantScalar / SetQuantVector need int8 A and B with half C", loc);
        if (static_cast<const Derived&>(*this).m_client) {
            fail(
                "SetQuantScalar / SetQuantVector from an AIV of a mixed kernel are not supported "
                "yet (call them on the AIC: a cube-only kernel)",
                loc);
        }
    }

    Mode m_mode = Mode::None;
    std::uint64_t m_scalar = 0;
    MatmulOperand m_vector;
    AscendC::TBuf<AscendC::TPosition::C1> m_buffer;
    std::uint32_t m_buffer_bytes = 0;
};

}  // namespace npusim::ascendc
