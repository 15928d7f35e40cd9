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
    std::vector<T> xt(xs.begin(), xs.end()), yt(ys.begin(), ys.end());
    auto x = sim.allocate<T>(kN, "x");
    auto y = sim.allocate<T>(kN, "y");
    auto out = sim.allocate<T>(kN, "out");
    sim.write(x, xt);
    sim.write(y, yt);
    using npusim::ascendc::gm_addr;
    auto kernel = std::is_same_v<T, float> ? adv_kernel_f : adv_kernel_h;
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
