// The advanced activation / math / softmax / cumsum APIs (npusim_ascendc/adv_*.h): each
// against a plain CPU reference with a stated tolerance, the checker clean, the temp buffer
// checked (too small: a KernelError naming the call's line), chunking through a minimal temp
// buffer equal to one full pass, and one racy variant (a missing MTE2 -> V flag) reported at
// the load's and the API call's lines.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "kernel_operator.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"
#include "tiling/tiling_api.h"

using namespace AscendC;

namespace {

constexpr uint32_t kN = 96;  // not a multiple of the 64-element chunk granule
constexpr uint32_t kTmpBytes = 16 * 1024;

// The API under test, called by the kernel between its loads and its store.
template <class T>
using Body = std::function<void(const LocalTensor<T>& out, const LocalTensor<T>& x,
                                const LocalTensor<T>& y, const LocalTensor<uint8_t>& tmp)>;
Body<float> g_body_f;
Body<half> g_body_h;
Body<int16_t> g_body_i;
uint32_t g_tmp_bytes = kTmpBytes;
bool g_drop_flag = false;
unsigned g_load_line = 0;

template <class T>
Body<T>& body();
template <>
Body<float>& body<float>() {
    return g_body_f;
}
template <>
Body<half>& body<half>() {
    return g_body_h;
}
template <>
Body<int16_t>& body<int16_t>() {
    return g_body_i;
}

template <class T>
void adv_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR out) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf, tmp_buf;
    pipe.InitBuffer(buf, 3 * kN * 4);
    pipe.InitBuffer(tmp_buf, g_tmp_bytes);
    GlobalTensor<T> xGm, yGm, oGm;
    xGm.SetGlobalBuffer((__gm__ T*)x, kN);
    yGm.SetGlobalBuffer((__gm__ T*)y, kN);
    oGm.SetGlobalBuffer((__gm__ T*)out, kN);
    LocalTensor<T> a = buf.Get<T>();
    LocalTensor<T> xs = a[0], ys = a[kN], os = a[2 * kN];
    xs.SetSize(kN);
    ys.SetSize(kN);
    os.SetSize(kN);
    g_load_line = __LINE__ + 1;
    DataCopy(xs, xGm, kN);
    DataCopy(ys, yGm, kN);
    if (!g_drop_flag) {
        SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    }
    body<T>()(os, xs, ys, tmp_buf.Get<uint8_t>());
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(oGm, os, kN);
}
extern "C" __global__ __aicore__ void adv_kernel_f(GM_ADDR x, GM_ADDR y, GM_ADDR out) {
    adv_kernel<float>(x, y, out);
}
extern "C" __global__ __aicore__ void adv_kernel_h(GM_ADDR x, GM_ADDR y, GM_ADDR out) {
    adv_kernel<half>(x, y, out);
}
extern "C" __global__ __aicore__ void adv_kernel_i(GM_ADDR x, GM_ADDR y, GM_ADDR out) {
    adv_kernel<int16_t>(x, y, out);
}

struct Run {
    std::vector<float> out;
    std::vector<npusim::Finding> findings;
};

// Runs the kernel on xs, ys (as T) and returns the output as float.
template <class T>
Run run(const std::vector<float>& xs, const std::vector<float>& ys) {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    std::vector<T> xt, yt;
    for (const float v : xs) xt.push_back(static_cast<T>(v));
    for (const float v : ys) yt.push_back(static_cast<T>(v));
    auto x = sim.allocate<T>(kN, "x");
    auto y = sim.allocate<T>(kN, "y");
    auto out = sim.allocate<T>(kN, "out");
    sim.write(x, xt);
    sim.write(y, yt);
    using npusim::ascendc::gm_addr;
    auto kernel = std::is_same_v<T, float>  ? adv_kernel_f
                  : std::is_same_v<T, half> ? adv_kernel_h
                                            : adv_kernel_i;
    sim.launch({.name = "adv"},
               npusim::ascendc::bind_kernel(kernel, gm_addr(x), gm_addr(y), gm_addr(out)));
    const bool completed = sim.run().completed();  // a KernelError propagates to the caller
    REQUIRE(completed);
    Run r;
    for (const T v : sim.read(out)) r.out.push_back(static_cast<float>(v));
    r.findings = checker.findings();
    return r;
}

std::vector<float> inputs(float lo, float hi, uint32_t salt) {
    std::vector<float> v(kN);
    for (uint32_t i = 0; i < kN; ++i) {
        const uint32_t h = (i * 2654435761U + salt * 40503U) % 10007U;
        v[i] = lo + (hi - lo) * float(h) / 10006.0F;
    }
    return v;
}

// |got - want| <= abs + rel x |want| for every element (NaN matches NaN, inf matches inf).
void check_close(const std::vector<float>& got, const std::vector<double>& want, double rel,
                 double abs) {
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        CAPTURE(i, got[i], want[i]);
        if (std::isnan(want[i])) {
            CHECK(std::isnan(got[i]));
        } else if (std::isinf(want[i])) {
            CHECK(got[i] == want[i]);
        } else {
            CHECK(std::abs(got[i] - want[i]) <= abs + rel * std::abs(want[i]));
        }
    }
}

double gelu(double x) {
    return x / (1 + std::exp(-1.5957691216057308 * (x + 0.044715 * x * x * x)));
}
double sigmoid(double x) {
    return 1 / (1 + std::exp(-x));
}

struct UnaryCase {
    const char* name;
    float lo, hi;
    double rel, abs;
    std::function<double(double)> reference;
    Body<float> call;
};

}  // namespace

TEST_CASE("Advanced one-input APIs (float) against CPU references, checker clean",
          "[ascendc][adv]") {
    const std::vector<UnaryCase> cases = {
        {"Gelu", -5, 5, 1e-5, 1e-6, gelu,
         [](auto& o, auto& x, auto&, auto& t) { Gelu(o, x, t, kN); }},
        {"FasterGelu", -5, 5, 1e-5, 1e-6, [](double x) { return x / (1 + std::exp(-1.702 * x)); },
         [](auto& o, auto& x, auto&, auto&) { FasterGelu(o, x, kN); }},
        {"Sigmoid", -20, 20, 1e-5, 1e-7, sigmoid,
         [](auto& o, auto& x, auto&, auto& t) { Sigmoid<float, false>(o, x, t); }},
        {"Swish", -4, 4, 1e-5, 1e-6, [](double x) { return x / (1 + std::exp(-1.702 * x)); },
         [](auto& o, auto& x, auto&, auto&) { Swish(o, x, kN, 1.702F); }},
        {"Silu", -4, 4, 1e-5, 1e-6, [](double x) { return x * sigmoid(x); },
         [](auto& o, auto& x, auto&, auto&) { Silu<float, false>(o, x, kN); }},
        {"Exp", -10, 10, 1e-5, 0, [](double x) { return std::exp(x); },
         [](auto& o, auto& x, auto&, auto& t) { Exp<float, 0, false>(o, x, t, kN); }},
        {"Exp (Taylor, 10 terms)", -10, 10, 1e-5, 0, [](double x) { return std::exp(x); },
         [](auto& o, auto& x, auto&, auto& t) { Exp<float, 10, false>(o, x, t, kN); }},
        {"Log", 0.01F, 100, 1e-5, 1e-6, [](double x) { return std::log(x); },
         [](auto& o, auto& x, auto&, auto&) { Log(o, x, kN); }},
        {"Log2", 0.01F, 100, 1e-5, 1e-6, [](double x) { return std::log2(x); },
         [](auto& o, auto& x, auto&, auto&) { Log2(o, x, kN); }},
        {"Log10", 0.01F, 100, 1e-5, 1e-6, [](double x) { return std::log10(x); },
         [](auto& o, auto& x, auto&, auto&) { Log10(o, x, kN); }},
        {"Erf", -4, 4, 0, 1e-6, [](double x) { return std::erf(x); },
         [](auto& o, auto& x, auto&, auto& t) { Erf(o, x, t, kN); }},
        {"Acosh", 1, 50, 1e-5, 1e-5, [](double x) { return std::acosh(x); },
         [](auto& o, auto& x, auto&, auto& t) { Acosh(o, x, t, kN); }},
        {"Atanh", -0.9F, 0.9F, 1e-5, 1e-6, [](double x) { return std::atanh(x); },
         [](auto& o, auto& x, auto&, auto& t) { Atanh(o, x, t, kN); }},
        {"Tanh", -8, 8, 1e-5, 1e-6, [](double x) { return std::tanh(x); },
         [](auto& o, auto& x, auto&, auto& t) { Tanh(o, x, t, kN); }},
        {"Sinh", -8, 8, 1e-5, 1e-6, [](double x) { return std::sinh(x); },
         [](auto& o, auto& x, auto&, auto& t) { Sinh(o, x, t, kN); }},
        {"Cosh", -8, 8, 1e-5, 1e-6, [](double x) { return std::cosh(x); },
         [](auto& o, auto& x, auto&, auto& t) { Cosh(o, x, t, kN); }},
        {"Ceil", -1e9F, 1e9F, 0, 0, [](double x) { return std::ceil(x); },
         [](auto& o, auto& x, auto&, auto& t) { Ceil<float, false>(o, x, t, kN); }},
        {"Floor", -300, 300, 0, 0, [](double x) { return std::floor(x); },
         [](auto& o, auto& x, auto&, auto& t) { Floor(o, x, t, kN); }},
        {"Trunc", -300, 300, 0, 0, [](double x) { return std::trunc(x); },
         [](auto& o, auto& x, auto&, auto& t) { Trunc(o, x, t, kN); }},
        {"Round", -300, 300, 0, 0, [](double x) { return std::round(x); },
         [](auto& o, auto& x, auto&, auto& t) { Round(o, x, t, kN); }},
        {"Frac", -300, 300, 0, 1e-5, [](double x) { return x - std::trunc(x); },
         [](auto& o, auto& x, auto&, auto& t) { Frac<float, false>(o, x, t, kN); }},
        {"ClampMax", -10, 10, 0, 0, [](double x) { return std::min(x, 2.5); },
         [](auto& o, auto& x, auto&, auto& t) { ClampMax<float, false>(o, x, t, 2.5F, kN); }},
        {"ClampMin", -10, 10, 0, 0, [](double x) { return std::max(x, 2.5); },
         [](auto& o, auto& x, auto&, auto& t) { ClampMin<float, false>(o, x, t, 2.5F, kN); }},
        {"Power (scalar exponent)", -4, 4, 1e-5, 1e-6, [](double x) { return std::pow(x, 3.0); },
         [](auto& o, auto& x, auto&, auto& t) { Power<float, false>(o, x, 3.0F, t, kN); }},
        {"Power (scalar base)", -4, 4, 1e-5, 1e-6, [](double x) { return std::pow(1.5, x); },
         [](auto& o, auto& x, auto&, auto& t) { Power<float, false>(o, 1.5F, x, t, kN); }},
    };
    for (const UnaryCase& c : cases) {
        SECTION(c.name) {
            g_body_f = c.call;
            const std::vector<float> xs = inputs(c.lo, c.hi, 1);
            const Run r = run<float>(xs, xs);
            std::vector<double> want;
            for (const float x : xs) want.push_back(c.reference(x));
            check_close(r.out, want, c.rel, c.abs);
            CHECK_THAT(r.findings, npusim::NoFindings());
        }
    }
}

TEST_CASE("Advanced two-input APIs (float) against CPU references, checker clean",
          "[ascendc][adv]") {
    const std::vector<float> xs = inputs(-4, 4, 1), ys = inputs(-4, 4, 2);
    std::vector<double> want(kN);
    SECTION("SwiGLU: x * y * sigmoid(beta y)") {
        g_body_f = [](auto& o, auto& x, auto& y, auto& t) { SwiGLU(o, x, y, 1.5F, t, kN); };
        for (uint32_t i = 0; i < kN; ++i) want[i] = xs[i] * ys[i] * sigmoid(1.5 * ys[i]);
        const Run r = run<float>(xs, ys);
        check_close(r.out, want, 1e-5, 1e-6);
        CHECK_THAT(r.findings, npusim::NoFindings());
    }
    SECTION("GeGLU: x * gelu(y)") {
        g_body_f = [](auto& o, auto& x, auto& y, auto& t) { GeGLU<float, false>(o, x, y, t); };
        for (uint32_t i = 0; i < kN; ++i) want[i] = xs[i] * gelu(ys[i]);
        const Run r = run<float>(xs, ys);
        check_close(r.out, want, 1e-5, 1e-6);
        CHECK_THAT(r.findings, npusim::NoFindings());
    }
    SECTION("Fmod: the sign of x") {
        g_body_f = [](auto& o, auto& x, auto& y, auto& t) { Fmod(o, x, y, t, kN); };
        for (uint32_t i = 0; i < kN; ++i) want[i] = std::fmod(double(xs[i]), double(ys[i]));
        const Run r = run<float>(xs, ys);
        check_close(r.out, want, 1e-5, 1e-5);
        CHECK_THAT(r.findings, npusim::NoFindings());
    }
    SECTION("Power: negative bases with integer exponents, NaN otherwise, x^0 = 1") {
        std::vector<float> bases = xs, exps(kN);
        for (uint32_t i = 0; i < kN; ++i) exps[i] = float(int(i % 7) - 3) + (i % 5 == 0 ? 0.5F : 0);
        bases[0] = 0;
        exps[0] = 0;
        g_body_f = [](auto& o, auto& x, auto& y, auto& t) { Power<float, false>(o, x, y, t); };
        for (uint32_t i = 0; i < kN; ++i) want[i] = std::pow(double(bases[i]), double(exps[i]));
        const Run r = run<float>(bases, exps);
        check_close(r.out, want, 1e-5, 1e-6);
        CHECK_THAT(r.findings, npusim::NoFindings());
    }
}

TEST_CASE("Advanced APIs on half: computed in float, rounded once", "[ascendc][adv]") {
    const std::vector<float> xs = inputs(-4, 4, 3), ys = inputs(-4, 4, 4);
    std::vector<double> want(kN);
    SECTION("Gelu") {
        g_body_h = [](auto& o, auto& x, auto&, auto& t) { Gelu(o, x, t, kN); };
        for (uint32_t i = 0; i < kN; ++i) want[i] = gelu(double(half(xs[i])));
    }
    SECTION("Sigmoid, internal temp buffer") {
        g_body_h = [](auto& o, auto& x, auto&, auto&) { Sigmoid(o, x, kN); };
        for (uint32_t i = 0; i < kN; ++i) want[i] = sigmoid(double(half(xs[i])));
    }
    SECTION("SwiGLU") {
        g_body_h = [](auto& o, auto& x, auto& y, auto& t) { SwiGLU(o, x, y, 1.0F, t, kN); };
        for (uint32_t i = 0; i < kN; ++i) {
            const double a = double(half(xs[i])), b = double(half(ys[i]));
            want[i] = a * b * sigmoid(b);
        }
    }
    const Run r = run<half>(xs, ys);
    check_close(r.out, want, 1e-3, 1e-3);
    CHECK_THAT(r.findings, npusim::NoFindings());
}

TEST_CASE("Advanced APIs: the host's minimum temp size works in chunks, less is a KernelError",
          "[ascendc][adv]") {
    uint32_t max_size = 0, min_size = 0;
    GetGeluMaxMinTmpSize(ge::Shape({kN}), sizeof(float), false, max_size, min_size);
    CHECK(min_size == 64 * 4);
    CHECK(max_size == 128 * 4);
    CHECK(GetGeluMinTmpSize(ge::Shape({kN}), sizeof(float)) == min_size);
    const std::vector<float> xs = inputs(-5, 5, 5);
    std::vector<double> want;
    for (const float x : xs) want.push_back(gelu(x));
    g_body_f = [](auto& o, auto& x, auto&, auto& t) { Gelu(o, x, t, kN); };
    g_tmp_bytes = min_size;  // two chunks: 64 + 32 elements
    const Run r = run<float>(xs, xs);
    check_close(r.out, want, 1e-5, 1e-6);
    CHECK_THAT(r.findings, npusim::NoFindings());
    static unsigned line = 0;
    g_body_f = [](auto& o, auto& x, auto&, auto& t) {
        line = __LINE__ + 1;
        Gelu(o, x, t[32], kN);
    };
    std::string message;
    try {
        run<float>(xs, xs);
    } catch (const npusim::KernelError& error) {
        message = error.what();
    }
    g_tmp_bytes = kTmpBytes;
    CHECK_THAT(message, Catch::Contains("adv_api_test.cpp:" + std::to_string(line) + ":") &&
                            Catch::Contains("Gelu: sharedTmpBuffer holds 224 bytes, at least 256"));
}

TEST_CASE("Advanced APIs: a missing MTE2 -> V flag is a race at the load and the API call",
          "[ascendc][adv]") {
    static unsigned call_line = 0;
    g_body_f = [](auto& o, auto& x, auto&, auto& t) {
        call_line = __LINE__ + 1;
        Sigmoid(o, x, t, kN);
    };
    g_drop_flag = true;
    const Run r = run<float>(inputs(-1, 1, 6), inputs(-1, 1, 7));
    g_drop_flag = false;
    CHECK_THAT(r.findings, npusim::ExactlyFindings({{.kind = npusim::FindingKind::RaceRAW,
                                                     .space = npusim::MemSpace::UB,
                                                     .scope = npusim::RaceScope::InterPipe,
                                                     .first_pipe = npusim::Pipe::MTE2,
                                                     .second_pipe = npusim::Pipe::V,
                                                     .first_line = g_load_line,
                                                     .second_line = call_line}}));
}

namespace {

// Row-wise softmax reference: max, sum of exp(x - max), exp(x - max) / sum.
struct SoftmaxRef {
    std::vector<double> out, max, sum;
};
SoftmaxRef softmax_ref(const std::vector<float>& xs, uint32_t rows, uint32_t k, bool log) {
    SoftmaxRef r;
    for (uint32_t i = 0; i < rows; ++i) {
        double m = -std::numeric_limits<double>::infinity(), s = 0;
        for (uint32_t j = 0; j < k; ++j) m = std::max(m, double(xs[i * k + j]));
        for (uint32_t j = 0; j < k; ++j) s += std::exp(xs[i * k + j] - m);
        for (uint32_t j = 0; j < k; ++j) {
            const double v = std::exp(xs[i * k + j] - m) / s;
            r.out.push_back(log ? std::log10(v) : v);
        }
        r.max.push_back(m);
        r.sum.push_back(s);
    }
    return r;
}

}  // namespace

TEST_CASE("SoftMax, LogSoftMax, SimpleSoftMax and AdjustSoftMaxRes against a row-wise reference",
          "[ascendc][adv]") {
    constexpr uint32_t kRows = 4, kK = 24;  // float rows of 96 bytes
    const std::vector<float> xs = inputs(-6, 6, 8);
    const SoftmaxRef ref = softmax_ref(xs, kRows, kK, false);
    SoftMaxTiling tiling;
    SoftMaxTilingFunc(ge::Shape({kRows, kK}), sizeof(float),
                      GetSoftMaxMinTmpSize(ge::Shape({kRows, kK}), sizeof(float), false), tiling);
    CHECK(tiling.srcM == kRows);
    CHECK(tiling.srcK == kK);
    static SoftMaxTiling s_tiling;
    s_tiling = tiling;
    SECTION("SoftMax: dst (shape from the tiling)") {
        g_body_f = [](auto& o, auto& x, auto&, auto& t) {
            LocalTensor<float> stats = t[8192].template ReinterpretCast<float>();
            SoftMax<float>(o, stats, stats[kRows * 8], x, t, s_tiling);
        };
        const Run r = run<float>(xs, xs);
        check_close(r.out, ref.out, 1e-5, 1e-7);
        CHECK_THAT(r.findings, npusim::NoFindings());
    }
    SECTION("SoftMax: the max and sum blocks, one 32-byte block a row") {
        g_body_f = [](auto& o, auto&, auto& y, auto& t) {
            LocalTensor<float> stats = t[8192].template ReinterpretCast<float>();
            SoftMax<float, false, true>(y, stats, stats[kRows * 8], y, t, s_tiling,
                                        {kRows, kK, kRows, kK});
            Muls(o, stats[kRows * 8], 1.0F, kRows * 8);  // max
            Muls(o[kRows * 8], stats, 1.0F, kRows * 8);  // sum
            Duplicate(o[2 * kRows * 8], 0.0F, kN - 2 * kRows * 8);
        };
        const Run r = run<float>(xs, xs);
        std::vector<double> want(kN, 0.0);
        for (uint32_t i = 0; i < kRows; ++i) {
            for (uint32_t j = 0; j < 8; ++j) {
                want[i * 8 + j] = ref.max[i];
                want[kRows * 8 + i * 8 + j] = ref.sum[i];
            }
        }
        check_close(r.out, want, 1e-5, 0);
        CHECK_THAT(r.findings, npusim::NoFindings());
    }
    SECTION("LogSoftMax: log10 of the softmax, rows from the shape info") {
        g_body_f = [](auto& o, auto& x, auto&, auto& t) {
            LocalTensor<float> stats = t[8192].template ReinterpretCast<float>();
            LogSoftMaxTiling empty{};
            LogSoftMax<float, false, false>(o, stats, stats[kRows * 8], x, t, empty,
                                            {kRows, kK, kRows, kK});
        };
        const Run r = run<float>(xs, xs);
        check_close(r.out, softmax_ref(xs, kRows, kK, true).out, 1e-5, 1e-6);
        CHECK_THAT(r.findings, npusim::NoFindings());
    }
    SECTION("SimpleSoftMax with SoftMax's max and sum, then AdjustSoftMaxRes of row 2") {
        static bool adjusted = false;
        g_body_f = [](auto& o, auto& x, auto& y, auto& t) {
            LocalTensor<float> stats = t[8192].template ReinterpretCast<float>();
            SoftMax<float>(y, stats, stats[kRows * 8], x, t, s_tiling);
            SimpleSoftMax<float>(o, stats, stats[kRows * 8], x, t, s_tiling);
            uint32_t bits = 0;
            const float max2 = stats.GetValue(kRows * 8 + 2 * 8);
            std::memcpy(&bits, &max2, 4);
            adjusted = AdjustSoftMaxRes<float, float>(o, stats[kRows * 8], bits, -1.0F,
                                                      {kRows, kK, kRows, kK});
        };
        const Run r = run<float>(xs, xs);
        SoftmaxRef want = ref;
        for (uint32_t j = 0; j < kK; ++j) want.out[2 * kK + j] = -1.0;
        check_close(r.out, want.out, 1e-5, 1e-7);
        CHECK(adjusted);
        CHECK_THAT(r.findings, npusim::NoFindings());
    }
}

TEST_CASE("SoftMax on half rows computed in float", "[ascendc][adv]") {
    constexpr uint32_t kRows = 6, kK = 16;  // half rows of 32 bytes
    const std::vector<float> xs = inputs(-4, 4, 9);
    std::vector<float> rounded;
    for (const float x : xs) rounded.push_back(float(half(x)));
    g_body_h = [](auto& o, auto& x, auto&, auto& t) {
        LocalTensor<half> stats = t[8192].template ReinterpretCast<half>();
        SoftMax<half>(o, stats, stats[kRows * 16], x, t, SoftMaxTiling{}, {kRows, kK, kRows, kK});
    };
    const Run r = run<half>(xs, xs);
    check_close(r.out, softmax_ref(rounded, kRows, kK, false).out, 2e-3, 1e-4);
    CHECK_THAT(r.findings, npusim::NoFindings());
}

namespace {

std::vector<double> cumsum_ref(const std::vector<float>& xs, uint32_t outter, uint32_t inner,
                               bool last_axis) {
    std::vector<double> r(xs.begin(), xs.end());
    for (uint32_t i = 0; i < outter; ++i) {
        for (uint32_t j = 0; j < inner; ++j) {
            if (last_axis && j > 0) r[i * inner + j] += r[i * inner + j - 1];
            if (!last_axis && i > 0) r[i * inner + j] += r[(i - 1) * inner + j];
        }
    }
    return r;
}
constexpr CumSumConfig kFirstAxis{false, false, true};
constexpr CumSumConfig kLastAxis{true, false, false};

}  // namespace

TEST_CASE("CumSum along the first and the last axis", "[ascendc][adv]") {
    const std::vector<float> xs = inputs(-3, 3, 10);
    SECTION("float, first axis, the last row out") {
        uint32_t max_size = 0, min_size = 0;
        GetCumSumMaxMinTmpSize(ge::Shape({4, 24}), sizeof(float), false, false, max_size, min_size);
        CHECK(min_size == 32);
        g_body_f = [](auto& o, auto& x, auto& y, auto& t) {
            CumSum<float, kFirstAxis>(o, y, x, t, {4, 24});
            Muls(o[72], y, 2.0F, 24);  // the last row, doubled, over the result's last row
        };
        const Run r = run<float>(xs, xs);
        std::vector<double> want = cumsum_ref(xs, 4, 24, false);
        for (uint32_t j = 0; j < 24; ++j) want[72 + j] *= 2;
        check_close(r.out, want, 1e-5, 1e-5);
        CHECK_THAT(r.findings, npusim::NoFindings());
    }
    SECTION("float, last axis (Gather transposes)") {
        g_body_f = [](auto& o, auto& x, auto& y, auto& t) {
            CumSum<float, kLastAxis>(o, y, x, t, {4, 24});
        };
        const Run r = run<float>(xs, xs);
        check_close(r.out, cumsum_ref(xs, 4, 24, true), 1e-5, 1e-5);
        CHECK_THAT(r.findings, npusim::NoFindings());
    }
    SECTION("half, both axes, summed in float") {
        std::vector<float> rounded;
        for (const float x : xs) rounded.push_back(float(half(x)));
        g_body_h = [](auto& o, auto& x, auto& y, auto& t) {
            CumSum<half, kFirstAxis>(o, y, x, t, {6, 16});
            CumSum<half, kLastAxis>(o, y, o, t, {6, 16});
        };
        const Run r = run<half>(xs, xs);
        std::vector<double> first = cumsum_ref(rounded, 6, 16, false);
        std::vector<float> mid(first.begin(), first.end());
        check_close(r.out, cumsum_ref(mid, 6, 16, true), 3e-3, 3e-2);
        CHECK_THAT(r.findings, npusim::NoFindings());
    }
}

TEST_CASE("Xor on int16 and the mixed-type Axpy (half source, float destination)",
          "[ascendc][adv]") {
    SECTION("Xor") {
        std::vector<float> xs(kN), ys(kN);
        for (uint32_t i = 0; i < kN; ++i) {
            xs[i] = float(int(i * 977) % 30000 - 15000);
            ys[i] = float(int(i * 131) % 20000 - 10000);
        }
        g_body_i = [](auto& o, auto& x, auto& y, auto& t) { Xor(o, x, y, t, kN); };
        const Run r = run<int16_t>(xs, ys);
        for (uint32_t i = 0; i < kN; ++i) {
            CHECK(int16_t(r.out[i]) == int16_t(int16_t(xs[i]) ^ int16_t(ys[i])));
        }
        CHECK_THAT(r.findings, npusim::NoFindings());
    }
    SECTION("Axpy: dst += half(src) x 2") {
        const std::vector<float> xs = inputs(-4, 4, 11), ys = inputs(-4, 4, 12);
        g_body_f = [](auto& o, auto& x, auto& y, auto& t) {
            LocalTensor<half> src = t[8192].template ReinterpretCast<half>();
            Cast(src, x, RoundMode::CAST_RINT, kN);
            Muls(o, y, 1.0F, kN);
            Axpy(o, src, half(2.0F), t, kN);
        };
        const Run r = run<float>(xs, ys);
        std::vector<double> want(kN);
        for (uint32_t i = 0; i < kN; ++i) want[i] = ys[i] + 2.0 * double(half(xs[i]));
        check_close(r.out, want, 1e-6, 1e-6);
        CHECK_THAT(r.findings, npusim::NoFindings());
    }
}
