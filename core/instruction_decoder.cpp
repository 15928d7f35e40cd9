#include "core/instruction_decoder.h"

#include "base/cross_core_routing.h"
#include "base/errors.h"
#include "base/memory_spaces.h"
#include "base/pipe_table.h"
#include "pipes/compute.h"
#include "pipes/op_table.h"

namespace npusim {

namespace {

std::string name_of(MemSpace space) {
    return std::string(to_string(space));
}
std::string name_of(Pipe pipe) {
    return std::string(to_string(pipe));
}
std::string name_of(CoreType type) {
    return std::string(to_string(type));
}
std::string name_of(Op op) {
    return std::string(to_string(op));
}

}  // namespace

InstructionDecoder::InstructionDecoder(CoreType core_type, const ChipConfig& chip)
    : m_core_type(core_type),
      m_local_capacity(local_capacities(chip, core_type)),
      m_gm_capacity(chip.gm_bytes),
      m_event_ids(chip.event_ids) {}

void InstructionDecoder::rule_error(const Transaction& tx, const std::string& what) const {
    throw KernelError("kernel '" + std::string(m_kernel_name) + "' block " +
                      std::to_string(tx.block) + " (" + name_of(m_core_type) + ") " +
                      name_of(tx.pipe) + " serial " + std::to_string(tx.serial) + " at " +
                      format_location(tx.where) + ": " + what);
}

Pipe InstructionDecoder::pipe_of(const Request& r) {
    switch (op_info(r.op).unit) {
        case OpUnit::Copy: {
            const auto route = find_copy_route(r.src0.space, r.dst.space);
            return route ? route->pipe : Pipe::S;
        }
        case OpUnit::Vector:
            return Pipe::V;
        case OpUnit::Cube:
            return Pipe::M;
        case OpUnit::Scalar:
            return Pipe::S;
        case OpUnit::Sync:
            break;
    }
    if (r.op == Op::SetFlag) return r.flag_src;
    if (r.op == Op::WaitFlag) return r.flag_dst;
    if (r.op == Op::PipeBarrier) return r.barrier_pipe;
    return Pipe::S;
}

DecodedInstruction InstructionDecoder::decode(const Request& r, Transaction& tx) const {
    DecodedInstruction out;
    tx.pipe = pipe_of(r);
    tx.op = r.op;
    switch (op_info(r.op).unit) {
        case OpUnit::Copy:
            decode_copy(r, tx, out);
            break;
        case OpUnit::Vector:
            decode_vector(r, tx, out);
            break;
        case OpUnit::Cube:
            decode_mmad(r, tx, out);
            break;
        case OpUnit::Scalar:
            rule_error(tx, "scalar accesses go through decode_scalar_access");
        case OpUnit::Sync:
            if (r.op == Op::SetFlag || r.op == Op::WaitFlag) {
                decode_flag(r, tx);
            } else if (r.op == Op::PipeBarrier) {
                decode_barrier(r, tx);
            } else {
                rule_error(tx, name_of(r.op) + " is not issued through decode()");
            }
            break;
    }
    return out;
}

void InstructionDecoder::check_local(const Transaction& tx, const Operand& operand,
                                     std::uint64_t count, const char* role,
                                     std::uint64_t align) const {
    const std::uint64_t capacity = local_capacity(operand.space);
    const std::string name = name_of(operand.space);
    if (capacity == 0) {
        rule_error(tx, std::string(role) + " is in " + name + ", which an " + name_of(m_core_type) +
                           " core does not have");
    }
    if (align == 0) align = mem_space_info(operand.space).alignment;
    if (operand.address % align != 0) {
        rule_error(tx, std::string(role) + " " + name + " address " + hex_string(operand.address) +
                           " is not " + std::to_string(align) + "-byte aligned");
    }
    if (count > operand.count) {
        rule_error(tx, std::string(role) + " needs " + std::to_string(count) +
                           " elements but its tensor holds " + std::to_string(operand.count));
    }
    const std::uint64_t bytes = count * size_of(operand.dtype);
    if (operand.address > capacity || bytes > capacity - operand.address) {
        rule_error(tx, std::string(role) + " " + name + " range [" + hex_string(operand.address) +
                           ", " + hex_string(operand.address + bytes) + ") is outside " + name +
                           " (" + std::to_string(capacity) + " bytes)");
    }
}

void InstructionDecoder::check_global(const Transaction& tx, const Operand& operand,
                                      std::uint64_t count, const char* role) const {
    if (count > operand.count) {
        rule_error(tx, std::string(role) + " needs " + std::to_string(count) +
                           " elements but its tensor holds " + std::to_string(operand.count));
    }
    const std::uint64_t bytes = count * size_of(operand.dtype);
    if (operand.address > m_gm_capacity || bytes > m_gm_capacity - operand.address) {
        rule_error(tx, std::string(role) + " GM range [" + hex_string(operand.address) + ", " +
                           hex_string(operand.address + bytes) + ") is outside GM (" +
                           std::to_string(m_gm_capacity) + " bytes)");
    }
}

void InstructionDecoder::decode_copy(const Request& r, Transaction& tx,
                                     DecodedInstruction& out) const {
    if (r.op == Op::Fixpipe) {
        decode_fixpipe(r, tx, out);
        return;
    }
    if (r.op == Op::LoadFractals) {
        decode_load_fractals(r, tx, out);
        return;
    }
    if (r.op == Op::LoadImg2Col) {
        decode_img2col(r, tx, out);
        return;
    }
    if (r.op == Op::InitConstValue) {
        decode_init_const(r, tx, out);
        return;
    }
    if (r.layout == CubeLayout::Fractal) {
        decode_nd2nz(r, tx, out);
        return;
    }
    out.route = find_copy_route(r.src0.space, r.dst.space);
    if (!out.route) {
        rule_error(
            tx, "no DataCopy path from " + name_of(r.src0.space) + " to " + name_of(r.dst.space));
    }
    tx.dtype = tx.src_dtype = r.src0.dtype;
    tx.count = r.count;
    const std::string route = name_of(r.src0.space) + "->" + name_of(r.dst.space);
    if (r.count == 0) rule_error(tx, "DataCopy " + route + " of 0 elements");
    const std::uint64_t element = size_of(r.src0.dtype);
    const std::uint64_t bytes = r.count * element;
    const bool gm_route = r.src0.space == MemSpace::GM || r.dst.space == MemSpace::GM;
    if (r.pad.unaligned && !gm_route) {
        rule_error(tx, "DataCopyPad " + route + ": unaligned lengths need GM on one side");
    }
    const std::uint64_t pad = std::uint64_t{r.pad.left_bytes} + r.pad.right_bytes;
    if (pad != 0 && (r.src0.space != MemSpace::GM || r.pad.left_bytes % element != 0 ||
                     r.pad.right_bytes % element != 0)) {
        rule_error(tx, "DataCopyPad " + route + ": padding of " + std::to_string(r.pad.left_bytes) +
                           " + " + std::to_string(r.pad.right_bytes) +
                           " bytes needs GM as the source and whole elements");
    }
    if (bytes % 32 != 0 && !r.pad.unaligned) {
        rule_error(tx, "DataCopy " + route + " length " + std::to_string(bytes) +
                           " bytes is not a multiple of 32 bytes");
    }
    const std::uint32_t rows = r.rows == 0 ? 1 : r.rows;
    for (const Operand* op : {&r.src0, &r.dst}) {
        const char* role = op == &r.dst ? "destination" : "source";
        const std::uint64_t pitch = op == &r.dst ? r.dst_pitch : r.src_pitch;
        const std::uint64_t row = bytes + (op == &r.dst ? pad : 0);
        if (rows > 1 && pitch < row) {
            rule_error(tx, "DataCopy " + route + ": " + role + " rows " + std::to_string(pitch) +
                               " bytes apart overlap rows of " + std::to_string(row) + " bytes");
        }
        if (rows > 1 && op->space != MemSpace::GM && pitch % 32 != 0) {
            rule_error(tx, "DataCopy " + route + ": " + role + " rows " + std::to_string(pitch) +
                               " bytes apart are not 32-byte aligned");
        }
        // The elements from the first row's start to the last row's end.
        const std::uint64_t span = ((rows - 1) * pitch + row + element - 1) / element;
        if (op->space == MemSpace::GM) {
            check_global(tx, *op, span, role);
        } else if (op == &r.src0 && op->space == MemSpace::L0C) {
            // A strided Fixpipe reads L0C row by row (npusim keeps it row-major): a row
            // starts at any 32-byte block of the result.
            check_local(tx, *op, span, role, 32);
        } else {
            check_local(tx, *op, span, role);
        }
    }
    tx.add_access(r.src0.space, false, r.src0.address, bytes, rows, r.src_pitch);
    if (r.pad.fill && pad != 0) {  // the padding is written too
        tx.pad_left = r.pad.left_bytes;
        tx.pad_right = r.pad.right_bytes;
        tx.pad_value = r.pad.pad_value;
        tx.add_access(r.dst.space, true, r.dst.address, bytes + pad, rows, r.dst_pitch);
    } else {  // the data only, after the left padding
        tx.add_access(r.dst.space, true, r.dst.address + r.pad.left_bytes, bytes, rows,
                      r.dst_pitch);
    }
    tx.dma_continues = r.dma_continues;
    tx.l2_bypass = r.l2_bypass;
    out.write_access = 1;
    // The atomic mode applies to copy-out only: UB -> GM (MTE3) and L0C -> GM (FIX).
    if (r.atomic != AtomicOp::None && r.dst.space == MemSpace::GM &&
        (tx.pipe == Pipe::MTE3 || tx.pipe == Pipe::FIX)) {
        if (r.atomic_dtype != r.src0.dtype) {
            rule_error(tx, "DataCopy " + route + " of " + std::string(to_string(r.src0.dtype)) +
                               " while atomic " + std::string(to_string(r.atomic)) + " of " +
                               std::string(to_string(r.atomic_dtype)) + " is set (at " +
                               format_location(r.atomic_where) +
                               "): the atomic type must be the copied element type");
        }
        tx.atomic = r.atomic;
    }
}

void InstructionDecoder::decode_vector(const Request& r, Transaction& tx,
                                       DecodedInstruction& out) const {
    const OpInfo& info = op_info(r.op);
    if (info.rearranges) return decode_rearrange(r, tx, out);
    // A bit-mask result (Compare) has the sources' type as the op's type; the rest write dst's.
    tx.dtype = info.bit_output ? r.src0.dtype : r.dst.dtype;
    tx.src_dtype = info.ub_sources == 0 ? r.dst.dtype : r.src0.dtype;
    tx.count = r.count;
    tx.scalar = r.scalar;
    tx.mode = r.mode;
    tx.group = r.group;
    if (m_core_type != CoreType::Vector) rule_error(tx, name_of(r.op) + " needs a vector core");
    if (r.count == 0) rule_error(tx, name_of(r.op) + " of 0 elements");
    if (info.grouped && (r.group == 0 || r.count % r.group != 0)) {
        rule_error(tx, name_of(r.op) + " of " + std::to_string(r.count) +
                           " elements in groups of " + std::to_string(r.group) +
                           ": the count must be a whole number of groups");
    }
    if (info.bit_output && r.dst.dtype != DType::U8) {
        rule_error(tx, name_of(r.op) + " writes a bit mask: the destination must be uint8, not " +
                           std::string(to_string(r.dst.dtype)));
    }
    const std::uint64_t per_result = reduce_results_per_group(tx);
    const std::uint64_t out_count = info.single_output     ? per_result
                                    : info.grouped         ? r.count / r.group * per_result
                                    : info.bit_output      ? (r.count + 7) / 8
                                    : info.block_broadcast ? r.count * (32 / size_of(r.dst.dtype))
                                                           : r.count;
    // Only Cast converts: every other op reads and writes elements of one type.
    const bool mixed = (info.ub_sources >= 1 && r.src0.dtype != tx.dtype) ||
                       (info.ub_sources >= 2 && r.src1.dtype != tx.dtype);
    if (r.op != Op::Cast && mixed) {
        rule_error(tx, name_of(r.op) + " operands must have one element type (" +
                           std::string(to_string(tx.dtype)) + ")");
    }
    auto check_ub = [&](const Operand& op, std::uint64_t count, const char* role,
                        std::uint64_t align = 0) {
        if (op.space != MemSpace::UB) {
            rule_error(tx, std::string(role) + " must be in UB, not " + name_of(op.space));
        }
        check_local(tx, op, count, role, align);
    };
    if (info.mask_source) {
        const std::uint64_t mask_bytes = (r.count + 7) / 8;
        check_ub(r.mask, (mask_bytes + size_of(r.mask.dtype) - 1) / size_of(r.mask.dtype), "mask");
        tx.add_access(MemSpace::UB, false, r.mask.address, mask_bytes);
    }
    if (info.ub_sources >= 1) {
        // Brcb's source may start at any element (a strided destination is issued per run).
        check_ub(r.src0, r.count, "source", info.block_broadcast ? size_of(r.src0.dtype) : 0);
        tx.add_access(MemSpace::UB, false, r.src0.address, r.count * size_of(r.src0.dtype));
    }
    if (info.ub_sources >= 2) {
        check_ub(r.src1, r.count, "second source");
        tx.add_access(MemSpace::UB, false, r.src1.address, r.count * size_of(r.src1.dtype));
    }
    // A bit mask's destination is uint8 (checked above): out_count bytes.
    const std::uint64_t out_bytes = out_count * size_of(r.dst.dtype);
    // A per-repeat reduction writes its results at element granularity (WholeReduceSum's
    // repeat r lands at dst + r x dstRepStride elements).
    check_ub(r.dst, out_count, "destination", info.grouped ? size_of(r.dst.dtype) : 0);
    if (info.reads_dst) tx.add_access(MemSpace::UB, false, r.dst.address, out_bytes);
    out.write_access = tx.access_count;
    tx.add_access(MemSpace::UB, true, r.dst.address, out_bytes);
}

void InstructionDecoder::decode_rearrange(const Request& r, Transaction& tx,
                                          DecodedInstruction& out) const {
    const std::string name = name_of(r.op);
    tx.dtype = tx.src_dtype = r.dst.dtype;
    tx.count = r.count;
    tx.scalar = r.scalar;
    tx.mode = r.mode;
    tx.group = r.group;
    if (m_core_type != CoreType::Vector) rule_error(tx, name + " needs a vector core");
    auto ub = [&](const Operand& op, std::uint64_t count, const char* role, bool write,
                  std::uint64_t align = 0) {
        if (op.space != MemSpace::UB) {
            rule_error(tx, std::string(role) + " must be in UB, not " + name_of(op.space));
        }
        check_local(tx, op, count, role, align);
        if (write) out.write_access = tx.access_count;
        tx.add_access(MemSpace::UB, write, op.address, count * size_of(op.dtype));
    };
    auto same_type = [&](const Operand& op, const char* role) {
        if (op.dtype != r.dst.dtype) {
            rule_error(tx, name + ": the " + role + " must have the destination's element type (" +
                               std::string(to_string(r.dst.dtype)) + ")");
        }
    };
    const std::uint64_t size = size_of(r.dst.dtype);
    const bool sortable = r.dst.dtype == DType::F16 || r.dst.dtype == DType::F32;
    switch (r.op) {
        case Op::Gather:
            // The source read is what the caller passes (Block::gather).
            if (size != 2 && size != 4) rule_error(tx, name + " takes 2- or 4-byte elements");
            same_type(r.src0, "source");
            if (r.count == 0) rule_error(tx, name + " of 0 elements");
            ub(r.src0, r.src0.count, "source", false, size);  // the part the offsets address
            ub(r.src1, r.count, "offset tensor", false);
            ub(r.dst, r.count, "destination", true);
            break;
        case Op::GatherMask:
            if (size != 2 && size != 4) rule_error(tx, name + " takes 2- or 4-byte elements");
            same_type(r.src0, "source");
            if (r.count == 0) rule_error(tx, name + " of 0 elements");
            if (r.mode > 7)
                rule_error(tx, name + ": built-in pattern " + std::to_string(r.mode) +
                                   " is not one of 1-7");
            if (r.group == 0 || r.group > r.count) {
                rule_error(tx, name + " keeping " + std::to_string(r.group) + " of " +
                                   std::to_string(r.count) + " elements");
            }
            ub(r.src0, r.count, "source", false);
            // A pattern tensor's bits are read from its start, one per element (8 per byte).
            if (r.mode == 0) {
                ub(Operand{r.mask.space, r.mask.address, r.mask.count * size_of(r.mask.dtype),
                           DType::U8},
                   (r.count + 7) / 8, "pattern", false);
            }
            // Kept elements land at any element of dst (a split call goes on where it stopped).
            ub(r.dst, r.group, "destination", true, size);
            break;
        case Op::Sort32:
            if (!sortable) rule_error(tx, name + " sorts half or float scores");
            same_type(r.src0, "score source");
            if (r.src1.dtype != DType::U32)
                rule_error(tx, name + ": the index source must be uint32");
            if (r.count == 0 || r.count % 32 != 0) {
                rule_error(tx, name + " of " + std::to_string(r.count) +
                                   " elements: a whole number of 32-element repeats");
            }
            ub(r.src0, r.count, "score source", false);
            ub(r.src1, r.count, "index source", false);
            ub(r.dst, r.count * 8 / size, "destination", true);
            break;
        case Op::Transpose: {
            // r.rows x (count / rows) source elements; each side dense (pitch 0) or its rows
            // pitch bytes apart (TransDataTo5HD's address lists).
            const std::uint64_t rows = r.rows;
            const std::uint64_t cols = rows == 0 ? 0 : r.count / rows;
            if (size != 1 && size != 2 && size != 4) {
                rule_error(tx, name + " takes 1-, 2- or 4-byte elements");
            }
            same_type(r.src0, "source");
            if (cols == 0 || r.count % rows != 0) {
                rule_error(tx, name + " of " + std::to_string(r.count) + " elements in " +
                                   std::to_string(rows) + " rows");
            }
            tx.group = static_cast<std::uint32_t>(rows);
            auto side = [&](const Operand& op, std::uint64_t n, std::uint64_t row_bytes,
                            std::uint64_t pitch, const char* role, bool write) {
                if (pitch == 0 || n == 1) return ub(op, n * row_bytes / size, role, write);
                if (pitch < row_bytes) {
                    rule_error(tx, name + ": " + role + " rows " + std::to_string(pitch) +
                                       " bytes apart overlap rows of " + std::to_string(row_bytes) +
                                       " bytes");
                }
                if (op.space != MemSpace::UB) {
                    rule_error(tx, std::string(role) + " must be in UB, not " + name_of(op.space));
                }
                check_local(tx, op, ((n - 1) * pitch + row_bytes) / size, role);
                if (write) out.write_access = tx.access_count;
                tx.add_access(MemSpace::UB, write, op.address, row_bytes,
                              static_cast<std::uint32_t>(n), pitch);
            };
            side(r.src0, rows, cols * size, r.src_pitch, "source", false);
            side(r.dst, cols, rows * size, r.dst_pitch, "destination", true);
            break;
        }
        case Op::CastInt4: {
            // half <-> int4: the int4 side is r.count / 2 bytes of an int8 operand.
            const bool to_int4 = r.src0.dtype == DType::F16;
            if ((to_int4 ? r.dst.dtype : r.src0.dtype) != DType::I8 ||
                (to_int4 ? r.src0.dtype : r.dst.dtype) != DType::F16) {
                rule_error(tx, name + " to or from int4b_t converts half only");
            }
            if (r.count == 0 || r.count % 2 != 0) {
                rule_error(tx, name + " of " + std::to_string(r.count) +
                                   " int4b_t elements: a whole number of bytes");
            }
            tx.src_dtype = r.src0.dtype;
            tx.dtype = r.dst.dtype;
            const std::uint64_t half_count = r.count, byte_count = r.count / 2;
            ub(r.src0, to_int4 ? half_count : byte_count, "source", false);
            ub(r.dst, to_int4 ? byte_count : half_count, "destination", true);
            break;
        }
        default: {  // MrgSort: r.group queues (src0, src1, src2, src3) of 8-byte structures
            if (!sortable) rule_error(tx, name + " merges half or float (score, index) queues");
            if (r.group < 2 || r.group > 4) {
                rule_error(tx, name + " of " + std::to_string(r.group) + " queues (2-4)");
            }
            const Operand* queues[4] = {&r.src0, &r.src1, &r.src2, &r.src3};
            std::uint64_t total = 0;
            for (std::uint32_t q = 0; q < r.group; ++q) {
                same_type(*queues[q], "queues");
                // Queue q holds queues[q]->count elements of the element type (8 bytes each pair).
                ub(*queues[q], queues[q]->count, "queue", false, 8);
                total += queues[q]->count;
            }
            tx.count = total;
            if (total == 0) rule_error(tx, name + " of empty queues");
            ub(r.dst, total, "destination", true);
            break;
        }
    }
}

void InstructionDecoder::decode_flag(const Request& r, Transaction& tx) const {
    tx.flag_src = r.flag_src;
    tx.flag_dst = r.flag_dst;
    tx.event_id = r.event_id;
    for (Pipe p : {r.flag_src, r.flag_dst}) {
        if (!has_pipe(m_core_type, p)) {
            rule_error(tx, flag_instruction_name(tx) + ": " + name_of(p) +
                               " does not exist on an " + name_of(m_core_type) + " core");
        }
    }
    if (r.flag_src == r.flag_dst) {
        rule_error(tx, flag_instruction_name(tx) + ": source and destination pipe are the same");
    }
    if (r.event_id >= m_event_ids) {
        rule_error(tx, flag_instruction_name(tx) + ": event id " + std::to_string(r.event_id) +
                           " is out of range (this chip has event ids 0-" +
                           std::to_string(m_event_ids - 1) + ")");
    }
}

void InstructionDecoder::decode_barrier(const Request& r, Transaction& tx) const {
    if (r.barrier_pipe == Pipe::S) {
        rule_error(tx,
                   "PipeBarrier<PIPE_S> is a hardware error: the scalar unit cannot wait for "
                   "itself");
    }
    if (r.barrier_pipe != Pipe::ALL && !has_pipe(m_core_type, r.barrier_pipe)) {
        rule_error(tx, "PipeBarrier: " + name_of(r.barrier_pipe) + " does not exist on an " +
                           name_of(m_core_type) + " core");
    }
}

DecodedInstruction InstructionDecoder::decode_scalar_access(Op op, const Operand& where,
                                                            Transaction& tx) const {
    DecodedInstruction out;
    const bool store = op == Op::ScalarStore;
    tx.pipe = Pipe::S;
    tx.op = op;
    tx.dtype = tx.src_dtype = where.dtype;
    tx.count = 1;
    const std::uint64_t bytes = size_of(where.dtype);
    const char* role = store ? "destination" : "source";
    if (where.space == MemSpace::GM) {
        check_global(tx, where, 1, role);
    } else {
        // The scalar unit addresses single elements: element alignment, not DataCopy's.
        check_local(tx, {where.space, where.address, 1, where.dtype}, 1, role, bytes);
    }
    if (where.address % bytes != 0) {
        rule_error(tx, std::string("scalar ") + (store ? "store" : "load") + " address " +
                           hex_string(where.address) + " is not " + std::to_string(bytes) +
                           "-byte aligned");
    }
    if (store) out.write_access = 0;
    tx.add_access(where.space, store, where.address, bytes);
    return out;
}

void InstructionDecoder::decode_cross_core_set(std::uint32_t mode, Pipe pipe, std::uint32_t flag_id,
                                               Transaction& tx) const {
    tx.pipe = pipe;
    tx.op = Op::CrossCoreSetFlag;
    tx.mode = mode;
    tx.event_id = flag_id;
    const KernelType type = m_kernel_type;
    const std::string name = cross_core_call_name(tx);
    if (flag_id >= kCrossCoreFlagIds) {
        rule_error(tx, name + ": flag id must be 0-" + std::to_string(kCrossCoreFlagIds - 1));
    }
    if (mode >= kCrossCoreModeToAiv) {
        // npusim's AIC -> one AIV set (base/cross_core_routing.h), for the Matmul API's replies.
        if (m_core_type != CoreType::Cube ||
            mode - kCrossCoreModeToAiv >= vector_cores_per_block(type)) {
            rule_error(tx, name + ": mode must be 0, 1 or 2");
        }
        return;
    }
    if (!has_pipe(m_core_type, pipe)) {
        rule_error(tx, name + ": " + name_of(pipe) + " is not a pipe of an " +
                           name_of(m_core_type) + " core");
    }
    if (mode == 1 && (m_core_type != CoreType::Vector || type != KernelType::MIX_AIC_1_2)) {
        rule_error(tx, name +
                           ": mode 1 syncs the two AIVs of a group and needs a MIX_AIC_1_2 "
                           "kernel on a vector core (this is " +
                           std::string(to_string(type)) + " on an " + name_of(m_core_type) +
                           " core)");
    }
    if (mode == 2 && (vector_cores_per_block(type) == 0 || cube_cores_per_block(type) == 0)) {
        rule_error(tx, name +
                           ": mode 2 syncs the AIC and AIV(s) of a group and needs a "
                           "MIX_AIC_1_1 or MIX_AIC_1_2 kernel (this is " +
                           std::string(to_string(type)) + ")");
    }
}

void InstructionDecoder::decode_cross_core_wait(std::uint32_t flag_id, Transaction& tx) const {
    tx.pipe = Pipe::S;
    tx.op = Op::CrossCoreWaitFlag;
    tx.event_id = flag_id;
    if (flag_id >= kCrossCoreFlagIds) {
        rule_error(tx, cross_core_call_name(tx) + ": flag id must be 0-" +
                           std::to_string(kCrossCoreFlagIds - 1));
    }
}

std::string InstructionDecoder::cross_core_call_name(const Transaction& tx) {
    if (tx.op == Op::CrossCoreWaitFlag)
        return "CrossCoreWaitFlag(" + std::to_string(tx.event_id) + ")";
    return "CrossCoreSetFlag<" + std::to_string(tx.mode) + ", " + name_of(tx.pipe) + ">(" +
           std::to_string(tx.event_id) + ")";
}

void InstructionDecoder::decode_sync_all(SyncAllScope scope, Transaction& tx) const {
    tx.pipe = Pipe::S;
    tx.op = Op::SyncAll;
    tx.mode = static_cast<std::uint32_t>(scope);
    if (scope == SyncAllScope::Vector && m_core_type != CoreType::Vector) {
        rule_error(tx, "SyncAll over vector cores only, called on a cube core");
    }
}

}  // namespace npusim
