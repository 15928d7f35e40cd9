// An ACL-style host program on two streams ordered by an event: stream 1 copies x in and
// runs scale (y = 2x), records an event; stream 2 waits for it and runs shift (z = y + 1).
// Right results, no findings, documented status values, elapsed time between timing events;
// interprocess events without timestamps; calls outside a host program.
#define NPUSIM_ACL_NO_MAIN
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "acl/acl.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"

using namespace AscendC;

namespace {

constexpr uint32_t kLength = 4 * 512;
constexpr uint32_t kBlocks = 4;

// out = in * scale + shift over kLength / GetBlockNum() elements per block.
extern "C" __global__ __aicore__ void scale_shift(GM_ADDR in, GM_ADDR out, float scale,
                                                  float shift) {
    const uint32_t per = kLength / GetBlockNum();
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    pipe.InitBuffer(inQueue, 1, per * sizeof(float));
    pipe.InitBuffer(outQueue, 1, per * sizeof(float));
    GlobalTensor<float> inGm, outGm;
    inGm.SetGlobalBuffer((__gm__ float*)in + per * GetBlockIdx(), per);
    outGm.SetGlobalBuffer((__gm__ float*)out + per * GetBlockIdx(), per);
    LocalTensor<float> x = inQueue.AllocTensor<float>();
    DataCopy(x, inGm, per);
    inQueue.EnQue(x);
    x = inQueue.DeQue<float>();
    LocalTensor<float> y = outQueue.AllocTensor<float>();
    Muls(y, x, scale, per);
    Adds(y, y, shift, per);
    outQueue.EnQue(y);
    inQueue.FreeTensor(x);
    y = outQueue.DeQue<float>();
    DataCopy(outGm, y, per);
    outQueue.FreeTensor(y);
}

struct HostOutcome {
    std::vector<float> z;
    aclrtEventRecordedStatus before_record = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    aclrtEventRecordedStatus after_sync = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    aclrtStreamStatus stream_status = ACL_STREAM_STATUS_NOT_READY;
    float elapsed_ms = -1.0F;
    aclError ipc_elapsed = ACL_SUCCESS;
    aclError ipc_or_ed = ACL_SUCCESS;
    aclError bad_device = ACL_SUCCESS;
    aclError repeat_init = ACL_SUCCESS;
};

int two_streams(HostOutcome& outcome) {
    if (aclInit(nullptr) != ACL_SUCCESS) return 1;
    outcome.repeat_init = aclInit(nullptr);
    outcome.bad_device = aclrtSetDevice(3);
    if (aclrtSetDevice(0) != ACL_SUCCESS) return 2;
    aclrtStream first = nullptr, second = nullptr;
    if (aclrtCreateStream(&first) != ACL_SUCCESS) return 3;
    if (aclrtCreateStream(&second) != ACL_SUCCESS) return 4;
    aclrtEvent start = nullptr, produced = nullptr, done = nullptr, ipc = nullptr;
    aclrtCreateEventWithFlag(&start, ACL_EVENT_TIME_LINE);
    aclrtCreateEvent(&produced);
    aclrtCreateEventWithFlag(&done, ACL_EVENT_TIME_LINE | ACL_EVENT_SYNC);
    if (aclrtCreateEventExWithFlag(&ipc, ACL_EVENT_IPC) != ACL_SUCCESS) return 5;
    outcome.ipc_or_ed = aclrtCreateEventExWithFlag(&ipc, ACL_EVENT_IPC | ACL_EVENT_SYNC);
    aclrtQueryEventStatus(done, &outcome.before_record);

    const size_t bytes = kLength * sizeof(float);
    std::vector<float> x(kLength);
    for (uint32_t i = 0; i < kLength; ++i) x[i] = static_cast<float>(i % 100);
    void *xDevice = nullptr, *yDevice = nullptr, *zDevice = nullptr, *zHost = nullptr;
    aclrtMalloc(&xDevice, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&yDevice, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&zDevice, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMallocHost(&zHost, bytes);

    aclrtRecordEvent(start, first);
    aclrtMemcpyAsync(xDevice, bytes, x.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE, first);
    ACLRT_LAUNCH_KERNEL(scale_shift)(kBlocks, first, xDevice, yDevice, 2.0F, 0.0F);
    aclrtRecordEvent(produced, first);
    aclrtStreamWaitEvent(second, produced);
    NPUSIM_KERNEL_LAUNCH(scale_shift, kBlocks, nullptr, second)(yDevice, zDevice, 1.0F, 1.0F);
    aclrtRecordEvent(done, second);
    aclrtRecordEvent(ipc, second);
    if (aclrtSynchronizeEvent(done) != ACL_SUCCESS) return 6;
    aclrtQueryEventStatus(done, &outcome.after_sync);
    aclrtStreamQuery(second, &outcome.stream_status);
    aclrtSynchronizeStream(first);
    aclrtEventElapsedTime(&outcome.elapsed_ms, start, done);
    float ignored = 0.0F;
    outcome.ipc_elapsed = aclrtEventElapsedTime(&ignored, start, ipc);

    if (aclrtMemcpy(zHost, bytes, zDevice, bytes, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS) {
        return 7;
    }
    const float* z = static_cast<const float*>(zHost);
    outcome.z.assign(z, z + kLength);

    aclrtFree(xDevice);
    aclrtFree(yDevice);
    aclrtFree(zDevice);
    aclrtFreeHost(zHost);
    aclrtDestroyEvent(start);
    aclrtDestroyEvent(produced);
    aclrtDestroyEvent(done);
    aclrtDestroyEvent(ipc);
    aclrtDestroyStream(first);
    aclrtDestroyStream(second);
    aclrtResetDevice(0);
    return aclFinalize() == ACL_SUCCESS ? 0 : 8;
}

}  // namespace

TEST_CASE("ACL host program: two streams ordered by an event give the right data and no findings",
          "[ascendc][acl]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    HostOutcome outcome;
    int code = -1;
    const npusim::RunResult r = npusim::acl::run_host(
        sim, [&] { return two_streams(outcome); }, &code);
    REQUIRE(r.completed());
    REQUIRE(code == 0);
    REQUIRE(outcome.z.size() == kLength);
    for (uint32_t i = 0; i < kLength; ++i) {
        CHECK(outcome.z[i] == static_cast<float>(i % 100) * 2.0F + 1.0F);
    }
    CHECK_THAT(checker.findings(), npusim::NoFindings());
    // Documented values: REPEAT_INITIALIZE 100002, RT_INVALID_DEVICEID 107001; an event
    // never recorded reads COMPLETE (1); a synchronized one COMPLETE, its stream COMPLETE (0).
    CHECK(outcome.repeat_init == 100002);
    CHECK(outcome.bad_device == 107001);
    CHECK(outcome.before_record == ACL_EVENT_RECORDED_STATUS_COMPLETE);
    CHECK(int{ACL_EVENT_RECORDED_STATUS_COMPLETE} == 1);
    CHECK(outcome.after_sync == ACL_EVENT_RECORDED_STATUS_COMPLETE);
    CHECK(outcome.stream_status == ACL_STREAM_STATUS_COMPLETE);
    CHECK(outcome.elapsed_ms > 0.0F);
    // IPC events cannot be OR-ed with other flags and have no timestamps.
    CHECK(outcome.ipc_or_ed == ACL_ERROR_INVALID_PARAM);
    CHECK(outcome.ipc_elapsed != ACL_SUCCESS);
}

TEST_CASE("ACL: a launch without a stream runs on the default stream; aclrtGetLastError clears",
          "[ascendc][acl]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    std::vector<float> z(kLength, 0.0F);
    aclError failed = ACL_SUCCESS, peeked = ACL_SUCCESS, got = ACL_SUCCESS, cleared = -1;
    int code = -1;
    const npusim::RunResult r = npusim::acl::run_host(
        sim,
        [&] {
            std::vector<float> x(kLength);
            for (uint32_t i = 0; i < kLength; ++i) x[i] = static_cast<float>(i);
            const size_t bytes = kLength * sizeof(float);
            void* xDevice = nullptr;
            void* zDevice = nullptr;
            aclrtMalloc(&xDevice, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
            aclrtMalloc(&zDevice, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
            aclrtMemcpy(xDevice, bytes, x.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE);
            // kernel<<<blocks, l2ctrl>>>(...) as rewritten: no stream, the default one.
            NPUSIM_KERNEL_LAUNCH(scale_shift, kBlocks, nullptr)(xDevice, zDevice, 3.0F, 0.5F);
            aclrtSynchronizeDevice();
            aclrtMemcpy(z.data(), bytes, zDevice, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
            failed = aclrtSetDevice(99);  // no such device
            peeked = aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL);
            got = aclrtGetLastError(ACL_RT_THREAD_LEVEL);
            cleared = aclrtGetLastError(ACL_RT_THREAD_LEVEL);
            aclrtFree(xDevice);
            aclrtFree(zDevice);
            return 0;
        },
        &code);
    REQUIRE(r.completed());
    REQUIRE(code == 0);
    for (uint32_t i = 0; i < kLength; ++i) CHECK(z[i] == static_cast<float>(i) * 3.0F + 0.5F);
    CHECK_THAT(checker.findings(), npusim::NoFindings());
    CHECK(failed == 107001);
    CHECK(peeked == failed);
    CHECK(got == failed);
    CHECK(cleared == ACL_SUCCESS);
}

TEST_CASE("ACL calls outside a host program return ACL_ERROR_UNINITIALIZE", "[ascendc][acl]") {
    aclrtStream stream = nullptr;
    CHECK(aclInit(nullptr) == ACL_ERROR_UNINITIALIZE);
    CHECK(aclrtCreateStream(&stream) == 100001);
}

TEST_CASE("ACL stream capture: a captured kernel runs each time its model executes",
          "[ascendc][acl]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    std::vector<float> y;
    aclmdlRICaptureStatus during = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
    aclmdlRICaptureStatus after = ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
    int code = -1;
    const npusim::RunResult r = npusim::acl::run_host(
        sim,
        [&] {
            aclInit(nullptr);
            aclrtSetDevice(0);
            aclrtStream stream = nullptr;
            aclrtCreateStream(&stream);
            const size_t bytes = kLength * sizeof(float);
            void *xDevice = nullptr, *yDevice = nullptr, *host = nullptr;
            aclrtMalloc(&xDevice, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
            aclrtMalloc(&yDevice, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
            aclrtMallocHost(&host, bytes);
            auto* values = static_cast<float*>(host);
            for (uint32_t i = 0; i < kLength; ++i) values[i] = 1.0F;
            aclrtMemcpy(xDevice, bytes, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
            aclrtMemset(yDevice, bytes, 0, bytes);
            if (aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL) != ACL_SUCCESS) {
                return 1;
            }
            // y = 3x; the model runs twice (two WAW-ordered writes on one stream).
            ACLRT_LAUNCH_KERNEL(scale_shift)(kBlocks, stream, xDevice, yDevice, 3.0F, 0.0F);
            aclmdlRICaptureGetInfo(stream, &during, nullptr);
            aclmdlRI model = nullptr;
            if (aclmdlRICaptureEnd(stream, &model) != ACL_SUCCESS) return 2;
            aclmdlRICaptureGetInfo(stream, &after, nullptr);
            for (int i = 0; i < 2; ++i) {
                if (aclmdlRIExecuteAsync(model, stream) != ACL_SUCCESS) return 3;
            }
            aclrtSynchronizeStream(stream);
            aclrtMemcpy(host, bytes, yDevice, bytes, ACL_MEMCPY_DEVICE_TO_HOST);
            y.assign(values, values + kLength);
            aclmdlRIDestroy(model);
            aclrtFree(xDevice);
            aclrtFree(yDevice);
            aclrtFreeHost(host);
            aclrtDestroyStream(stream);
            return aclFinalize();
        },
        &code);
    REQUIRE(r.completed());
    REQUIRE(code == 0);
    CHECK(during == ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
    CHECK(after == ACL_MODEL_RI_CAPTURE_STATUS_NONE);
    REQUIRE(y.size() == kLength);
    for (float v : y) CHECK(v == 3.0F);  // y = 3x, written twice
    CHECK_THAT(checker.findings(), npusim::NoFindings());
}

TEST_CASE("aclFloat16: conversions are IEEE binary16 with round to nearest, ties to even",
          "[ascendc][acl]") {
    // Every half value survives half -> float -> half (NaNs stay NaNs).
    for (std::uint32_t bits = 0; bits <= 0xFFFF; ++bits) {
        const auto h = static_cast<aclFloat16>(bits);
        const float f = aclFloat16ToFloat(h);
        if ((bits & 0x7C00u) == 0x7C00u && (bits & 0x3FFu) != 0) {
            CHECK(f != f);
            CHECK((aclFloatToFloat16(f) & 0x7C00u) == 0x7C00u);
        } else {
            CHECK(aclFloatToFloat16(f) == h);
        }
    }
    CHECK(aclFloat16ToFloat(0x3C00) == 1.0f);
    CHECK(aclFloat16ToFloat(0xC000) == -2.0f);
    CHECK(aclFloat16ToFloat(0x0001) == std::ldexp(1.0f, -24));  // smallest subnormal
    CHECK(aclFloat16ToFloat(0x7BFF) == 65504.0f);
    // Ties go to the even neighbour, above a tie rounds up.
    CHECK(aclFloatToFloat16(1.0f + std::ldexp(1.0f, -11)) == 0x3C00);
    CHECK(aclFloatToFloat16(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3C02);
    CHECK(aclFloatToFloat16(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)) == 0x3C01);
    CHECK(aclFloatToFloat16(65504.0f) == 0x7BFF);
    CHECK(aclFloatToFloat16(65519.0f) == 0x7BFF);
    CHECK(aclFloatToFloat16(65520.0f) == 0x7C00);  // the tie above the largest: infinity
    CHECK(aclFloatToFloat16(1e10f) == 0x7C00);
    CHECK(aclFloatToFloat16(-1e10f) == 0xFC00);
    CHECK(aclFloatToFloat16(std::ldexp(1.0f, -25)) == 0x0000);  // tie to even: zero
    CHECK(aclFloatToFloat16(3 * std::ldexp(1.0f, -26)) == 0x0001);
    CHECK(aclFloatToFloat16(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -26)) == 0x0400);
    CHECK(aclFloatToFloat16(-0.0f) == 0x8000);
    CHECK(aclFloatToFloat16(1e-30f) == 0x0000);
}

namespace {

extern "C" __global__ __aicore__ void failing_kernel() {
    (void)AscendC::GetSysWorkSpacePtr();  // no SetSysWorkspace: a KernelError
}

}  // namespace

TEST_CASE(
    "ACL host program: a destructor's runtime call while a kernel error unwinds the host "
    "returns instead of terminating",
    "[ascendc][acl]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    bool freed = false;
    std::string error;
    try {
        npusim::acl::run_host(
            sim,
            [&] {
                aclInit(nullptr);
                aclrtSetDevice(0);
                aclrtStream stream = nullptr;
                aclrtCreateStream(&stream);
                struct Buffer {  // an RAII wrapper, as host programs write them
                    void* device = nullptr;
                    bool* freed;
                    ~Buffer() {
                        aclrtFree(device);  // threw HostAborted again before: terminate
                        *freed = true;
                    }
                } buffer{nullptr, &freed};
                aclrtMalloc(&buffer.device, 64, ACL_MEM_MALLOC_HUGE_FIRST);
                ACLRT_LAUNCH_KERNEL(failing_kernel)(1, stream);
                aclrtSynchronizeStream(stream);  // the kernel's error unwinds from here
                return 0;
            },
            nullptr);
    } catch (const std::exception& e) {
        error = e.what();
    }
    CHECK(freed);
    CHECK_THAT(error, Catch::Contains("GetSysWorkSpacePtr before SetSysWorkspace"));
}
