// The layout API (npusim_ascendc/layout.h) as pure index arithmetic, checked without a kernel
// (also at compile time), and the advanced TransData (npusim_ascendc/adv_transdata.h): the four
// conversions of int16 tensors with unaligned C, N and H x W against a plain CPU reference, the
// host temp size accepted, the NCDHW output's padding 0, the checker clean, and one racy variant
// (a dropped MTE2 -> V flag) pinned.
#include <cstdint>
#include <exception>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

#include "adv_run.h"
#include "kernel_operator.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"
#include "tiling/tiling_api.h"

using namespace AscendC;

namespace {

// The reference's worked example: shape (3, 4, 5), stride (20, 5, 1), coordinate (1, 2, 3).
static_assert(Crd2Idx(MakeCoord(1, 2, 3), MakeShape(3, 4, 5), MakeStride(20, 5, 1)) == 33);
// Nested static modes: the scalar coordinates split column-major; the index is a Std::Int.
constexpr auto kNested = MakeLayout(
    MakeShape(MakeShape(Std::Int<2>{}, Std::Int<4>{}), MakeShape(Std::Int<3>{}, Std::Int<5>{})),
    MakeStride(MakeStride(Std::Int<3>{}, Std::Int<6>{}),
               MakeStride(Std::Int<1>{}, Std::Int<24>{})));
static_assert(decltype(kNested(MakeCoord(Std::Int<11>{}, Std::Int<12>{})))::value == 129);
static_assert(is_layout<decltype(kNested)>::value && !is_layout<Shape<int, int>>::value);

}  // namespace

TEST_CASE("Layout API: Crd2Idx, GetShape / GetStride, MakeCoord, nested and scalar coordinates",
          "[ascendc][layout]") {
    // A row-major M x K matrix as asc-devkit's matmul_l2cache indexes it (int64 coordinates).
    const int32_t m = 96, k = 40;
    Coord<int64_t, int64_t> at = MakeCoord(int64_t{32}, int64_t{8});
    auto a = MakeLayout(MakeShape(m, k), MakeStride(k, 1));
    const int64_t offset = a(at);
    CHECK(offset == 32 * 40 + 8);
    CHECK(Crd2Idx(at, a) == offset);
    CHECK(Std::get<0>(a.GetShape()) == 96);
    CHECK(Std::get<1>(a.GetStride()) == 1);
    Std::get<0>(a.GetStride()) = 64;  // GetStride() is the layout's own
    CHECK(a(MakeCoord(1, 2)) == 66);
    CHECK(&a.layout() == &a);
    // A column-major layout, and a scalar coordinate over a flat shape (split column-major).
    const auto col = MakeLayout(MakeShape(4, 2), MakeStride(1, 4));
    CHECK(col(MakeCoord(3, 1)) == 7);
    CHECK(col(6) == 6);
    const auto row = MakeLayout(MakeShape(4, 2), MakeStride(2, 1));
    CHECK(row(5) == 5 % 4 * 2 + 5 / 4);
    // Mixed static and dynamic modes keep the dynamic type.
    const auto mixed = Crd2Idx(MakeCoord(int64_t{3}, Std::Int<2>{}), MakeShape(8, Std::Int<4>{}),
                               MakeStride(Std::Int<4>{}, int64_t{1}));
    STATIC_REQUIRE(std::is_same_v<std::remove_cv_t<decltype(mixed)>, int64_t>);
    CHECK(mixed == 14);
    // A shape-only layout (as TransData takes it) and the Coord returned from a braced list.
    Layout shape_only = MakeLayout(MakeShape(16, 16, 1, 3, 5), MakeStride());
    CHECK(Std::get<4>(shape_only.GetShape()) == 5);
    CHECK(std::tuple_size_v<std::remove_cvref_t<decltype(shape_only.GetStride())>> == 0);
    const Coord<int64_t, int64_t, int64_t> offsets = {1, 2, 3};
    CHECK(Std::get<2>(offsets) == 3);
}

namespace {

// The conversions, as their sample numbers them.
constexpr TransDataConfig kToFz = {DataFormat::NCDHW, DataFormat::FRACTAL_Z_3D};
constexpr TransDataConfig kFromFz = {DataFormat::FRACTAL_Z_3D, DataFormat::NCDHW};
constexpr TransDataConfig kTo5hd = {DataFormat::NCDHW, DataFormat::NDC1HWC0};
constexpr TransDataConfig kFrom5hd = {DataFormat::NDC1HWC0, DataFormat::NCDHW};

struct Dims {
    int32_t n, c, d, h, w;
    int32_t hw() const { return h * w; }
    int32_t p() const { return (hw() + 15) / 16 * 16; }
    int32_t c1() const { return (c + 15) / 16; }
    int32_t n1() const { return (n + 15) / 16; }
    uint32_t ncdhw() const { return uint32_t(n * c * d * p()); }
    uint32_t fz() const { return uint32_t(d * c1() * hw() * n1() * 256); }
    uint32_t ndc1() const { return uint32_t(n * d * c1() * hw() * 16); }
};

int g_mode = 1;  // 1 NCDHW -> FZ3D, 2 FZ3D -> NCDHW, 3 NCDHW -> NDC1HWC0, 4 the reverse
Dims g_dims{18, 20, 1, 3, 5};
uint32_t g_tmp_bytes = 0;  // 0: the form without sharedTmpBuffer
bool g_drop_flag = false;
unsigned g_load_line = 0, g_call_line = 0;

uint32_t src_count(int mode) {
    return mode == 1 || mode == 3 ? g_dims.ncdhw() : mode == 2 ? g_dims.fz() : g_dims.ndc1();
}
uint32_t dst_count(int mode) {
    return mode == 1 ? g_dims.fz() : mode == 3 ? g_dims.ndc1() : g_dims.ncdhw();
}

template <const TransDataConfig& config, class P>
void convert(const LocalTensor<int16_t>& dst, const LocalTensor<int16_t>& src,
             const LocalTensor<uint8_t>& tmp, const P& params) {
    g_call_line = __LINE__ + 2;
    if (g_tmp_bytes != 0) {
        TransData<config>(dst, src, tmp, params);
    } else {
        TransData<config>(dst, src, params);  // the API's own temp (reserved UB)
    }
}

extern "C" __global__ __aicore__ void transdata_kernel(GM_ADDR in, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ib, ob, tb;
    const uint32_t ns = src_count(g_mode), nd = dst_count(g_mode);
    pipe.InitBuffer(ib, ns * 2);
    pipe.InitBuffer(ob, nd * 2);
    if (g_tmp_bytes != 0) pipe.InitBuffer(tb, g_tmp_bytes);
    GlobalTensor<int16_t> inGm, outGm;
    inGm.SetGlobalBuffer((__gm__ int16_t*)in, ns);
    outGm.SetGlobalBuffer((__gm__ int16_t*)out, nd);
    LocalTensor<int16_t> src = ib.Get<int16_t>(), dst = ob.Get<int16_t>();
    LocalTensor<uint8_t> tmp = g_tmp_bytes != 0 ? tb.Get<uint8_t>() : LocalTensor<uint8_t>();
    g_load_line = __LINE__ + 1;
    DataCopy(src, inGm, ns);
    if (!g_drop_flag) {
        SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    }
    const Dims& s = g_dims;
    Layout ncdhw = MakeLayout(MakeShape(s.n, s.c, s.d, s.h, s.w), MakeStride());
    Layout ndc1hwc0 = MakeLayout(MakeShape(s.n, s.d, s.c1(), s.h, s.w, 16), MakeStride());
    Layout fz = MakeLayout(MakeShape(s.d, s.c1(), s.h, s.w, s.n1(), 16, 16), MakeStride());
    if (g_mode == 1) {
        TransDataParams<decltype(ncdhw), decltype(fz)> params = {ncdhw, fz};
        convert<kToFz>(dst, src, tmp, params);
    } else if (g_mode == 2) {
        TransDataParams params = {fz, ncdhw};  // deduced, as the reference's example writes it
        convert<kFromFz>(dst, src, tmp, params);
    } else if (g_mode == 3) {
        convert<kTo5hd>(dst, src, tmp, TransDataParams{ncdhw, ndc1hwc0});
    } else {
        convert<kFrom5hd>(dst, src, tmp, TransDataParams{ndc1hwc0, ncdhw});
    }
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(outGm, dst, nd);
}

// The NCDHW element (n, c, d, i) of the padded layout; 0 past C or N.
int16_t value_of(int32_t n, int32_t c, int32_t d, int32_t i) {
    return int16_t(((n * 37 + c) * 11 + d) * 23 + i);
}

// The reference's view of each format (element offsets), from which inputs and expected
// outputs are built: for every (n, c, d, hw) of the padded N1 x 16, C1 x 16 extents.
struct Offsets {
    const Dims& s;
    int64_t ncdhw(int32_t n, int32_t c, int32_t d, int32_t i) const {
        return ((int64_t(n) * s.c + c) * s.d + d) * s.p() + i;
    }
    int64_t ndc1(int32_t n, int32_t c, int32_t d, int32_t i) const {
        return (((int64_t(n) * s.d + d) * s.c1() + c / 16) * s.hw() + i) * 16 + c % 16;
    }
    int64_t fz(int32_t n, int32_t c, int32_t d, int32_t i) const {
        return ((((int64_t(d) * s.c1() + c / 16) * s.hw() + i) * s.n1() + n / 16) * 16 + n % 16) *
                   16 +
               c % 16;
    }
};

// Input and expected output of `mode`; NCDHW input padding holds a marker the API must not
// move, NCDHW output padding is expected 0.
void reference(int mode, std::vector<int16_t>& in, std::vector<int16_t>& want) {
    const Dims& s = g_dims;
    const Offsets at{s};
    in.assign(src_count(mode), int16_t(-7));
    want.assign(dst_count(mode), 0);
    const bool fz = mode == 1 || mode == 2;
    const int32_t nn = fz ? s.n1() * 16 : s.n;
    for (int32_t n = 0; n < nn; ++n) {
        for (int32_t c = 0; c < s.c1() * 16; ++c) {
            for (int32_t d = 0; d < s.d; ++d) {
                for (int32_t i = 0; i < s.hw(); ++i) {
                    const bool real = n < s.n && c < s.c;
                    const int16_t v = real ? value_of(n, c, d, i) : int16_t(0);
                    const int64_t split = fz ? at.fz(n, c, d, i) : at.ndc1(n, c, d, i);
                    if (mode == 1 || mode == 3) {
                        if (real) in[size_t(at.ncdhw(n, c, d, i))] = v;
                        want[size_t(split)] = v;
                    } else {
                        in[size_t(split)] = v;
                        if (real) want[size_t(at.ncdhw(n, c, d, i))] = v;
                    }
                }
            }
        }
    }
}

uint32_t host_tmp_bytes(int mode) {
    const Dims& s = g_dims;
    const ge::Shape ncdhw({s.n, s.c, s.d, s.h, s.w});
    const ge::Shape ndc1({s.n, s.d, s.c1(), s.h, s.w, 16});
    const ge::Shape fz({s.d, s.c1(), s.h, s.w, s.n1(), 16, 16});
    const TransDataConfig configs[] = {kToFz, kFromFz, kTo5hd, kFrom5hd};
    const ge::Shape& src = mode == 1 || mode == 3 ? ncdhw : mode == 2 ? fz : ndc1;
    const ge::Shape& dst = mode == 1 ? fz : mode == 3 ? ndc1 : ncdhw;
    uint32_t max = 0, min = 0;
    auto platform = platform_ascendc::PlatformAscendCManager::GetInstance();
    REQUIRE(GetTransDataMaxMinTmpSize(*platform, src, dst, ge::DataType::DT_INT16,
                                      configs[mode - 1], max, min));
    CHECK(max == min);
    return min;
}

}  // namespace

TEST_CASE(
    "Advanced TransData: NCDHW <-> FRACTAL_Z_3D and NCDHW <-> NDC1HWC0 against a CPU "
    "reference",
    "[ascendc][adv][transdata]") {
    g_drop_flag = false;
    // Unaligned N (18: N1 2) and C (20: C1 2), H x W 15 (padded to 16); D 2 for NDC1HWC0.
    const Dims shapes[] = {
        {18, 20, 1, 3, 5}, {18, 20, 1, 3, 5}, {2, 20, 2, 3, 5}, {2, 20, 2, 3, 5}};
    for (int mode = 1; mode <= 4; ++mode) {
        for (const bool with_tmp : {true, false}) {
            if (!with_tmp && mode % 2 == 0) continue;
            CAPTURE(mode, with_tmp);
            g_mode = mode;
            g_dims = shapes[mode - 1];
            g_tmp_bytes = with_tmp ? host_tmp_bytes(mode) : 0;
            std::vector<int16_t> in, want;
            reference(mode, in, want);
            const std::vector<int16_t> got =
                adv_test::run<int16_t>(transdata_kernel, in, dst_count(mode));
            CHECK(got == want);
        }
    }
    // The vendor's sizes: NCDHW -> FRACTAL_Z_3D of asc-devkit's sample shape {16, 16, 1, 3, 5}.
    g_dims = {16, 16, 1, 3, 5};
    CHECK(host_tmp_bytes(1) == (16 * 16 + 16 * 16 * 16) * 2);
    uint32_t max = 0, min = 0;
    auto platform = platform_ascendc::PlatformAscendCManager::GetInstance();
    CHECK_FALSE(GetTransDataMaxMinTmpSize(*platform, ge::Shape({16, 16, 1, 3, 5}),
                                          ge::Shape({1, 1, 3, 5, 1, 16, 16}),
                                          ge::DataType::DT_FLOAT, kToFz, max, min));
    CHECK_FALSE(GetTransDataMaxMinTmpSize(*platform, ge::Shape({16, 16, 1, 3, 5}),
                                          ge::Shape({1, 2, 3, 5, 1, 16, 16}),
                                          ge::DataType::DT_FLOAT16, kToFz, max, min));
}

TEST_CASE("Advanced TransData: a temp buffer below the host's size is reported at the call",
          "[ascendc][adv][transdata]") {
    g_drop_flag = false;
    g_mode = 3;
    g_dims = {2, 20, 2, 3, 5};
    g_tmp_bytes = host_tmp_bytes(3) - 32;
    std::vector<int16_t> in, want;
    reference(3, in, want);
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    auto x = sim.allocate<int16_t>(in.size(), "in");
    auto out = sim.allocate<int16_t>(want.size(), "out");
    sim.write(x, in);
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "adv"},
               npusim::ascendc::bind_kernel(transdata_kernel, gm_addr(x), gm_addr(out)));
    std::string message;  // the call's line is known once the kernel ran
    try {
        sim.run();
    } catch (const std::exception& e) {
        message = e.what();
    }
    CHECK_THAT(message,
               Catch::Contains("adv_layout_transdata_test.cpp:" + std::to_string(g_call_line) +
                               ": TransData: the temp buffer holds " + std::to_string(g_tmp_bytes) +
                               " bytes"));
}

TEST_CASE("Advanced TransData: a dropped MTE2 -> V flag is the RAW at the call",
          "[ascendc][adv][transdata]") {
    g_mode = 3;
    g_dims = {1, 16, 1, 4, 4};
    g_tmp_bytes = host_tmp_bytes(3);
    g_drop_flag = true;
    std::vector<int16_t> in, want;
    reference(3, in, want);
    std::vector<npusim::Finding> findings;
    adv_test::run<int16_t>(transdata_kernel, in, dst_count(3), &findings);
    g_drop_flag = false;
    CHECK_THAT(findings,
               npusim::ExactlyFindings(adv_test::load_races(g_load_line, g_call_line, {0})));
}
