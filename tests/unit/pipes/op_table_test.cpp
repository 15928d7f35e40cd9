// The op table: one row per Op, in enumerator order, with the unit that executes it, the
// number of UB sources of a vector op and a compute function exactly where data is computed.
#include "pipes/op_table.h"

#include <set>
#include <string>

#include <catch2/catch.hpp>

using namespace npusim;

namespace {
constexpr int kOpCount = static_cast<int>(Op::InitConstValue) + 1;

struct Expected {
    Op op;
    OpUnit unit;
    int ub_sources;
};
constexpr Expected kExpected[] = {
    {Op::Copy, OpUnit::Copy, 0},
    {Op::Add, OpUnit::Vector, 2},
    {Op::Sub, OpUnit::Vector, 2},
    {Op::Mul, OpUnit::Vector, 2},
    {Op::Max, OpUnit::Vector, 2},
    {Op::Min, OpUnit::Vector, 2},
    {Op::Adds, OpUnit::Vector, 1},
    {Op::Muls, OpUnit::Vector, 1},
    {Op::Exp, OpUnit::Vector, 1},
    {Op::Relu, OpUnit::Vector, 1},
    {Op::Fill, OpUnit::Vector, 0},
    {Op::ReduceSum, OpUnit::Vector, 1},
    {Op::Cast, OpUnit::Vector, 1},
    {Op::Div, OpUnit::Vector, 2},
    {Op::Maxs, OpUnit::Vector, 1},
    {Op::Mins, OpUnit::Vector, 1},
    {Op::Ln, OpUnit::Vector, 1},
    {Op::Abs, OpUnit::Vector, 1},
    {Op::Sqrt, OpUnit::Vector, 1},
    {Op::Rsqrt, OpUnit::Vector, 1},
    {Op::Reciprocal, OpUnit::Vector, 1},
    {Op::LeakyRelu, OpUnit::Vector, 1},
    {Op::ReduceMax, OpUnit::Vector, 1},
    {Op::ReduceMin, OpUnit::Vector, 1},
    {Op::Mmad, OpUnit::Cube, 0},
    {Op::ScalarLoad, OpUnit::Scalar, 0},
    {Op::ScalarStore, OpUnit::Scalar, 0},
    {Op::SetFlag, OpUnit::Sync, 0},
    {Op::WaitFlag, OpUnit::Sync, 0},
    {Op::PipeBarrier, OpUnit::Sync, 0},
    {Op::SyncAll, OpUnit::Sync, 0},
    {Op::SoftSyncAll, OpUnit::Sync, 0},
    {Op::CrossCoreSetFlag, OpUnit::Sync, 0},
    {Op::CrossCoreWaitFlag, OpUnit::Sync, 0},
    {Op::GmFlagSet, OpUnit::Sync, 0},
    {Op::GmFlagWait, OpUnit::Sync, 0},
    {Op::And, OpUnit::Vector, 2},
    {Op::Or, OpUnit::Vector, 2},
    {Op::Not, OpUnit::Vector, 1},
    {Op::Axpy, OpUnit::Vector, 1},
    {Op::Compare, OpUnit::Vector, 2},
    {Op::CompareScalar, OpUnit::Vector, 1},
    {Op::Select, OpUnit::Vector, 2},
    {Op::SelectScalar, OpUnit::Vector, 1},
    {Op::GroupReduceSum, OpUnit::Vector, 1},
    {Op::GroupReduceMax, OpUnit::Vector, 1},
    {Op::GroupReduceMin, OpUnit::Vector, 1},
    {Op::Brcb, OpUnit::Vector, 1},
    {Op::Gather, OpUnit::Vector, 2},
    {Op::GatherMask, OpUnit::Vector, 1},
    {Op::Sort32, OpUnit::Vector, 2},
    {Op::MrgSort, OpUnit::Vector, 4},
    {Op::Fixpipe, OpUnit::Copy, 0},
    {Op::ShiftLeft, OpUnit::Vector, 1},
    {Op::ShiftRight, OpUnit::Vector, 1},
    {Op::CreateVecIndex, OpUnit::Vector, 0},
    {Op::AddRelu, OpUnit::Vector, 2},
    {Op::SubRelu, OpUnit::Vector, 2},
    {Op::LoadFractals, OpUnit::Copy, 0},
    {Op::Transpose, OpUnit::Vector, 1},
    {Op::CastInt4, OpUnit::Vector, 1},
    {Op::DataSyncBarrier, OpUnit::Sync, 0},
    {Op::CacheClean, OpUnit::Sync, 0},
    {Op::LoadImg2Col, OpUnit::Copy, 0},
    {Op::InitConstValue, OpUnit::Copy, 0},
};
static_assert(std::size(kExpected) == kOpCount);
}  // namespace

TEST_CASE("op table: every op has its row with the right unit and UB sources", "[unit]") {
    for (const Expected& expected : kExpected) {
        const OpInfo& info = op_info(expected.op);
        CAPTURE(info.name);
        CHECK(info.op == expected.op);
        CHECK(info.unit == expected.unit);
        CHECK(int{info.ub_sources} == expected.ub_sources);
        CHECK(info.single_output == (expected.op == Op::ReduceSum || expected.op == Op::ReduceMax ||
                                     expected.op == Op::ReduceMin));
        // Fixpipe, LoadData and InitConstValue: copies whose data are computed (conversions,
        // transposes, a constant).
        const bool computes = info.unit == OpUnit::Vector || info.unit == OpUnit::Cube ||
                              expected.op == Op::Fixpipe || expected.op == Op::LoadFractals ||
                              expected.op == Op::LoadImg2Col || expected.op == Op::InitConstValue;
        CHECK((info.compute != nullptr) == computes);
        CHECK(info.reads_dst == (expected.op == Op::Axpy));
        CHECK(info.bit_output == (expected.op == Op::Compare || expected.op == Op::CompareScalar));
        CHECK(info.mask_source == (expected.op == Op::Select || expected.op == Op::SelectScalar));
        CHECK(info.rearranges == (expected.op == Op::Gather || expected.op == Op::GatherMask ||
                                  expected.op == Op::Sort32 || expected.op == Op::MrgSort ||
                                  expected.op == Op::Transpose || expected.op == Op::CastInt4));
    }
}

// Select with a scalar is the vendor's Select too, Cast to / from int4b_t its Cast and LoadData
// 3D its LoadData: the three ops sharing a name.
TEST_CASE("op table: names are the vendor spellings, unique", "[unit]") {
    std::set<std::string_view> names;
    for (int i = 0; i < kOpCount; ++i) {
        const auto op = static_cast<Op>(i);
        CHECK(to_string(op) == op_info(op).name);
        CHECK_FALSE(op_info(op).name.empty());
        names.insert(op_info(op).name);
    }
    CHECK(names.size() == static_cast<std::size_t>(kOpCount) - 3);
    CHECK(to_string(Op::LoadImg2Col) == "LoadData");
    CHECK(to_string(Op::CastInt4) == "Cast");
    CHECK(to_string(Op::SelectScalar) == "Select");
    CHECK(to_string(Op::Copy) == "DataCopy");
    CHECK(to_string(Op::Fill) == "Duplicate");
    CHECK(to_string(Op::CrossCoreSetFlag) == "CrossCoreSetFlag");
    CHECK(to_string(static_cast<Op>(kOpCount)) == "?");
}

TEST_CASE("op table: flag instruction names as kernel code writes them", "[unit]") {
    Transaction tx;
    tx.op = Op::SetFlag;
    tx.flag_src = Pipe::MTE2;
    tx.flag_dst = Pipe::V;
    tx.event_id = 3;
    CHECK(flag_instruction_name(tx) == "SetFlag<MTE2_V>(3)");
    tx.op = Op::WaitFlag;
    tx.flag_src = Pipe::S;
    tx.flag_dst = Pipe::ALL;
    tx.event_id = 0;
    CHECK(flag_instruction_name(tx) == "WaitFlag<S_ALL>(0)");
}
