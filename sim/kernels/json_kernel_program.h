// The checked form of a JSON kernel (sim/kernels/json_kernel.h): its buffers, parameters and body
// as a tree of typed ops with compiled expressions. sim/kernels/json_kernel_reader.h builds it from
// the scenario's JSON, sim/kernels/json_kernel_interpreter.h runs it on a Block;
// sim/kernels/json_kernel.cpp ties them into a KernelDefinition. Internal to those three sources.
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
#include "sim/kernels/json_kernel_expr.h"

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
    SetAtomic,
    Loop,
    If,
};

// The "op" names: the Block API's spelling, then the op table's (vendor) spelling.
inline constexpr std::pair<std::string_view, std::pair<Kind, Op>> kOpNames[] = {
    {"copy", {Kind::Copy, Op::Copy}},
    {"add", {Kind::Binary, Op::Add}},
    {"sub", {Kind::Binary, Op::Sub}},
    {"mul", {Kind::Binary, Op::Mul}},
    {"max", {Kind::Binary, Op::Max}},
    {"min", {Kind::Binary, Op::Min}},
    {"adds", {Kind::WithScalar, Op::Adds}},
    {"muls", {Kind::WithScalar, Op::Muls}},
    {"exp", {Kind::Unary, Op::Exp}},
    {"relu", {Kind::Unary, Op::Relu}},
    {"reduce_sum", {Kind::Unary, Op::ReduceSum}},
    {"fill", {Kind::Fill, Op::Fill}},
    {"cast", {Kind::Cast, Op::Cast}},
    {"mmad", {Kind::Mmad, Op::Mmad}},
    {"load", {Kind::Load, Op::ScalarLoad}},
    {"store", {Kind::Store, Op::ScalarStore}},
    {"scalar", {Kind::ScalarWork, Op::ScalarLoad}},
    {"set_flag", {Kind::SetFlag, Op::SetFlag}},
    {"wait_flag", {Kind::WaitFlag, Op::WaitFlag}},
    {"pipe_barrier", {Kind::PipeBarrier, Op::PipeBarrier}},
    {"sync_all", {Kind::SyncAll, Op::SyncAll}},
    {"cross_core_set_flag", {Kind::CrossCoreSetFlag, Op::CrossCoreSetFlag}},
    {"cross_core_wait_flag", {Kind::CrossCoreWaitFlag, Op::CrossCoreWaitFlag}},
    {"set_atomic", {Kind::SetAtomic, Op::Copy}},  // the copies after it
    {"DataCopy", {Kind::Copy, Op::Copy}},
    {"Add", {Kind::Binary, Op::Add}},
    {"Sub", {Kind::Binary, Op::Sub}},
    {"Mul", {Kind::Binary, Op::Mul}},
    {"Max", {Kind::Binary, Op::Max}},
    {"Min", {Kind::Binary, Op::Min}},
    {"Adds", {Kind::WithScalar, Op::Adds}},
    {"Muls", {Kind::WithScalar, Op::Muls}},
    {"Exp", {Kind::Unary, Op::Exp}},
    {"Relu", {Kind::Unary, Op::Relu}},
    {"ReduceSum", {Kind::Unary, Op::ReduceSum}},
    {"Duplicate", {Kind::Fill, Op::Fill}},
    {"Cast", {Kind::Cast, Op::Cast}},
    {"Mmad", {Kind::Mmad, Op::Mmad}},
    {"ScalarLoad", {Kind::Load, Op::ScalarLoad}},
    {"ScalarStore", {Kind::Store, Op::ScalarStore}},
    {"SetFlag", {Kind::SetFlag, Op::SetFlag}},
    {"WaitFlag", {Kind::WaitFlag, Op::WaitFlag}},
    {"PipeBarrier", {Kind::PipeBarrier, Op::PipeBarrier}},
    {"SyncAll", {Kind::SyncAll, Op::SyncAll}},
    {"CrossCoreSetFlag", {Kind::CrossCoreSetFlag, Op::CrossCoreSetFlag}},
    {"CrossCoreWaitFlag", {Kind::CrossCoreWaitFlag, Op::CrossCoreWaitFlag}},
};

inline constexpr std::pair<std::string_view, AtomicOp> kAtomicOps[] = {{"add", AtomicOp::Add},
                                                                       {"max", AtomicOp::Max},
                                                                       {"min", AtomicOp::Min},
                                                                       {"none", AtomicOp::None}};

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
    bool bypass_l2 = false;  // Copy: the GM read does not allocate in L2 (Block::bypass_l2)
    Pipe pipe_a = Pipe::S;   // set/wait_flag src, pipe_barrier, cross-core set pipe
    Pipe pipe_b = Pipe::S;   // set/wait_flag dst
    SyncAllScope scope = SyncAllScope::All;
    AtomicOp atomic = AtomicOp::None;  // set_atomic
    DType dtype = DType::F32;          // set_atomic
    std::uint32_t target = 0;          // Alloc: its buffer; Loop: its variable's slot
    std::vector<Node> body;            // Loop body, If then
    std::vector<Node> other;           // If else
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
