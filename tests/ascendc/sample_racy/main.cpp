// CPU-debug host of the racy sample.
#include <cstring>

#include "tikicpulib.h"
extern "C" __global__ __aicore__ void racy_custom(GM_ADDR x, GM_ADDR z);

int32_t main() {
    const size_t bytes = 256 * sizeof(float);
    uint8_t* x = AscendC::GmAlloc(bytes);
    uint8_t* z = AscendC::GmAlloc(bytes);
    std::memset(x, 0, bytes);
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF(racy_custom, 1, x, z);
    AscendC::GmFree(x);
    AscendC::GmFree(z);
    return 0;
}
