// The cube's instructions: Mmad (its types from the cube's table, base/cube_types.h),
// Fixpipe with its conversions (L0C -> GM on FIX) and LoadData's fractals (MTE1, transposed).
#include <algorithm>
#include <string>

#include "base/copy_routes.h"
#include "base/cube_types.h"
#include "base/errors.h"
#include "base/img2col.h"
#include "core/instruction_decoder.h"
#include "pipes/compute.h"
#include "pipes/op_table.h"

namespace npusim {

namespace {

std::string name_of(MemSpace space) {
    return std::string(to_string(space));
}
std::string name_of(DType dtype) {
    return std::string(to_string(dtype));
}

}  // namespace

void InstructionDecoder::decode_mmad(const Request& r, Transaction& tx,
                                     DecodedInstruction& out) const {
    const CubeTypeInfo* type = cube_type(r.src0.dtype);
    tx.dtype = type != nullptr ? type->result : DType::F32;
    tx.src_dtype = r.src0.dtype;
    tx.m = r.m;
    tx.n = r.n;
    tx.k = r.k;
    tx.accumulate = r.accumulate;
    tx.bias = r.has_bias;
    tx.a_transposed = r.a_transposed;
    tx.b_transposed = r.b_transposed;
    tx.layout = r.layout;
    tx.block_stride = r.block_stride;
    if (m_core_type != CoreType::Cube) rule_error(tx, "Mmad needs a cube core");
    if (r.has_bias && r.accumulate) {
        rule_error(tx, "Mmad with a bias initialises its result: it cannot also accumulate");
    }
    if (r.m == 0 || r.n == 0 || r.k == 0) rule_error(tx, "Mmad with a zero dimension");
    // The cube's type table (pipes/op_table.h) sizes the accesses below.
    if (type == nullptr || r.src1.dtype != r.src0.dtype || r.dst.dtype != type->result) {
        rule_error(tx, "Mmad takes " + cube_types_text() + " (got " +
                           std::string(to_string(r.src0.dtype)) + " x " +
                           std::string(to_string(r.src1.dtype)) + " -> " +
                           std::string(to_string(r.dst.dtype)) + ")");
    }
    const std::uint64_t m = r.m, n = r.n, k = r.k;
    const std::uint64_t in_size = size_of(type->input);
    const std::uint64_t out_size = size_of(type->result);
    if (r.layout == CubeLayout::Fractal && (r.a_transposed || r.b_transposed)) {
        rule_error(tx,
                   "Mmad in the fractal layout takes no transposed operands (LoadData "
                   "transposes on the way into L0A / L0B)");
    }
    // The elements each operand spans: dense row-major, or whole fractals (base/cube_layout.h).
    const CubeShapes shapes = cube_shapes(tx);
    if (r.block_stride != 0 && (r.layout != CubeLayout::Fractal || r.m == 1 ||
                                r.block_stride < shapes.a.col_fractals() * 512 / in_size)) {
        rule_error(tx, "Mmad: L0A's row blocks " + std::to_string(r.block_stride) +
                           " elements apart overlap (or a is not ZZ)");
    }
    auto check = [&](Operand op, MemSpace space, std::uint64_t count, const char* role) {
        if (op.space != space) {
            rule_error(tx, std::string(role) + " must be in " + name_of(space) + ", not " +
                               name_of(op.space));
        }
        // Fractal b and c: L0B's and L0C's bounds, not the tensor's, as on hardware
        // (asc-devkit's load_data_l12l0 declares B2 by n aligned to C0, its ZN fractals reach
        // to n aligned to 16; its int8 mmad sizes CO1 by n aligned to 16 and runs Mmad with n
        // aligned to 32). The checker still sees every byte written.
        if (r.layout == CubeLayout::Fractal && (space == MemSpace::L0B || space == MemSpace::L0C))
            op.count = std::max(op.count, count);
        check_local(tx, op, count, role);
    };
    const std::uint64_t a_span = shapes.a.span(), b_span = shapes.b.span();
    const std::uint64_t c_span = shapes.c.span();
    check(r.src0, MemSpace::L0A, a_span, "left matrix");
    check(r.src1, MemSpace::L0B, b_span, "right matrix");
    check(r.dst, MemSpace::L0C, c_span, "result matrix");
    // Reads first, in compute order (a, b, then the accumulator); the write last but one.
    tx.add_access(MemSpace::L0A, false, r.src0.address, a_span * in_size);
    tx.add_access(MemSpace::L0B, false, r.src1.address, b_span * in_size);
    if (r.has_bias) {
        if (r.bias.dtype != type->result) {
            rule_error(tx, "Mmad's bias is " + std::string(to_string(type->result)) + " for a " +
                               std::string(to_string(type->result)) + " result (got " +
                               std::string(to_string(r.bias.dtype)) + ")");
        }
        check(r.bias, MemSpace::BT, n, "bias");
        tx.add_access(MemSpace::BT, false, r.bias.address, n * out_size);
    }
    out.write_access = tx.access_count;
    tx.add_access(MemSpace::L0C, true, r.dst.address, c_span * out_size);
    if (r.accumulate) tx.add_access(MemSpace::L0C, false, r.dst.address, c_span * out_size);
    (void)m;
    (void)k;
}

void InstructionDecoder::decode_fixpipe(const Request& r, Transaction& tx,
                                        DecodedInstruction& out) const {
    const auto mode = static_cast<FixQuant>(r.mode);
    const FixQuantInfo& info = fix_quant_info(mode);
    tx.src_dtype = r.src0.dtype;
    tx.dtype = r.dst.dtype;
    tx.m = r.m;
    tx.n = r.n;
    tx.count = std::uint64_t{r.m} * r.n;
    tx.mode = r.mode;
    tx.relu = r.relu;
    tx.quant_word = r.quant_word;
    tx.layout = r.layout;
    tx.block_stride = r.block_stride;
    out.route = find_copy_route(r.src0.space, r.dst.space);
    const bool to_l1 = r.dst.space == MemSpace::L1;
    if (r.src0.space != MemSpace::L0C || (r.dst.space != MemSpace::GM && !to_l1) || !out.route) {
        rule_error(tx, "Fixpipe with a conversion goes from L0C to GM or L1, not from " +
                           name_of(r.src0.space) + " to " + name_of(r.dst.space));
    }
    if (to_l1 && r.atomic != AtomicOp::None) {
        rule_error(tx, "Fixpipe into L1 under SetAtomic" + std::string(to_string(r.atomic)) +
                           ": atomic operations combine with GM only");
    }
    if (r.m == 0 || r.n == 0) rule_error(tx, "Fixpipe with a zero dimension");
    const std::string what = "Fixpipe " + std::string(info.name) + " converts ";
    const bool plain = mode == FixQuant::None;
    if (plain ? r.src0.dtype != r.dst.dtype ||
                    (r.src0.dtype != DType::F32 && r.src0.dtype != DType::I32)
              : r.src0.dtype != info.source ||
                    (r.dst.dtype != info.result && r.dst.dtype != info.result_alt)) {
        const std::string to = info.result == info.result_alt
                                   ? name_of(info.result)
                                   : name_of(info.result) + " or " + name_of(info.result_alt);
        rule_error(
            tx,
            what + (plain ? "fp32 -> fp32 or int32 -> int32" : name_of(info.source) + " -> " + to) +
                " (got " + name_of(r.src0.dtype) + " -> " + name_of(r.dst.dtype) + ")");
    }
    // The mode-control bit (36) asks for a shift of int32 inputs before the scale; the
    // vendor's documentation and its reference script disagree on the shift's encoding.
    const auto mode_bit = [](std::uint64_t word) { return ((word >> 36) & 1U) != 0; };
    if (info.scaled && !info.per_channel && mode_bit(r.quant_word)) {
        rule_error(tx, what + "with the mode-control bit (36) of deqScalar set: not supported yet");
    }
    if (r.atomic != AtomicOp::None && (!plain || r.relu)) {
        rule_error(tx, "Fixpipe with a conversion (quantisation or ReLU) under SetAtomic" +
                           std::string(to_string(r.atomic)) + ": not supported yet");
    }
    if (r.atomic != AtomicOp::None) {  // the plain copy-out combines with GM
        if (r.atomic_dtype != r.dst.dtype) {
            rule_error(tx, "Fixpipe of " + name_of(r.dst.dtype) + " while atomic " +
                               std::string(to_string(r.atomic)) + " of " + name_of(r.atomic_dtype) +
                               " is set (at " + format_location(r.atomic_where) +
                               "): the atomic type must be the copied element type");
        }
        tx.atomic = r.atomic;
    }
    const std::uint64_t in_size = size_of(r.src0.dtype), out_size = size_of(r.dst.dtype);
    const std::uint64_t row_bytes = std::uint64_t{r.n} * out_size;
    const std::uint64_t pitch = r.dst_pitch == 0 ? row_bytes : r.dst_pitch;
    if (pitch < row_bytes) {
        rule_error(tx, "Fixpipe: " + name_of(r.dst.space) + " rows " + std::to_string(pitch) +
                           " bytes apart overlap rows of " + std::to_string(row_bytes) + " bytes");
    }
    const MatrixShape src = fixpipe_source(tx);
    if (r.layout == CubeLayout::Fractal && src.block_stride != 0 && src.col_fractals() > 1 &&
        src.block_stride < src.row_fractals() * kFractalSide * kFractalSide) {
        rule_error(tx, "Fixpipe: srcStride " + std::to_string(src.block_stride / kFractalSide) +
                           " (rows between L0C's column blocks) is less than mSize " +
                           std::to_string(r.m) + " rounded up to 16");
    }
    check_local(tx, r.src0, src.span(), "source", 32);
    const std::uint64_t span = ((r.m - 1) * pitch + row_bytes + out_size - 1) / out_size;
    if (to_l1) {
        check_local(tx, r.dst, span, "destination", 32);
    } else {
        check_global(tx, r.dst, span, "destination");
    }
    tx.add_access(MemSpace::L0C, false, r.src0.address, src.span() * in_size);
    out.write_access = tx.access_count;
    tx.add_access(r.dst.space, true, r.dst.address, row_bytes, r.m, pitch);
    if (info.per_channel) {
        if (r.src1.space != MemSpace::L1 || r.src1.dtype != DType::U64) {
            rule_error(tx, what +
                               "with one uint64 scale word per column in L1 (the fixpipe "
                               "buffer's stand-in), got " +
                               name_of(r.src1.dtype) + " in " + name_of(r.src1.space));
        }
        check_local(tx, r.src1, r.n, "scale words");
        tx.add_access(MemSpace::L1, false, r.src1.address, std::uint64_t{r.n} * 8);
    }
}

void InstructionDecoder::decode_load_fractals(const Request& r, Transaction& tx,
                                              DecodedInstruction& out) const {
    constexpr std::uint64_t kFractalBytes = 512;
    tx.dtype = tx.src_dtype = r.src0.dtype;
    tx.mode = r.mode;
    const std::string what = r.mode == 1 ? "LoadData with ifTranspose" : "LoadData";
    out.route = find_copy_route(r.src0.space, r.dst.space);
    if (r.src0.space != MemSpace::L1 ||
        (r.dst.space != MemSpace::L0A && r.dst.space != MemSpace::L0B) || !out.route) {
        rule_error(tx, what + " goes from L1 to L0A or L0B, not from " + name_of(r.src0.space) +
                           " to " + name_of(r.dst.space));
    }
    if (r.dst.dtype != r.src0.dtype) {
        rule_error(tx, what + " keeps the element type (got " + name_of(r.src0.dtype) + " -> " +
                           name_of(r.dst.dtype) + ")");
    }
    if (r.mode == 1 && size_of(r.src0.dtype) != 2) {
        rule_error(tx, what +
                           " transposes 16-bit elements only on A2 (half, bfloat16_t, "
                           "int16_t, uint16_t: a 16 x 16 fractal), got " +
                           name_of(r.src0.dtype));
    }
    const bool square = r.mode == 2 || r.mode == 3;  // one fractal of a transposed square
    if (square && size_of(r.src0.dtype) != 1 && size_of(r.src0.dtype) != 4) {
        rule_error(tx,
                   "LoadDataWithTranspose transposes squares of two fractals for 8- and "
                   "32-bit elements, got " +
                       name_of(r.src0.dtype));
    }
    if (r.rows == 0) rule_error(tx, what + " of 0 fractals");
    if (r.src_pitch % kFractalBytes != 0 || r.dst_pitch % kFractalBytes != 0 || r.dst_pitch == 0) {
        rule_error(tx, what + ": fractals " + std::to_string(r.src_pitch) + " / " +
                           std::to_string(r.dst_pitch) + " bytes apart are not whole fractals");
    }
    const std::uint64_t element = size_of(r.src0.dtype);
    const std::uint64_t fractal = kFractalBytes / element;
    const auto span = [&](std::uint64_t pitch) {
        return ((r.rows - 1) * pitch + kFractalBytes) / element;
    };
    tx.count = std::uint64_t{r.rows} * fractal;
    const std::uint64_t read_bytes = square ? 2 * kFractalBytes : kFractalBytes;
    check_local(tx, r.src0, span(r.src_pitch) + (read_bytes - kFractalBytes) / element, "source",
                32);
    check_local(tx, r.dst, span(r.dst_pitch), "destination", kFractalBytes);
    if (square) {  // the write first: the copy is timed by the fractals it writes
        out.write_access = tx.access_count;
        tx.add_access(r.dst.space, true, r.dst.address, kFractalBytes, r.rows, r.dst_pitch);
    }
    tx.add_access(r.src0.space, false, r.src0.address, read_bytes, r.rows, r.src_pitch);
    if (square) return;
    out.write_access = tx.access_count;
    tx.add_access(r.dst.space, true, r.dst.address, kFractalBytes, r.rows, r.dst_pitch);
}

void InstructionDecoder::decode_init_const(const Request& r, Transaction& tx,
                                           DecodedInstruction& out) const {
    tx.dtype = tx.src_dtype = r.dst.dtype;
    tx.pad_value = r.pad.pad_value;
    const bool to_l1 = r.dst.space == MemSpace::L1;
    if (!to_l1 && r.dst.space != MemSpace::L0A && r.dst.space != MemSpace::L0B) {
        rule_error(tx, "InitConstValue fills L1 (A1 / B1), L0A (A2) or L0B (B2), not " +
                           name_of(r.dst.space));
    }
    // The pipe that writes that buffer (Block::init_const's source space): MTE2 into L1, MTE1
    // into L0A / L0B.
    out.route = find_copy_route(r.src0.space, r.dst.space);
    const std::uint64_t element = size_of(r.dst.dtype);
    if (element != 2 && element != 4) {
        rule_error(tx,
                   "InitConstValue takes 16- and 32-bit elements on A2 (half, bfloat16_t, "
                   "int16_t, uint16_t, float, int32_t, uint32_t), got " +
                       name_of(r.dst.dtype));
    }
    if (r.rows == 0 || r.count == 0) rule_error(tx, "InitConstValue of 0 blocks");
    const std::uint64_t block = to_l1 ? 32 : 512;
    const std::uint64_t row_bytes = r.count * block, pitch = (r.count + r.dst_pitch) * block;
    const std::uint64_t span = (std::uint64_t{r.rows} - 1) * pitch + row_bytes;
    tx.count = std::uint64_t{r.rows} * row_bytes / element;
    check_local(tx, r.dst, span / element, "destination", block);
    out.write_access = tx.access_count;
    tx.add_access(r.dst.space, true, r.dst.address, row_bytes, r.rows, pitch);
}

void InstructionDecoder::decode_img2col(const Request& r, Transaction& tx,
                                        DecodedInstruction& out) const {
    tx.dtype = tx.src_dtype = r.src0.dtype;
    tx.img2col = r.img2col;
    tx.pad_value = r.pad.pad_value;
    Img2Col& g = tx.img2col;
    const std::string what = "LoadData 3D";
    out.route = find_copy_route(r.src0.space, r.dst.space);
    const bool to_b = r.dst.space == MemSpace::L0B;
    if (r.src0.space != MemSpace::L1 || (r.dst.space != MemSpace::L0A && !to_b) || !out.route) {
        rule_error(tx, what + " goes from L1 to L0A or L0B, not from " + name_of(r.src0.space) +
                           " to " + name_of(r.dst.space));
    }
    if (r.dst.dtype != r.src0.dtype) {
        rule_error(tx, what + " keeps the element type (got " + name_of(r.src0.dtype) + " -> " +
                           name_of(r.dst.dtype) + ")");
    }
    const std::uint64_t element = size_of(r.src0.dtype), c0 = cube_c0(element);
    if ((to_b || g.transpose) && element != 2 && element != 4) {
        rule_error(tx, what + (to_b ? " into L0B" : " with enTranspose") +
                           " takes 16- and 32-bit elements on A2 (the vendor's reference), got " +
                           name_of(r.src0.dtype));
    }
    const std::uint64_t columns = std::uint64_t{g.channels} * g.filter_h * g.filter_w;
    if (g.channels % c0 != 0 || g.k_start % c0 != 0 || g.k_extent % c0 != 0) {
        rule_error(tx, what + ": channelSize " + std::to_string(g.channels) + ", kStartPt " +
                           std::to_string(g.k_start) + " and kExtension " +
                           std::to_string(g.k_extent) + " must be multiples of C0 = " +
                           std::to_string(c0) + " (smaller channel groups: not supported yet)");
    }
    if (g.out_w() == 0 || g.out_h() == 0 || g.dilation_h == 0 || g.dilation_w == 0) {
        rule_error(tx, what + ": the kernel window (with dilation) does not fit the padded " +
                           std::to_string(g.l1_h) + " x " + std::to_string(g.l1_w) +
                           " feature map, or a stride or dilation is 0");
    }
    if (std::uint64_t{g.k_start} + g.k_extent > columns) {
        rule_error(tx, what + ": columns [" + std::to_string(g.k_start) + ", " +
                           std::to_string(g.k_start + g.k_extent) +
                           ") are past the img2col matrix's " + std::to_string(columns) +
                           " (channelSize x filterH x filterW)");
    }
    // The L1 read: from the lowest to the highest element the window gathers.
    const Img2ColRead read = img2col_read(g, c0);
    const MatrixShape dst = img2col_destination(g, c0, to_b);
    tx.count = dst.span();
    // Bounds of the memory, not of the tensors: kernels declare their L0 tensor by the
    // matrix's extents (asc-devkit's load_data_l12l0), the fractals written may reach past.
    Operand dst_operand = r.dst;
    dst_operand.count = std::max(dst_operand.count, dst.span());
    check_local(tx, dst_operand, dst.span(), "destination", 512);
    out.write_access = tx.access_count;  // first: the copy is timed by what it writes
    tx.add_access(r.dst.space, true, r.dst.address, dst.span() * element);
    if (read.hi > read.lo) {
        Operand src_operand = r.src0;
        src_operand.count = std::max(src_operand.count, read.hi);
        check_local(tx, src_operand, read.hi, "source (the feature map)", 32);
        g.first_read = read.lo;
        const std::uint64_t lo = r.src0.address + read.lo * element;
        const std::uint64_t hi = r.src0.address + read.hi * element;
        if (g.wrap_bytes == 0 || hi <= g.wrap_bytes) {
            g.wrap_bytes = 0;
            tx.add_access(MemSpace::L1, false, lo, hi - lo);
            return;
        }
        // Reads past SetLoadDataBoundary's bound continue at L1's start: two L1 reads.
        if (lo >= g.wrap_bytes || hi - g.wrap_bytes > g.wrap_bytes) {
            rule_error(tx, what + " reads L1 bytes [" + std::to_string(lo) + ", " +
                               std::to_string(hi) + "), which wrap at SetLoadDataBoundary's " +
                               std::to_string(g.wrap_bytes) +
                               " more than once or from past it (not supported yet)");
        }
        tx.add_access(MemSpace::L1, false, lo, g.wrap_bytes - lo);
        tx.add_access(MemSpace::L1, false, 0, hi - g.wrap_bytes);
    }
}

void InstructionDecoder::decode_nd2nz(const Request& r, Transaction& tx,
                                      DecodedInstruction& out) const {
    tx.dtype = tx.src_dtype = r.src0.dtype;
    tx.layout = CubeLayout::Fractal;
    tx.m = r.rows;
    tx.n = static_cast<std::uint32_t>(r.count);
    tx.count = r.count;
    out.route = find_copy_route(r.src0.space, r.dst.space);
    if (r.src0.space != MemSpace::GM || r.dst.space != MemSpace::L1 || !out.route) {
        rule_error(tx, "DataCopy with the ND -> NZ conversion goes from GM to L1, not from " +
                           name_of(r.src0.space) + " to " + name_of(r.dst.space));
    }
    if (r.dst.dtype != r.src0.dtype) {
        rule_error(tx, "DataCopy ND -> NZ keeps the element type (got " + name_of(r.src0.dtype) +
                           " -> " + name_of(r.dst.dtype) + ")");
    }
    if (r.rows == 0 || r.count == 0) rule_error(tx, "DataCopy ND -> NZ of 0 rows or columns");
    const std::uint64_t element = size_of(r.src0.dtype);
    const std::uint64_t row_bytes = r.count * element;
    const std::uint64_t blocks = (row_bytes + 31) / 32;
    const std::uint64_t block_bytes = std::uint64_t{r.rows} * 32;  // one column block's rows
    if (r.src_pitch < row_bytes) {
        rule_error(tx, "DataCopy ND -> NZ: source rows " + std::to_string(r.src_pitch) +
                           " bytes apart overlap rows of " + std::to_string(row_bytes) + " bytes");
    }
    if (blocks > 1 && r.dst_pitch < block_bytes) {
        rule_error(tx, "DataCopy ND -> NZ: column blocks " + std::to_string(r.dst_pitch / 32) +
                           " C0 rows apart (dstNzC0Stride) overlap blocks of " +
                           std::to_string(r.rows) + " rows (nValue)");
    }
    check_global(tx, r.src0, ((r.rows - 1) * r.src_pitch + row_bytes) / element, "source");
    check_local(tx, r.dst, ((blocks - 1) * r.dst_pitch + block_bytes) / element, "destination");
    tx.add_access(MemSpace::GM, false, r.src0.address, row_bytes, r.rows, r.src_pitch);
    out.write_access = tx.access_count;
    tx.add_access(r.dst.space, true, r.dst.address, block_bytes, static_cast<std::uint32_t>(blocks),
                  r.dst_pitch);
    tx.dma_continues = r.dma_continues;
    tx.l2_bypass = r.l2_bypass;
}

}  // namespace npusim
