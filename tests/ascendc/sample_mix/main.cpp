// The host program of the mixed sample, ACL only: it launches one kernel through
// ACLRT_LAUNCH_KERNEL and the others through `_do` wrappers (<<<>>>), never naming a kernel
// type, and checks each output against relu(A x B) * 0.5 computed here.
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "aclrtlaunch_mix_qualified.h"

extern void mix_body_typed_do(uint32_t blockDim, void* stream, uint8_t* a, uint8_t* b, uint8_t* c,
                              uint8_t* out);
extern void mix_conditional_do(uint32_t blockDim, void* stream, uint8_t* a, uint8_t* b, uint8_t* c,
                               uint8_t* out);
extern void mix_pointer_do(uint32_t blockDim, void* stream, uint8_t* a, uint8_t* b, uint8_t* c,
                           uint8_t* out);

#define CHECK_ACL(x)                                                                \
    do {                                                                            \
        aclError __ret = x;                                                         \
        if (__ret != ACL_ERROR_NONE) {                                              \
            std::fprintf(stderr, "%s:%d aclError:%d\n", __FILE__, __LINE__, __ret); \
            return 1;                                                               \
        }                                                                           \
    } while (0)

int32_t main() {
    constexpr uint32_t m = 32, n = 32, k = 32;
    std::vector<half> a(m * k), b(k * n);
    for (uint32_t i = 0; i < m * k; ++i) a[i] = half(static_cast<float>(i % 5) - 2.0F);
    for (uint32_t i = 0; i < k * n; ++i) b[i] = half(static_cast<float>(i % 3) - 1.0F);
    std::vector<float> expected(m * n);
    for (uint32_t r = 0; r < m; ++r) {
        for (uint32_t col = 0; col < n; ++col) {
            float acc = 0.0F;
            for (uint32_t i = 0; i < k; ++i)
                acc += static_cast<float>(a[r * k + i]) * static_cast<float>(b[i * n + col]);
            expected[r * n + col] = (acc > 0.0F ? acc : 0.0F) * 0.5F;
        }
    }

    CHECK_ACL(aclInit(nullptr));
    CHECK_ACL(aclrtSetDevice(0));
    aclrtStream stream = nullptr;
    CHECK_ACL(aclrtCreateStream(&stream));
    const size_t aBytes = a.size() * sizeof(half), bBytes = b.size() * sizeof(half);
    const size_t outBytes = m * n * sizeof(float);
    uint8_t *aDevice, *bDevice, *cDevice, *outDevice;
    CHECK_ACL(aclrtMalloc((void**)&aDevice, aBytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc((void**)&bDevice, bBytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc((void**)&cDevice, outBytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMalloc((void**)&outDevice, outBytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_ACL(aclrtMemcpy(aDevice, aBytes, a.data(), aBytes, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_ACL(aclrtMemcpy(bDevice, bBytes, b.data(), bBytes, ACL_MEMCPY_HOST_TO_DEVICE));

    int failures = 0;
    for (int form = 0; form < 4; ++form) {
        CHECK_ACL(aclrtMemset(outDevice, outBytes, 0, outBytes));
        if (form == 0) {
            ACLRT_LAUNCH_KERNEL(mix_qualified)(1, stream, aDevice, bDevice, cDevice, outDevice);
        } else if (form == 1) {
            mix_body_typed_do(1, stream, aDevice, bDevice, cDevice, outDevice);
        } else if (form == 2) {
            mix_conditional_do(1, stream, aDevice, bDevice, cDevice, outDevice);
        } else {
            mix_pointer_do(1, stream, aDevice, bDevice, cDevice, outDevice);
        }
        CHECK_ACL(aclrtSynchronizeStream(stream));
        std::vector<float> out(m * n);
        CHECK_ACL(
            aclrtMemcpy(out.data(), outBytes, outDevice, outBytes, ACL_MEMCPY_DEVICE_TO_HOST));
        const char* const names[] = {"mix_qualified", "mix_body_typed", "mix_conditional",
                                     "mix_qualified through a pointer"};
        const char* name = names[form];
        if (std::memcmp(out.data(), expected.data(), outBytes) != 0) {
            std::printf("%s: wrong output\n", name);
            ++failures;
        } else {
            std::printf("%s: output OK\n", name);
        }
    }
    CHECK_ACL(aclrtFree(aDevice));
    CHECK_ACL(aclrtFree(bDevice));
    CHECK_ACL(aclrtFree(cDevice));
    CHECK_ACL(aclrtFree(outDevice));
    CHECK_ACL(aclrtDestroyStream(stream));
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    return failures == 0 ? 0 : 1;
}
