// Host of the KernelLaunch-layout sample: an ACL branch (default) and a CPU-debug branch,
// both including acl/acl.h (through data_utils.h); kernels in their own files.
#include "add_tiling.h"
#include "data_utils.h"
#include "uneven_tiling.h"
#ifndef ASCENDC_CPU_DEBUG
#include "acl/acl.h"
#include "aclrtlaunch_class_typed_custom.h"
#include "aclrtlaunch_mix_vector_custom.h"
#include "aclrtlaunch_reduce_workspace_custom.h"
#include "aclrtlaunch_tiling_add_custom.h"
#include "aclrtlaunch_tpipe_events_custom.h"
#include "aclrtlaunch_uneven_tiles_custom.h"
#include "aclrtlaunch_workspace_custom.h"
extern void scale_custom_do(uint32_t blockDim, void* stream, uint8_t* x, uint8_t* y,
                            uint32_t tiles);
#include "tiling/platform/platform_ascendc.h"
#else
#include "acl/acl.h"
#include "tikicpulib.h"
#include "tiling/platform/platform_ascendc.h"
__global__ __aicore__ void mix_vector_custom(GM_ADDR x, GM_ADDR y, uint32_t tileLength);
__global__ __aicore__ void class_typed_custom(GM_ADDR x, GM_ADDR y, uint32_t tileLength);
extern "C" __global__ __aicore__ void scale_custom(GM_ADDR x, GM_ADDR y, uint32_t tiles);
extern "C" __global__ __aicore__ void tpipe_events_custom(GM_ADDR x, GM_ADDR y,
                                                          uint32_t tileLength);
extern "C" __global__ __aicore__ void uneven_tiles_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                          GM_ADDR tiling);
extern "C" __global__ __aicore__ void reduce_workspace_custom(GM_ADDR x, GM_ADDR out,
                                                              GM_ADDR workspace, GM_ADDR tiling);
extern "C" __global__ __aicore__ void tiling_add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                        GM_ADDR workspace, GM_ADDR tiling);
__global__ __aicore__ void workspace_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                            uint32_t tileLength);
#endif

int32_t main(int32_t argc, char* argv[]) {
    constexpr uint32_t blockDim = 4;
    constexpr uint32_t tileLength = 256;
    constexpr uint32_t tileNum = 4;
    constexpr uint32_t total = blockDim * tileLength * tileNum;
    std::vector<float> xf(total), yf(total), sum(total), diff(total), twice(total), negated(total);
    for (uint32_t i = 0; i < total; ++i) {
        xf[i] = static_cast<float>(i % 31) * 0.25f;
        yf[i] = static_cast<float>(i % 7) - 3.0f;
        sum[i] = 2.0f * xf[i] + 0.5f * yf[i];
        diff[i] = 2.0f * xf[i] - 0.5f * yf[i];
    }
    const std::vector<aclFloat16> xh = ToHalf(xf), yh = ToHalf(yf);
    optiling::AddTilingData tiling{total, {tileNum, tileLength}, {2.0f, 0.5f}};
    const size_t halfBytes = total * sizeof(aclFloat16);
    const size_t floatBytes = total * sizeof(float);
    const uint32_t floatTile = total / blockDim;
    for (uint32_t i = 0; i < total; ++i) twice[i] = xf[i] * 2.0f + 1.0f;
    for (uint32_t i = 0; i < total; ++i) negated[i] = -xf[i];
    const size_t workspaceBytes =
        platform_ascendc::PlatformAscendCManager::GetInstance()->GetLibApiWorkSpaceSize() +
        floatBytes;
    int failures = 0;
    auto* platform = platform_ascendc::PlatformAscendCManager::GetInstance();
    if (platform->GetCoreNumAiv() < blockDim || platform->GetCoreNumAic() == 0) {
        std::printf("the chip has %u vector cores, %u needed\n", platform->GetCoreNumAiv(),
                    blockDim);
        return 1;
    }
    struct ReduceTiling {
        uint32_t tileLength;
        uint32_t blocks;
    } reduceTiling{floatTile, blockDim};
    float expectedSum = 0.0f;
    for (uint32_t i = 0; i < total; ++i) expectedSum += xf[i];
    const std::vector<float> sumGolden = {expectedSum, 0, 0, 0, 0, 0, 0, 0};
    UnevenTilingData uneven{{0, 256, 768, 896}, {256, 512, 128, 384}, 1.5f, 128};
    std::vector<float> unevenGolden(1280);
    for (uint32_t i = 0; i < 1280; ++i) unevenGolden[i] = xf[i] * 1.5f;
    std::vector<float> scaleGolden(total), eventsGolden(total);
    for (uint32_t i = 0; i < total; ++i) {
        scaleGolden[i] = xf[i] * 0.5f - 1.0f;
        eventsGolden[i] = std::fabs(yf[i]) > 2.0f ? std::fabs(yf[i]) : 2.0f;
    }
    const size_t reduceWorkspaceBytes =
        platform_ascendc::PlatformAscendCManager::GetInstance()->GetLibApiWorkSpaceSize() +
        2 * blockDim * 32;

#ifdef ASCENDC_CPU_DEBUG
    uint8_t* x = (uint8_t*)AscendC::GmAlloc(halfBytes);
    uint8_t* y = (uint8_t*)AscendC::GmAlloc(halfBytes);
    uint8_t* z = (uint8_t*)AscendC::GmAlloc(halfBytes);
    uint8_t* t = (uint8_t*)AscendC::GmAlloc(sizeof(tiling));
    std::memcpy(x, xh.data(), halfBytes);
    std::memcpy(y, yh.data(), halfBytes);
    std::memcpy(t, &tiling, sizeof(tiling));
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_SET_TILING_KEY(1);
    ICPU_RUN_KF(tiling_add_custom, blockDim, x, y, z, (uint8_t*)nullptr, t);
    failures += CheckHalf("tiling_add_custom key 1", (aclFloat16*)z, sum);
    ICPU_SET_TILING_KEY(2);
    ICPU_RUN_KF(tiling_add_custom, blockDim, x, y, z, (uint8_t*)nullptr, t);
    failures += CheckHalf("tiling_add_custom key 2", (aclFloat16*)z, diff);

    uint8_t* xw = (uint8_t*)AscendC::GmAlloc(floatBytes);
    uint8_t* yw = (uint8_t*)AscendC::GmAlloc(floatBytes);
    uint8_t* ws = (uint8_t*)AscendC::GmAlloc(workspaceBytes);
    std::memcpy(xw, xf.data(), floatBytes);
    ICPU_RUN_KF(workspace_custom, blockDim, xw, yw, ws, floatTile);
    failures += CheckFloat("workspace_custom", (float*)yw, twice);
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF(mix_vector_custom, blockDim, xw, yw, floatTile);
    failures += CheckFloat("mix_vector_custom", (float*)yw, xf);
    ICPU_RUN_KF(class_typed_custom, blockDim, xw, yw, floatTile);
    failures += CheckFloat("class_typed_custom", (float*)yw, negated);

    uint8_t* rt = (uint8_t*)AscendC::GmAlloc(sizeof(reduceTiling));
    uint8_t* rws = (uint8_t*)AscendC::GmAlloc(reduceWorkspaceBytes);
    uint8_t* rout = (uint8_t*)AscendC::GmAlloc(32);
    std::memcpy(rt, &reduceTiling, sizeof(reduceTiling));
    ICPU_RUN_KF(reduce_workspace_custom, blockDim, xw, rout, rws, rt);
    failures += CheckFloat("reduce_workspace_custom", (float*)rout, sumGolden);
    uint8_t* ut = (uint8_t*)AscendC::GmAlloc(sizeof(uneven));
    std::memcpy(ut, &uneven, sizeof(uneven));
    ICPU_RUN_KF(uneven_tiles_custom, blockDim, xw, yw, (uint8_t*)nullptr, ut);
    failures += CheckFloat("uneven_tiles_custom", (float*)yw, unevenGolden);
    ICPU_RUN_KF(scale_custom, blockDim, x, z, tileNum);
    failures += CheckHalf("scale_custom", (aclFloat16*)z, scaleGolden);
    std::memcpy(xw, yf.data(), floatBytes);
    ICPU_RUN_KF(tpipe_events_custom, blockDim, xw, yw, floatTile);
    failures += CheckFloat("tpipe_events_custom", (float*)yw, eventsGolden);
    for (uint8_t* p : {x, y, z, t, xw, yw, ws, rt, rws, rout, ut}) AscendC::GmFree(p);
#else
    aclInit(nullptr);
    aclrtSetDevice(0);
    aclrtStream stream = nullptr;
    aclrtCreateStream(&stream);
    uint8_t *x, *y, *z, *t, *xw, *yw, *ws;
    aclrtMalloc((void**)&x, halfBytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc((void**)&y, halfBytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc((void**)&z, halfBytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc((void**)&t, sizeof(tiling), ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc((void**)&xw, floatBytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc((void**)&yw, floatBytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc((void**)&ws, workspaceBytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(x, halfBytes, xh.data(), halfBytes, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMemcpy(y, halfBytes, yh.data(), halfBytes, ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMemcpy(t, sizeof(tiling), &tiling, sizeof(tiling), ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMemcpy(xw, floatBytes, xf.data(), floatBytes, ACL_MEMCPY_HOST_TO_DEVICE);
    std::vector<aclFloat16> zh(total);
    std::vector<float> out(total);

    ACLRT_LAUNCH_KERNEL(tiling_add_custom)(blockDim, stream, x, y, z, nullptr, t);
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(zh.data(), halfBytes, z, halfBytes, ACL_MEMCPY_DEVICE_TO_HOST);
    failures += CheckHalf("tiling_add_custom key 0", zh.data(), sum);

    // clang-format off
    workspace_custom<<<blockDim, nullptr, stream>>>(xw, yw, ws, floatTile);
    // clang-format on
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(out.data(), floatBytes, yw, floatBytes, ACL_MEMCPY_DEVICE_TO_HOST);
    failures += CheckFloat("workspace_custom", out.data(), twice);

    ACLRT_LAUNCH_KERNEL(mix_vector_custom)(blockDim, stream, xw, yw, floatTile);
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(out.data(), floatBytes, yw, floatBytes, ACL_MEMCPY_DEVICE_TO_HOST);
    failures += CheckFloat("mix_vector_custom", out.data(), xf);
    ACLRT_LAUNCH_KERNEL(class_typed_custom)(blockDim, stream, xw, yw, floatTile);
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(out.data(), floatBytes, yw, floatBytes, ACL_MEMCPY_DEVICE_TO_HOST);
    failures += CheckFloat("class_typed_custom", out.data(), negated);

    uint8_t *rt, *rws, *rout;
    aclrtMalloc((void**)&rt, sizeof(reduceTiling), ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc((void**)&rws, reduceWorkspaceBytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc((void**)&rout, 32, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(rt, sizeof(reduceTiling), &reduceTiling, sizeof(reduceTiling),
                ACL_MEMCPY_HOST_TO_DEVICE);
    aclrtMemset(rws, reduceWorkspaceBytes, 0, reduceWorkspaceBytes);
    std::vector<float> sumOut(8);
    ACLRT_LAUNCH_KERNEL(reduce_workspace_custom)(blockDim, stream, xw, rout, rws, rt);
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(sumOut.data(), 32, rout, 32, ACL_MEMCPY_DEVICE_TO_HOST);
    failures += CheckFloat("reduce_workspace_custom", sumOut.data(), sumGolden);
    uint8_t* ut;
    aclrtMalloc((void**)&ut, sizeof(uneven), ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(ut, sizeof(uneven), &uneven, sizeof(uneven), ACL_MEMCPY_HOST_TO_DEVICE);
    ACLRT_LAUNCH_KERNEL(uneven_tiles_custom)(blockDim, stream, xw, yw, nullptr, ut);
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(out.data(), floatBytes, yw, floatBytes, ACL_MEMCPY_DEVICE_TO_HOST);
    failures += CheckFloat("uneven_tiles_custom", out.data(), unevenGolden);
    scale_custom_do(blockDim, stream, x, z, tileNum);
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(zh.data(), halfBytes, z, halfBytes, ACL_MEMCPY_DEVICE_TO_HOST);
    failures += CheckHalf("scale_custom", zh.data(), scaleGolden);
    aclrtMemcpy(xw, floatBytes, yf.data(), floatBytes, ACL_MEMCPY_HOST_TO_DEVICE);
    ACLRT_LAUNCH_KERNEL(tpipe_events_custom)(blockDim, stream, xw, yw, floatTile);
    aclrtSynchronizeStream(stream);
    aclrtMemcpy(out.data(), floatBytes, yw, floatBytes, ACL_MEMCPY_DEVICE_TO_HOST);
    failures += CheckFloat("tpipe_events_custom", out.data(), eventsGolden);
    for (uint8_t* p : {x, y, z, t, xw, yw, ws, rt, rws, rout, ut}) aclrtFree(p);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
#endif
    return failures;
}
