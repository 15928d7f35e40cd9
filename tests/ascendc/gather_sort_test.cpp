// Gather, GatherMask (built-in and tensor patterns, normal and counter mode), Sort32 and
// MrgSort through the Ascend C layer: outputs against plain reference loops, the checker clean,
// the automatic synchronization around them (on: clean; off: the intra-pipe RAW it would have
// prevented) and a missing flag reported at the kernel's lines.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "kernel_operator.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"

using namespace AscendC;

namespace {

constexpr uint32_t kScores = 128;  // 4 Sort32 repeats, then one MrgSort of 4 queues
unsigned g_load_line = 0;
unsigned g_sort_line = 0;
unsigned g_merge_line = 0;
bool g_drop_flag = false;

// Scores (float) and their indices (uint32) -> 128 sorted (score, index) pairs.
extern "C" __global__ __aicore__ void sort_kernel(GM_ADDR scores, GM_ADDR indices, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, kScores * (4 + 4 + 8 + 8));
    GlobalTensor<float> sGm, oGm;
    GlobalTensor<uint32_t> iGm;
    sGm.SetGlobalBuffer((__gm__ float*)scores, kScores);
    iGm.SetGlobalBuffer((__gm__ uint32_t*)indices, kScores);
    oGm.SetGlobalBuffer((__gm__ float*)out, 2 * kScores);
    LocalTensor<float> s = buf.Get<float>();
    LocalTensor<uint32_t> idx = s[kScores].ReinterpretCast<uint32_t>();
    LocalTensor<float> sorted = s[2 * kScores];
    LocalTensor<float> merged = s[4 * kScores];
    g_load_line = __LINE__ + 1;
    DataCopy(s, sGm, kScores);
    DataCopy(idx, iGm, kScores);
    if (!g_drop_flag) {
        SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    }
    g_sort_line = __LINE__ + 1;
    Sort32<float>(sorted, s, idx, kScores / 32);
    MrgSort4Info params;
    for (auto& length : params.elementLengths) length = 32;
    params.ifExhaustedSuspension = false;
    params.validBit = 0b1111;
    params.repeatTimes = 1;
    MrgSortSrcList<float> list(sorted[0], sorted[64], sorted[128], sorted[192]);
    g_merge_line = __LINE__ + 1;
    MrgSort<float>(merged, list, params);  // no barrier: the automatic synchronization's
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(oGm, merged, 2 * kScores);
}

struct SortRun {
    std::vector<float> scores;
    std::vector<float> out;
    std::vector<npusim::Finding> findings;
};

SortRun run_sort(bool auto_sync, bool drop_flag) {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    SortRun r;
    r.scores.resize(kScores);
    for (uint32_t i = 0; i < kScores; ++i) r.scores[i] = float((i * 37) % 101) - 50.0F;
    std::vector<uint32_t> ids(kScores);
    std::iota(ids.begin(), ids.end(), 1000U);
    auto s = sim.allocate<float>(kScores, "scores");
    auto ix = sim.allocate<uint32_t>(kScores, "indices");
    auto out = sim.allocate<float>(2 * kScores, "out");
    sim.write(s, r.scores);
    sim.write(ix, ids);
    g_drop_flag = drop_flag;
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "sort"},
               npusim::ascendc::bind_kernel(sort_kernel, {.auto_sync = auto_sync}, gm_addr(s),
                                            gm_addr(ix), gm_addr(out)));
    REQUIRE(sim.run().completed());
    r.out = sim.read(out);
    r.findings = checker.findings();
    return r;
}

// GatherMask with built-in pattern 2 (odd elements) in normal mode over 2 repeats, with a
// uint32 pattern tensor in counter mode, then Gather by byte offsets.
uint64_t g_kept_builtin = 0;
uint64_t g_kept_tensor = 0;
extern "C" __global__ __aicore__ void gather_kernel(GM_ADDR x, GM_ADDR pattern, GM_ADDR offsets,
                                                    GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024 * 4);
    GlobalTensor<int32_t> xGm, oGm;
    GlobalTensor<uint32_t> pGm, fGm;
    xGm.SetGlobalBuffer((__gm__ int32_t*)x, 128);
    pGm.SetGlobalBuffer((__gm__ uint32_t*)pattern, 8);
    fGm.SetGlobalBuffer((__gm__ uint32_t*)offsets, 64);
    oGm.SetGlobalBuffer((__gm__ int32_t*)out, 192);
    LocalTensor<int32_t> a = buf.Get<int32_t>();
    LocalTensor<uint32_t> bits = a[128].ReinterpretCast<uint32_t>();
    LocalTensor<uint32_t> offs = a[136].ReinterpretCast<uint32_t>();
    LocalTensor<int32_t> res = a[256];
    DataCopy(a, xGm, 128);
    DataCopy(bits, pGm, 8);
    DataCopy(offs, fGm, 64);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Duplicate(res, int32_t(-1), 192);
    GatherMask(res, a, uint8_t(2), false, 0, {1, 2, 8, 0}, g_kept_builtin);
    // Counter mode: 40 elements per repeat, 2 repeats 16 elements apart, the pattern reused.
    GatherMask(res[64], a, bits, true, 40, {1, 2, 2, 0}, g_kept_tensor);
    Gather(res[128], a, offs, uint32_t(4), 64);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(oGm, res, 192);
}

}  // namespace

TEST_CASE("Sort32 and MrgSort sort 128 scores descending with their indices", "[ascendc][apis]") {
    const SortRun r = run_sort(true, false);
    std::vector<uint32_t> order(kScores);
    std::iota(order.begin(), order.end(), 0U);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return r.scores[a] > r.scores[b]; });
    for (uint32_t j = 0; j < kScores; ++j) {
        CAPTURE(j);
        CHECK(r.out[2 * j] == r.scores[order[j]]);
        uint32_t index = 0;
        std::memcpy(&index, &r.out[2 * j + 1], 4);
        CHECK(r.scores[index - 1000] == r.out[2 * j]);
    }
    CHECK_THAT(r.findings, npusim::NoFindings());
}

TEST_CASE("Sort32 and MrgSort: auto-sync off leaves the intra-pipe RAW, a missing flag a RAW",
          "[ascendc][apis]") {
    // Each run first: the kernel records its lines when it runs.
    const SortRun no_auto_sync = run_sort(false, false);
    const SortRun no_flag = run_sort(true, true);
    CHECK_THAT(no_auto_sync.findings,
               npusim::ExactlyFindings({{.kind = npusim::FindingKind::RaceRAW,
                                         .space = npusim::MemSpace::UB,
                                         .scope = npusim::RaceScope::IntraPipe,
                                         .first_pipe = npusim::Pipe::V,
                                         .second_pipe = npusim::Pipe::V,
                                         .first_line = g_sort_line,
                                         .second_line = g_merge_line}}));
    // Both loads (scores, indices) race with Sort32.
    const npusim::Expected load_race{.kind = npusim::FindingKind::RaceRAW,
                                     .space = npusim::MemSpace::UB,
                                     .scope = npusim::RaceScope::InterPipe,
                                     .first_pipe = npusim::Pipe::MTE2,
                                     .second_pipe = npusim::Pipe::V,
                                     .first_line = g_load_line,
                                     .second_line = g_sort_line};
    npusim::Expected index_race = load_race;
    index_race.first_line = g_load_line + 1;
    CHECK_THAT(no_flag.findings, npusim::ExactlyFindings({load_race, index_race}));
}

TEST_CASE("GatherMask (built-in and tensor patterns) and Gather against reference loops",
          "[ascendc][apis]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    std::vector<int32_t> xs(128);
    std::iota(xs.begin(), xs.end(), 0);
    const std::vector<uint32_t> pattern{0x99999999U, 0x0000000FU, 0, 0, 0, 0, 0, 0};
    std::vector<uint32_t> offsets(64);
    for (uint32_t i = 0; i < 64; ++i) offsets[i] = ((i * 13) % 120) * 4;
    auto x = sim.allocate<int32_t>(128, "x");
    auto p = sim.allocate<uint32_t>(8, "pattern");
    auto f = sim.allocate<uint32_t>(64, "offsets");
    auto out = sim.allocate<int32_t>(192, "out");
    sim.write(x, xs);
    sim.write(p, pattern);
    sim.write(f, offsets);
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "gather"},
               npusim::ascendc::bind_kernel(gather_kernel, gm_addr(x), gm_addr(p), gm_addr(f),
                                            gm_addr(out)));
    REQUIRE(sim.run().completed());
    const auto rs = sim.read(out);
    // Built-in pattern 2, 2 repeats of 64 contiguous int32: the 64 odd elements.
    CHECK(g_kept_builtin == 64);
    for (uint32_t i = 0; i < 64; ++i) CHECK(rs[i] == xs[2 * i + 1]);
    // Tensor pattern, 40 elements a repeat (bits 0x99999999 then 0xF: 20 kept), 2 repeats.
    std::vector<int32_t> want;
    for (uint32_t r = 0; r < 2; ++r) {
        for (uint32_t i = 0; i < 40; ++i) {
            if ((pattern[i / 32] >> (i % 32)) & 1U) want.push_back(xs[r * 16 + i]);
        }
    }
    CHECK(g_kept_tensor == want.size());
    for (uint32_t i = 0; i < 64; ++i) CHECK(rs[64 + i] == (i < want.size() ? want[i] : -1));
    // Gather: base 4 bytes plus each offset.
    for (uint32_t i = 0; i < 64; ++i) CHECK(rs[128 + i] == xs[offsets[i] / 4 + 1]);
    CHECK_THAT(checker.findings(), npusim::NoFindings());
}

namespace {

unsigned g_gatherb_line = 0;

// Gatherb over 2 repeats: block k of dst (dstBlkStride 1, dstRepStride 8) = block 15 - k of src;
// the offsets come from GM (MTE2 -> V, and the scalar unit reads them behind MTE2 -> S).
extern "C" __global__ __aicore__ void gatherb_kernel(GM_ADDR x, GM_ADDR offsets, GM_ADDR out,
                                                     uint32_t bad) {
    LocalMemAllocator<Hardware::UB> ub;
    LocalTensor<uint16_t> src = ub.Alloc<uint16_t>(256);
    LocalTensor<uint32_t> off = ub.Alloc<uint32_t>(16);
    LocalTensor<uint16_t> dst = ub.Alloc<uint16_t>(256);
    GlobalTensor<uint16_t> xGm, oGm;
    GlobalTensor<uint32_t> fGm;
    xGm.SetGlobalBuffer((__gm__ uint16_t*)x, 256);
    fGm.SetGlobalBuffer((__gm__ uint32_t*)offsets, 16);
    oGm.SetGlobalBuffer((__gm__ uint16_t*)out, 256);
    DataCopy(src, xGm, 256);
    DataCopy(off, fGm, 16);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    if (bad != 0) off.SetValue(3, 40);
    g_gatherb_line = __LINE__ + 1;
    Gatherb(dst, src, off, 2, GatherRepeatParams{1, 8});
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(oGm, dst, 256);
}

}  // namespace

TEST_CASE("Ascend C Gatherb: 32-byte blocks by byte offsets, checked clean; bad offsets stop",
          "[ascendc]") {
    for (uint32_t bad = 0; bad < 2; ++bad) {
        npusim::Simulator sim(npusim::builtin_chip_config("small"));
        npusim::Checker checker(sim.global_memory());
        sim.attach(checker);
        std::vector<uint16_t> x(256);
        std::iota(x.begin(), x.end(), uint16_t(100));
        std::vector<uint32_t> offsets(16);
        for (uint32_t k = 0; k < 16; ++k) offsets[k] = (15 - k) * 32;
        auto xb = sim.allocate<uint16_t>(256, "x");
        auto fb = sim.allocate<uint32_t>(16, "offsets");
        auto ob = sim.allocate<uint16_t>(256, "out");
        sim.write(xb, x);
        sim.write(fb, offsets);
        using npusim::ascendc::gm_addr;
        sim.launch({.name = "gatherb"},
                   npusim::ascendc::bind_kernel(gatherb_kernel, gm_addr(xb), gm_addr(fb),
                                                gm_addr(ob), bad));
        if (bad != 0) {
            std::string message;
            try {
                sim.run();
            } catch (const npusim::KernelError& error) {
                message = error.what();
            }
            CHECK_THAT(
                message,
                Catch::Contains("gather_sort_test.cpp:" + std::to_string(g_gatherb_line) + ":") &&
                    Catch::Contains("Gatherb: offset 40 of block 3"));
            continue;
        }
        REQUIRE(sim.run().completed());
        const std::vector<uint16_t> o = sim.read(ob);
        for (uint32_t k = 0; k < 16; ++k) {
            for (uint32_t e = 0; e < 16; ++e) CHECK(o[k * 16 + e] == x[(15 - k) * 16 + e]);
        }
        CHECK(checker.findings().empty());
    }
}

namespace {

unsigned g_refused_lines[4] = {0, 0, 0, 0};

// The forms of Transpose, TransDataTo5HD, GetMrgSortResult and int4b_t views npusim refuses,
// one per `which`, each a KernelError naming the line.
extern "C" __global__ __aicore__ void refused_kernel(uint32_t which) {
    LocalMemAllocator<Hardware::UB> ub;
    LocalTensor<half> a = ub.Alloc<half>(512);
    LocalTensor<half> b = ub.Alloc<half>(512);
    LocalTensor<uint8_t> tmp = ub.Alloc<uint8_t>(64);
    Duplicate(a, half(1), 512);
    uint64_t dstList[16], srcList[16];
    for (int i = 0; i < 16; ++i) {
        dstList[i] = b[16 * i].GetPhyAddr();
        srcList[i] = a[16 * (i == 5 ? 20 : i)].GetPhyAddr();  // one address out of step
    }
    uint16_t q[4] = {0, 0, 0, 0};
    if (which == 0) {
        g_refused_lines[0] = __LINE__ + 1;
        Transpose(b, a, tmp, {1, 2, 2, 8, TransposeType::TRANSPOSE_NCHW2NHWC});
    } else if (which == 1) {
        g_refused_lines[1] = __LINE__ + 1;
        TransDataTo5HD<half>(dstList, srcList, {false, false, 1, 0, 0});
    } else if (which == 2) {
        g_refused_lines[2] = __LINE__ + 1;
        GetMrgSortResult(q[0], q[1], q[2], q[3]);
    } else {
        g_refused_lines[3] = __LINE__ + 1;
        Cast(b, a.ReinterpretCast<int4b_t>()[0], RoundMode::CAST_NONE, 3);
    }
}

}  // namespace

TEST_CASE("Ascend C Transpose, TransDataTo5HD, GetMrgSortResult, int4b_t: refused forms stop",
          "[ascendc]") {
    const char* messages[] = {"Transpose: sharedTmpBuffer holds 64 bytes, this shape needs 2048",
                              "TransDataTo5HD with source addresses that are not evenly spaced",
                              "GetMrgSortResult before any MrgSort with ifExhaustedSuspension",
                              "Cast of 3 int4b_t elements"};
    for (uint32_t which = 0; which < 4; ++which) {
        npusim::Simulator sim(npusim::builtin_chip_config("small"));
        sim.launch({.name = "refused"}, npusim::ascendc::bind_kernel(refused_kernel, which));
        std::string message;
        try {
            sim.run();
        } catch (const npusim::KernelError& error) {
            message = error.what();
        }
        CAPTURE(which);
        CHECK_THAT(message, Catch::Contains("gather_sort_test.cpp:" +
                                            std::to_string(g_refused_lines[which]) + ":") &&
                                Catch::Contains(messages[which]));
    }
}
