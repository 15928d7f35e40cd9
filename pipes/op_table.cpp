#include "pipes/op_table.h"

#include <array>

#include "base/pipe_table.h"

namespace npusim {

namespace {

constexpr std::array kOps{
    OpInfo{Op::Copy, "DataCopy", OpUnit::Copy},
    OpInfo{Op::Add, "Add", OpUnit::Vector, 2, false, &compute_elementwise<Op::Add>},
    OpInfo{Op::Sub, "Sub", OpUnit::Vector, 2, false, &compute_elementwise<Op::Sub>},
    OpInfo{Op::Mul, "Mul", OpUnit::Vector, 2, false, &compute_elementwise<Op::Mul>},
    OpInfo{Op::Max, "Max", OpUnit::Vector, 2, false, &compute_elementwise<Op::Max>},
    OpInfo{Op::Min, "Min", OpUnit::Vector, 2, false, &compute_elementwise<Op::Min>},
    OpInfo{Op::Adds, "Adds", OpUnit::Vector, 1, false, &compute_elementwise<Op::Adds>},
    OpInfo{Op::Muls, "Muls", OpUnit::Vector, 1, false, &compute_elementwise<Op::Muls>},
    OpInfo{Op::Exp, "Exp", OpUnit::Vector, 1, false, &compute_elementwise<Op::Exp>},
    OpInfo{Op::Relu, "Relu", OpUnit::Vector, 1, false, &compute_elementwise<Op::Relu>},
    OpInfo{Op::Fill, "Duplicate", OpUnit::Vector, 0, false, &compute_elementwise<Op::Fill>},
    OpInfo{Op::ReduceSum, "ReduceSum", OpUnit::Vector, 1, true, &compute_reduce_sum},
    OpInfo{Op::Cast, "Cast", OpUnit::Vector, 1, false, &compute_cast},
    OpInfo{Op::Div, "Div", OpUnit::Vector, 2, false, &compute_elementwise<Op::Div>},
    OpInfo{Op::Maxs, "Maxs", OpUnit::Vector, 1, false, &compute_elementwise<Op::Maxs>},
    OpInfo{Op::Mins, "Mins", OpUnit::Vector, 1, false, &compute_elementwise<Op::Mins>},
    OpInfo{Op::Ln, "Ln", OpUnit::Vector, 1, false, &compute_elementwise<Op::Ln>},
    OpInfo{Op::Abs, "Abs", OpUnit::Vector, 1, false, &compute_elementwise<Op::Abs>},
    OpInfo{Op::Sqrt, "Sqrt", OpUnit::Vector, 1, false, &compute_elementwise<Op::Sqrt>},
    OpInfo{Op::Rsqrt, "Rsqrt", OpUnit::Vector, 1, false, &compute_elementwise<Op::Rsqrt>},
    OpInfo{Op::Reciprocal, "Reciprocal", OpUnit::Vector, 1, false,
           &compute_elementwise<Op::Reciprocal>},
    OpInfo{Op::LeakyRelu, "LeakyRelu", OpUnit::Vector, 1, false,
           &compute_elementwise<Op::LeakyRelu>},
    OpInfo{Op::ReduceMax, "ReduceMax", OpUnit::Vector, 1, true, &compute_reduce_max},
    OpInfo{Op::ReduceMin, "ReduceMin", OpUnit::Vector, 1, true, &compute_reduce_min},
    OpInfo{Op::Mmad, "Mmad", OpUnit::Cube, 0, false, &compute_mmad},
    OpInfo{Op::ScalarLoad, "ScalarLoad", OpUnit::Scalar},
    OpInfo{Op::ScalarStore, "ScalarStore", OpUnit::Scalar},
    OpInfo{Op::SetFlag, "SetFlag", OpUnit::Sync},
    OpInfo{Op::WaitFlag, "WaitFlag", OpUnit::Sync},
    OpInfo{Op::PipeBarrier, "PipeBarrier", OpUnit::Sync},
    OpInfo{Op::SyncAll, "SyncAll", OpUnit::Sync},
    OpInfo{Op::SoftSyncAll, "SoftSyncAll", OpUnit::Sync},
    OpInfo{Op::CrossCoreSetFlag, "CrossCoreSetFlag", OpUnit::Sync},
    OpInfo{Op::CrossCoreWaitFlag, "CrossCoreWaitFlag", OpUnit::Sync},
    OpInfo{Op::GmFlagSet, "GmFlagSet", OpUnit::Sync},
    OpInfo{Op::GmFlagWait, "GmFlagWait", OpUnit::Sync},
    OpInfo{Op::And, "And", OpUnit::Vector, 2, false, &compute_elementwise<Op::And>},
    OpInfo{Op::Or, "Or", OpUnit::Vector, 2, false, &compute_elementwise<Op::Or>},
    OpInfo{Op::Not, "Not", OpUnit::Vector, 1, false, &compute_elementwise<Op::Not>},
    OpInfo{.op = Op::Axpy,
           .name = "Axpy",
           .unit = OpUnit::Vector,
           .ub_sources = 1,
           .compute = &compute_elementwise<Op::Axpy>,
           .reads_dst = true},
    OpInfo{.op = Op::Compare,
           .name = "Compare",
           .unit = OpUnit::Vector,
           .ub_sources = 2,
           .compute = &compute_compare,
           .bit_output = true},
    OpInfo{.op = Op::CompareScalar,
           .name = "CompareScalar",
           .unit = OpUnit::Vector,
           .ub_sources = 1,
           .compute = &compute_compare,
           .bit_output = true},
    OpInfo{.op = Op::Select,
           .name = "Select",
           .unit = OpUnit::Vector,
           .ub_sources = 2,
           .compute = &compute_select,
           .mask_source = true},
    OpInfo{.op = Op::SelectScalar,
           .name = "Select",
           .unit = OpUnit::Vector,
           .ub_sources = 1,
           .compute = &compute_select,
           .mask_source = true},
    OpInfo{.op = Op::GroupReduceSum,
           .name = "WholeReduceSum",
           .unit = OpUnit::Vector,
           .ub_sources = 1,
           .compute = &compute_group_reduce,
           .grouped = true},
    OpInfo{.op = Op::GroupReduceMax,
           .name = "WholeReduceMax",
           .unit = OpUnit::Vector,
           .ub_sources = 1,
           .compute = &compute_group_reduce,
           .grouped = true},
    OpInfo{.op = Op::GroupReduceMin,
           .name = "WholeReduceMin",
           .unit = OpUnit::Vector,
           .ub_sources = 1,
           .compute = &compute_group_reduce,
           .grouped = true},
    OpInfo{.op = Op::Brcb,
           .name = "Brcb",
           .unit = OpUnit::Vector,
           .ub_sources = 1,
           .compute = &compute_brcb,
           .block_broadcast = true},
    OpInfo{.op = Op::Gather,
           .name = "Gather",
           .unit = OpUnit::Vector,
           .ub_sources = 2,
           .compute = &compute_gather,
           .rearranges = true},
    OpInfo{.op = Op::GatherMask,
           .name = "GatherMask",
           .unit = OpUnit::Vector,
           .ub_sources = 1,
           .compute = &compute_gather_mask,
           .rearranges = true},
    OpInfo{.op = Op::Sort32,
           .name = "Sort32",
           .unit = OpUnit::Vector,
           .ub_sources = 2,
           .compute = &compute_sort32,
           .rearranges = true},
    OpInfo{.op = Op::MrgSort,
           .name = "MrgSort",
           .unit = OpUnit::Vector,
           .ub_sources = 4,
           .compute = &compute_mrg_sort,
           .rearranges = true},
    // A copy (L0C -> GM on FIX, timed as one) whose data are computed: the decoder's
    // decode_fixpipe sizes its accesses (L0C read, GM rows written, L1 scale words read).
    OpInfo{.op = Op::Fixpipe, .name = "Fixpipe", .unit = OpUnit::Copy, .compute = &compute_fixpipe},
    OpInfo{Op::ShiftLeft, "ShiftLeft", OpUnit::Vector, 1, false,
           &compute_elementwise<Op::ShiftLeft>},
    OpInfo{Op::ShiftRight, "ShiftRight", OpUnit::Vector, 1, false,
           &compute_elementwise<Op::ShiftRight>},
    OpInfo{Op::CreateVecIndex, "CreateVecIndex", OpUnit::Vector, 0, false,
           &compute_elementwise<Op::CreateVecIndex>},
    OpInfo{Op::AddRelu, "AddRelu", OpUnit::Vector, 2, false, &compute_elementwise<Op::AddRelu>},
    OpInfo{Op::SubRelu, "SubRelu", OpUnit::Vector, 2, false, &compute_elementwise<Op::SubRelu>},
    // A copy (L1 -> L0A / L0B on MTE1, timed as one) of whole fractals, transposed or not:
    // the decoder's decode_load_fractals sizes its accesses (fractal rows read and written).
    OpInfo{.op = Op::LoadFractals,
           .name = "LoadData",
           .unit = OpUnit::Copy,
           .compute = &compute_load_fractals},
    // Transpose / TransDataTo5HD: a matrix written transposed; the decoder sizes the (possibly
    // strided) rows read and written.
    OpInfo{.op = Op::Transpose,
           .name = "Transpose",
           .unit = OpUnit::Vector,
           .ub_sources = 1,
           .compute = &compute_transpose,
           .rearranges = true},
    OpInfo{.op = Op::CastInt4,
           .name = "Cast",
           .unit = OpUnit::Vector,
           .ub_sources = 1,
           .compute = &compute_cast_int4,
           .rearranges = true},
    OpInfo{Op::DataSyncBarrier, "DataSyncBarrier", OpUnit::Sync},
    OpInfo{Op::CacheClean, "DataCacheCleanAndInvalid", OpUnit::Sync},
    // A copy (L1 -> L0A / L0B on MTE1, timed by the bytes it writes) gathering an img2col
    // window: the decoder's decode_img2col sizes its accesses (L0 written, L1 span read).
    OpInfo{.op = Op::LoadImg2Col,
           .name = "LoadData",
           .unit = OpUnit::Copy,
           .compute = &compute_img2col},
    // A fill of L1 / L0A / L0B with one value (no source): timed as the copy onto that buffer
    // (the decoder picks the route: GM -> L1 on MTE2, L1 -> L0A / L0B on MTE1).
    OpInfo{.op = Op::InitConstValue,
           .name = "InitConstValue",
           .unit = OpUnit::Copy,
           .compute = &compute_init_const},
};

constexpr bool rows_in_enum_order() {
    for (std::size_t i = 0; i < kOps.size(); ++i) {
        if (static_cast<std::size_t>(kOps[i].op) != i) return false;
    }
    return static_cast<std::size_t>(Op::InitConstValue) + 1 == kOps.size();
}
static_assert(rows_in_enum_order(), "kOps has one row per Op, in enumerator order");

}  // namespace

std::string cube_types_text() {
    std::string text;
    for (const CubeTypeInfo& row : kCubeTypes) {
        if (!text.empty()) text += ", ";
        text += std::string(to_string(row.input)) + " x " + std::string(to_string(row.input)) +
                " -> " + std::string(to_string(row.result));
    }
    return text;
}

const OpInfo& op_info(Op op) {
    return kOps[static_cast<std::size_t>(op)];
}

std::string_view to_string(Op op) {
    const auto index = static_cast<std::size_t>(op);
    return index < kOps.size() ? kOps[index].name : "?";
}

std::string flag_instruction_name(const Transaction& tx) {
    std::string text(to_string(tx.op));
    text += '<';
    text += is_real_pipe(tx.flag_src) ? pipe_info(tx.flag_src).short_name : "ALL";
    text += '_';
    text += is_real_pipe(tx.flag_dst) ? pipe_info(tx.flag_dst).short_name : "ALL";
    text += ">(" + std::to_string(tx.event_id) + ")";
    return text;
}

}  // namespace npusim
