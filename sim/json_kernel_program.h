// The checked form of a JSON kernel (sim/json_kernel.h): its buffers, parameters and body as
// a tree of typed ops with compiled expressions. sim/json_kernel_reader.h builds it from the
// scenario's JSON, sim/json_kernel_interpreter.h runs it on a Block; sim/json_kernel.cpp ties
// them into a BuiltinKernel. Internal to those three sources.
#pragma once

#include <cstdint>
#include <source_location>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/kernel_type.h"
#include "base/transaction.h"
#include "base/types.h"
#include "sim/json_kernel_expr.h"

namespace npusim::json_kernel_detail {

// Slots every expression can read; parameters and loop variables follow.
inline constexpr std::uint32_t kBlockIdx = 0;
inline constexpr std::uint32_t kBlockNum = 1;
inline constexpr std::uint32_t kSubBlockIdx = 2;
inline constexpr std::uint32_t kIsCube = 3;  // 1 on the cube core (AIC), 0 on a vector core (AIV)
inline constexpr std::uint32_t kFixedSlots = 4;

inline constexpr std::pair<std::string_view, DType> kDTypes[] = {
    {"float16", DType::F16}, {"float32", DType::F32}, {"int32", DType::I32}, {"int8", DType::I8}};

enum class Kind : std::uint8_t {
    Alloc,
    Copy,
    Binary,      // add sub mul max min
    WithScalar,  // adds muls
    Unary,       // exp relu reduce_sum
    Fill,
    Cast,
    Mmad,
    Load,
    Store,
    ScalarWork,
    SetFlag,
    WaitFlag,
    PipeBarrier,
    SyncAll,
    SoftSyncAll,
    CrossCoreSetFlag,
    CrossCoreWaitFlag,
    Loop,
    If,
};

// A buffer the body names: a GM argument or a local allocation.
struct BufferDecl {
    std::string name;
    bool global = true;
    MemSpace space = MemSpace::GM;
    DType dtype = DType::F32;
};

struct OperandRef {
    std::uint32_t buffer = 0;
    IntExpr offset{0};  // elements
};

struct Node {
    Kind kind = Kind::Copy;
    Op op = Op::Copy;
    std::string pointer;
    std::source_location where;
    std::vector<OperandRef> operands;  // dst first, then sources
    std::vector<IntExpr> exprs;        // count; m n k; ids, modes, cycles; loop from to step
    double scalar = 0.0;
    bool accumulate = false;
    Pipe pipe_a = Pipe::S;  // set/wait_flag src, pipe_barrier, cross-core set pipe
    Pipe pipe_b = Pipe::S;  // set/wait_flag dst
    SyncAllScope scope = SyncAllScope::All;
    std::uint32_t target = 0;  // Alloc: its buffer; Loop: its variable's slot
    std::vector<Node> body;    // Loop body, If then
    std::vector<Node> other;   // If else
};

struct Program {
    std::string kernel;
    KernelType type = KernelType::AIV_ONLY;
    std::vector<BufferDecl> buffers;  // arguments first (in name order)
    std::vector<std::string> params;  // slot kFixedSlots + i
    std::uint32_t slot_count = kFixedSlots;
    std::vector<Node> body;
    std::string location_prefix;  // "file.json#"
};

}  // namespace npusim::json_kernel_detail
