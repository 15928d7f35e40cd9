// The Matmul API's L0 buffers (npusim_ascendc/matmul.h) and the Mmad on them: L0A and L0B
// (A2, B2), L0C (CO1) and the bias row (C1 -> C2, the bias table) as queues of the kernel's
// TPipe. An object owns its set, or, with MatmulConfig::isA2B2Shared, the objects of one TPipe
// share one set (the vendor shares A2 and B2 between such objects; npusim shares L0C and the
// bias table too, so two objects of the host tiling's largest tiles fit: docs/ascendc.md,
// "The Matmul API"). Sharing is safe by construction: each K step takes and frees its L0A /
// L0B tiles and each tile its bias row; an object that needs L0C while another's tile waits
// there for GetTensorC, or that adds onto a tile another object replaced, gets a KernelError
// (matmul.h), never another object's values.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "npusim_ascendc/cube.h"
#include "npusim_ascendc/pipe.h"

namespace npusim::ascendc {

struct MatmulL0 {
    AscendC::TQue<AscendC::TPosition::A2, 2> a2;
    AscendC::TQue<AscendC::TPosition::B2, 2> b2;
    AscendC::TQue<AscendC::TPosition::CO1, 1> co1;
    AscendC::TQue<AscendC::TPosition::C1, 1> bias1;  // the bias row on its way (L1)
    AscendC::TQue<AscendC::TPosition::C2, 1> bias2;  // the bias table (C2)
    std::uint64_t a2_bytes = 0, b2_bytes = 0, co1_bytes = 0, bias_bytes = 0;
    bool initialised = false;
    /// The object whose tile L0C holds last (Iterate(enPartialSum) adds onto it), and the one
    /// whose tile waits there for GetTensorC (none when taken).
    const void* c_owner = nullptr;
    const void* c_holder = nullptr;

    /// Buffers for tiles of the given bytes (`a2_buffers` in L0A, `b2_buffers` in L0B); a
    /// shared set is sized by its first object and must hold the later ones' tiles.
    void init(AscendC::TPipe& pipe, std::uint8_t a2_buffers, std::uint8_t b2_buffers,
              std::uint64_t a2_tile, std::uint64_t b2_tile, std::uint64_t co1_tile,
              const Loc& loc) {
        if (initialised) {
            if (a2_tile > a2_bytes || b2_tile > b2_bytes || co1_tile > co1_bytes) {
                throw KernelError(EventIds::where(loc) +
                                  "Matmul: an isA2B2Shared object with larger base tiles than "
                                  "the first object of its TPipe (the shared L0 buffers are "
                                  "sized by the first): not supported");
            }
            return;
        }
        pipe.InitBuffer(a2, a2_buffers, static_cast<std::uint32_t>(a2_tile), loc);
        pipe.InitBuffer(b2, b2_buffers, static_cast<std::uint32_t>(b2_tile), loc);
        // A C in CO1 is the kernel's own L0C tensor: no buffer (co1_tile 0).
        if (co1_tile != 0) pipe.InitBuffer(co1, 1, static_cast<std::uint32_t>(co1_tile), loc);
        a2_bytes = a2_tile;
        b2_bytes = b2_tile;
        co1_bytes = co1_tile;
        initialised = true;
    }
    /// The bias row's buffers (in L1 and in the bias table) of `bytes`, made by the first
    /// object with a bias.
    void init_bias(AscendC::TPipe& pipe, std::uint64_t bytes, const Loc& loc) {
        if (bias_bytes >= bytes) return;
        if (bias_bytes != 0) {
            throw KernelError(EventIds::where(loc) +
                              "Matmul: an isA2B2Shared object with a longer bias row than the "
                              "first object of its TPipe with a bias: not supported");
        }
        pipe.InitBuffer(bias1, 1, static_cast<std::uint32_t>(bytes), loc);
        pipe.InitBuffer(bias2, 1, static_cast<std::uint32_t>(bytes), loc);
        bias_bytes = bytes;
    }
};

/// The set of the objects with isA2B2Shared on `pipe` (made by the first).
inline std::shared_ptr<MatmulL0> shared_matmul_l0(AscendC::TPipe& pipe) {
    std::shared_ptr<void>& slot = pipe.npusim_matmul_shared();
    if (!slot) slot = std::make_shared<MatmulL0>();
    return std::static_pointer_cast<MatmulL0>(slot);
}

/// One Mmad (PIPE_M) of a [rows x depth] A tile and a [depth x cols] B tile into `c`: onto
/// its values (`accumulate`, after a PipeBarrier<PIPE_M>: Mmads into one L0C tile are ordered
/// on the cube pipe, the checker's rule for same-pipe overlapping writes) or fresh, with the
/// bias row `bias` when given.
template <class L0cT, class SrcT>
void mmad_tile(const AscendC::LocalTensor<L0cT>& c, const AscendC::LocalTensor<SrcT>& a2,
               const AscendC::LocalTensor<SrcT>& b2, std::uint64_t rows, std::uint64_t cols,
               std::uint64_t depth, bool fractal, bool a_transposed, bool b_transposed,
               bool accumulate, const AscendC::LocalTensor<L0cT>* bias, const Loc& loc) {
    KernelContext& ctx = context(loc);
    Resume resume(ctx);
    if (accumulate) ctx.pipe_barrier(npusim::Pipe::M, loc, false);
    ctx.before_pipe_work(npusim::Pipe::M, {}, loc);
    npusim::MmadCall call;
    call.c = c.native();
    call.a = a2.native();
    call.b = b2.native();
    call.m = static_cast<std::uint32_t>(rows);
    call.n = static_cast<std::uint32_t>(cols);
    call.k = static_cast<std::uint32_t>(depth);
    call.layout = fractal ? npusim::CubeLayout::Fractal : npusim::CubeLayout::RowMajor;
    call.a_transposed = !fractal && a_transposed;
    call.b_transposed = !fractal && b_transposed;
    call.accumulate = accumulate;
    call.has_bias = bias != nullptr;
    if (bias != nullptr) call.bias = bias->native();
    ctx.block().mmad(call, loc);
}

}  // namespace npusim::ascendc
