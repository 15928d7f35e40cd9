// The one table of operations: the name reports print, which unit executes the op, how many
// UB sources a vector op reads, and the function that computes it. The decoder's operand
// rules, the core's effect application, traces and reports all read this table; adding a
// vector op is one row here, its enumerator in base/transaction.h, and a Block method.
// Operand shapes (core/instruction_decoder.cpp): reads in access order are the mask (when
// mask_source), the UB sources, then the destination (when reads_dst); the write comes last.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/cube_types.h"
#include "base/transaction.h"
#include "pipes/compute.h"

namespace npusim {

enum class OpUnit : std::uint8_t {
    Copy,    // DataCopy: the pipe follows from the copy route
    Vector,  // PIPE_V, operands in UB
    Cube,    // PIPE_M, operands in L0A / L0B / L0C
    Scalar,  // PIPE_S loads and stores
    Sync,    // flags, barriers, SyncAll, cross-core flags: no data
};

struct OpInfo {
    Op op = Op::Copy;
    std::string_view name;  // vendor API spelling ("Duplicate" for Fill)
    OpUnit unit = OpUnit::Sync;
    std::uint8_t ub_sources = 0;   // vector ops: 0 (fill), 1 (unary, with scalar) or 2 (binary)
    bool single_output = false;    // writes one element (ReduceSum), not `count`
    ComputeFn compute = nullptr;   // vector and cube ops
    bool reads_dst = false;        // also reads its destination first (Axpy accumulates)
    bool bit_output = false;       // writes one bit per element (Compare): count / 8 bytes
    bool mask_source = false;      // reads a bit mask first, one bit per element (Select)
    bool grouped = false;          // writes count / Transaction::group elements
    bool block_broadcast = false;  // writes count x (32 / element size) elements (Brcb)
    // The operands' extents follow from the request's fields, op by op, not from `count` alone
    // (Gather, GatherMask, Sort32, MrgSort: InstructionDecoder::decode_rearrange).
    bool rearranges = false;
};

/// Contract: every Op has a row (checked at compile time).
const OpInfo& op_info(Op op);

/// "fp16 x fp16 -> fp32, bf16 x bf16 -> fp32, ...": the table as text, for messages and docs.
std::string cube_types_text();
std::string_view to_string(Op op);
/// "SetFlag<MTE2_V>(0)": a SetFlag or WaitFlag as kernel code writes it, for messages.
std::string flag_instruction_name(const Transaction& tx);

}  // namespace npusim
