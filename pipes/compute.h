// Functional semantics of vector and cube instructions: bytes in, bytes out. No timing.
// half arithmetic is done in float and rounded back (round to nearest even); integer
// arithmetic wraps (two's complement); float -> integer casts round to nearest even and
// saturate. The op table (pipes/op_table.h) names which function computes which op.
#pragma once

#include <cstddef>

#include "base/transaction.h"

namespace npusim {

/// Contract shared by every compute function: `sources` holds the instruction's read
/// operands in access order (null where an op has fewer), `out` receives the bytes of its
/// write access. Nothing else is read or written.
using ComputeFn = void (*)(const Transaction& tx, const std::byte* const* sources, std::byte* out);

/// out[i] = op(src0[i], src1[i], tx.scalar) for tx.count elements of tx.dtype.
template <Op op>
void compute_elementwise(const Transaction& tx, const std::byte* const* sources, std::byte* out);
/// out[0] = sum of tx.count elements (accumulated in fp32 for float types).
void compute_reduce_sum(const Transaction& tx, const std::byte* const* sources, std::byte* out);
/// out[0] = max / min of tx.count elements; with an IndexOrder in tx.mode, the value and the
/// first position of it (an unsigned integer of the element's width), in that order.
void compute_reduce_max(const Transaction& tx, const std::byte* const* sources, std::byte* out);
void compute_reduce_min(const Transaction& tx, const std::byte* const* sources, std::byte* out);
/// tx.src_dtype -> tx.dtype for tx.count elements, rounded by RoundMode(tx.mode); integer
/// targets saturate.
void compute_cast(const Transaction& tx, const std::byte* const* sources, std::byte* out);
/// CastInt4: tx.count 4-bit integers (two a byte, element 2i in the low nibble of byte i) from
/// fp16 (tx.src_dtype F16: rounded by RoundMode(tx.mode), saturated to [-8, 7]) or to fp16.
void compute_cast_int4(const Transaction& tx, const std::byte* const* sources, std::byte* out);
/// Compare / CompareScalar: bit i of out = src0[i] <mode> src1[i] (or tx.scalar), LSB first;
/// tx.dtype is the compared type.
void compute_compare(const Transaction& tx, const std::byte* const* sources, std::byte* out);
/// Select / SelectScalar: out[i] = bit i of sources[0] ? sources[1][i] : sources[2][i] (or
/// tx.scalar).
void compute_select(const Transaction& tx, const std::byte* const* sources, std::byte* out);
/// Elements each group of a reduction writes: 2 for ReduceMax / Min and GroupReduceMax / Min
/// with an index order (value and position), 1 otherwise.
std::uint64_t reduce_results_per_group(const Transaction& tx);
/// GroupReduce*: out[j] = sum / max / min of src[j * tx.group .. (j + 1) * tx.group).
void compute_group_reduce(const Transaction& tx, const std::byte* const* sources, std::byte* out);
/// Brcb: out[i x (32 / size) + k] = src[i] for k < 32 / size: one 32-byte block per element.
void compute_brcb(const Transaction& tx, const std::byte* const* sources, std::byte* out);
/// Gather: out[i] = the element at byte offset tx.scalar + offsets[i] of the source read
/// (sources: the bytes read of the source tensor, the uint32 byte offsets; tx.count results;
/// tx.scalar may be negative when the read starts inside the tensor).
void compute_gather(const Transaction& tx, const std::byte* const* sources, std::byte* out);
/// GatherMask: the first tx.group of the tx.count source elements whose pattern bit is set,
/// packed from out[0]; the pattern is built in (tx.mode 1-7) or the second source's bits.
void compute_gather_mask(const Transaction& tx, const std::byte* const* sources, std::byte* out);
/// Sort32: each 32 scores (sources[0]) with their uint32 indices (sources[1]) as 8-byte
/// (score, index) pairs sorted by score, descending; equal scores keep their order.
void compute_sort32(const Transaction& tx, const std::byte* const* sources, std::byte* out);
/// MrgSort: tx.group sorted queues of (score, index) pairs (sources, each
/// tx.accesses[q].bytes long) merged by score, descending; on equal scores the lower queue first.
void compute_mrg_sort(const Transaction& tx, const std::byte* const* sources, std::byte* out);
/// Where Mmad's operands lie (tx.layout, base/cube_layout.h): RowMajor a m x k (k x m when
/// tx.a_transposed), b k x n (n x k when tx.b_transposed), c m x n; Fractal a ZZ (ND when m
/// is 1, the GEMV form), b ZN, c NZ. The decoder sizes the accesses with it.
struct CubeShapes {
    MatrixShape a, b, c;
};
CubeShapes cube_shapes(const Transaction& tx);
/// Where Fixpipe's source lies in L0C: m x n row-major, or NZ (16 x 16 fractals) with its
/// column blocks tx.block_stride elements apart (0: packed).
MatrixShape fixpipe_source(const Transaction& tx);
/// Transpose: the tx.group x (tx.count / tx.group) source matrix (its rows
/// tx.accesses[0].pitch bytes apart when strided) written transposed, row after row, into out.
void compute_transpose(const Transaction& tx, const std::byte* const* sources, std::byte* out);
/// c[m x n] = (accumulate ? c : bias ? bias row : 0) + a[m x k] * b[k x n]; sources a, b
/// (cube_shapes), then c_in (the result type, read only when tx.accumulate) or the bias row
/// (n elements, when tx.bias). Fractal: c's elements outside m x n are 0 (kept when
/// accumulating).
void compute_mmad(const Transaction& tx, const std::byte* const* sources, std::byte* out);
/// Fixpipe (pipes/compute_fixpipe.cpp): sources L0C (fixpipe_source) and, per channel, n
/// uint64 scale words; out the m x n converted results, row after row.
void compute_fixpipe(const Transaction& tx, const std::byte* const* sources, std::byte* out);
/// The ND -> NZ copy (a Copy with tx.layout Fractal), in place on the bytes read: `data` holds
/// tx.accesses[0].rows rows of tx.accesses[0].bytes; afterwards it holds the write access's
/// rows (C0 column blocks of 32-byte rows), a partial last block padded with zeros.
void nd2nz_in_place(const Transaction& tx, std::byte* data);
/// LoadData 2D (pipes/compute_fixpipe.cpp): tx.accesses[0].rows fractals of 512 bytes, read
/// tx.accesses[0].pitch bytes apart (0: the same fractal each time), one after the other; with
/// tx.mode 1 each is 16 x 16 elements of 16 bits written transposed: out[f][j][i] = src[f][i][j].
/// tx.mode 2 / 3 (the write access first, then 1024-byte squares read): that fractal of each
/// transposed square (32 x 32 int8, or 16 x 16 of 32 bits from two 16 x 8 fractals).
void compute_load_fractals(const Transaction& tx, const std::byte* const* sources, std::byte* out);
/// LoadData 3D (pipes/compute_fixpipe.cpp): the window tx.img2col of the feature map (sources[0]
/// from its element first_read) into out as img2col_destination (base/img2col.h); padding
/// positions read tx.pad_value, elements past the window in the last fractals are 0. With
/// img2col.wrap_bytes, elements at L1 addresses past it come from sources[1] (L1 from 0).
void compute_img2col(const Transaction& tx, const std::byte* const* sources, std::byte* out);
/// InitConstValue (pipes/compute_fixpipe.cpp): the write access's bytes, each element
/// (tx.dtype) tx.pad_value's low bytes.
void compute_init_const(const Transaction& tx, const std::byte* const* sources, std::byte* out);
/// The scale of a quantisation word as the fixpipe uses it: bits 31..13 as a float (1 sign,
/// 8 exponent and 10 mantissa bits; the 13 low mantissa bits are dropped).
float fixpipe_scale(std::uint64_t word);
/// Atomic copy-out (Transaction::atomic): gm[i] = op(gm[i], data[i]) for tx.count elements
/// of tx.dtype, in place. Add rounds and wraps like the vector Add; Max/Min like Max/Min.
void combine_atomic(const Transaction& tx, std::byte* gm, const std::byte* data);

}  // namespace npusim
