// Operator projects (op_host + op_kernel, built unchanged with npusim_add_ascendc_op) called
// through their generated two-phase aclnn API from an ACL host program, as a user's program
// calls them on the device: outputs against CPU references with a clean checker; the tiling
// function's choices (block dim, tiling key, workspace) reach the launch; bad arguments give
// the documented status codes and aclGetRecentErrMsg messages naming the API and the reason.
#define NPUSIM_ACL_NO_MAIN
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "acl/acl.h"
#include "aclnn_matmul_custom.h"
#include "aclnn_matmul_leaky_custom.h"
#include "aclnn_reduce_sum_custom.h"
#include "aclnn_scale_add_custom.h"
#include "aclnn_scale_custom.h"
#include "aclnn_vadd_custom.h"
#include "aclnn_weighted_sum_custom.h"
#include "register/op_def_registry.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"

namespace {

/// A device tensor of `count` elements of T (1-D by default), with its aclTensor.
template <class T>
struct DeviceTensor {
    void* device = nullptr;
    aclTensor* tensor = nullptr;
    std::size_t count = 0;

    DeviceTensor(const std::vector<T>& values, aclDataType type, std::vector<int64_t> shape = {}) {
        count = values.size();
        if (shape.empty()) shape = {static_cast<int64_t>(count)};
        aclrtMalloc(&device, count * sizeof(T), ACL_MEM_MALLOC_HUGE_FIRST);
        aclrtMemcpy(device, count * sizeof(T), values.data(), count * sizeof(T),
                    ACL_MEMCPY_HOST_TO_DEVICE);
        std::vector<int64_t> strides(shape.size(), 1);  // row-major
        for (std::size_t i = shape.size() - 1; i-- > 0;) strides[i] = strides[i + 1] * shape[i + 1];
        tensor = aclCreateTensor(shape.data(), shape.size(), type, strides.data(), 0, ACL_FORMAT_ND,
                                 shape.data(), shape.size(), device);
    }
    // The device memory stays with the run (a simulator error can unwind through here, and
    // a runtime call must not run then).
    ~DeviceTensor() { aclDestroyTensor(tensor); }
    DeviceTensor(const DeviceTensor&) = delete;
    DeviceTensor& operator=(const DeviceTensor&) = delete;
    std::vector<T> read() const {
        std::vector<T> values(count);
        aclrtMemcpy(values.data(), count * sizeof(T), device, count * sizeof(T),
                    ACL_MEMCPY_DEVICE_TO_HOST);
        return values;
    }
};

struct Run {
    npusim::RunResult result;
    std::vector<npusim::Finding> findings;
    int code = -1;
};

/// Runs `program` as the host program of a small chip with the checker attached.
Run run_program(const std::function<int(aclrtStream)>& program) {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    Run run;
    run.result = npusim::acl::run_host(
        sim,
        [&] {
            aclInit(nullptr);
            aclrtSetDevice(0);
            aclrtStream stream = nullptr;
            aclrtCreateStream(&stream);
            const int code = program(stream);
            aclrtDestroyStream(stream);
            aclrtResetDevice(0);
            aclFinalize();
            return code;
        },
        &run.code);
    run.findings = checker.findings();
    return run;
}

/// Both phases with a workspace of the size phase one asked for.
template <class Prepare, class Execute>
aclnnStatus call_op(aclrtStream stream, Prepare prepare, Execute execute,
                    uint64_t* workspace_out = nullptr) {
    uint64_t workspaceSize = 0;
    aclOpExecutor* executor = nullptr;
    const aclnnStatus status = prepare(&workspaceSize, &executor);
    if (status != ACLNN_SUCCESS) return status;
    if (workspace_out != nullptr) *workspace_out = workspaceSize;
    void* workspace = nullptr;
    if (workspaceSize > 0) aclrtMalloc(&workspace, workspaceSize, ACL_MEM_MALLOC_HUGE_FIRST);
    const aclnnStatus run = execute(workspace, workspaceSize, executor);
    aclrtSynchronizeStream(stream);
    if (workspace != nullptr) aclrtFree(workspace);
    return run;
}

std::string recent_error() {
    const char* message = aclGetRecentErrMsg();
    return message != nullptr ? message : "";
}

constexpr std::size_t kAddLength = 4 * 4 * 2 * 64;  // cores x tiles x buffers x tile

}  // namespace

TEST_CASE("Op project VaddCustom via aclnn: float and int32 (tiling keys 1 and 2) match the CPU",
          "[ascendc][op_project]") {
    std::vector<float> xf(kAddLength), yf(kAddLength), zf;
    std::vector<int32_t> xi(kAddLength), yi(kAddLength), zi;
    for (std::size_t i = 0; i < kAddLength; ++i) {
        xf[i] = static_cast<float>(i % 100) * 0.5F;
        yf[i] = static_cast<float>(i % 7);
        xi[i] = static_cast<int32_t>(i) - 1000;
        yi[i] = static_cast<int32_t>(i * 3);
    }
    aclnnStatus float_status = -1;
    aclnnStatus int_status = -1;
    const Run run = run_program([&](aclrtStream stream) {
        DeviceTensor<float> x(xf, ACL_FLOAT), y(yf, ACL_FLOAT), z(xf, ACL_FLOAT);
        float_status = call_op(
            stream,
            [&](uint64_t* size, aclOpExecutor** executor) {
                return aclnnVaddCustomGetWorkspaceSize(x.tensor, y.tensor, z.tensor, size,
                                                       executor);
            },
            [&](void* workspace, uint64_t size, aclOpExecutor* executor) {
                return aclnnVaddCustom(workspace, size, executor, stream);
            });
        zf = z.read();
        DeviceTensor<int32_t> a(xi, ACL_INT32), b(yi, ACL_INT32), c(xi, ACL_INT32);
        int_status = call_op(
            stream,
            [&](uint64_t* size, aclOpExecutor** executor) {
                return aclnnVaddCustomGetWorkspaceSize(a.tensor, b.tensor, c.tensor, size,
                                                       executor);
            },
            [&](void* workspace, uint64_t size, aclOpExecutor* executor) {
                return aclnnVaddCustom(workspace, size, executor, stream);
            });
        zi = c.read();
        return 0;
    });
    REQUIRE(run.result.completed());
    REQUIRE(run.code == 0);
    CHECK(float_status == ACLNN_SUCCESS);
    CHECK(int_status == ACLNN_SUCCESS);
    REQUIRE(zf.size() == kAddLength);
    REQUIRE(zi.size() == kAddLength);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < kAddLength; ++i) {
        if (zf[i] != xf[i] + yf[i] || zi[i] != xi[i] + yi[i]) ++wrong;
    }
    CHECK(wrong == 0);
    CHECK_THAT(run.findings, npusim::NoFindings());
}

TEST_CASE("Op project ReduceSumCustom via aclnn: the tiling function's workspace, the sum",
          "[ascendc][op_project]") {
    constexpr std::size_t kLength = 4 * 1024;
    std::vector<float> xs(kLength);
    double expected = 0.0;
    for (std::size_t i = 0; i < kLength; ++i) {
        xs[i] = static_cast<float>(i % 13) * 0.25F;
        expected += xs[i];
    }
    uint64_t workspace = 0;
    aclnnStatus status = -1;
    std::vector<float> y;
    const Run run = run_program([&](aclrtStream stream) {
        DeviceTensor<float> x(xs, ACL_FLOAT), out(std::vector<float>{-1.0F}, ACL_FLOAT);
        status = call_op(
            stream,
            [&](uint64_t* size, aclOpExecutor** executor) {
                return aclnnReduceSumCustomGetWorkspaceSize(x.tensor, out.tensor, size, executor);
            },
            [&](void* ws, uint64_t size, aclOpExecutor* executor) {
                return aclnnReduceSumCustom(ws, size, executor, stream);
            },
            &workspace);
        y = out.read();
        return 0;
    });
    REQUIRE(run.result.completed());
    CHECK(status == ACLNN_SUCCESS);
    // The system workspace of the library APIs (16 MiB) plus one 32-byte slot per core.
    CHECK(workspace == 16 * 1024 * 1024 + 4 * 32);
    REQUIRE(y.size() == 1);
    CHECK(y[0] == static_cast<float>(expected));
    CHECK_THAT(run.findings, npusim::NoFindings());
}

TEST_CASE("Op project ScaleCustom via aclnn: the attributes choose the tiling key and branch",
          "[ascendc][op_project]") {
    constexpr std::size_t kLength = 4 * 2 * 256;
    std::vector<float> xs(kLength);
    for (std::size_t i = 0; i < kLength; ++i) xs[i] = static_cast<float>(i % 17) - 8.0F;
    const std::vector<std::string> modes = {"mul", "add", "relu"};
    std::vector<aclnnStatus> statuses;
    std::vector<std::vector<float>> outputs;
    const Run run = run_program([&](aclrtStream stream) {
        DeviceTensor<float> x(xs, ACL_FLOAT), y(xs, ACL_FLOAT);
        for (const std::string& mode : modes) {
            statuses.push_back(call_op(
                stream,
                [&](uint64_t* size, aclOpExecutor** executor) {
                    return aclnnScaleCustomGetWorkspaceSize(x.tensor, 2.5, mode.c_str(), y.tensor,
                                                            size, executor);
                },
                [&](void* ws, uint64_t size, aclOpExecutor* executor) {
                    return aclnnScaleCustom(ws, size, executor, stream);
                }));
            outputs.push_back(y.read());
        }
        return 0;
    });
    REQUIRE(run.result.completed());
    REQUIRE(outputs.size() == 3);
    for (std::size_t m = 0; m < modes.size(); ++m) {
        CAPTURE(modes[m]);
        CHECK(statuses[m] == ACLNN_SUCCESS);
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < kLength; ++i) {
            const float expected = m == 0   ? xs[i] * 2.5F
                                   : m == 1 ? xs[i] + 2.5F
                                            : std::max(xs[i], 0.0F);
            if (outputs[m][i] != expected) ++wrong;
        }
        CHECK(wrong == 0);
    }
    CHECK_THAT(run.findings, npusim::NoFindings());
}

TEST_CASE(
    "Op project ScaleAddCustom via aclnn: one kernel build per data type combination, "
    "Float/ListInt/Bool/Int attributes, an optional input",
    "[ascendc][op_project]") {
    constexpr std::size_t kLength = 4 * 2 * 256;
    std::vector<float> xs(kLength), ys(kLength);
    std::vector<uint16_t> xh(kLength);
    for (std::size_t i = 0; i < kLength; ++i) {
        xs[i] = static_cast<float>(i % 17) - 8.0F;
        ys[i] = static_cast<float>(i % 5) - 2.0F;
        xh[i] = aclFloatToFloat16(xs[i]);
    }
    aclnnStatus floatStatus = -1, halfStatus = -1;
    std::vector<float> zf;
    std::vector<uint16_t> zh;
    const Run run = run_program([&](aclrtStream stream) {
        DeviceTensor<float> x(xs, ACL_FLOAT), y(ys, ACL_FLOAT), z(xs, ACL_FLOAT);
        DeviceTensor<uint16_t> x16(xh, ACL_FLOAT16), z16(xh, ACL_FLOAT16);
        // float, with y: z = 1.5 * (2 x - y); weights {2, -1}, no ReLU, the default tile.
        const int64_t weights[2] = {2, -1};
        aclIntArray* w = aclCreateIntArray(weights, 2);
        floatStatus = call_op(
            stream,
            [&](uint64_t* size, aclOpExecutor** executor) {
                return aclnnScaleAddCustomGetWorkspaceSize(x.tensor, y.tensor, 1.5, w, false, 0,
                                                           z.tensor, size, executor);
            },
            [&](void* ws, uint64_t size, aclOpExecutor* executor) {
                return aclnnScaleAddCustom(ws, size, executor, stream);
            });
        zf = z.read();
        // half, y absent (null): z = max(1.5 * 3 x, 0); tiles of 128.
        const int64_t only_x[2] = {3, 1};
        aclIntArray* w3 = aclCreateIntArray(only_x, 2);
        halfStatus = call_op(
            stream,
            [&](uint64_t* size, aclOpExecutor** executor) {
                return aclnnScaleAddCustomGetWorkspaceSize(x16.tensor, nullptr, 1.5, w3, true, 128,
                                                           z16.tensor, size, executor);
            },
            [&](void* ws, uint64_t size, aclOpExecutor* executor) {
                return aclnnScaleAddCustom(ws, size, executor, stream);
            });
        zh = z16.read();
        aclDestroyIntArray(w);
        aclDestroyIntArray(w3);
        return 0;
    });
    REQUIRE(run.result.completed());
    CHECK(floatStatus == ACLNN_SUCCESS);
    CHECK(halfStatus == ACLNN_SUCCESS);
    REQUIRE(zf.size() == kLength);
    REQUIRE(zh.size() == kLength);
    std::size_t wrongFloat = 0, wrongHalf = 0;
    for (std::size_t i = 0; i < kLength; ++i) {
        if (zf[i] != 1.5F * (2.0F * xs[i] - ys[i])) ++wrongFloat;
        if (aclFloat16ToFloat(zh[i]) != std::max(4.5F * xs[i], 0.0F)) ++wrongHalf;
    }
    CHECK(wrongFloat == 0);
    CHECK(wrongHalf == 0);
    // One launch per call.
    REQUIRE(run.result.kernels.size() == 2);
    CHECK_THAT(run.findings, npusim::NoFindings());
}

TEST_CASE("Op project host: PlatformAscendC::CalcTschBlockDim, ge::GetSizeByDataType",
          "[ascendc][op_project]") {
    const npusim::ChipConfig chip = npusim::builtin_chip_config("small");
    const platform_ascendc::PlatformAscendC platform(chip);
    CHECK(platform.CalcTschBlockDim(40, 20, 40) == 20);  // 2 AIVs a block
    CHECK(platform.CalcTschBlockDim(41, 20, 40) == 21);
    CHECK(platform.CalcTschBlockDim(7, 0, 40) == 7);  // vector only
    CHECK(platform.CalcTschBlockDim(7, 20, 0) == 7);  // cube only
    CHECK(platform.CalcTschBlockDim(7, 40, 20) == 7);
    CHECK(ge::GetSizeByDataType(ge::DT_FLOAT16) == 2);
    CHECK(ge::GetSizeByDataType(ge::DT_INT64) == 8);
    CHECK(ge::GetSizeByDataType(ge::DT_BOOL) == 1);
    CHECK(ge::GetSizeByDataType(ge::DT_UNDEFINED) == -1);
}

TEST_CASE("Op project MatmulCustom via aclnn: basic cube APIs on both cube cores, exact product",
          "[ascendc][op_project]") {
    constexpr int64_t kM = 64, kK = 32, kN = 32;
    std::vector<float> af(kM * kK), bf(kK * kN);
    std::vector<uint16_t> ah(af.size()), bh(bf.size());
    for (std::size_t i = 0; i < af.size(); ++i) {
        af[i] = static_cast<float>(static_cast<int>(i % 5) - 2);
        ah[i] = aclFloatToFloat16(af[i]);
    }
    for (std::size_t i = 0; i < bf.size(); ++i) {
        bf[i] = static_cast<float>(static_cast<int>(i % 3) - 1);
        bh[i] = aclFloatToFloat16(bf[i]);
    }
    aclnnStatus status = -1;
    std::vector<float> c;
    const Run run = run_program([&](aclrtStream stream) {
        DeviceTensor<uint16_t> a(ah, ACL_FLOAT16, {kM, kK}), b(bh, ACL_FLOAT16, {kK, kN});
        DeviceTensor<float> out(std::vector<float>(kM * kN), ACL_FLOAT, {kM, kN});
        status = call_op(
            stream,
            [&](uint64_t* size, aclOpExecutor** executor) {
                return aclnnMatmulCustomGetWorkspaceSize(a.tensor, b.tensor, out.tensor, size,
                                                         executor);
            },
            [&](void* ws, uint64_t size, aclOpExecutor* executor) {
                return aclnnMatmulCustom(ws, size, executor, stream);
            });
        c = out.read();
        return 0;
    });
    REQUIRE(run.result.completed());
    CHECK(status == ACLNN_SUCCESS);
    REQUIRE(c.size() == static_cast<std::size_t>(kM * kN));
    std::size_t wrong = 0;
    for (int64_t i = 0; i < kM; ++i) {
        for (int64_t j = 0; j < kN; ++j) {
            float expected = 0.0F;
            for (int64_t p = 0; p < kK; ++p) expected += af[i * kK + p] * bf[p * kN + j];
            if (c[i * kN + j] != expected) ++wrong;
        }
    }
    CHECK(wrong == 0);
    CHECK_THAT(run.findings, npusim::NoFindings());
}

TEST_CASE(
    "Op project MatmulLeakyCustom via aclnn: the Matmul API from the AIVs of a mixed "
    "kernel, C to UB + LeakyReLU (key 1), atomic IterateAll into zeroed outputs (key 2)",
    "[ascendc][op_project][matmul]") {
    constexpr int64_t kM = 128, kK = 64, kN = 128;
    std::vector<float> af(kM * kK), bf(kK * kN), biasf(kN);
    std::vector<uint16_t> ah(af.size()), bh(bf.size());
    for (std::size_t i = 0; i < af.size(); ++i) {
        af[i] = static_cast<float>(static_cast<int>(i % 7) - 3);
        ah[i] = aclFloatToFloat16(af[i]);
    }
    for (std::size_t i = 0; i < bf.size(); ++i) {
        bf[i] = static_cast<float>(static_cast<int>(i % 5) - 2);
        bh[i] = aclFloatToFloat16(bf[i]);
    }
    for (std::size_t i = 0; i < biasf.size(); ++i) biasf[i] = static_cast<float>(i % 9) - 4.0F;
    for (const double alpha : {0.25, 0.0}) {
        aclnnStatus status = -1;
        std::vector<float> c;
        const Run run = run_program([&](aclrtStream stream) {
            DeviceTensor<uint16_t> a(ah, ACL_FLOAT16, {kM, kK}), b(bh, ACL_FLOAT16, {kK, kN});
            DeviceTensor<float> bias(biasf, ACL_FLOAT, {kN});
            // Not zero: key 2 adds into it, so only the atomic clean makes it right.
            DeviceTensor<float> out(std::vector<float>(kM * kN, 7.0F), ACL_FLOAT, {kM, kN});
            status = call_op(
                stream,
                [&](uint64_t* size, aclOpExecutor** executor) {
                    return aclnnMatmulLeakyCustomGetWorkspaceSize(
                        a.tensor, b.tensor, bias.tensor, alpha, out.tensor, size, executor);
                },
                [&](void* ws, uint64_t size, aclOpExecutor* executor) {
                    return aclnnMatmulLeakyCustom(ws, size, executor, stream);
                });
            c = out.read();
            return 0;
        });
        INFO("alpha " << alpha);
        REQUIRE(run.result.completed());
        CHECK(status == ACLNN_SUCCESS);
        REQUIRE(c.size() == static_cast<std::size_t>(kM * kN));
        std::size_t wrong = 0;
        for (int64_t i = 0; i < kM; ++i) {
            for (int64_t j = 0; j < kN; ++j) {
                float expected = biasf[j];
                for (int64_t p = 0; p < kK; ++p) expected += af[i * kK + p] * bf[p * kN + j];
                if (alpha != 0.0 && expected < 0.0F) expected *= static_cast<float>(alpha);
                if (c[i * kN + j] != expected && wrong++ == 0) {
                    UNSCOPED_INFO("c[" << i << "][" << j << "] = " << c[i * kN + j] << ", expected "
                                       << expected);
                }
            }
        }
        CHECK(wrong == 0);
        CHECK_THAT(run.findings, npusim::NoFindings());
    }
}

TEST_CASE("Op project aclnn errors: status codes and messages naming the API and the reason",
          "[ascendc][op_project]") {
    struct Outcome {
        aclnnStatus status = ACLNN_SUCCESS;
        std::string message;
    };
    std::vector<Outcome> outcomes;
    const Run run = run_program([&](aclrtStream stream) {
        const auto note = [&](aclnnStatus status) {
            outcomes.push_back({status, status == ACLNN_SUCCESS ? "" : recent_error()});
        };
        uint64_t size = 0;
        aclOpExecutor* executor = nullptr;
        const std::vector<float> floats(kAddLength, 1.0F);
        const std::vector<int32_t> ints(kAddLength, 1);
        DeviceTensor<float> x(floats, ACL_FLOAT), z(floats, ACL_FLOAT);
        DeviceTensor<int32_t> xi(ints, ACL_INT32);
        DeviceTensor<uint16_t> half(std::vector<uint16_t>(kAddLength), ACL_FLOAT16);
        // 0: a data type the op does not declare; 1: declared types in no common combination.
        note(aclnnVaddCustomGetWorkspaceSize(half.tensor, x.tensor, z.tensor, &size, &executor));
        note(aclnnVaddCustomGetWorkspaceSize(xi.tensor, x.tensor, z.tensor, &size, &executor));
        // 2: an output shape other than InferShape's ([2, n / 2] for [n]) is the caller's to
        // choose, as on the device (InferShape is not run): the call goes through.
        DeviceTensor<float> square(std::vector<float>(kAddLength), ACL_FLOAT,
                                   {2, static_cast<int64_t>(kAddLength / 2)});
        note(aclnnVaddCustomGetWorkspaceSize(x.tensor, x.tensor, square.tensor, &size, &executor));
        if (outcomes.back().status == ACLNN_SUCCESS) {
            outcomes.back().status = aclnnVaddCustom(nullptr, size, executor, stream);
            aclrtSynchronizeStream(stream);
        }
        // 3: a length the tiling function rejects (GRAPH_FAILED).
        DeviceTensor<float> odd(std::vector<float>(100), ACL_FLOAT);
        note(aclnnVaddCustomGetWorkspaceSize(odd.tensor, odd.tensor, odd.tensor, &size, &executor));
        // 4: a null input; 5: an attribute value the tiling function rejects.
        note(aclnnVaddCustomGetWorkspaceSize(nullptr, x.tensor, z.tensor, &size, &executor));
        DeviceTensor<float> s(std::vector<float>(4 * 256), ACL_FLOAT);
        note(aclnnScaleCustomGetWorkspaceSize(s.tensor, 1.0, "pow", s.tensor, &size, &executor));
        // 6: a workspace smaller than the tiling function asked for.
        DeviceTensor<float> r(std::vector<float>(4 * 1024), ACL_FLOAT);
        DeviceTensor<float> r_out(std::vector<float>(1), ACL_FLOAT);
        if (aclnnReduceSumCustomGetWorkspaceSize(r.tensor, r_out.tensor, &size, &executor) !=
            ACLNN_SUCCESS) {
            return 1;
        }
        note(aclnnReduceSumCustom(nullptr, 0, executor, stream));
        // 7: a view that is not contiguous (every other element).
        const int64_t half_shape[] = {static_cast<int64_t>(kAddLength / 2)};
        const int64_t every_other[] = {2};
        aclTensor* strided = aclCreateTensor(half_shape, 1, ACL_FLOAT, every_other, 0,
                                             ACL_FORMAT_ND, half_shape, 1, x.device);
        note(aclnnVaddCustomGetWorkspaceSize(strided, strided, strided, &size, &executor));
        aclDestroyTensor(strided);
        return 0;
    });
    REQUIRE(run.result.completed());
    REQUIRE(run.code == 0);
    REQUIRE(outcomes.size() == 8);
    using Catch::Matchers::Contains;
    CHECK(outcomes[0].status == ACLNN_ERR_PARAM_INVALID);
    CHECK_THAT(outcomes[0].message,
               Contains("aclnnVaddCustomGetWorkspaceSize: x has data type DT_FLOAT16; VaddCustom "
                        "accepts DT_FLOAT, DT_INT32 for it"));
    CHECK(outcomes[1].status == ACLNN_ERR_PARAM_INVALID);
    CHECK_THAT(outcomes[1].message,
               Contains("no data type combination of VaddCustom matches x DT_INT32, y DT_FLOAT, "
                        "z DT_FLOAT"));
    CHECK(outcomes[2].status == ACLNN_SUCCESS);
    CHECK(outcomes[3].status == ACLNN_ERR_INNER_TILING_ERROR);
    CHECK_THAT(outcomes[3].message,
               Contains("aclnnVaddCustomGetWorkspaceSize: the tiling function of VaddCustom "
                        "returned GRAPH_FAILED"));
    CHECK(outcomes[4].status == ACLNN_ERR_PARAM_NULLPTR);
    CHECK_THAT(outcomes[4].message, Contains("input x is null"));
    CHECK(outcomes[5].status == ACLNN_ERR_INNER_TILING_ERROR);
    CHECK_THAT(outcomes[5].message, Contains("the tiling function of ScaleCustom returned"));
    CHECK(outcomes[6].status == ACLNN_ERR_PARAM_INVALID);
    CHECK_THAT(outcomes[6].message,
               Contains("aclnnReduceSumCustom: ReduceSumCustom needs a workspace of 16777344 "
                        "bytes; given 0 bytes at null"));
    CHECK(outcomes[7].status == ACLNN_ERR_PARAM_INVALID);
    CHECK_THAT(outcomes[7].message,
               Contains("input x is not a contiguous row-major view from its data"));
    // The documented values.
    CHECK(ACLNN_ERR_PARAM_NULLPTR == 161001);
    CHECK(ACLNN_ERR_PARAM_INVALID == 161002);
    CHECK(ACLNN_ERR_INNER_TILING_ERROR == 561002);
}

namespace {

/// `count` float tensors of `length` elements (tensor i holds (j % 7) + i), as an aclTensorList
/// (which owns the aclTensors; the device memory stays with the run).
struct DeviceList {
    std::vector<void*> devices;
    std::vector<std::vector<float>> values;
    aclTensorList* list = nullptr;

    DeviceList(std::size_t count, std::size_t length, bool fill) {
        std::vector<aclTensor*> tensors;
        const int64_t shape[] = {static_cast<int64_t>(length)};
        for (std::size_t i = 0; i < count; ++i) {
            std::vector<float> v(length, 0.0F);
            for (std::size_t j = 0; fill && j < length; ++j) {
                v[j] = static_cast<float>(j % 7) + static_cast<float>(i);
            }
            void* device = nullptr;
            aclrtMalloc(&device, length * sizeof(float), ACL_MEM_MALLOC_HUGE_FIRST);
            aclrtMemcpy(device, length * sizeof(float), v.data(), length * sizeof(float),
                        ACL_MEMCPY_HOST_TO_DEVICE);
            tensors.push_back(
                aclCreateTensor(shape, 1, ACL_FLOAT, nullptr, 0, ACL_FORMAT_ND, shape, 1, device));
            devices.push_back(device);
            values.push_back(std::move(v));
        }
        list = aclCreateTensorList(tensors.data(), tensors.size());
    }
    ~DeviceList() { aclDestroyTensorList(list); }
    DeviceList(const DeviceList&) = delete;
    DeviceList& operator=(const DeviceList&) = delete;
    std::vector<float> read(std::size_t i) const {
        std::vector<float> out(values[i].size());
        aclrtMemcpy(out.data(), out.size() * sizeof(float), devices[i], out.size() * sizeof(float),
                    ACL_MEMCPY_DEVICE_TO_HOST);
        return out;
    }
};

}  // namespace

TEST_CASE(
    "Op project WeightedSumCustom via aclnn: DYNAMIC input and output lists, a ValueDepend "
    "aclIntArray read by the tiling function, a Scalar converted by To",
    "[ascendc][op_project]") {
    constexpr std::size_t kCount = 3;
    constexpr std::size_t kLength = 4 * 64;  // cores x 64
    // Weights 2, -1, 3 (tiling key 2) and all ones (key 1); the array form and the
    // <Op>TensorGetWorkspaceSize form with the weights in a device tensor.
    struct Case {
        std::vector<int64_t> weights;
        bool tensor_form;
    };
    for (const Case& c :
         {Case{{2, -1, 3}, false}, Case{{1, 1, 1}, false}, Case{{2, -1, 3}, true}}) {
        aclnnStatus status = -1;
        std::vector<float> y;
        std::vector<std::vector<float>> parts;
        std::vector<std::vector<float>> xs;
        const double scale = 0.5;  // an ACL_DOUBLE scalar; the op converts it To("x"): float
        const Run run = run_program([&](aclrtStream stream) {
            DeviceList x(kCount, kLength, true), out_parts(kCount, kLength, false);
            DeviceTensor<float> out(std::vector<float>(kLength, -1.0F), ACL_FLOAT);
            DeviceTensor<int64_t> weight_tensor(c.weights, ACL_INT64);
            double value = scale;
            aclScalar* s = aclCreateScalar(&value, ACL_DOUBLE);
            aclIntArray* w = aclCreateIntArray(c.weights.data(), c.weights.size());
            status = call_op(
                stream,
                [&](uint64_t* size, aclOpExecutor** executor) {
                    return c.tensor_form
                               ? aclnnWeightedSumCustomTensorGetWorkspaceSize(
                                     x.list, s, weight_tensor.tensor, out.tensor, out_parts.list,
                                     size, executor)
                               : aclnnWeightedSumCustomGetWorkspaceSize(
                                     x.list, s, w, out.tensor, out_parts.list, size, executor);
                },
                [&](void* ws, uint64_t size, aclOpExecutor* executor) {
                    return aclnnWeightedSumCustom(ws, size, executor, stream);
                });
            y = out.read();
            for (std::size_t i = 0; i < kCount; ++i) parts.push_back(out_parts.read(i));
            xs = x.values;
            aclDestroyScalar(s);
            aclDestroyIntArray(w);
            return 0;
        });
        INFO("weights " << c.weights[0] << ", " << c.weights[1] << ", " << c.weights[2]
                        << (c.tensor_form ? " (tensor form)" : " (array form)"));
        REQUIRE(run.result.completed());
        REQUIRE(run.code == 0);
        CHECK(status == ACLNN_SUCCESS);
        REQUIRE(y.size() == kLength);
        REQUIRE(parts.size() == kCount);
        std::size_t wrong = 0;
        for (std::size_t j = 0; j < kLength; ++j) {
            float sum = 0.0F;
            for (std::size_t i = 0; i < kCount; ++i) {
                const float part = static_cast<float>(c.weights[i]) * xs[i][j];
                sum += part;
                if (parts[i][j] != part) ++wrong;
            }
            if (y[j] != static_cast<float>(scale) * sum) ++wrong;
        }
        CHECK(wrong == 0);
        CHECK_THAT(run.findings, npusim::NoFindings());
    }
}

TEST_CASE(
    "Op project WeightedSumCustom errors: a null list tensor, a null scalar, weights the "
    "tiling function rejects",
    "[ascendc][op_project]") {
    std::vector<std::pair<aclnnStatus, std::string>> outcomes;
    const Run run = run_program([&](aclrtStream) {
        uint64_t size = 0;
        aclOpExecutor* executor = nullptr;
        DeviceList x(2, 256, true), parts(2, 256, false);
        DeviceTensor<float> out(std::vector<float>(256), ACL_FLOAT);
        float value = 1.0F;
        aclScalar* s = aclCreateScalar(&value, ACL_FLOAT);
        const int64_t two[] = {1, 2};
        aclIntArray* w2 = aclCreateIntArray(two, 2);
        aclIntArray* w1 = aclCreateIntArray(two, 1);
        const aclTensor* with_null[] = {x.list->tensors[0], nullptr};
        aclTensorList* holey = aclCreateTensorList(with_null, 2);
        const auto note = [&](aclnnStatus status) {
            outcomes.emplace_back(status, status == ACLNN_SUCCESS ? "" : recent_error());
        };
        note(aclnnWeightedSumCustomGetWorkspaceSize(holey, s, w2, out.tensor, parts.list, &size,
                                                    &executor));
        note(aclnnWeightedSumCustomGetWorkspaceSize(x.list, nullptr, w2, out.tensor, parts.list,
                                                    &size, &executor));
        note(aclnnWeightedSumCustomGetWorkspaceSize(x.list, s, w1, out.tensor, parts.list, &size,
                                                    &executor));
        holey->tensors.clear();  // its first tensor is x's
        aclDestroyTensorList(holey);
        aclDestroyScalar(s);
        aclDestroyIntArray(w1);
        aclDestroyIntArray(w2);
        return 0;
    });
    REQUIRE(run.result.completed());
    REQUIRE(outcomes.size() == 3);
    using Catch::Matchers::Contains;
    CHECK(outcomes[0].first == ACLNN_ERR_PARAM_NULLPTR);
    CHECK_THAT(outcomes[0].second,
               Contains("aclnnWeightedSumCustomGetWorkspaceSize: input x [1] is null"));
    CHECK(outcomes[1].first == ACLNN_ERR_PARAM_NULLPTR);
    CHECK_THAT(outcomes[1].second, Contains("input scale is null"));
    CHECK(outcomes[2].first == ACLNN_ERR_INNER_TILING_ERROR);
    CHECK_THAT(outcomes[2].second,
               Contains("the tiling function of WeightedSumCustom returned GRAPH_FAILED"));
}

TEST_CASE(
    "Op attributes are read by index as the vendor's runtime stores them, whatever the type "
    "asked",
    "[ascendc][op_project]") {
    // Attribute 0 a ListInt of 3, 1 a Bool, 2 an Int, 3 a String, 4 a ListBool.
    const gert::RuntimeAttrs attrs({std::vector<int64_t>{1, -2, 3}, true, int64_t{-7},
                                    std::string("sum"), std::vector<bool>{true, false}});
    CHECK(attrs.GetAttrNum() == 5);
    REQUIRE(attrs.GetListInt(0) != nullptr);
    CHECK(attrs.GetListInt(0)->GetSize() == 3);
    CHECK(attrs.GetListInt(0)->GetData()[1] == -2);
    CHECK(*attrs.GetBool(1));
    CHECK(*attrs.GetInt(2) == -7);
    CHECK(std::string(attrs.GetStr(3)) == "sum");
    CHECK(attrs.GetListBool(4)->GetSize() == 2);
    CHECK(!attrs.GetListBool(4)->GetData()[1]);
    // A Bool read of the ListInt reads the first byte of its capacity word (3): true, as on
    // the device; an Int read of the Bool reads its byte and the zero padding after it.
    const auto* first_byte = reinterpret_cast<const unsigned char*>(attrs.GetBool(0));
    CHECK(*first_byte == 3);
    CHECK(*attrs.GetInt(1) == 1);
    // Past the last attribute: null.
    CHECK(attrs.GetBool(5) == nullptr);
    CHECK(attrs.GetListInt(7) == nullptr);
}
