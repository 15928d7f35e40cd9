// The element types beyond fp16/fp32/int32/int8, Cast's round modes, Compare / Select, the
// bitwise ops, Axpy, the per-repeat reductions and the mask registers: each against reference
// values computed here with plain loops, the checker clean, and the automatic
// synchronization (on and off) around the new instructions.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "kernel_operator.h"
#include "pipes/op_table.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"

using namespace AscendC;

namespace {

constexpr uint32_t kN = 128;

// x (T) + y (T) -> z (T) through UB: copies and Add of one element type.
template <class T>
void add_typed(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 3 * kN * sizeof(T));
    GlobalTensor<T> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, kN);
    yGm.SetGlobalBuffer((__gm__ T*)y, kN);
    zGm.SetGlobalBuffer((__gm__ T*)z, kN);
    LocalTensor<T> a = buf.Get<T>();
    LocalTensor<T> b = a[kN];
    LocalTensor<T> c = a[2 * kN];
    DataCopy(a, xGm, kN);
    DataCopy(b, yGm, kN);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Add(c, a, b, kN);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(zGm, c, kN);
}

template <class T>
std::vector<T> run_add(const std::vector<T>& xs, const std::vector<T>& ys) {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto x = sim.allocate<T>(kN, "x");
    auto y = sim.allocate<T>(kN, "y");
    auto z = sim.allocate<T>(kN, "z");
    sim.write(x, xs);
    sim.write(y, ys);
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "add_typed"},
               npusim::ascendc::bind_kernel(add_typed<T>, gm_addr(x), gm_addr(y), gm_addr(z)));
    REQUIRE(sim.run().completed());
    CHECK_THAT(checker.findings(), npusim::NoFindings());
    return sim.read(z);
}

// Casts kN floats with every round mode into int32 (mode index in `which`) and to half/bf16.
template <class D>
void cast_kernel(GM_ADDR x, GM_ADDR z, uint32_t mode) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, kN * sizeof(float) + kN * sizeof(D) + 64);
    GlobalTensor<float> xGm;
    GlobalTensor<D> zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, kN);
    zGm.SetGlobalBuffer((__gm__ D*)z, kN);
    LocalTensor<float> a = buf.Get<float>();
    LocalTensor<D> out = buf.GetWithOffset<D>(kN, kN * sizeof(float));
    DataCopy(a, xGm, kN);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Cast(out, a, static_cast<RoundMode>(mode), kN);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(zGm, out, kN);
}

template <class D>
std::vector<D> run_cast(const std::vector<float>& xs, RoundMode mode) {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    auto x = sim.allocate<float>(kN, "x");
    auto z = sim.allocate<D>(kN, "z");
    sim.write(x, xs);
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "cast"},
               npusim::ascendc::bind_kernel(cast_kernel<D>, gm_addr(x), gm_addr(z),
                                            static_cast<uint32_t>(mode)));
    REQUIRE(sim.run().completed());
    return sim.read(z);
}

int g_compare_line = 0;
int g_select_line = 0;

// z = x > 0 ? x : 0.5, through Compare (uint8 bits) and Select; no barrier between them.
extern "C" __global__ __aicore__ void compare_select(GM_ADDR x, GM_ADDR z, GM_ADDR bits) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4 * kN * sizeof(float));
    GlobalTensor<float> xGm, zGm;
    GlobalTensor<uint8_t> bitsGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, kN);
    zGm.SetGlobalBuffer((__gm__ float*)z, kN);
    bitsGm.SetGlobalBuffer((__gm__ uint8_t*)bits, kN / 8);
    LocalTensor<float> a = buf.Get<float>();
    LocalTensor<float> zero = a[kN];
    LocalTensor<uint8_t> mask = buf.GetWithOffset<uint8_t>(32, 2 * kN * sizeof(float));
    LocalTensor<float> out = buf.GetWithOffset<float>(kN, 2 * kN * sizeof(float) + 256);
    DataCopy(a, xGm, kN);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Duplicate(zero, 0.0F, kN);
    Duplicate(mask.ReinterpretCast<uint16_t>(), uint16_t(0), 16);  // 32 bytes: 16 hold bits
    PipeBarrier<PIPE_V>();
    g_compare_line = __LINE__ + 1;
    Compare(mask, a, zero, CMPMODE::GT, kN);
    g_select_line = __LINE__ + 1;
    Select(out, mask, a, 0.5F, SELMODE::VSEL_TENSOR_SCALAR_MODE, kN);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(zGm, out, kN);
    DataCopy(bitsGm, mask, 32);
}

// Bitwise ops on uint16 and Axpy on float.
extern "C" __global__ __aicore__ void bits_and_axpy(GM_ADDR u, GM_ADDR v, GM_ADDR r, GM_ADDR f,
                                                    GM_ADDR g) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 8 * kN * sizeof(float));
    GlobalTensor<uint16_t> uGm, vGm, rGm;
    GlobalTensor<float> fGm, gGm;
    uGm.SetGlobalBuffer((__gm__ uint16_t*)u, kN);
    vGm.SetGlobalBuffer((__gm__ uint16_t*)v, kN);
    rGm.SetGlobalBuffer((__gm__ uint16_t*)r, 3 * kN);
    fGm.SetGlobalBuffer((__gm__ float*)f, kN);
    gGm.SetGlobalBuffer((__gm__ float*)g, kN);
    LocalTensor<uint16_t> a = buf.Get<uint16_t>();
    LocalTensor<uint16_t> b = a[kN];
    LocalTensor<uint16_t> res = a[2 * kN];  // and, or, not
    LocalTensor<float> fa = buf.GetWithOffset<float>(2 * kN, 4 * kN * sizeof(float));
    LocalTensor<float> ga = fa[kN];
    DataCopy(a, uGm, kN);
    DataCopy(b, vGm, kN);
    DataCopy(fa, fGm, kN);
    DataCopy(ga, gGm, kN);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    And(res, a, b, kN);
    Or(res[kN], a, b, kN);
    Not(res[2 * kN], a, kN);
    Axpy(ga, fa, 2.0F, kN);  // g = f * 2 + g
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(rGm, res, 3 * kN);
    DataCopy(gGm, ga, kN);
}

// The per-repeat reductions over 2 fp32 repeats (128 elements): WholeReduceSum (counter mode
// through the mask register), BlockReduceMax, PairReduceSum, WholeReduceMin (value only).
extern "C" __global__ __aicore__ void reductions(GM_ADDR x, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 3 * kN * sizeof(float));
    GlobalTensor<float> xGm, outGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, kN);
    outGm.SetGlobalBuffer((__gm__ float*)out, kN);
    LocalTensor<float> a = buf.Get<float>();
    LocalTensor<float> res = a[kN];  // [0,8) whole sums | [8,24) block max | [32,96) pair sums
    DataCopy(a, xGm, kN);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Duplicate(res, 0.0F, kN);
    PipeBarrier<PIPE_V>();
    SetMaskCount();
    SetVectorMask<float, MaskMode::COUNTER>(100);  // the first 100 elements, in two repeats
    WholeReduceSum<float, false>(res, a, MASK_PLACEHOLDER, 1, 1, 1, 8);
    SetMaskNorm();
    ResetMask();
    BlockReduceMax<float>(res[8], a, 2, 64, 1, 1, 8);
    PairReduceSum<float>(res[32], a, 2, 64, 1, 1, 8);
    WholeReduceMin<float>(res[96], a, 64, 2, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(outGm, res, kN);
}

// A partial mask over strided repeats: Adds(+1) on the first 10 elements of each repeat, the
// source read with a repeat stride of 16 blocks.
extern "C" __global__ __aicore__ void partial_mask(GM_ADDR x, GM_ADDR z) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 3 * kN * sizeof(float));
    GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 2 * kN);
    zGm.SetGlobalBuffer((__gm__ float*)z, kN);
    LocalTensor<float> a = buf.Get<float>();
    LocalTensor<float> r = a[2 * kN];
    DataCopy(a, xGm, 2 * kN);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Duplicate(r, -1.0F, kN);
    PipeBarrier<PIPE_V>();
    UnaryRepeatParams p;
    p.srcRepStride = 16;
    uint64_t bits[2] = {0x3FFULL, 0};
    Adds(r, a, 1.0F, bits, 2, p);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(zGm, r, kN);
}

// Atomic int16 and bf16 adds from every block into one row.
extern "C" __global__ __aicore__ void atomic_small(GM_ADDR acc16, GM_ADDR accbf) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 2 * kN * sizeof(int16_t));
    GlobalTensor<int16_t> iGm;
    GlobalTensor<bfloat16_t> bGm;
    iGm.SetGlobalBuffer((__gm__ int16_t*)acc16, kN);
    bGm.SetGlobalBuffer((__gm__ bfloat16_t*)accbf, kN);
    LocalTensor<int16_t> ones = buf.Get<int16_t>();
    LocalTensor<bfloat16_t> halves = buf.GetWithOffset<bfloat16_t>(kN, kN * sizeof(int16_t));
    Duplicate(ones, static_cast<int16_t>(GetBlockIdx() + 1), kN);
    Duplicate(halves, bfloat16_t(0.5F), kN);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    SetAtomicAdd<int16_t>();
    DataCopy(iGm, ones, kN);
    SetAtomicAdd<bfloat16_t>();
    DataCopy(bGm, halves, kN);
    DisableDmaAtomic();
}

// ReduceMax with calIndex and WholeReduceMax with its default order (value, index) per repeat.
extern "C" __global__ __aicore__ void argmax(GM_ADDR x, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 2 * kN * sizeof(float));
    GlobalTensor<float> xGm, oGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, kN);
    oGm.SetGlobalBuffer((__gm__ float*)out, 8);
    LocalTensor<float> a = buf.Get<float>();
    LocalTensor<float> res = a[kN];
    LocalTensor<float> work = a[kN + 8];
    DataCopy(a, xGm, kN);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Duplicate(res, 0.0F, 8);
    ReduceMax(res, a, work, kN, true);                 // res[0], res[1]
    WholeReduceMax<float>(res[2], a, 64, 2, 1, 1, 8);  // (res[2], res[3]), (res[4], res[5])
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(oGm, res, 8);
}

// Brcb over 2 repeats: dense (one block per element), then with a destination block stride 2.
extern "C" __global__ __aicore__ void brcb_kernel(GM_ADDR x, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 16 * sizeof(float) + 2 * 256 * sizeof(float));
    GlobalTensor<float> xGm, oGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 16);
    oGm.SetGlobalBuffer((__gm__ float*)out, 512);
    LocalTensor<float> a = buf.Get<float>();
    LocalTensor<float> dense = a[16];
    LocalTensor<float> strided = a[16 + 256];
    DataCopy(a, xGm, 16);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Duplicate(a[16], -1.0F, 512);
    Brcb(dense, a, 2, BrcbRepeatParams{1, 8});
    Brcb(strided, a, 2, BrcbRepeatParams{2, 16});
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(oGm, dense, 512);
}

class CountInserted final : public npusim::TransactionObserver {
public:
    void on_transaction(const npusim::Transaction& tx) override {
        if (tx.inserted && tx.op == npusim::Op::PipeBarrier) ++barriers;
        if (npusim::op_info(tx.op).unit == npusim::OpUnit::Vector && !tx.inserted) {
            ++vector_ops;
            names += std::string(npusim::to_string(tx.op)) + " ";
        }
    }
    int barriers = 0;
    int vector_ops = 0;
    std::string names;
};

}  // namespace

TEST_CASE("element types: uint8 int16 uint16 uint32 int64 bf16 copy and add", "[ascendc][apis]") {
    {
        std::vector<uint8_t> x(kN), y(kN);
        for (uint32_t i = 0; i < kN; ++i) x[i] = uint8_t(i * 3), y[i] = uint8_t(200);
        const auto z = run_add<uint8_t>(x, y);
        for (uint32_t i = 0; i < kN; ++i) CHECK(z[i] == uint8_t((i * 3 + 200) & 0xFF));
    }
    {
        std::vector<int16_t> x(kN), y(kN);
        for (uint32_t i = 0; i < kN; ++i) x[i] = int16_t(i * 300 - 20000), y[i] = int16_t(-7);
        const auto z = run_add<int16_t>(x, y);
        for (uint32_t i = 0; i < kN; ++i) CHECK(z[i] == int16_t(int(i) * 300 - 20007));
    }
    {
        std::vector<uint16_t> x(kN, 65535), y(kN, 2);
        CHECK(run_add<uint16_t>(x, y) == std::vector<uint16_t>(kN, 1));  // wraps
    }
    {
        std::vector<uint32_t> x(kN, 4000000000U), y(kN, 5);
        CHECK(run_add<uint32_t>(x, y) == std::vector<uint32_t>(kN, 4000000005U));
    }
    {
        std::vector<int64_t> x(kN, int64_t{1} << 40), y(kN, -1);
        CHECK(run_add<int64_t>(x, y) == std::vector<int64_t>(kN, (int64_t{1} << 40) - 1));
    }
    {
        std::vector<bfloat16_t> x(kN), y(kN);
        for (uint32_t i = 0; i < kN; ++i) x[i] = bfloat16_t(float(i)), y[i] = bfloat16_t(0.5F);
        const auto z = run_add<bfloat16_t>(x, y);
        for (uint32_t i = 0; i < kN; ++i) {
            const float want = float(npusim::bfloat16(float(i) + 0.5F));
            CHECK(float(z[i]) == want);
        }
        CHECK(float(z[1]) == 1.5F);
        CHECK(float(z[127]) == 127.5F);                    // 8 significant bits: exact
        CHECK(float(npusim::bfloat16(257.0F)) == 256.0F);  // 9 bits: ties to even
        CHECK(float(npusim::bfloat16(259.0F)) == 260.0F);
    }
}

TEST_CASE("Cast: every round mode to int32, half and bf16", "[ascendc][apis]") {
    std::vector<float> xs(kN);
    for (uint32_t i = 0; i < kN; ++i) xs[i] = (float(i) - 64.0F) * 0.25F;  // .0 .25 .5 .75
    SECTION("to int32") {
        struct Case {
            RoundMode mode;
            double (*ref)(double);
        };
        const Case cases[] = {{RoundMode::CAST_FLOOR, [](double v) { return std::floor(v); }},
                              {RoundMode::CAST_CEIL, [](double v) { return std::ceil(v); }},
                              {RoundMode::CAST_TRUNC, [](double v) { return std::trunc(v); }},
                              {RoundMode::CAST_ROUND, [](double v) { return std::round(v); }},
                              {RoundMode::CAST_RINT, [](double v) {
                                   const double f = std::floor(v);
                                   const double d = v - f;
                                   if (d != 0.5) return d < 0.5 ? f : f + 1;
                                   return std::fmod(f, 2.0) == 0 ? f : f + 1;
                               }}};
        for (const Case& c : cases) {
            CAPTURE(int(c.mode));
            const auto z = run_cast<int32_t>(xs, c.mode);
            for (uint32_t i = 0; i < kN; ++i) CHECK(z[i] == int32_t(c.ref(xs[i])));
        }
    }
    SECTION("to half: floor, ceil and odd pick the neighbours of an inexact value") {
        std::vector<float> ys(kN, 1.0F + 1.0F / 4096.0F);  // between 1 and 1 + 2^-10
        const auto lo = run_cast<half>(ys, RoundMode::CAST_FLOOR);
        const auto hi = run_cast<half>(ys, RoundMode::CAST_CEIL);
        const auto odd = run_cast<half>(ys, RoundMode::CAST_ODD);
        CHECK(lo[0].bits == 0x3C00);
        CHECK(hi[0].bits == 0x3C01);
        CHECK(odd[0].bits == 0x3C01);
    }
    SECTION("to bf16 truncates or rounds") {
        std::vector<float> ys(kN, 1.0F + 3.0F / 256.0F);  // 1 + 1.5 ulp of bf16
        CHECK(run_cast<bfloat16_t>(ys, RoundMode::CAST_TRUNC)[0].bits == 0x3F81);
        CHECK(run_cast<bfloat16_t>(ys, RoundMode::CAST_RINT)[0].bits == 0x3F82);
    }
}

TEST_CASE("Compare and Select: bits and picks, auto-sync orders them", "[ascendc][apis]") {
    const bool auto_sync = GENERATE(true, false);
    CAPTURE(auto_sync);
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    CountInserted inserted;
    sim.attach(checker);
    sim.attach(inserted);
    auto x = sim.allocate<float>(kN, "x");
    auto z = sim.allocate<float>(kN, "z");
    auto bits = sim.allocate<uint8_t>(32, "bits");
    std::vector<float> xs(kN);
    for (uint32_t i = 0; i < kN; ++i) xs[i] = (i % 3 == 0) ? -float(i) : float(i) + 1.0F;
    sim.write(x, xs);
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "compare_select"},
               npusim::ascendc::bind_kernel(compare_select, {.auto_sync = auto_sync}, gm_addr(x),
                                            gm_addr(z), gm_addr(bits)));
    REQUIRE(sim.run().completed());
    if (auto_sync) {
        const auto zs = sim.read(z);
        const auto bs = sim.read(bits);
        for (uint32_t i = 0; i < kN; ++i) {
            const bool gt = xs[i] > 0.0F;
            CHECK(((bs[i / 8] >> (i % 8)) & 1) == (gt ? 1 : 0));
            CHECK(zs[i] == (gt ? xs[i] : 0.5F));
        }
        CHECK(inserted.barriers == 1);  // Select reads Compare's bits
        CHECK_THAT(checker.findings(), npusim::NoFindings());
    } else {
        CHECK_THAT(checker.findings(),
                   npusim::ExactlyFindings({{.kind = npusim::FindingKind::RaceRAW,
                                             .space = npusim::MemSpace::UB,
                                             .scope = npusim::RaceScope::IntraPipe,
                                             .first_pipe = npusim::Pipe::V,
                                             .second_pipe = npusim::Pipe::V,
                                             .first_line = unsigned(g_compare_line),
                                             .second_line = unsigned(g_select_line)}}));
    }
}

TEST_CASE("And Or Not on uint16, Axpy reads its destination", "[ascendc][apis]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto u = sim.allocate<uint16_t>(kN, "u");
    auto v = sim.allocate<uint16_t>(kN, "v");
    auto r = sim.allocate<uint16_t>(3 * kN, "r");
    auto f = sim.allocate<float>(kN, "f");
    auto g = sim.allocate<float>(kN, "g");
    std::vector<uint16_t> us(kN), vs(kN);
    std::vector<float> fs(kN), gs(kN);
    for (uint32_t i = 0; i < kN; ++i) {
        us[i] = uint16_t(i * 517U);
        vs[i] = uint16_t(0xF0F0U ^ i);
        fs[i] = float(i);
        gs[i] = 1.0F;
    }
    sim.write(u, us);
    sim.write(v, vs);
    sim.write(f, fs);
    sim.write(g, gs);
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "bits_and_axpy"},
               npusim::ascendc::bind_kernel(bits_and_axpy, gm_addr(u), gm_addr(v), gm_addr(r),
                                            gm_addr(f), gm_addr(g)));
    REQUIRE(sim.run().completed());
    const auto rs = sim.read(r);
    const auto out = sim.read(g);
    for (uint32_t i = 0; i < kN; ++i) {
        CHECK(rs[i] == uint16_t(us[i] & vs[i]));
        CHECK(rs[kN + i] == uint16_t(us[i] | vs[i]));
        CHECK(rs[2 * kN + i] == uint16_t(~us[i]));
        CHECK(out[i] == fs[i] * 2.0F + 1.0F);
    }
    CHECK_THAT(checker.findings(), npusim::NoFindings());
}

TEST_CASE("per-repeat reductions and the mask registers", "[ascendc][apis]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    CountInserted inserted;
    sim.attach(checker);
    sim.attach(inserted);
    auto x = sim.allocate<float>(kN, "x");
    auto out = sim.allocate<float>(kN, "out");
    std::vector<float> xs(kN);
    for (uint32_t i = 0; i < kN; ++i) xs[i] = float((i * 37) % 101) - 50.0F;
    sim.write(x, xs);
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "reductions"},
               npusim::ascendc::bind_kernel(reductions, gm_addr(x), gm_addr(out)));
    REQUIRE(sim.run().completed());
    const auto rs = sim.read(out);
    // Counter mode, 100 elements: repeat 0 sums 64, repeat 1 the next 36.
    float s0 = 0, s1 = 0;
    for (uint32_t i = 0; i < 64; ++i) s0 += xs[i];
    for (uint32_t i = 64; i < 100; ++i) s1 += xs[i];
    CHECK(rs[0] == s0);
    CHECK(rs[1] == s1);
    for (uint32_t blk = 0; blk < 16; ++blk) {
        float m = xs[blk * 8];
        for (uint32_t i = 1; i < 8; ++i) m = std::max(m, xs[blk * 8 + i]);
        CHECK(rs[8 + blk] == m);
    }
    for (uint32_t p = 0; p < 64; ++p) CHECK(rs[32 + p] == xs[2 * p] + xs[2 * p + 1]);
    for (uint32_t r = 0; r < 2; ++r) {
        float m = xs[r * 64];
        for (uint32_t i = 1; i < 64; ++i) m = std::min(m, xs[r * 64 + i]);
        CHECK(rs[96 + r] == m);
    }
    CHECK_THAT(checker.findings(), npusim::NoFindings());
    // Dense calls are one instruction each: Duplicate, WholeReduceSum (its two repeats hold
    // 64 and 36 elements: two), BlockReduceMax, PairReduceSum, WholeReduceMin.
    CAPTURE(inserted.names);
    CHECK(inserted.vector_ops == 6);
}

TEST_CASE("a partial bit mask over strided repeats touches only the enabled elements",
          "[ascendc][apis]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto x = sim.allocate<float>(2 * kN, "x");
    auto z = sim.allocate<float>(kN, "z");
    std::vector<float> xs(2 * kN);
    for (uint32_t i = 0; i < 2 * kN; ++i) xs[i] = float(i);
    sim.write(x, xs);
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "partial_mask"},
               npusim::ascendc::bind_kernel(partial_mask, gm_addr(x), gm_addr(z)));
    REQUIRE(sim.run().completed());
    const auto zs = sim.read(z);
    for (uint32_t r = 0; r < 2; ++r) {
        for (uint32_t e = 0; e < 64; ++e) {
            const float want = e < 10 ? xs[r * 128 + e] + 1.0F : -1.0F;
            CHECK(zs[r * 64 + e] == want);
        }
    }
    CHECK_THAT(checker.findings(), npusim::NoFindings());
}

TEST_CASE("atomic adds of int16 and bf16 from several blocks", "[ascendc][apis]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto acc16 = sim.allocate<int16_t>(kN, "acc16");
    auto accbf = sim.allocate<bfloat16_t>(kN, "accbf");
    sim.write(acc16, std::vector<int16_t>(kN, 100));
    sim.write(accbf, std::vector<bfloat16_t>(kN, bfloat16_t(1.0F)));
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "atomic_small", .blocks = 4},
               npusim::ascendc::bind_kernel(atomic_small, gm_addr(acc16), gm_addr(accbf)));
    REQUIRE(sim.run().completed());
    CHECK(sim.read(acc16) == std::vector<int16_t>(kN, int16_t(100 + 1 + 2 + 3 + 4)));
    for (bfloat16_t v : sim.read(accbf)) CHECK(float(v) == 3.0F);
    CHECK_THAT(checker.findings(), npusim::NoFindings());
}

namespace {
// A scalar GM store, dcci, then a DMA read of it (the public kernels' pattern).
extern "C" __global__ __aicore__ void store_dcci_load(GM_ADDR x, GM_ADDR z) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 8 * sizeof(float));
    GlobalTensor<float> xGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 8);
    zGm.SetGlobalBuffer((__gm__ float*)z, 8);
    xGm.SetValue(0, 7.0F);
    dcci((__gm__ uint64_t*)xGm.GetPhyAddr(), 0);
    DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(xGm);
    DataCachePreload(xGm, 0);
    LocalTensor<float> t = buf.Get<float>();
    DataCopy(t, xGm, 8);
    SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);
    DataCopy(zGm, t, 8);
}
}  // namespace

TEST_CASE("dcci and DataCachePreload are timed no-ops: auto-sync still orders the store",
          "[ascendc][apis]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto x = sim.allocate<float>(8, "x");
    auto z = sim.allocate<float>(8, "z");
    sim.write(x, std::vector<float>(8, 1.0F));
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "store_dcci_load"},
               npusim::ascendc::bind_kernel(store_dcci_load, gm_addr(x), gm_addr(z)));
    REQUIRE(sim.run().completed());
    const auto zs = sim.read(z);
    CHECK(zs[0] == 7.0F);
    CHECK(zs[1] == 1.0F);
    CHECK_THAT(checker.findings(), npusim::NoFindings());
}

TEST_CASE("ReduceMax with calIndex and WholeReduceMax write value and position",
          "[ascendc][apis]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto x = sim.allocate<float>(kN, "x");
    auto out = sim.allocate<float>(8, "out");
    std::vector<float> xs(kN);
    for (uint32_t i = 0; i < kN; ++i) xs[i] = float((i * 37) % 101);
    sim.write(x, xs);
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "argmax"}, npusim::ascendc::bind_kernel(argmax, gm_addr(x), gm_addr(out)));
    REQUIRE(sim.run().completed());
    const auto rs = sim.read(out);
    auto position = [&](uint32_t slot) {
        uint32_t bits = 0;
        std::memcpy(&bits, &rs[slot], sizeof bits);
        return bits;
    };
    auto argmax_of = [&](uint32_t from, uint32_t n) {
        uint32_t best = from;
        for (uint32_t i = from + 1; i < from + n; ++i) {
            if (xs[i] > xs[best]) best = i;
        }
        return best;
    };
    CHECK(rs[0] == xs[argmax_of(0, kN)]);
    CHECK(position(1) == argmax_of(0, kN));
    CHECK(rs[2] == xs[argmax_of(0, 64)]);
    CHECK(position(3) == argmax_of(0, 64));
    CHECK(rs[4] == xs[argmax_of(64, 64)]);
    CHECK(position(5) == argmax_of(64, 64) - 64);  // the position inside the repeat
    CHECK_THAT(checker.findings(), npusim::NoFindings());
}

TEST_CASE("Brcb broadcasts each element into a 32-byte block, dense and strided",
          "[ascendc][apis]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto x = sim.allocate<float>(16, "x");
    auto out = sim.allocate<float>(512, "out");
    std::vector<float> xs(16);
    for (uint32_t i = 0; i < 16; ++i) xs[i] = float(i + 1);
    sim.write(x, xs);
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "brcb"},
               npusim::ascendc::bind_kernel(brcb_kernel, gm_addr(x), gm_addr(out)));
    REQUIRE(sim.run().completed());
    const auto rs = sim.read(out);
    for (uint32_t i = 0; i < 128; ++i) CHECK(rs[i] == xs[i / 8]);  // dense: 16 blocks
    for (uint32_t i = 128; i < 256; ++i) CHECK(rs[i] == -1.0F);    // untouched
    for (uint32_t blk = 0; blk < 32; ++blk) {                      // strided: every other
        const float want = blk % 2 == 0 ? xs[blk / 2] : -1.0F;
        for (uint32_t k = 0; k < 8; ++k) CHECK(rs[256 + blk * 8 + k] == want);
    }
    CHECK_THAT(checker.findings(), npusim::NoFindings());
}

namespace {

// out[0..n) = relu(a + b), out[n..2n) = relu(a - b) (mask/repeat form over 2 repeats).
extern "C" __global__ __aicore__ void add_sub_relu(GM_ADDR a, GM_ADDR b, GM_ADDR out) {
    constexpr uint32_t n = 128;
    LocalMemAllocator<Hardware::UB> ub;
    LocalTensor<float> x = ub.Alloc<float>(n);
    LocalTensor<float> y = ub.Alloc<float>(n);
    LocalTensor<float> z = ub.Alloc<float>(2 * n);
    GlobalTensor<float> aGm, bGm, oGm;
    aGm.SetGlobalBuffer((__gm__ float*)a, n);
    bGm.SetGlobalBuffer((__gm__ float*)b, n);
    oGm.SetGlobalBuffer((__gm__ float*)out, 2 * n);
    DataCopy(x, aGm, n);
    DataCopy(y, bGm, n);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    AddRelu(z, x, y, n);
    SubRelu(z[n], x, y, uint64_t(64), 2, BinaryRepeatParams{});
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(oGm, z, 2 * n);
}

}  // namespace

TEST_CASE("AddRelu and SubRelu: one instruction each, relu of the sum / difference",
          "[ascendc][apis]") {
    constexpr uint32_t n = 128;
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto a = sim.allocate<float>(n, "a");
    auto b = sim.allocate<float>(n, "b");
    auto out = sim.allocate<float>(2 * n, "out");
    std::vector<float> as(n), bs(n);
    for (uint32_t i = 0; i < n; ++i) {
        as[i] = float(int(i % 11) - 5);
        bs[i] = float(int(i % 7) - 3);
    }
    sim.write(a, as);
    sim.write(b, bs);
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "add_sub_relu"},
               npusim::ascendc::bind_kernel(add_sub_relu, gm_addr(a), gm_addr(b), gm_addr(out)));
    REQUIRE(sim.run().completed());
    const auto o = sim.read(out);
    for (uint32_t i = 0; i < n; ++i) {
        CHECK(o[i] == std::max(as[i] + bs[i], 0.0F));
        CHECK(o[n + i] == std::max(as[i] - bs[i], 0.0F));
    }
    CHECK_THAT(checker.findings(), npusim::NoFindings());
}

namespace {
int g_pool_add_line = 0;   // the first pass's Add (reads the pool's input buffers)
int g_pool_copy_line = 0;  // the second pass's DataCopy into the shared region
int g_pool_sub_line = 0;   // the second pass's Sub (writes the shared output buffer)
int g_pool_out_line = 0;   // the first pass's DataCopy out (reads the output buffer)

// z[0..kN) = x + y and z[kN..2kN) = x - y, x and y taken from a ListTensorDesc (the dynamic
// inputs of an operator): the first pass in TBufPool p1, the second in p2, which shares p1's
// region once p1.Reset() gave it back. `racy` != 0 skips the Reset: its queues' reuse flags
// are never waited for, so the second pass overwrites buffers the first still reads.
extern "C" __global__ __aicore__ void pool_list_add(GM_ADDR list, GM_ADDR z, uint32_t racy) {
    TPipe pipe;
    ListTensorDesc inputs((__gm__ void*)list);
    GlobalTensor<float> xGm, yGm, zGm;
    xGm.SetGlobalBuffer(inputs.GetDataPtr<float>(0), kN);
    yGm.SetGlobalBuffer(inputs.GetDataPtr<float>(1), kN);
    zGm.SetGlobalBuffer((__gm__ float*)z, 2 * kN);
    TBufPool<TPosition::VECCALC> p1, p2;
    TQue<TPosition::VECIN, 1> inX, inY, inX2, inY2;
    TQue<TPosition::VECOUT, 1> out, out2;
    pipe.InitBufPool(p1, 3 * kN * sizeof(float));
    pipe.InitBufPool(p2, 3 * kN * sizeof(float), p1);
    p1.InitBuffer(inX, 1, kN * sizeof(float));
    p1.InitBuffer(inY, 1, kN * sizeof(float));
    p1.InitBuffer(out, 1, kN * sizeof(float));
    for (int pass = 0; pass < 2; ++pass) {
        TQue<TPosition::VECIN, 1>& qx = pass == 0 ? inX : inX2;
        TQue<TPosition::VECIN, 1>& qy = pass == 0 ? inY : inY2;
        TQue<TPosition::VECOUT, 1>& qo = pass == 0 ? out : out2;
        LocalTensor<float> a = qx.AllocTensor<float>();
        LocalTensor<float> b = qy.AllocTensor<float>();
        if (pass == 1) g_pool_copy_line = __LINE__ + 1;
        DataCopy(a, xGm, kN);
        DataCopy(b, yGm, kN);
        qx.EnQue(a);
        qy.EnQue(b);
        a = qx.DeQue<float>();
        b = qy.DeQue<float>();
        LocalTensor<float> c = qo.AllocTensor<float>();
        if (pass == 0) {
            g_pool_add_line = __LINE__ + 1;
            Add(c, a, b, kN);
        } else {
            g_pool_sub_line = __LINE__ + 1;
            Sub(c, a, b, kN);
        }
        qo.EnQue(c);
        qx.FreeTensor(a);
        qy.FreeTensor(b);
        c = qo.DeQue<float>();
        if (pass == 0) g_pool_out_line = __LINE__ + 1;
        DataCopy(zGm[pass * kN], c, kN);
        qo.FreeTensor(c);
        if (pass == 0) {
            if (racy == 0) p1.Reset();
            p2.InitBuffer(inX2, 1, kN * sizeof(float));
            p2.InitBuffer(inY2, 1, kN * sizeof(float));
            p2.InitBuffer(out2, 1, kN * sizeof(float));
        }
    }
}

struct PoolListResult {
    std::vector<float> z;
    std::vector<npusim::Finding> findings;
};

PoolListResult run_pool_list(uint32_t racy, const std::vector<float>& xs,
                             const std::vector<float>& ys) {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    auto x = sim.allocate<float>(kN, "x");
    auto y = sim.allocate<float>(kN, "y");
    auto z = sim.allocate<float>(2 * kN, "z");
    auto list = sim.allocate<uint64_t>(7, "list");
    sim.write(x, xs);
    sim.write(y, ys);
    // ptrOffset, then (dim 1 | index << 32, shape) per tensor, then the data pointers.
    using npusim::ascendc::gm_addr;
    // The list holds the tensors' device pointers, as a host program writes them.
    const auto pointer_word = [](GM_ADDR p) { return uint64_t(reinterpret_cast<uintptr_t>(p)); };
    sim.write(list, std::vector<uint64_t>{5 * 8, 1, kN, 1 | (uint64_t{1} << 32), kN,
                                          pointer_word(gm_addr(x)), pointer_word(gm_addr(y))});
    sim.launch({.name = "pool_list_add"},
               npusim::ascendc::bind_kernel(pool_list_add, gm_addr(list), gm_addr(z), racy));
    REQUIRE(sim.run().completed());
    return {sim.read(z), checker.findings()};
}
}  // namespace

TEST_CASE("TBufPool reuse through Reset and a shared pool, inputs from a ListTensorDesc",
          "[ascendc][apis]") {
    std::vector<float> xs(kN), ys(kN);
    for (uint32_t i = 0; i < kN; ++i) {
        xs[i] = float(i % 13);
        ys[i] = float(int(i % 5) - 2);
    }
    const PoolListResult r = run_pool_list(0, xs, ys);
    for (uint32_t i = 0; i < kN; ++i) {
        CHECK(r.z[i] == xs[i] + ys[i]);
        CHECK(r.z[kN + i] == xs[i] - ys[i]);
    }
    CHECK_THAT(r.findings, npusim::NoFindings());

    // Without the Reset the second pass's copies into the shared region race the first
    // pass's copies (MTE2) and its Add (V), and its Sub the first pass's copy out (MTE3).
    const PoolListResult racy = run_pool_list(1, xs, ys);
    const auto copy = static_cast<unsigned>(g_pool_copy_line);
    const auto add = static_cast<unsigned>(g_pool_add_line);
    const auto sub = static_cast<unsigned>(g_pool_sub_line);
    const auto out = static_cast<unsigned>(g_pool_out_line);
    using npusim::FindingKind;
    using npusim::MemSpace;
    CHECK_THAT(racy.findings, npusim::ExactlyFindings({{.kind = FindingKind::RaceWAW,
                                                        .space = MemSpace::UB,
                                                        .first_line = copy,
                                                        .second_line = copy},
                                                       {.kind = FindingKind::RaceWAW,
                                                        .space = MemSpace::UB,
                                                        .first_line = copy + 1,
                                                        .second_line = copy + 1},
                                                       {.kind = FindingKind::RaceWAR,
                                                        .space = MemSpace::UB,
                                                        .first_line = add,
                                                        .second_line = copy},
                                                       {.kind = FindingKind::RaceWAR,
                                                        .space = MemSpace::UB,
                                                        .first_line = add,
                                                        .second_line = copy + 1},
                                                       {.kind = FindingKind::RaceWAR,
                                                        .space = MemSpace::UB,
                                                        .first_line = out,
                                                        .second_line = sub}}));
}
