// InstructionDecoder: one test per hardware rule, the wording of a KernelError, and what a
// valid request decodes to (pipe, accesses, write access). Small preset: UB 192 KiB, L0A/L0B
// 64 KiB, L0C 128 KiB, GM 1 GiB, 8 event ids.
#include "core/instruction_decoder.h"

#include <source_location>
#include <string>

#include <catch2/catch.hpp>

#include "base/errors.h"
#include "unit_support.h"

using namespace npusim;
using Catch::Contains;
using npusim::unit::small_chip;

namespace {

constexpr std::uint64_t kUb = 196608;
constexpr std::uint64_t kGm = std::uint64_t{1} << 30;

/// A decoder for each core type, set to a kernel, and a transaction identity for messages.
struct Decoders {
    InstructionDecoder aiv{CoreType::Vector, small_chip()};
    InstructionDecoder aic{CoreType::Cube, small_chip()};

    explicit Decoders(KernelType type = KernelType::MIX_AIC_1_2) {
        aiv.set_kernel("add", type, 4);
        aic.set_kernel("add", type, 4);
    }
};

Transaction identity(std::source_location where = std::source_location::current()) {
    Transaction tx;
    tx.kernel_id = 1;
    tx.block = 3;
    tx.serial = 7;
    tx.where = where;
    return tx;
}

/// The message of the KernelError `decode` throws, or "" when it accepts the request.
template <class Decode>
std::string error_of(Decode&& decode) {
    Transaction tx = identity();
    try {
        decode(tx);
    } catch (const KernelError& e) {
        return e.what();
    }
    return "";
}
std::string error_of(const InstructionDecoder& decoder, const Request& request) {
    return error_of([&](Transaction& tx) { decoder.decode(request, tx); });
}

Operand ub(std::uint64_t address, std::uint64_t count, DType dtype = DType::F32) {
    return {MemSpace::UB, address, count, dtype};
}
Operand gm(std::uint64_t address, std::uint64_t count, DType dtype = DType::F32) {
    return {MemSpace::GM, address, count, dtype};
}
Operand local(MemSpace space, std::uint64_t address, std::uint64_t count, DType dtype) {
    return {space, address, count, dtype};
}

Request copy(Operand dst, Operand src, std::uint64_t count) {
    Request r;
    r.op = Op::Copy;
    r.dst = dst;
    r.src0 = src;
    r.count = count;
    return r;
}
Request vector_op(Op op, Operand dst, Operand src0, Operand src1, std::uint64_t count) {
    Request r;
    r.op = op;
    r.dst = dst;
    r.src0 = src0;
    r.src1 = src1;
    r.count = count;
    return r;
}
Request mmad(std::uint32_t m, std::uint32_t n, std::uint32_t k, bool accumulate = false) {
    Request r;
    r.op = Op::Mmad;
    r.src0 = local(MemSpace::L0A, 0, m * k, DType::F16);
    r.src1 = local(MemSpace::L0B, 0, k * n, DType::F16);
    r.dst = local(MemSpace::L0C, 0, m * n, DType::F32);
    r.m = m;
    r.n = n;
    r.k = k;
    r.accumulate = accumulate;
    return r;
}
Request flag(Op op, Pipe src, Pipe dst, std::uint32_t id) {
    Request r;
    r.op = op;
    r.flag_src = src;
    r.flag_dst = dst;
    r.event_id = id;
    return r;
}
Request barrier(Pipe pipe) {
    Request r;
    r.op = Op::PipeBarrier;
    r.barrier_pipe = pipe;
    return r;
}

}  // namespace

TEST_CASE("decoder: a KernelError names kernel, block, core type, pipe, serial and line",
          "[unit]") {
    const Decoders d;
    Transaction tx = identity();
    const int line = __LINE__ - 1;
    try {
        d.aiv.decode(copy(ub(0, 10), gm(0, 10), 10), tx);
        FAIL("decode accepted a 40-byte copy");
    } catch (const KernelError& e) {
        const std::string expected =
            "kernel 'add' block 3 (aiv) PIPE_MTE2 serial 7 at "
            "instruction_decoder_test.cpp:" +
            std::to_string(line) + ":";
        CHECK_THAT(e.what(), Catch::StartsWith(expected));
        CHECK_THAT(
            e.what(),
            Catch::EndsWith(": DataCopy GM->UB length 40 bytes is not a multiple of 32 bytes"));
    }
    // The core type and pipe follow the decoder and the request.
    CHECK_THAT(error_of(d.aic, copy(local(MemSpace::L0A, 0, 8, DType::F32),
                                    local(MemSpace::L1, 0, 8, DType::F32), 5)),
               Contains("(aic) PIPE_MTE1 serial 7"));
}

TEST_CASE("decoder: copy length must be a multiple of 32 bytes and not zero", "[unit]") {
    const Decoders d;
    CHECK_THAT(error_of(d.aiv, copy(ub(0, 64, DType::F16), gm(0, 64, DType::F16), 24)),
               Contains("DataCopy GM->UB length 48 bytes is not a multiple of 32 bytes"));
    CHECK_THAT(error_of(d.aiv, copy(ub(0, 64), gm(0, 64), 0)),
               Contains("DataCopy GM->UB of 0 elements"));
    CHECK(error_of(d.aiv, copy(ub(0, 64, DType::I8), gm(0, 64, DType::I8), 64)).empty());
}

TEST_CASE("decoder: a local copy operand must be aligned to its space", "[unit]") {
    const Decoders d;
    CHECK_THAT(error_of(d.aiv, copy(ub(16, 8), gm(0, 8), 8)),
               Contains("destination UB address 0x10 is not 32-byte aligned"));
    CHECK_THAT(error_of(d.aiv, copy(gm(0, 8), ub(8, 8), 8)),
               Contains("source UB address 0x8 is not 32-byte aligned"));
    // L0A / L0B need 512 bytes.
    CHECK_THAT(error_of(d.aic, copy(local(MemSpace::L0A, 256, 64, DType::F16),
                                    local(MemSpace::L1, 0, 64, DType::F16), 64)),
               Contains("destination L0A address 0x100 is not 512-byte aligned"));
    CHECK(error_of(d.aic, copy(local(MemSpace::L0A, 512, 64, DType::F16),
                               local(MemSpace::L1, 32, 64, DType::F16), 64))
              .empty());
}

TEST_CASE("decoder: copy operands must lie inside their memory", "[unit]") {
    const Decoders d;
    CHECK_THAT(error_of(d.aiv, copy(ub(kUb - 32, 16), gm(0, 16), 16)),
               Contains("destination UB range [0x2ffe0, 0x30020) is outside UB (196608 bytes)"));
    CHECK(error_of(d.aiv, copy(ub(kUb - 64, 16), gm(0, 16), 16)).empty());  // exactly fits
    CHECK_THAT(error_of(d.aiv, copy(ub(0, 16), gm(kGm - 32, 16), 16)),
               Contains("source GM range [0x3fffffe0, 0x40000020) is outside GM"));
    CHECK_THAT(error_of(d.aiv, copy(gm(~std::uint64_t{0} - 31, 16), ub(0, 16), 16)),
               Contains("destination GM range"));
}

TEST_CASE("decoder: a copy count larger than its tensor is refused", "[unit]") {
    const Decoders d;
    CHECK_THAT(error_of(d.aiv, copy(ub(0, 64), gm(0, 32), 64)),
               Contains("source needs 64 elements but its tensor holds 32"));
    CHECK_THAT(error_of(d.aiv, copy(ub(0, 8), gm(0, 64), 64)),
               Contains("destination needs 64 elements but its tensor holds 8"));
}

TEST_CASE("decoder: a copy without a hardware route is refused", "[unit]") {
    const Decoders d;
    CHECK_THAT(error_of(d.aiv, copy(gm(0, 8), gm(512, 8), 8)),
               Contains("PIPE_S serial 7") && Contains("no DataCopy path from GM to GM"));
    CHECK_THAT(error_of(d.aic, copy(local(MemSpace::L1, 0, 8, DType::F32), ub(0, 8), 8)),
               Contains("no DataCopy path from UB to L1"));
    // A route exists, but not on this core type.
    CHECK_THAT(error_of(d.aiv, copy(local(MemSpace::L1, 0, 8, DType::F32), gm(0, 8), 8)),
               Contains("destination is in L1, which an aiv core does not have"));
    CHECK_THAT(error_of(d.aic, copy(ub(0, 8), gm(0, 8), 8)),
               Contains("destination is in UB, which an aic core does not have"));
}

TEST_CASE("decoder: a vector op on a cube core is refused", "[unit]") {
    const Decoders d;
    CHECK_THAT(error_of(d.aic, vector_op(Op::Add, ub(0, 8), ub(32, 8), ub(64, 8), 8)),
               Contains("(aic) PIPE_V") && Contains("Add needs a vector core"));
    CHECK_THAT(error_of(d.aiv, vector_op(Op::Relu, ub(0, 8), ub(32, 8), {}, 0)),
               Contains("Relu of 0 elements"));
}

TEST_CASE("decoder: vector operands must be in UB and inside it", "[unit]") {
    const Decoders d;
    CHECK_THAT(error_of(d.aiv, vector_op(Op::Add, ub(0, 8), gm(0, 8), ub(64, 8), 8)),
               Contains("source must be in UB, not GM"));
    CHECK_THAT(error_of(d.aiv, vector_op(Op::Add, ub(0, 16), ub(0, 16), ub(kUb - 32, 16), 16)),
               Contains("second source UB range [0x2ffe0, 0x30020) is outside UB"));
    CHECK_THAT(error_of(d.aiv, vector_op(Op::Exp, ub(kUb, 8), ub(0, 8), {}, 8)),
               Contains("destination UB range"));
    CHECK_THAT(error_of(d.aiv, vector_op(Op::Muls, ub(4, 8), ub(0, 8), {}, 8)),
               Contains("destination UB address 0x4 is not 32-byte aligned"));
    // Fill reads nothing: its (unset) sources are not checked.
    CHECK(error_of(d.aiv, vector_op(Op::Fill, ub(0, 8), gm(3, 0), gm(5, 0), 8)).empty());
}

TEST_CASE("decoder: a vector op count larger than a tensor is refused", "[unit]") {
    const Decoders d;
    CHECK_THAT(error_of(d.aiv, vector_op(Op::Sub, ub(0, 16), ub(64, 16), ub(128, 8), 16)),
               Contains("second source needs 16 elements but its tensor holds 8"));
    CHECK_THAT(error_of(d.aiv, vector_op(Op::Adds, ub(0, 4), ub(64, 16), {}, 16)),
               Contains("destination needs 16 elements but its tensor holds 4"));
    // ReduceSum writes one element: a one-element destination is enough.
    CHECK(error_of(d.aiv, vector_op(Op::ReduceSum, ub(0, 1), ub(64, 16), {}, 16)).empty());
}

TEST_CASE("decoder: Mmad needs a cube core, its spaces and non-zero dimensions", "[unit]") {
    const Decoders d;
    CHECK_THAT(error_of(d.aiv, mmad(16, 16, 16)), Contains("Mmad needs a cube core"));
    CHECK(error_of(d.aic, mmad(16, 16, 16)).empty());
    CHECK_THAT(error_of(d.aic, mmad(0, 16, 16)), Contains("Mmad with a zero dimension"));
    CHECK_THAT(error_of(d.aic, mmad(16, 0, 16)), Contains("Mmad with a zero dimension"));
    CHECK_THAT(error_of(d.aic, mmad(16, 16, 0)), Contains("Mmad with a zero dimension"));
    Request left_in_l1 = mmad(16, 16, 16);
    left_in_l1.src0.space = MemSpace::L1;
    CHECK_THAT(error_of(d.aic, left_in_l1), Contains("left matrix must be in L0A, not L1"));
    Request right_in_l0a = mmad(16, 16, 16);
    right_in_l0a.src1.space = MemSpace::L0A;
    CHECK_THAT(error_of(d.aic, right_in_l0a), Contains("right matrix must be in L0B, not L0A"));
    Request result_in_l1 = mmad(16, 16, 16);
    result_in_l1.dst.space = MemSpace::L1;
    CHECK_THAT(error_of(d.aic, result_in_l1), Contains("result matrix must be in L0C, not L1"));
    Request small_a = mmad(16, 16, 16);
    small_a.src0.count = 100;
    CHECK_THAT(error_of(d.aic, small_a),
               Contains("left matrix needs 256 elements but its tensor holds 100"));
    // 256 x 256 fp16 = 128 KiB does not fit in a 64 KiB L0A.
    CHECK_THAT(error_of(d.aic, mmad(256, 16, 256)),
               Contains("left matrix L0A range [0x0, 0x20000) is outside L0A (65536 bytes)"));
}

TEST_CASE("decoder: Mmad takes the cube's types and sizes its accesses by them", "[unit]") {
    const Decoders d;
    // int8 x int8 -> int32: 16 x 32 x 64 reads 1024 + 2048 bytes and writes 2048.
    Request i8 = mmad(16, 32, 64);
    i8.src0 = local(MemSpace::L0A, 0, 16 * 64, DType::I8);
    i8.src1 = local(MemSpace::L0B, 0, 64 * 32, DType::I8);
    i8.dst = local(MemSpace::L0C, 0, 16 * 32, DType::I32);
    Transaction tx = identity();
    d.aic.decode(i8, tx);
    CHECK(tx.src_dtype == DType::I8);
    CHECK(tx.dtype == DType::I32);
    REQUIRE(tx.access_count == 3);
    CHECK(tx.accesses[0].bytes == 1024);
    CHECK(tx.accesses[1].bytes == 2048);
    CHECK(tx.accesses[2].bytes == 2048);
    // fp32 x fp32 -> fp32 and bf16 x bf16 -> fp32.
    Request f32 = mmad(16, 16, 8);
    f32.src0.dtype = f32.src1.dtype = DType::F32;
    Transaction tf = identity();
    d.aic.decode(f32, tf);
    CHECK(tf.accesses[0].bytes == 16 * 8 * 4);
    Request bf16 = mmad(16, 16, 16);
    bf16.src0.dtype = bf16.src1.dtype = DType::BF16;
    CHECK(error_of(d.aic, bf16).empty());
    // Mixed inputs, a wrong result type, a type the cube lacks, a bias of another type.
    Request mixed = mmad(16, 16, 16);
    mixed.src1.dtype = DType::BF16;
    CHECK_THAT(error_of(d.aic, mixed),
               Contains("Mmad takes fp16 x fp16 -> fp32, bf16 x bf16 -> fp32, int8 x int8 -> "
                        "int32, fp32 x fp32 -> fp32 (got fp16 x bf16 -> fp32)"));
    Request int8_to_float = i8;
    int8_to_float.dst.dtype = DType::F32;
    CHECK_THAT(error_of(d.aic, int8_to_float), Contains("(got int8 x int8 -> fp32)"));
    Request u8 = i8;
    u8.src0.dtype = u8.src1.dtype = DType::U8;
    CHECK_THAT(error_of(d.aic, u8), Contains("(got uint8 x uint8 -> int32)"));
    Request float_bias = i8;
    float_bias.has_bias = true;
    float_bias.bias = local(MemSpace::BT, 0, 32, DType::F32);
    CHECK_THAT(error_of(d.aic, float_bias),
               Contains("Mmad's bias is int32 for a int32 result (got fp32)"));
    Request int_bias = float_bias;
    int_bias.bias.dtype = DType::I32;
    Transaction tb = identity();
    d.aic.decode(int_bias, tb);
    REQUIRE(tb.access_count == 4);
    CHECK(tb.accesses[2].bytes == 32 * 4);
}

TEST_CASE("decoder: Fixpipe's conversions, their types and accesses", "[unit]") {
    const Decoders d;
    Request r;
    r.op = Op::Fixpipe;
    r.src0 = local(MemSpace::L0C, 0, 16 * 32, DType::I32);
    r.dst = gm(4096, 64 * 32, DType::I8);
    r.m = 16;
    r.n = 32;
    r.dst_pitch = 64;
    r.mode = static_cast<std::uint32_t>(FixQuant::REQ8);
    Transaction tx = identity();
    const DecodedInstruction out = d.aic.decode(r, tx);
    CHECK(tx.pipe == Pipe::FIX);
    CHECK(tx.dtype == DType::I8);
    CHECK(tx.src_dtype == DType::I32);
    REQUIRE(tx.access_count == 2);
    CHECK(out.write_access == 1);
    CHECK(tx.accesses[0].bytes == 16 * 32 * 4);  // L0C, fp32/int32 elements
    CHECK(tx.accesses[1].rows == 16);            // GM rows of 32 int8, 64 bytes apart
    CHECK(tx.accesses[1].bytes == 32);
    CHECK(tx.accesses[1].pitch == 64);
    // The per-channel form reads n uint64 words from L1.
    Request vreq = r;
    vreq.mode = static_cast<std::uint32_t>(FixQuant::VREQ8);
    vreq.src1 = local(MemSpace::L1, 512, 32, DType::U64);
    Transaction tv = identity();
    d.aic.decode(vreq, tv);
    REQUIRE(tv.access_count == 3);
    CHECK(tv.accesses[2].space == MemSpace::L1);
    CHECK(tv.accesses[2].bytes == 32 * 8);
    Request no_words = vreq;
    no_words.src1 = local(MemSpace::UB, 0, 32, DType::U64);
    CHECK_THAT(error_of(d.aic, no_words),
               Contains("with one uint64 scale word per column in L1 (the fixpipe buffer's "
                        "stand-in), got uint64 in UB"));
    // Types: REQ8 takes int32 to int8/uint8; F322F16 fp32 to fp16; NoQuant keeps the type.
    Request wrong = r;
    wrong.dst.dtype = DType::F16;
    CHECK_THAT(error_of(d.aic, wrong),
               Contains("Fixpipe REQ8 converts int32 -> int8 or uint8 (got int32 -> fp16)"));
    Request f16 = r;
    f16.mode = static_cast<std::uint32_t>(FixQuant::F322F16);
    CHECK_THAT(error_of(d.aic, f16), Contains("Fixpipe F322F16 converts fp32 -> fp16"));
    Request shift = r;
    shift.quant_word = std::uint64_t{1} << 36;
    CHECK_THAT(error_of(d.aic, shift), Contains("mode-control bit (36)"));
    Request atomic = r;
    atomic.atomic = AtomicOp::Add;
    CHECK_THAT(error_of(d.aic, atomic), Contains("under SetAtomicadd: not supported yet"));
    Request overlap = r;
    overlap.dst_pitch = 16;
    CHECK_THAT(error_of(d.aic, overlap), Contains("GM rows 16 bytes apart overlap rows of 32"));
    CHECK_THAT(error_of(d.aiv, r), Contains("source is in L0C, which an aiv core does not have"));
    // Into L1 (a C1 tensor): the same conversion, written to L1 on FIX; no atomics there.
    Request to_l1 = r;
    to_l1.dst = local(MemSpace::L1, 0, 64 * 16, DType::I8);
    Transaction tl = identity();
    const DecodedInstruction into_l1 = d.aic.decode(to_l1, tl);
    CHECK(tl.pipe == Pipe::FIX);
    REQUIRE(into_l1.route);
    CHECK(into_l1.route->dst == MemSpace::L1);
    CHECK(tl.accesses[1].space == MemSpace::L1);
    CHECK(tl.accesses[1].rows == 16);
    to_l1.atomic = AtomicOp::Add;
    CHECK_THAT(error_of(d.aic, to_l1), Contains("atomic operations combine with GM only"));
    Request to_ub = r;
    to_ub.dst = local(MemSpace::UB, 0, 64 * 16, DType::I8);
    CHECK_THAT(error_of(d.aic, to_ub),
               Contains("Fixpipe with a conversion goes from L0C to GM or L1, not from L0C to UB"));
}

TEST_CASE("decoder: LoadData's fractals on MTE1, transposed for 16-bit types only", "[unit]") {
    const Decoders d;
    Request r;
    r.op = Op::LoadFractals;
    r.src0 = local(MemSpace::L1, 512, 8 * 256, DType::F16);
    r.dst = local(MemSpace::L0B, 0, 4 * 256, DType::F16);
    r.rows = 3;
    r.src_pitch = 2 * 512;
    r.dst_pitch = 512;
    r.mode = 1;
    Transaction tx = identity();
    const DecodedInstruction out = d.aic.decode(r, tx);
    CHECK(tx.pipe == Pipe::MTE1);
    REQUIRE(tx.access_count == 2);
    CHECK(out.write_access == 1);
    CHECK(tx.accesses[0].rows == 3);  // fractals 0, 2 and 4 of the source
    CHECK(tx.accesses[0].pitch == 1024);
    CHECK(tx.accesses[1].rows == 3);
    CHECK(tx.accesses[1].bytes == 512);
    Request repeat = r;  // srcStride 0: one fractal read three times
    repeat.src_pitch = 0;
    Transaction tr = identity();
    d.aic.decode(repeat, tr);
    CHECK(tr.accesses[0].pitch == 0);
    Request int8 = r;
    int8.src0 = local(MemSpace::L1, 512, 8 * 512, DType::I8);
    int8.dst = local(MemSpace::L0B, 0, 4 * 512, DType::I8);
    CHECK_THAT(error_of(d.aic, int8),
               Contains("LoadData with ifTranspose transposes 16-bit elements only on A2"));
    int8.mode = 0;  // untransposed int8 fractals are fine
    Transaction ti = identity();
    d.aic.decode(int8, ti);
    CHECK(ti.accesses[1].rows == 3);
    Request to_ub = r;
    to_ub.dst = local(MemSpace::L0C, 0, 4 * 256, DType::F16);
    CHECK_THAT(error_of(d.aic, to_ub), Contains("goes from L1 to L0A or L0B, not from L1 to L0C"));
    Request beyond = r;
    beyond.src0.count = 4 * 256;  // fractal 4 is past the tensor
    CHECK_THAT(error_of(d.aic, beyond), Contains("source needs 1280 elements"));
}

TEST_CASE("decoder: a flag pipe must exist on the core type", "[unit]") {
    const Decoders d;
    CHECK_THAT(error_of(d.aiv, flag(Op::SetFlag, Pipe::MTE2, Pipe::M, 0)),
               Contains("SetFlag<MTE2_M>(0): PIPE_M does not exist on an aiv core"));
    CHECK_THAT(error_of(d.aic, flag(Op::WaitFlag, Pipe::V, Pipe::MTE3, 1)),
               Contains("WaitFlag<V_MTE3>(1): PIPE_V does not exist on an aic core"));
    CHECK_THAT(error_of(d.aiv, flag(Op::SetFlag, Pipe::V, Pipe::ALL, 0)),
               Contains("PIPE_ALL does not exist on an aiv core"));
    CHECK(error_of(d.aiv, flag(Op::SetFlag, Pipe::MTE2, Pipe::V, 0)).empty());
    CHECK(error_of(d.aic, flag(Op::WaitFlag, Pipe::M, Pipe::FIX, 0)).empty());
}

TEST_CASE("decoder: a flag between a pipe and itself is refused", "[unit]") {
    const Decoders d;
    CHECK_THAT(error_of(d.aiv, flag(Op::SetFlag, Pipe::V, Pipe::V, 0)),
               Contains("SetFlag<V_V>(0): source and destination pipe are the same"));
}

TEST_CASE("decoder: event ids are 0 to event_ids - 1", "[unit]") {
    const Decoders d;
    CHECK(error_of(d.aiv, flag(Op::SetFlag, Pipe::MTE2, Pipe::V, 7)).empty());
    CHECK_THAT(error_of(d.aiv, flag(Op::WaitFlag, Pipe::MTE2, Pipe::V, 8)),
               Contains("PIPE_V serial 7") &&
                   Contains("WaitFlag<MTE2_V>(8): event id 8 is out of range (this chip has "
                            "event ids 0-7)"));
}

TEST_CASE("decoder: PipeBarrier<PIPE_S> is a hardware error", "[unit]") {
    const Decoders d;
    CHECK_THAT(error_of(d.aiv, barrier(Pipe::S)),
               Contains("PipeBarrier<PIPE_S> is a hardware error"));
    CHECK_THAT(error_of(d.aic, barrier(Pipe::V)),
               Contains("PipeBarrier: PIPE_V does not exist on an aic core"));
    CHECK(error_of(d.aiv, barrier(Pipe::ALL)).empty());
    CHECK(error_of(d.aiv, barrier(Pipe::V)).empty());
    CHECK(error_of(d.aic, barrier(Pipe::M)).empty());
}

TEST_CASE("decoder: scalar accesses need element alignment", "[unit]") {
    const Decoders d;
    auto load = [&](const Operand& where) {
        return error_of(
            [&](Transaction& tx) { d.aiv.decode_scalar_access(Op::ScalarLoad, where, tx); });
    };
    auto store = [&](const Operand& where) {
        return error_of(
            [&](Transaction& tx) { d.aiv.decode_scalar_access(Op::ScalarStore, where, tx); });
    };
    CHECK_THAT(load(ub(2, 1)), Contains("source UB address 0x2 is not 4-byte aligned"));
    CHECK(load(ub(4, 1)).empty());  // element alignment, not DataCopy's 32 bytes
    CHECK(load(ub(2, 1, DType::F16)).empty());
    CHECK(load(ub(3, 1, DType::I8)).empty());
    CHECK_THAT(store(gm(6, 1)),
               Contains("PIPE_S") && Contains("scalar store address 0x6 is not 4-byte aligned"));
    CHECK_THAT(load(gm(kGm, 1)), Contains("source GM range"));
    CHECK_THAT(store(local(MemSpace::L1, 0, 1, DType::F32)),
               Contains("destination is in L1, which an aiv core does not have"));
    // Scalar accesses do not go through decode().
    Request r;
    r.op = Op::ScalarLoad;
    CHECK_THAT(error_of(d.aiv, r), Contains("scalar accesses go through decode_scalar_access"));
}

TEST_CASE("decoder: cross-core flag ids, modes and pipes", "[unit]") {
    auto set_error = [](const InstructionDecoder& decoder, std::uint32_t mode, Pipe pipe,
                        std::uint32_t id) {
        return error_of(
            [&](Transaction& tx) { decoder.decode_cross_core_set(mode, pipe, id, tx); });
    };
    const Decoders mix12(KernelType::MIX_AIC_1_2);
    // Ids 0-15 for modes 0-2; the ids hard SyncAll reserves (11-14) are valid instructions
    // (only a kernel that also calls hard SyncAll may not use them: sync/kernel_sync.h).
    for (std::uint32_t mode : {0U, 1U}) {
        for (std::uint32_t id : {0U, 10U, 11U, 14U, 15U}) {
            INFO("mode " << mode << " id " << id);
            CHECK(set_error(mix12.aiv, mode, Pipe::MTE3, id).empty());
        }
    }
    CHECK(set_error(mix12.aic, 2, Pipe::FIX, 15).empty());
    CHECK_THAT(set_error(mix12.aiv, 0, Pipe::MTE3, 16),
               Contains("CrossCoreSetFlag<0, PIPE_MTE3>(16): flag id must be 0-15"));
    CHECK_THAT(set_error(mix12.aic, 2, Pipe::FIX, 16), Contains("flag id must be 0-15"));
    CHECK_THAT(set_error(mix12.aiv, 3, Pipe::V, 0), Contains("mode must be 0, 1 or 2"));
    CHECK_THAT(set_error(mix12.aic, 2, Pipe::V, 0),
               Contains("PIPE_V is not a pipe of an aic core"));
    CHECK(set_error(mix12.aic, 2, Pipe::FIX, 0).empty());
    CHECK(set_error(mix12.aiv, 1, Pipe::V, 0).empty());
    CHECK(set_error(mix12.aiv, 2, Pipe::S, 0).empty());
    // Mode 1 is for the two AIVs of a MIX_AIC_1_2 group.
    CHECK_THAT(set_error(mix12.aic, 1, Pipe::M, 0),
               Contains("mode 1 syncs the two AIVs of a group") &&
                   Contains("(this is MIX_AIC_1_2 on an aic core)"));
    const Decoders mix11(KernelType::MIX_AIC_1_1);
    CHECK_THAT(set_error(mix11.aiv, 1, Pipe::V, 0), Contains("this is MIX_AIC_1_1 on an aiv"));
    CHECK(set_error(mix11.aiv, 2, Pipe::V, 0).empty());
    // Mode 2 needs both core types in the kernel.
    const Decoders aiv_only(KernelType::AIV_ONLY);
    CHECK_THAT(
        set_error(aiv_only.aiv, 2, Pipe::V, 0),
        Contains("mode 2 syncs the AIC and AIV(s) of a group") && Contains("(this is AIV_ONLY)"));
    CHECK(set_error(aiv_only.aiv, 0, Pipe::V, 0).empty());
    const Decoders mix_aic_1_0(KernelType::MIX_AIC_1_0);
    CHECK_THAT(set_error(mix_aic_1_0.aic, 2, Pipe::M, 0), Contains("(this is MIX_AIC_1_0)"));
}

TEST_CASE("decoder: cross-core wait ids", "[unit]") {
    const Decoders d;
    auto wait_error = [&](std::uint32_t id) {
        return error_of([&](Transaction& tx) { d.aic.decode_cross_core_wait(id, tx); });
    };
    CHECK(wait_error(0).empty());
    CHECK(wait_error(10).empty());
    CHECK(wait_error(12).empty());
    CHECK(wait_error(15).empty());
    CHECK_THAT(wait_error(16), Contains("CrossCoreWaitFlag(16): flag id must be 0-15"));
}

TEST_CASE("decoder: SyncAll over vector cores is refused on a cube core", "[unit]") {
    const Decoders d;
    auto sync_error = [](const InstructionDecoder& decoder, SyncAllScope scope) {
        return error_of([&](Transaction& tx) { decoder.decode_sync_all(scope, tx); });
    };
    CHECK_THAT(sync_error(d.aic, SyncAllScope::Vector),
               Contains("SyncAll over vector cores only, called on a cube core"));
    CHECK(sync_error(d.aic, SyncAllScope::All).empty());
    CHECK(sync_error(d.aiv, SyncAllScope::Vector).empty());
    Transaction tx = identity();
    d.aiv.decode_sync_all(SyncAllScope::Vector, tx);
    CHECK(tx.op == Op::SyncAll);
    CHECK(tx.pipe == Pipe::S);
    CHECK(tx.mode == static_cast<std::uint32_t>(SyncAllScope::Vector));
}

TEST_CASE("decoder: a valid copy decodes to its route and two accesses", "[unit]") {
    const Decoders d;
    Transaction tx = identity();
    const DecodedInstruction out = d.aiv.decode(copy(ub(64, 16), gm(4096, 32), 16), tx);
    REQUIRE(out.route);
    CHECK(out.route->pipe == Pipe::MTE2);
    CHECK(out.write_access == 1);
    CHECK(tx.pipe == Pipe::MTE2);
    CHECK(tx.op == Op::Copy);
    CHECK(tx.count == 16);
    CHECK(tx.dtype == DType::F32);
    REQUIRE(tx.access_count == 2);
    CHECK(tx.accesses[0].space == MemSpace::GM);
    CHECK_FALSE(tx.accesses[0].write);
    CHECK(tx.accesses[0].address == 4096);
    CHECK(tx.accesses[0].bytes == 64);
    CHECK(tx.accesses[1].space == MemSpace::UB);
    CHECK(tx.accesses[1].write);
    CHECK(tx.accesses[1].address == 64);
    CHECK(tx.accesses[1].bytes == 64);
    // The identity the caller filled is kept.
    CHECK(tx.block == 3);
    CHECK(tx.serial == 7);
}

TEST_CASE("decoder: a valid vector op reads its sources and writes its destination", "[unit]") {
    const Decoders d;
    Transaction add = identity();
    const auto out = d.aiv.decode(vector_op(Op::Add, ub(0, 8), ub(32, 8), ub(64, 8), 8), add);
    CHECK(add.pipe == Pipe::V);
    CHECK(out.write_access == 2);
    CHECK_FALSE(out.route);
    REQUIRE(add.access_count == 3);
    CHECK(add.accesses[0].address == 32);
    CHECK(add.accesses[1].address == 64);
    CHECK(add.accesses[2].address == 0);
    CHECK(add.accesses[2].write);
    CHECK(add.accesses[2].bytes == 32);

    Transaction fill = identity();
    Request fill_request = vector_op(Op::Fill, ub(0, 16, DType::F16), {}, {}, 16);
    fill_request.scalar = 1.5;
    CHECK(d.aiv.decode(fill_request, fill).write_access == 0);
    REQUIRE(fill.access_count == 1);
    CHECK(fill.accesses[0].bytes == 32);
    CHECK(fill.scalar == 1.5);
    CHECK(fill.dtype == DType::F16);

    Transaction sum = identity();
    CHECK(d.aiv.decode(vector_op(Op::ReduceSum, ub(0, 1), ub(32, 16), {}, 16), sum).write_access ==
          1);
    CHECK(sum.accesses[0].bytes == 64);
    CHECK(sum.accesses[1].bytes == 4);  // one element

    Transaction cast = identity();
    d.aiv.decode(vector_op(Op::Cast, ub(0, 16, DType::F16), ub(32, 16, DType::F32), {}, 16), cast);
    CHECK(cast.dtype == DType::F16);
    CHECK(cast.src_dtype == DType::F32);
    CHECK(cast.accesses[0].bytes == 64);
    CHECK(cast.accesses[1].bytes == 32);
}

TEST_CASE("decoder: a valid Mmad reads a and b, writes c and reads c to accumulate", "[unit]") {
    const Decoders d;
    Transaction plain = identity();
    const auto out = d.aic.decode(mmad(32, 16, 64), plain);
    CHECK(plain.pipe == Pipe::M);
    CHECK(out.write_access == 2);
    REQUIRE(plain.access_count == 3);
    CHECK(plain.accesses[0].space == MemSpace::L0A);
    CHECK(plain.accesses[0].bytes == 32 * 64 * 2);
    CHECK(plain.accesses[1].space == MemSpace::L0B);
    CHECK(plain.accesses[1].bytes == 64 * 16 * 2);
    CHECK(plain.accesses[2].space == MemSpace::L0C);
    CHECK(plain.accesses[2].write);
    CHECK(plain.accesses[2].bytes == 32 * 16 * 4);
    CHECK(plain.m == 32);
    CHECK(plain.n == 16);
    CHECK(plain.k == 64);

    Transaction acc = identity();
    CHECK(d.aic.decode(mmad(16, 16, 16, true), acc).write_access == 2);
    REQUIRE(acc.access_count == 4);
    CHECK(acc.accesses[3].space == MemSpace::L0C);
    CHECK_FALSE(acc.accesses[3].write);
}

TEST_CASE("decoder: an Mmad with a bias reads the bias row from the bias table before writing c",
          "[unit]") {
    const Decoders d;
    Request r = mmad(16, 32, 16);
    r.has_bias = true;
    r.bias = local(MemSpace::BT, 512, 32, DType::F32);
    Transaction tx = identity();
    const auto out = d.aic.decode(r, tx);
    CHECK(tx.bias);
    REQUIRE(tx.access_count == 4);
    CHECK(tx.accesses[2].space == MemSpace::BT);
    CHECK(tx.accesses[2].address == 512);
    CHECK(tx.accesses[2].bytes == 32 * 4);
    CHECK_FALSE(tx.accesses[2].write);
    CHECK(out.write_access == 3);

    Request accumulating = r;
    accumulating.accumulate = true;
    CHECK_THAT(error_of(d.aic, accumulating), Contains("cannot also accumulate"));
    Request in_l0c = r;
    in_l0c.bias = local(MemSpace::L0C, 0, 32, DType::F32);
    CHECK_THAT(error_of(d.aic, in_l0c), Contains("bias must be in BT, not L0C"));
    Request in_l1 = r;
    in_l1.bias = local(MemSpace::L1, 512, 32, DType::F32);
    CHECK_THAT(error_of(d.aic, in_l1), Contains("bias must be in BT, not L1"));
    Request past_table = r;
    past_table.bias = local(MemSpace::BT, 960, 32, DType::F32);
    CHECK_THAT(error_of(d.aic, past_table), Contains("BT"));
    Request short_bias = r;
    short_bias.bias = local(MemSpace::BT, 512, 16, DType::F32);
    CHECK_THAT(error_of(d.aic, short_bias), Contains("bias needs 32 elements"));
    Request half_bias = r;
    half_bias.bias = local(MemSpace::BT, 512, 32, DType::F16);
    CHECK_THAT(error_of(d.aic, half_bias), Contains("Mmad's bias is fp32"));
}

TEST_CASE("decoder: valid flags, barriers and scalar accesses", "[unit]") {
    const Decoders d;
    Transaction set = identity();
    const auto out = d.aiv.decode(flag(Op::SetFlag, Pipe::MTE2, Pipe::V, 5), set);
    CHECK(out.write_access == -1);
    CHECK(set.pipe == Pipe::MTE2);  // a SetFlag runs on its source pipe
    CHECK(set.access_count == 0);
    CHECK(set.event_id == 5);
    Transaction wait = identity();
    d.aiv.decode(flag(Op::WaitFlag, Pipe::MTE2, Pipe::V, 5), wait);
    CHECK(wait.pipe == Pipe::V);  // ... a WaitFlag on its destination pipe
    Transaction bar = identity();
    d.aiv.decode(barrier(Pipe::MTE3), bar);
    CHECK(bar.pipe == Pipe::MTE3);

    Transaction store = identity();
    const auto stored = d.aiv.decode_scalar_access(Op::ScalarStore, ub(8, 1, DType::I32), store);
    CHECK(stored.write_access == 0);
    CHECK(store.pipe == Pipe::S);
    REQUIRE(store.access_count == 1);
    CHECK(store.accesses[0].write);
    CHECK(store.accesses[0].bytes == 4);
    Transaction load = identity();
    CHECK(d.aiv.decode_scalar_access(Op::ScalarLoad, gm(2, 1, DType::F16), load).write_access ==
          -1);
    CHECK_FALSE(load.accesses[0].write);
}

TEST_CASE("decoder: pipe_of follows the unit, the route and the flag direction", "[unit]") {
    CHECK(InstructionDecoder::pipe_of(copy(gm(0, 8), ub(0, 8), 8)) == Pipe::MTE3);
    CHECK(InstructionDecoder::pipe_of(copy(ub(0, 8), ub(0, 8), 8)) == Pipe::V);
    CHECK(InstructionDecoder::pipe_of(copy(gm(0, 8), local(MemSpace::L0C, 0, 8, DType::F32), 8)) ==
          Pipe::FIX);
    CHECK(InstructionDecoder::pipe_of(copy(gm(0, 8), gm(0, 8), 8)) == Pipe::S);
    CHECK(InstructionDecoder::pipe_of(vector_op(Op::Exp, {}, {}, {}, 1)) == Pipe::V);
    CHECK(InstructionDecoder::pipe_of(mmad(16, 16, 16)) == Pipe::M);
    CHECK(InstructionDecoder::pipe_of(flag(Op::SetFlag, Pipe::M, Pipe::FIX, 0)) == Pipe::M);
    CHECK(InstructionDecoder::pipe_of(flag(Op::WaitFlag, Pipe::M, Pipe::FIX, 0)) == Pipe::FIX);
    CHECK(InstructionDecoder::pipe_of(barrier(Pipe::ALL)) == Pipe::ALL);
}

TEST_CASE("decoder: local capacities follow the core type", "[unit]") {
    const Decoders d;
    CHECK(d.aiv.core_type() == CoreType::Vector);
    CHECK(d.aiv.local_capacity(MemSpace::UB) == kUb);
    CHECK(d.aiv.local_capacity(MemSpace::L1) == 0);
    CHECK(d.aic.local_capacity(MemSpace::UB) == 0);
    CHECK(d.aic.local_capacity(MemSpace::L0C) == 131072);
}

TEST_CASE("decoder: operand element types must match what the op computes", "[unit]") {
    const ChipConfig chip = builtin_chip_config("small");
    InstructionDecoder vector(CoreType::Vector, chip);
    vector.set_kernel("k", KernelType::AIV_ONLY, 1);
    Request add;
    add.op = Op::Add;
    add.dst = {MemSpace::UB, 0, 64, DType::F32};
    add.src0 = {MemSpace::UB, 256, 64, DType::F16};
    add.src1 = {MemSpace::UB, 512, 64, DType::F32};
    add.count = 64;
    Transaction tx;
    CHECK_THROWS_WITH(vector.decode(add, tx), Catch::Contains("must have one element type"));

    InstructionDecoder cube(CoreType::Cube, chip);
    cube.set_kernel("k", KernelType::AIC_ONLY, 1);
    Request mmad;
    mmad.op = Op::Mmad;
    mmad.m = mmad.n = mmad.k = 16;
    mmad.src0 = {MemSpace::L0A, 0, 256, DType::F32};
    mmad.src1 = {MemSpace::L0B, 0, 256, DType::F16};
    mmad.dst = {MemSpace::L0C, 0, 256, DType::F32};
    Transaction cube_tx;
    CHECK_THROWS_WITH(cube.decode(mmad, cube_tx), Catch::Contains("(got fp32 x fp16 -> fp32)"));
}

TEST_CASE(
    "decoder: the fractal layouts size Mmad, Fixpipe and the ND -> NZ copy in whole "
    "fractals",
    "[unit]") {
    const Decoders d;
    // 18 x 20 x 17 half: 2 x 2 fractals of a (ZZ), b (ZN) and c (NZ): the accesses cover them.
    Request m = mmad(18, 17, 20, true);
    m.src0 = local(MemSpace::L0A, 0, 4 * 256, DType::F16);
    m.src1 = local(MemSpace::L0B, 0, 4 * 256, DType::F16);
    m.dst = local(MemSpace::L0C, 0, 4 * 256, DType::F32);
    m.layout = CubeLayout::Fractal;
    Transaction tx = identity();
    d.aic.decode(m, tx);
    REQUIRE(tx.access_count == 4);
    CHECK(tx.layout == CubeLayout::Fractal);
    CHECK(tx.accesses[0].bytes == 4 * 512);
    CHECK(tx.accesses[1].bytes == 4 * 512);
    CHECK(tx.accesses[2].bytes == 4 * 1024);  // the write, then the accumulator read
    CHECK(tx.accesses[3].bytes == 4 * 1024);
    // A tensor holding the elements but not the whole fractals is refused.
    m.src0 = local(MemSpace::L0A, 0, 18 * 20, DType::F16);
    CHECK_THAT(error_of(d.aic, m), Contains("left matrix"));
    // Fixpipe of an 18 x 17 NZ result, column blocks 48 rows apart: L0C from the first
    // element to the end of the last fractal; a stride below 32 rows is refused.
    Request f;
    f.op = Op::Fixpipe;
    f.src0 = local(MemSpace::L0C, 0, 48 * 16 + 2 * 256, DType::F32);
    f.dst = gm(0, 18 * 17);
    f.m = 18;
    f.n = 17;
    f.layout = CubeLayout::Fractal;
    f.block_stride = 48 * 16;
    Transaction ft = identity();
    d.aic.decode(f, ft);
    CHECK(ft.accesses[0].bytes == (48 * 16 + 2 * 256) * 4);
    f.block_stride = 16 * 16;
    CHECK_THAT(error_of(d.aic, f), Contains("srcStride 16"));
    // ND -> NZ: 4 rows of 20 halves from GM rows 128 bytes apart land as 2 column blocks of
    // 4 rows of 32 bytes, 256 bytes apart (dstNzC0Stride 8).
    Request c;
    c.op = Op::Copy;
    c.layout = CubeLayout::Fractal;
    c.src0 = gm(0, 4 * 64, DType::F16);
    c.dst = local(MemSpace::L1, 0, 256, DType::F16);
    c.rows = 4;
    c.count = 20;
    c.src_pitch = 128;
    c.dst_pitch = 256;
    Transaction ct = identity();
    d.aic.decode(c, ct);
    CHECK(ct.accesses[0].rows == 4);
    CHECK(ct.accesses[0].bytes == 40);
    CHECK(ct.accesses[1].rows == 2);
    CHECK(ct.accesses[1].bytes == 128);
    CHECK(ct.accesses[1].pitch == 256);
    c.dst_pitch = 64;  // blocks closer than their 4 rows
    CHECK_THAT(error_of(d.aic, c), Contains("overlap blocks of 4 rows"));
}
