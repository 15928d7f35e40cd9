// Host program of the API corpus, in both branches of the public samples: the ACL runtime
// (default) and the CPU-debug harness (ASCENDC_CPU_DEBUG). It runs every kernel once, checks
// each output against values computed here and prints "<kernel>: output OK". CORPUS_RACY=<kernel>
// runs that kernel with its synchronization dropped (the checker must report it; its output
// is not checked).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#ifndef ASCENDC_CPU_DEBUG
#include "acl/acl.h"
#else
#include "tikicpulib.h"
#endif
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void u8_scale_i16(GM_ADDR x, GM_ADDR z, uint32_t racy);
extern "C" __global__ __aicore__ void u16_bits(GM_ADDR x, GM_ADDR y, GM_ADDR r, uint32_t racy);
extern "C" __global__ __aicore__ void i64_u32(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR u, GM_ADDR m,
                                              uint32_t racy);
extern "C" __global__ __aicore__ void bf16_exp(GM_ADDR x, GM_ADDR z, uint32_t racy);
extern "C" __global__ __aicore__ void int4_cast(GM_ADDR x, GM_ADDR q, GM_ADDR z, uint32_t racy);
extern "C" __global__ __aicore__ void relu_select(GM_ADDR x, GM_ADDR y, uint32_t racy);
extern "C" __global__ __aicore__ void row_sums(GM_ADDR x, GM_ADDR sums, uint32_t valid,
                                               uint32_t racy);
extern "C" __global__ __aicore__ void block_pair(GM_ADDR x, GM_ADDR out, uint32_t racy);
extern "C" __global__ __aicore__ void strided_axpy(GM_ADDR src, GM_ADDR acc, uint32_t racy);
extern "C" __global__ __aicore__ void cast_modes(GM_ADDR x, GM_ADDR out, GM_ADDR odd,
                                                 uint32_t racy);
extern "C" __global__ __aicore__ void atomic_add_i16(GM_ADDR acc, uint32_t racy);
extern "C" __global__ __aicore__ void atomic_max_bf16(GM_ADDR x, GM_ADDR acc, uint32_t racy);
extern "C" __global__ __aicore__ void copy_dup_i16(GM_ADDR x, GM_ADDR out, GM_ADDR pad,
                                                   uint32_t racy);
extern "C" __global__ __aicore__ void half_math(GM_ADDR x, GM_ADDR y, uint32_t racy);
extern "C" __global__ __aicore__ void masked_max(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t racy);
extern "C" __global__ __aicore__ void topk_sort(GM_ADDR scores, GM_ADDR top, uint32_t racy);
extern "C" __global__ __aicore__ void gather_pick(GM_ADDR x, GM_ADDR out, GM_ADDR count,
                                                  uint32_t racy);
extern "C" __global__ __aicore__ void shift_index(GM_ADDR x, GM_ADDR out, GM_ADDR bits,
                                                  uint32_t racy);
extern "C" __global__ __aicore__ void reduce_repeat(GM_ADDR x, GM_ADDR sum, GM_ADDR cycles,
                                                    uint32_t racy);
extern "C" __global__ __aicore__ void cmp_register(GM_ADDR x, GM_ADDR sel, GM_ADDR out,
                                                   uint32_t racy);
extern "C" __global__ __aicore__ void reduce_spr(GM_ADDR x, GM_ADDR out, uint32_t racy);
extern "C" __global__ __aicore__ void slice_copy(GM_ADDR x, GM_ADDR out, uint32_t racy);
extern "C" __global__ __aicore__ void transpose_merge(GM_ADDR x, GM_ADDR out, GM_ADDR counts,
                                                      uint32_t racy);
extern "C" __global__ __mix__(1, 2) void mix_relu_select(GM_ADDR a, GM_ADDR b, GM_ADDR work,
                                                         GM_ADDR out, uint32_t racy);

namespace {

#ifndef ASCENDC_CPU_DEBUG
aclrtStream g_stream = nullptr;
#endif

/// A device buffer with its host copy (one GmAlloc buffer in the CPU-debug branch).
struct Buffer {
    std::vector<uint8_t> host;
    uint8_t* device = nullptr;
};

template <class T>
Buffer make_buffer(const std::vector<T>& values) {
    Buffer b;
    b.host.resize(values.size() * sizeof(T));
    std::memcpy(b.host.data(), values.data(), b.host.size());
#ifdef ASCENDC_CPU_DEBUG
    b.device = (uint8_t*)AscendC::GmAlloc(b.host.size());
    std::memcpy(b.device, b.host.data(), b.host.size());
#else
    aclrtMalloc((void**)&b.device, b.host.size(), ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(b.device, b.host.size(), b.host.data(), b.host.size(), ACL_MEMCPY_HOST_TO_DEVICE);
#endif
    return b;
}

template <class T>
std::vector<T> read_back(Buffer& b) {
#ifdef ASCENDC_CPU_DEBUG
    std::memcpy(b.host.data(), b.device, b.host.size());
    AscendC::GmFree(b.device);
#else
    aclrtSynchronizeStream(g_stream);
    aclrtMemcpy(b.host.data(), b.host.size(), b.device, b.host.size(), ACL_MEMCPY_DEVICE_TO_HOST);
    aclrtFree(b.device);
#endif
    std::vector<T> out(b.host.size() / sizeof(T));
    std::memcpy(out.data(), b.host.data(), b.host.size());
    return out;
}

std::string g_racy;
int g_failures = 0;

uint32_t racy(const char* kernel) {
    return g_racy == kernel ? 1U : 0U;
}

void report(const char* kernel, bool ok) {
    if (!g_racy.empty()) return;  // a racy run checks findings, not data
    std::printf("%s: output %s\n", kernel, ok ? "OK" : "MISMATCH");
    if (!ok) ++g_failures;
}

float bf(float v) {
    return static_cast<float>(bfloat16_t(v));
}

void run_types() {
    constexpr uint32_t n = 256;
    {
        std::vector<uint8_t> x(n);
        for (uint32_t i = 0; i < n; ++i) x[i] = static_cast<uint8_t>(i);
        Buffer xb = make_buffer(x), zb = make_buffer(std::vector<int16_t>(n));
#ifdef ASCENDC_CPU_DEBUG
        AscendC::SetKernelMode(KernelMode::AIV_MODE);
        ICPU_RUN_KF(u8_scale_i16, 1, xb.device, zb.device, racy("u8_scale_i16"));
#else
        // clang-format off
        u8_scale_i16<<<1, nullptr, g_stream>>>(xb.device, zb.device, racy("u8_scale_i16"));
        // clang-format on
#endif
        const auto z = read_back<int16_t>(zb);
        read_back<uint8_t>(xb);
        bool ok = true;
        for (uint32_t i = 0; i < n; ++i) {
            const float v = static_cast<float>(half(static_cast<float>(i) * 0.5F)) - 3.0F;
            ok = ok && z[i] == static_cast<int16_t>(std::nearbyint(static_cast<float>(half(v))));
        }
        report("u8_scale_i16", ok);
    }
    {
        std::vector<uint16_t> x(n), y(n);
        for (uint32_t i = 0; i < n; ++i)
            x[i] = uint16_t(i * 2654435761U), y[i] = uint16_t(i ^ 0xA5A5);
        Buffer xb = make_buffer(x), yb = make_buffer(y),
               rb = make_buffer(std::vector<uint16_t>(3 * n));
#ifdef ASCENDC_CPU_DEBUG
        ICPU_RUN_KF(u16_bits, 1, xb.device, yb.device, rb.device, racy("u16_bits"));
#else
        // clang-format off
        u16_bits<<<1, nullptr, g_stream>>>(xb.device, yb.device, rb.device, racy("u16_bits"));
        // clang-format on
#endif
        const auto r = read_back<uint16_t>(rb);
        read_back<uint16_t>(xb);
        read_back<uint16_t>(yb);
        bool ok = true;
        for (uint32_t i = 0; i < n; ++i) {
            ok = ok && r[i] == uint16_t(x[i] & y[i]) && r[n + i] == uint16_t(x[i] | y[i]) &&
                 r[2 * n + i] == uint16_t(~x[i]);
        }
        report("u16_bits", ok);
    }
    {
        std::vector<int64_t> x(n);
        std::vector<int32_t> y(n);
        std::vector<uint32_t> u(n);
        for (uint32_t i = 0; i < n; ++i) {
            x[i] = (int64_t{1} << 40) * (int64_t(i) - 100);
            y[i] = int32_t(i) * -7;
            u[i] = i * 10U;
        }
        Buffer xb = make_buffer(x), yb = make_buffer(y), zb = make_buffer(std::vector<int64_t>(n));
        Buffer ub = make_buffer(u), mb = make_buffer(std::vector<uint32_t>(n));
#ifdef ASCENDC_CPU_DEBUG
        ICPU_RUN_KF(i64_u32, 1, xb.device, yb.device, zb.device, ub.device, mb.device,
                    racy("i64_u32"));
#else
        // clang-format off
        i64_u32<<<1, nullptr, g_stream>>>(xb.device, yb.device, zb.device, ub.device, mb.device,
                                            racy("i64_u32"));
        // clang-format on
#endif
        const auto z = read_back<int64_t>(zb);
        const auto m = read_back<uint32_t>(mb);
        read_back<int64_t>(xb);
        read_back<int32_t>(yb);
        read_back<uint32_t>(ub);
        bool ok = true;
        for (uint32_t i = 0; i < n; ++i) {
            ok = ok && z[i] == x[i] + y[i] && m[i] == (u[i] > 1000U ? u[i] : 1000U);
        }
        report("i64_u32", ok);
    }
    {
        std::vector<bfloat16_t> x(n);
        for (uint32_t i = 0; i < n; ++i)
            x[i] = bfloat16_t(static_cast<float>(i % 16) * 0.25F - 2.0F);
        Buffer xb = make_buffer(x), zb = make_buffer(std::vector<bfloat16_t>(n));
#ifdef ASCENDC_CPU_DEBUG
        ICPU_RUN_KF(bf16_exp, 1, xb.device, zb.device, racy("bf16_exp"));
#else
        // clang-format off
        bf16_exp<<<1, nullptr, g_stream>>>(xb.device, zb.device, racy("bf16_exp"));
        // clang-format on
#endif
        const auto z = read_back<bfloat16_t>(zb);
        read_back<bfloat16_t>(xb);
        bool ok = true;
        for (uint32_t i = 0; i < n; ++i) {
            ok = ok && static_cast<float>(z[i]) == bf(std::exp(static_cast<float>(x[i])));
        }
        report("bf16_exp", ok);
    }
    {
        constexpr uint32_t n = 512;
        std::vector<half> x(n);
        for (uint32_t i = 0; i < n; ++i)
            x[i] = half(static_cast<float>(int(i * 29 % 73)) / 4.0F - 9.0F);
        Buffer xb = make_buffer(x), qb = make_buffer(std::vector<uint8_t>(n / 2)),
               zb = make_buffer(std::vector<half>(n));
#ifdef ASCENDC_CPU_DEBUG
        ICPU_RUN_KF(int4_cast, 1, xb.device, qb.device, zb.device, racy("int4_cast"));
#else
        // clang-format off
        int4_cast<<<1, nullptr, g_stream>>>(xb.device, qb.device, zb.device, racy("int4_cast"));
        // clang-format on
#endif
        const auto q = read_back<uint8_t>(qb);
        const auto z = read_back<half>(zb);
        read_back<half>(xb);
        bool ok = true;
        for (uint32_t i = 0; i < n; ++i) {
            const float v = std::min(7.0F, std::max(-8.0F, std::ceil(static_cast<float>(x[i]))));
            const unsigned nibble = static_cast<unsigned>(static_cast<int>(v)) & 0xFU;
            ok = ok && static_cast<float>(z[i]) == v &&
                 ((q[i / 2] >> (4 * (i % 2))) & 0xFU) == nibble;
        }
        report("int4_cast", ok);
    }
}

void run_vector() {
    constexpr uint32_t n = 256;
    {
        std::vector<float> x(2 * n);
        for (uint32_t i = 0; i < 2 * n; ++i) x[i] = static_cast<float>(int(i % 7) - 3);
        Buffer xb = make_buffer(x), yb = make_buffer(std::vector<float>(2 * n));
#ifdef ASCENDC_CPU_DEBUG
        ICPU_RUN_KF(relu_select, 2, xb.device, yb.device, racy("relu_select"));
#else
        // clang-format off
        relu_select<<<2, nullptr, g_stream>>>(xb.device, yb.device, racy("relu_select"));
        // clang-format on
#endif
        const auto y = read_back<float>(yb);
        read_back<float>(xb);
        bool ok = true;
        for (uint32_t i = 0; i < 2 * n; ++i) ok = ok && y[i] == (x[i] > 0 ? x[i] : 0.0F);
        report("relu_select", ok);
    }
    {
        constexpr uint32_t valid = 60;
        std::vector<float> x(8 * 64);
        for (uint32_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 13);
        Buffer xb = make_buffer(x), sb = make_buffer(std::vector<float>(8));
#ifdef ASCENDC_CPU_DEBUG
        ICPU_RUN_KF(row_sums, 1, xb.device, sb.device, valid, racy("row_sums"));
#else
        // clang-format off
        row_sums<<<1, nullptr, g_stream>>>(xb.device, sb.device, valid, racy("row_sums"));
        // clang-format on
#endif
        const auto s = read_back<float>(sb);
        read_back<float>(xb);
        bool ok = true;
        for (uint32_t r = 0; r < 8; ++r) {
            float sum = 0;
            for (uint32_t c = 0; c < valid; ++c) sum += x[r * 64 + c];
            ok = ok && s[r] == sum;
        }
        report("row_sums", ok);
    }
    {
        std::vector<float> x(n);
        for (uint32_t i = 0; i < n; ++i) x[i] = static_cast<float>((i * 29) % 17) - 8.0F;
        Buffer xb = make_buffer(x), ob = make_buffer(std::vector<float>(160));
#ifdef ASCENDC_CPU_DEBUG
        ICPU_RUN_KF(block_pair, 1, xb.device, ob.device, racy("block_pair"));
#else
        // clang-format off
        block_pair<<<1, nullptr, g_stream>>>(xb.device, ob.device, racy("block_pair"));
        // clang-format on
#endif
        const auto o = read_back<float>(ob);
        read_back<float>(xb);
        bool ok = true;
        for (uint32_t b = 0; b < 32; ++b) {
            float m = x[b * 8];
            for (uint32_t i = 1; i < 8; ++i) m = std::max(m, x[b * 8 + i]);
            ok = ok && o[b] == m;
        }
        for (uint32_t p = 0; p < 128; ++p) ok = ok && o[32 + p] == x[2 * p] + x[2 * p + 1];
        report("block_pair", ok);
    }
    {
        std::vector<float> s(2 * n), acc(n);
        for (uint32_t i = 0; i < 2 * n; ++i) s[i] = static_cast<float>(i % 11);
        for (uint32_t i = 0; i < n; ++i) acc[i] = 1.0F;
        Buffer sb = make_buffer(s), ab = make_buffer(acc);
#ifdef ASCENDC_CPU_DEBUG
        ICPU_RUN_KF(strided_axpy, 1, sb.device, ab.device, racy("strided_axpy"));
#else
        // clang-format off
        strided_axpy<<<1, nullptr, g_stream>>>(sb.device, ab.device, racy("strided_axpy"));
        // clang-format on
#endif
        const auto a = read_back<float>(ab);
        read_back<float>(sb);
        bool ok = true;
        for (uint32_t r = 0; r < 4; ++r) {
            for (uint32_t e = 0; e < 64; ++e) {
                const float want = e < 48 ? s[r * 128 + e] * 3.0F + 1.0F : 1.0F;
                ok = ok && a[r * 64 + e] == want;
            }
        }
        report("strided_axpy", ok);
    }
    {
        constexpr uint32_t m = 64;
        std::vector<float> x(m);
        for (uint32_t i = 0; i < m; ++i)
            x[i] = (static_cast<float>(i) - 32.0F) * 0.25F + 1.0F / 4096;
        Buffer xb = make_buffer(x), ob = make_buffer(std::vector<int32_t>(4 * m));
        Buffer hb = make_buffer(std::vector<half>(m));
#ifdef ASCENDC_CPU_DEBUG
        ICPU_RUN_KF(cast_modes, 1, xb.device, ob.device, hb.device, racy("cast_modes"));
#else
        // clang-format off
        cast_modes<<<1, nullptr, g_stream>>>(xb.device, ob.device, hb.device, racy("cast_modes"));
        // clang-format on
#endif
        const auto o = read_back<int32_t>(ob);
        const auto h = read_back<half>(hb);
        read_back<float>(xb);
        bool ok = true;
        for (uint32_t i = 0; i < m; ++i) {
            ok = ok && o[i] == int32_t(std::floor(x[i])) && o[m + i] == int32_t(std::ceil(x[i])) &&
                 o[2 * m + i] == int32_t(std::round(x[i])) &&
                 o[3 * m + i] == int32_t(std::trunc(x[i]));
            // Round to odd: exact values stay, others take the neighbour with an odd last bit.
            const half nearest(x[i]);
            if (static_cast<float>(nearest) == x[i]) {
                ok = ok && h[i].bits == nearest.bits;
            } else {
                ok = ok && (h[i].bits & 1U) == 1U &&
                     std::fabs(static_cast<float>(h[i]) - x[i]) < std::fabs(x[i]) / 512 + 1e-6F;
            }
        }
        report("cast_modes", ok);
    }
}

void run_level0() {
    {
        constexpr uint32_t n = 256;
        std::vector<int16_t> x(2 * n);
        for (uint32_t i = 0; i < 2 * n; ++i) x[i] = static_cast<int16_t>(i * 3 - 500);
        Buffer xb = make_buffer(x), ob = make_buffer(std::vector<int16_t>(n));
        Buffer pb = make_buffer(std::vector<int16_t>(2 * n));
#ifdef ASCENDC_CPU_DEBUG
        ICPU_RUN_KF(copy_dup_i16, 1, xb.device, ob.device, pb.device, racy("copy_dup_i16"));
#else
        // clang-format off
        copy_dup_i16<<<1, nullptr, g_stream>>>(xb.device, ob.device, pb.device, racy("copy_dup_i16"));
        // clang-format on
#endif
        const auto o = read_back<int16_t>(ob);
        const auto p = read_back<int16_t>(pb);
        read_back<int16_t>(xb);
        bool ok = true;
        for (uint32_t r = 0; r < 2; ++r) {
            for (uint32_t b = 0; b < 8; ++b) {
                for (uint32_t e = 0; e < 16; ++e) {
                    ok = ok && o[r * 128 + b * 16 + e] == x[(r * 16 + b * 2) * 16 + e];
                }
            }
        }
        for (uint32_t i = 0; i < 2 * n; ++i) ok = ok && p[i] == ((i / 16) % 2 == 1 ? 7 : x[i]);
        report("copy_dup_i16", ok);
    }
    {
        constexpr uint32_t n = 128;
        std::vector<half> x(n);
        for (uint32_t i = 0; i < n; ++i) x[i] = half((static_cast<float>(i) - 64.0F) / 8.0F);
        Buffer xb = make_buffer(x), yb = make_buffer(std::vector<half>(n));
#ifdef ASCENDC_CPU_DEBUG
        ICPU_RUN_KF(half_math, 1, xb.device, yb.device, racy("half_math"));
#else
        // clang-format off
        half_math<<<1, nullptr, g_stream>>>(xb.device, yb.device, racy("half_math"));
        // clang-format on
#endif
        const auto y = read_back<half>(yb);
        read_back<half>(xb);
        bool ok = true;
        const float alpha = static_cast<float>(half(0.1F));
        for (uint32_t i = 0; i < n; ++i) {
            // Every step rounds to half, as the vector unit does.
            const float v = static_cast<float>(x[i]);
            float a = static_cast<float>(half(std::fabs(v)));
            a = static_cast<float>(half(a + 1.0F));
            a = static_cast<float>(half(std::log(a)));
            float b = static_cast<float>(half(v * v));
            float c = static_cast<float>(half(b + 4.0F));
            c = static_cast<float>(half(std::sqrt(c)));
            c = static_cast<float>(half(1.0F / std::sqrt(c)));
            a = static_cast<float>(half(a * c));
            b = static_cast<float>(half(b + 1.0F));
            b = static_cast<float>(half(1.0F / b));
            a = static_cast<float>(half(a + b));
            a = static_cast<float>(half(a > 0.0F ? a : a * alpha));
            ok = ok && static_cast<float>(y[i]) == a;
        }
        report("half_math", ok);
    }
    {
        constexpr uint32_t n = 128;
        std::vector<float> x(n), y(n);
        for (uint32_t i = 0; i < n; ++i) {
            x[i] = static_cast<float>(i % 10);
            y[i] = static_cast<float>((i * 7) % 10);
        }
        Buffer xb = make_buffer(x), yb = make_buffer(y), zb = make_buffer(std::vector<float>(n));
#ifdef ASCENDC_CPU_DEBUG
        ICPU_RUN_KF(masked_max, 1, xb.device, yb.device, zb.device, racy("masked_max"));
#else
        // clang-format off
        masked_max<<<1, nullptr, g_stream>>>(xb.device, yb.device, zb.device, racy("masked_max"));
        // clang-format on
#endif
        const auto z = read_back<float>(zb);
        read_back<float>(xb);
        read_back<float>(yb);
        bool ok = true;
        for (uint32_t i = 0; i < n; ++i) {
            const uint32_t e = i % 64;
            const bool on = e < 16 || (e >= 32 && e < 48);
            ok = ok && z[i] == (on ? std::max(x[i], y[i]) : -1.0F);
        }
        report("masked_max", ok);
    }
}

void run_atomics() {
    constexpr uint32_t n = 128;
    constexpr uint32_t blocks = 4;
    {
        Buffer ab = make_buffer(std::vector<int16_t>(n, 1000));
#ifdef ASCENDC_CPU_DEBUG
        ICPU_RUN_KF(atomic_add_i16, blocks, ab.device, racy("atomic_add_i16"));
#else
        // clang-format off
        atomic_add_i16<<<blocks, nullptr, g_stream>>>(ab.device, racy("atomic_add_i16"));
        // clang-format on
#endif
        const auto a = read_back<int16_t>(ab);
        bool ok = true;
        for (uint32_t i = 0; i < n; ++i) ok = ok && a[i] == 1000 + 1 + 2 + 3 + 4;
        report("atomic_add_i16", ok);
    }
    {
        std::vector<bfloat16_t> x(n);
        for (uint32_t i = 0; i < n; ++i) x[i] = bfloat16_t(static_cast<float>(int(i % 9) - 4));
        Buffer xb = make_buffer(x), ab = make_buffer(std::vector<bfloat16_t>(n, bfloat16_t(-1.0F)));
#ifdef ASCENDC_CPU_DEBUG
        ICPU_RUN_KF(atomic_max_bf16, blocks, xb.device, ab.device, racy("atomic_max_bf16"));
#else
        // clang-format off
        atomic_max_bf16<<<blocks, nullptr, g_stream>>>(xb.device, ab.device,
                                                         racy("atomic_max_bf16"));
        // clang-format on
#endif
        const auto a = read_back<bfloat16_t>(ab);
        read_back<bfloat16_t>(xb);
        bool ok = true;
        for (uint32_t i = 0; i < n; ++i) {
            float want = -1.0F;
            for (uint32_t b = 1; b <= blocks; ++b)
                want = std::max(want, bf(static_cast<float>(x[i]) * b));
            ok = ok && static_cast<float>(a[i]) == want;
        }
        report("atomic_max_bf16", ok);
    }
}

void run_mix() {
    constexpr uint32_t d = 32;
    std::vector<half> a(d * d), b(d * d);
    for (uint32_t i = 0; i < d * d; ++i) {
        a[i] = half(static_cast<float>(i % 5) - 2.0F);
        b[i] = half(static_cast<float>(i % 3) - 1.0F);
    }
    Buffer ab = make_buffer(a), bb = make_buffer(b);
    Buffer wb = make_buffer(std::vector<float>(d * d)), ob = make_buffer(std::vector<float>(d * d));
#ifdef ASCENDC_CPU_DEBUG
    AscendC::SetKernelMode(KernelMode::MIX_MODE);
    ICPU_RUN_KF(mix_relu_select, 1, ab.device, bb.device, wb.device, ob.device,
                racy("mix_relu_select"));
#else
    // clang-format off
    mix_relu_select<<<1, nullptr, g_stream>>>(ab.device, bb.device, wb.device, ob.device,
                                                racy("mix_relu_select"));
    // clang-format on
#endif
    const auto o = read_back<float>(ob);
    read_back<float>(wb);
    read_back<half>(ab);
    read_back<half>(bb);
    bool ok = true;
    for (uint32_t r = 0; r < d; ++r) {
        for (uint32_t c = 0; c < d; ++c) {
            float acc = 0;
            for (uint32_t k = 0; k < d; ++k) {
                acc += static_cast<float>(a[r * d + k]) * static_cast<float>(b[k * d + c]);
            }
            ok = ok && o[r * d + c] == (acc > 0 ? acc : 0.0F);
        }
    }
    report("mix_relu_select", ok);
}

void run_sort() {
    constexpr uint32_t n = 128;
#ifdef ASCENDC_CPU_DEBUG
    AscendC::SetKernelMode(KernelMode::AIV_MODE);  // run_mix left MIX_MODE
#endif
    {
        std::vector<half> s(n);
        for (uint32_t i = 0; i < n; ++i) s[i] = half(static_cast<float>((i * 29) % 61) - 30.0F);
        Buffer sb = make_buffer(s), tb = make_buffer(std::vector<half>(32 * 4));
#ifdef ASCENDC_CPU_DEBUG
        ICPU_RUN_KF(topk_sort, 1, sb.device, tb.device, racy("topk_sort"));
#else
        // clang-format off
        topk_sort<<<1, nullptr, g_stream>>>(sb.device, tb.device, racy("topk_sort"));
        // clang-format on
#endif
        const auto t = read_back<half>(tb);
        read_back<half>(sb);
        // Descending by score; equal scores by position (Sort32 and MrgSort keep that order).
        std::vector<uint32_t> order(n);
        for (uint32_t i = 0; i < n; ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            return static_cast<float>(s[a]) > static_cast<float>(s[b]);
        });
        bool ok = true;
        for (uint32_t j = 0; j < 32; ++j) {
            uint32_t index = 0;
            std::memcpy(&index, &t[4 * j + 2], 4);
            ok = ok && static_cast<float>(t[4 * j]) == static_cast<float>(s[order[j]]) &&
                 index == order[j];
        }
        report("topk_sort", ok);
    }
    {
        std::vector<float> x(n);
        for (uint32_t i = 0; i < n; ++i) x[i] = static_cast<float>(int(i % 9) - 4);
        Buffer xb = make_buffer(x), ob = make_buffer(std::vector<float>(2 * n)),
               cb = make_buffer(std::vector<int32_t>(8));
#ifdef ASCENDC_CPU_DEBUG
        ICPU_RUN_KF(gather_pick, 1, xb.device, ob.device, cb.device, racy("gather_pick"));
#else
        // clang-format off
        gather_pick<<<1, nullptr, g_stream>>>(xb.device, ob.device, cb.device, racy("gather_pick"));
        // clang-format on
#endif
        const auto o = read_back<float>(ob);
        const auto c = read_back<int32_t>(cb);
        read_back<float>(xb);
        std::vector<float> positives;
        for (float v : x) {
            if (v > 0) positives.push_back(v);
        }
        bool ok = c[0] == static_cast<int32_t>(positives.size()) && c[7] == c[0];
        for (uint32_t i = 0; i < n; ++i) {
            ok = ok && o[i] == (i < positives.size() ? positives[i] : 0.0F);
            ok = ok && o[n + i] == x[n - 1 - i];
        }
        report("gather_pick", ok);
    }
    {
        constexpr uint32_t n = 864, total = 1120;
        std::vector<half> x(n);
        for (uint32_t i = 0; i < n; ++i) x[i] = half(static_cast<float>(int(i * 37 % 101) - 50));
        Buffer xb = make_buffer(x), ob = make_buffer(std::vector<half>(total)),
               cb = make_buffer(std::vector<int32_t>(8));
#ifdef ASCENDC_CPU_DEBUG
        ICPU_RUN_KF(transpose_merge, 1, xb.device, ob.device, cb.device, racy("transpose_merge"));
#else
        // clang-format off
        transpose_merge<<<1, nullptr, g_stream>>>(xb.device, ob.device, cb.device, racy("transpose_merge"));
        // clang-format on
#endif
        const auto o = read_back<half>(ob);
        const auto c = read_back<int32_t>(cb);
        read_back<half>(xb);
        auto f = [](half v) { return static_cast<float>(v); };
        bool ok = true;
        for (uint32_t i = 0; i < 16; ++i) {
            for (uint32_t j = 0; j < 16; ++j) ok = ok && f(o[i * 16 + j]) == f(x[j * 16 + i]);
        }
        for (uint32_t b = 0; b < 2; ++b) {  // [2, 3, 2 x 8] -> [2, 2 x 8, 3]
            for (uint32_t ch = 0; ch < 3; ++ch) {
                for (uint32_t hw = 0; hw < 16; ++hw) {
                    ok =
                        ok && f(o[256 + b * 48 + hw * 3 + ch]) == f(x[256 + b * 48 + ch * 16 + hw]);
                }
            }
        }
        for (uint32_t ch = 0; ch < 16; ++ch) {  // 16 channels x 32 -> 32 x 16
            for (uint32_t hw = 0; hw < 32; ++hw) {
                ok = ok && f(o[352 + hw * 16 + ch]) == f(x[352 + ch * 32 + hw]);
            }
        }
        // The two sorted queues, merged until one is used up (equal scores: the first queue).
        std::vector<uint32_t> q[2];
        for (uint32_t k = 0; k < 2; ++k) {
            for (uint32_t i = 0; i < 32; ++i) q[k].push_back(32 * k + i);
            std::stable_sort(q[k].begin(), q[k].end(),
                             [&](uint32_t a, uint32_t b) { return f(x[352 + a]) > f(x[352 + b]); });
        }
        std::size_t next[2] = {0, 0}, out = 0;
        while (next[0] < 32 && next[1] < 32) {
            const int k = f(x[352 + q[1][next[1]]]) > f(x[352 + q[0][next[0]]]) ? 1 : 0;
            const uint32_t pick = q[k][next[k]++];
            uint32_t index = 0;
            std::memcpy(&index, &o[864 + 4 * out + 2], 4);
            ok = ok && f(o[864 + 4 * out]) == f(x[352 + pick]) && index == pick;
            ++out;
        }
        for (std::size_t i = 864 + 4 * out; i < total; ++i) ok = ok && f(o[i]) == 0.0F;
        ok = ok && c[0] == static_cast<int32_t>(next[0]) && c[1] == static_cast<int32_t>(next[1]);
        report("transpose_merge", ok);
    }
}

void run_bits() {
    {
        constexpr uint32_t n = 128;
        std::vector<uint16_t> x(n);
        for (uint32_t i = 0; i < n; ++i) x[i] = static_cast<uint16_t>(i * 977U + 3U);
        Buffer xb = make_buffer(x), ob = make_buffer(std::vector<int32_t>(n)),
               bb = make_buffer(std::vector<uint16_t>(n));
#ifdef ASCENDC_CPU_DEBUG
        ICPU_RUN_KF(shift_index, 1, xb.device, ob.device, bb.device, racy("shift_index"));
#else
        // clang-format off
        shift_index<<<1, nullptr, g_stream>>>(xb.device, ob.device, bb.device, racy("shift_index"));
        // clang-format on
#endif
        const auto o = read_back<int32_t>(ob);
        const auto b = read_back<uint16_t>(bb);
        read_back<uint16_t>(xb);
        bool ok = true;
        for (uint32_t i = 0; i < n; ++i) {
            const int32_t index = static_cast<int32_t>(i) - 5;
            ok = ok && o[i] == index * 8 / 2;  // << 3 then arithmetic >> 1 (no overflow here)
            ok = ok && b[i] == static_cast<uint16_t>(static_cast<uint16_t>(x[i] << 4) >> 6);
        }
        report("shift_index", ok);
    }
    {
        constexpr uint32_t n = 1000;
        std::vector<float> x(n);
        float sum = 0.0F;
        for (uint32_t i = 0; i < n; ++i) {
            x[i] = static_cast<float>(i % 17) * 0.25F - 2.0F;
            sum += x[i];
        }
        Buffer xb = make_buffer(x), sb = make_buffer(std::vector<float>(8)),
               cb = make_buffer(std::vector<int32_t>(8));
#ifdef ASCENDC_CPU_DEBUG
        ICPU_RUN_KF(reduce_repeat, 1, xb.device, sb.device, cb.device, racy("reduce_repeat"));
#else
        // clang-format off
        reduce_repeat<<<1, nullptr, g_stream>>>(xb.device, sb.device, cb.device, racy("reduce_repeat"));
        // clang-format on
#endif
        const auto s = read_back<float>(sb);
        const auto c = read_back<int32_t>(cb);
        read_back<float>(xb);
        // Quarter steps: every partial sum is exact in float. The span is the scalar unit's.
        report("reduce_repeat", s[0] == sum && c[0] > 0 && c[7] == c[0]);
    }
    {
        constexpr uint32_t n = 128;
        std::vector<float> x(2 * n);
        for (uint32_t i = 0; i < 2 * n; ++i) x[i] = static_cast<float>((i * 37U) % 101U) - 50.0F;
        std::vector<uint8_t> sel(32);
        for (uint32_t i = 0; i < 32; ++i) sel[i] = static_cast<uint8_t>(i * 53U + 7U);
        Buffer xb = make_buffer(x), sb = make_buffer(sel),
               ob = make_buffer(std::vector<float>(64 + n + 8));
#ifdef ASCENDC_CPU_DEBUG
        ICPU_RUN_KF(cmp_register, 1, xb.device, sb.device, ob.device, racy("cmp_register"));
#else
        // clang-format off
        cmp_register<<<1, nullptr, g_stream>>>(xb.device, sb.device, ob.device, racy("cmp_register"));
        // clang-format on
#endif
        const auto o = read_back<float>(ob);
        read_back<float>(xb);
        read_back<uint8_t>(sb);
        uint8_t bits[32] = {};
        std::memcpy(bits, o.data() + 64 + n, 32);
        bool ok = true;
        for (uint32_t i = 0; i < 64; ++i) {
            const bool lt = x[i] < x[n + i];
            ok = ok && o[i] == (lt ? x[i] : x[n + i]);
            ok = ok && ((bits[i / 8] >> (i % 8)) & 1U) == (lt ? 1U : 0U);
        }
        for (uint32_t i = 8; i < 32; ++i) ok = ok && bits[i] == 0;  // cleared register, zeros
        for (uint32_t i = 0; i < n; ++i) {
            const bool pick = ((sel[(i % 64) / 8] >> (i % 8)) & 1U) != 0;
            ok = ok && o[64 + i] == (pick ? x[i] : x[n + i]);
        }
        report("cmp_register", ok);
        // What the kernel's dumps print (check_corpus.sh matches each expect-dump line).
        const auto text = [](float v) {
            char t[32];
            std::snprintf(t, sizeof t, "%f", static_cast<double>(v));
            return std::string(t);
        };
        std::string byte_line, x_line;
        for (uint32_t i = 0; i < 8; ++i) byte_line += (i ? ", " : "") + std::to_string(bits[i]);
        for (uint32_t i = 2; i < 6; ++i) x_line += (i > 2 ? ", " : "") + text(x[i]);
        if (g_racy.empty()) {
            std::printf(
                "expect-dump: DumpTensor: desc=7, addr=0x*, data_type=uint8, "
                "position=UB, dump_size=8\nexpect-dump: [%s]\n",
                byte_line.c_str());
            std::printf(
                "expect-dump: DumpTensor: desc=3, addr=0x*, data_type=float32, "
                "position=GM, dump_size=4\nexpect-dump: [%s]\n",
                x_line.c_str());
            std::printf("expect-dump: [[%s,%s],\nexpect-dump: [%s,%s]]\n", text(o[0]).c_str(),
                        text(o[1]).c_str(), text(o[2]).c_str(), text(o[3]).c_str());
        }
    }
    {
        constexpr uint32_t n = 512;
        std::vector<half> x(n);
        for (uint32_t i = 0; i < n; ++i) x[i] = half(static_cast<float>((i * 29U) % 97U) * 0.5F);
        x[300] = half(60.0F);  // the maximum, once
        x[77] = half(-3.0F);   // the minimum, once
        Buffer xb = make_buffer(x), ob = make_buffer(std::vector<half>(32));
#ifdef ASCENDC_CPU_DEBUG
        ICPU_RUN_KF(reduce_spr, 1, xb.device, ob.device, racy("reduce_spr"));
#else
        // clang-format off
        reduce_spr<<<1, nullptr, g_stream>>>(xb.device, ob.device, racy("reduce_spr"));
        // clang-format on
#endif
        const auto o = read_back<half>(ob);
        read_back<half>(xb);
        // Halves of multiples of 0.5 below 2048 add exactly in fp32 and round exactly to half.
        float part = 0.0F, first = 0.0F;
        for (uint32_t r = 0; r < 4; ++r) {
            for (uint32_t e = 0; e < 64; ++e) part += static_cast<float>(x[r * 128 + e]);
        }
        for (uint32_t i = 0; i < 256; ++i) first += static_cast<float>(x[i]);
        uint16_t max_index = 0, min_index = 0;
        std::memcpy(&max_index, &o[1], 2);
        std::memcpy(&min_index, &o[5], 2);
        bool pairs = true;
        for (uint32_t k = 0; k < 8; ++k) {
            const float sum = static_cast<float>(x[2 * k]) + static_cast<float>(x[2 * k + 1]);
            pairs = pairs && static_cast<float>(o[24 + k]) == static_cast<float>(half(sum));
        }
        report("reduce_spr", pairs && static_cast<float>(o[0]) == 60.0F && max_index == 300 &&
                                 static_cast<float>(o[16]) == static_cast<float>(half(part)) &&
                                 static_cast<float>(o[3]) == static_cast<float>(half(first)) &&
                                 static_cast<float>(o[4]) == -3.0F && min_index == 77);
    }
    {
        std::vector<float> x(160);
        for (uint32_t i = 0; i < 160; ++i) x[i] = static_cast<float>(i);
        Buffer xb = make_buffer(x), ob = make_buffer(std::vector<float>(32));
#ifdef ASCENDC_CPU_DEBUG
        ICPU_RUN_KF(slice_copy, 1, xb.device, ob.device, racy("slice_copy"));
#else
        // clang-format off
        slice_copy<<<1, nullptr, g_stream>>>(xb.device, ob.device, racy("slice_copy"));
        // clang-format on
#endif
        const auto o = read_back<float>(ob);
        read_back<float>(xb);
        bool ok = true;
        for (uint32_t r = 0; r < 2; ++r) {
            for (uint32_t k = 0; k < 16; ++k) {
                const uint32_t row = 1 + 2 * r, col = (k < 8 ? 8 : 12) + k;
                ok = ok && o[r * 16 + k] == x[row * 40 + col];
            }
        }
        report("slice_copy", ok);
    }
}

}  // namespace

int32_t main() {
    if (const char* which = std::getenv("CORPUS_RACY")) g_racy = which;
#ifndef ASCENDC_CPU_DEBUG
    if (aclInit(nullptr) != ACL_ERROR_NONE || aclrtSetDevice(0) != ACL_ERROR_NONE ||
        aclrtCreateStream(&g_stream) != ACL_ERROR_NONE) {
        std::fprintf(stderr, "ACL setup failed\n");
        return 1;
    }
#endif
    run_types();
    run_vector();
    run_level0();
    run_atomics();
    run_mix();
    run_sort();
    run_bits();
#ifndef ASCENDC_CPU_DEBUG
    aclrtDestroyStream(g_stream);
    aclrtResetDevice(0);
    aclFinalize();
#endif
    return g_failures == 0 ? 0 : 1;
}
