// A double-buffered vector add written as Ascend C kernels are (TPipe, TQue depth 2, the
// queue framework's implicit flags): right output, no findings, the same cycle count as the
// same instructions written against the native API, and with one EnQue/DeQue pair replaced
// by a TBuf the missing MTE2 -> V order reported at the kernel's lines.
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "kernel_operator.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"

using namespace AscendC;

namespace {

constexpr std::int32_t kBufferNum = 2;
constexpr std::uint32_t kTile = 256;  // fp32 elements per tile (1 KiB)
constexpr std::uint32_t kBlocks = 4;
constexpr std::uint32_t kTotal = kBlocks * kTile * 6;  // 6 tiles per block

int g_copy_x_line = 0;  // DataCopy of x in the TBuf variant
int g_add_line = 0;     // Add in the TBuf variant

class KernelAdd {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength,
                                TPipe* pipe) {
        m_blockLength = totalLength / GetBlockNum();
        m_tiles = m_blockLength / kTile;
        xGm.SetGlobalBuffer((__gm__ float*)x + m_blockLength * GetBlockIdx(), m_blockLength);
        yGm.SetGlobalBuffer((__gm__ float*)y + m_blockLength * GetBlockIdx(), m_blockLength);
        zGm.SetGlobalBuffer((__gm__ float*)z + m_blockLength * GetBlockIdx(), m_blockLength);
        pipe->InitBuffer(inQueueX, kBufferNum, kTile * sizeof(float));
        pipe->InitBuffer(inQueueY, kBufferNum, kTile * sizeof(float));
        pipe->InitBuffer(outQueueZ, kBufferNum, kTile * sizeof(float));
    }
    __aicore__ inline void Process() {
        for (uint32_t i = 0; i < m_tiles; i++) {
            CopyIn(i);
            Compute(i);
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress) {
        LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        LocalTensor<float> yLocal = inQueueY.AllocTensor<float>();
        DataCopy(xLocal, xGm[progress * kTile], kTile);
        DataCopy(yLocal, yGm[progress * kTile], kTile);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(uint32_t) {
        LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        LocalTensor<float> yLocal = inQueueY.DeQue<float>();
        LocalTensor<float> zLocal = outQueueZ.AllocTensor<float>();
        Add(zLocal, xLocal, yLocal, kTile);
        outQueueZ.EnQue<float>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint32_t progress) {
        LocalTensor<float> zLocal = outQueueZ.DeQue<float>();
        DataCopy(zGm[progress * kTile], zLocal, kTile);
        outQueueZ.FreeTensor(zLocal);
    }

    TQue<TPosition::VECIN, kBufferNum> inQueueX, inQueueY;
    TQue<TPosition::VECOUT, kBufferNum> outQueueZ;
    GlobalTensor<float> xGm, yGm, zGm;
    uint32_t m_blockLength = 0;
    uint32_t m_tiles = 0;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                 uint32_t totalLength) {
    TPipe pipe;
    KernelAdd op;
    op.Init(x, y, z, totalLength, &pipe);
    op.Process();
}

// The same kernel with x staged through a TBuf instead of its queue: nothing orders the
// MTE2 load of x before the Add that reads it.
extern "C" __global__ __aicore__ void add_custom_tbuf(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                      uint32_t totalLength) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> xBuf;
    TQue<TPosition::VECIN, 1> inQueueY;
    TQue<TPosition::VECOUT, 1> outQueueZ;
    const uint32_t blockLength = totalLength / GetBlockNum();
    GlobalTensor<float> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + blockLength * GetBlockIdx(), blockLength);
    yGm.SetGlobalBuffer((__gm__ float*)y + blockLength * GetBlockIdx(), blockLength);
    zGm.SetGlobalBuffer((__gm__ float*)z + blockLength * GetBlockIdx(), blockLength);
    pipe.InitBuffer(xBuf, kTile * sizeof(float));
    pipe.InitBuffer(inQueueY, 1, kTile * sizeof(float));
    pipe.InitBuffer(outQueueZ, 1, kTile * sizeof(float));
    LocalTensor<float> xLocal = xBuf.Get<float>();
    LocalTensor<float> yLocal = inQueueY.AllocTensor<float>();
    DataCopy(yLocal, yGm, kTile);
    inQueueY.EnQue(yLocal);  // its MTE2 -> V flag covers the y load only
    g_copy_x_line = __LINE__ + 1;
    DataCopy(xLocal, xGm, kTile);
    yLocal = inQueueY.DeQue<float>();
    LocalTensor<float> zLocal = outQueueZ.AllocTensor<float>();
    g_add_line = __LINE__ + 1;
    Add(zLocal, xLocal, yLocal, kTile);
    outQueueZ.EnQue(zLocal);
    inQueueY.FreeTensor(yLocal);
    zLocal = outQueueZ.DeQue<float>();
    DataCopy(zGm, zLocal, kTile);
    outQueueZ.FreeTensor(zLocal);
}

// The native twin of add_custom: exactly the instructions the layer issues for it.
void add_native(npusim::Block& b, npusim::GlobalTensor<float> x, npusim::GlobalTensor<float> y,
                npusim::GlobalTensor<float> z) {
    using npusim::Pipe;
    const std::uint64_t per_block = kTotal / b.block_num();
    const std::uint64_t tiles = per_block / kTile;
    const std::uint64_t base = per_block * b.block_idx();
    npusim::LocalTensor<float> xs[2], ys[2], zs[2];
    auto xa = b.alloc<float>(npusim::MemSpace::UB, 2 * kTile);
    auto ya = b.alloc<float>(npusim::MemSpace::UB, 2 * kTile);
    auto za = b.alloc<float>(npusim::MemSpace::UB, 2 * kTile);
    for (int s = 0; s < 2; ++s) {
        xs[s] = xa.sub(s * kTile, kTile);
        ys[s] = ya.sub(s * kTile, kTile);
        zs[s] = za.sub(s * kTile, kTile);
    }
    for (std::uint64_t t = 0; t < tiles; ++t) {
        const auto s = static_cast<std::uint32_t>(t % 2);
        const std::uint64_t at = base + t * kTile;
        // Free-flag ids as the framework hands them out (7 down): x0 7, y0 6, x1 5, y1 4.
        if (t >= 2) b.wait_flag(Pipe::V, Pipe::MTE2, 7 - 2 * s);
        if (t >= 2) b.wait_flag(Pipe::V, Pipe::MTE2, 6 - 2 * s);
        b.copy(xs[s], x.sub(at, kTile), kTile);
        b.copy(ys[s], y.sub(at, kTile), kTile);
        b.set_flag(Pipe::MTE2, Pipe::V, 7);
        b.set_flag(Pipe::MTE2, Pipe::V, 6);
        b.wait_flag(Pipe::MTE2, Pipe::V, 7);
        b.wait_flag(Pipe::MTE2, Pipe::V, 6);
        if (t >= 2) b.wait_flag(Pipe::MTE3, Pipe::V, 7 - s);
        b.add(zs[s], xs[s], ys[s], kTile);
        b.set_flag(Pipe::V, Pipe::MTE3, 7);
        b.set_flag(Pipe::V, Pipe::MTE2, 7 - 2 * s);
        b.set_flag(Pipe::V, Pipe::MTE2, 6 - 2 * s);
        b.wait_flag(Pipe::V, Pipe::MTE3, 7);
        b.copy(z.sub(at, kTile), zs[s], kTile);
        b.set_flag(Pipe::MTE3, Pipe::V, 7 - s);
    }
    // The queues going out of scope (z, y, x): the free flags nobody waited for.
    for (std::uint32_t s = 0; s < 2; ++s) b.wait_flag(Pipe::MTE3, Pipe::V, 7 - s);
    for (std::uint32_t s = 0; s < 2; ++s) b.wait_flag(Pipe::V, Pipe::MTE2, 6 - 2 * s);
    for (std::uint32_t s = 0; s < 2; ++s) b.wait_flag(Pipe::V, Pipe::MTE2, 7 - 2 * s);
}

struct AddData {
    npusim::GlobalTensor<float> x, y, z;
    std::vector<float> xs, ys;
};

AddData make_data(npusim::Simulator& sim, std::uint64_t count) {
    AddData d;
    d.x = sim.allocate<float>(count, "x");
    d.y = sim.allocate<float>(count, "y");
    d.z = sim.allocate<float>(count, "z");
    for (std::uint64_t i = 0; i < count; ++i) {
        d.xs.push_back(static_cast<float>(i % 97) * 0.5F);
        d.ys.push_back(static_cast<float>(i % 13) - 6.0F);
    }
    sim.write(d.x, d.xs);
    sim.write(d.y, d.ys);
    return d;
}

}  // namespace

TEST_CASE("Ascend C vector add with TQue depth 2: right output and no findings", "[ascendc]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    const AddData d = make_data(sim, kTotal);
    using npusim::ascendc::gm_addr;
    sim.launch(
        {.name = "add_custom", .blocks = kBlocks},
        npusim::ascendc::bind_kernel(add_custom, gm_addr(d.x), gm_addr(d.y), gm_addr(d.z), kTotal));
    const npusim::RunResult r = sim.run();
    REQUIRE(r.completed());
    const std::vector<float> zs = sim.read(d.z);
    std::uint64_t wrong = 0;
    for (std::uint64_t i = 0; i < kTotal; ++i) {
        if (zs[i] != d.xs[i] + d.ys[i]) ++wrong;
    }
    CHECK(wrong == 0);
    CHECK_THAT(checker.findings(), npusim::NoFindings());
}

TEST_CASE("Ascend C and native vector add take the same cycles", "[ascendc]") {
    npusim::Cycle cycles[2] = {0, 0};
    std::uint64_t instructions[2] = {0, 0};
    for (int native = 0; native < 2; ++native) {
        npusim::Simulator sim(npusim::builtin_chip_config("small"));
        const AddData d = make_data(sim, kTotal);
        if (native == 1) {
            sim.launch({.name = "add_native", .blocks = kBlocks},
                       [&](npusim::Block& b) { add_native(b, d.x, d.y, d.z); });
        } else {
            using npusim::ascendc::gm_addr;
            sim.launch({.name = "add_custom", .blocks = kBlocks},
                       npusim::ascendc::bind_kernel(add_custom, gm_addr(d.x), gm_addr(d.y),
                                                    gm_addr(d.z), kTotal));
        }
        const npusim::RunResult r = sim.run();
        REQUIRE(r.completed());
        cycles[native] = r.end_cycle;
        instructions[native] = r.instructions;
    }
    CHECK(cycles[0] == cycles[1]);
    CHECK(instructions[0] == instructions[1]);
}

TEST_CASE("Ascend C vector add with a TBuf instead of a queue: the MTE2 -> V race at the lines",
          "[ascendc]") {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    sim.attach(checker);
    const AddData d = make_data(sim, kTotal);
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "add_custom_tbuf", .blocks = kBlocks},
               npusim::ascendc::bind_kernel(add_custom_tbuf, gm_addr(d.x), gm_addr(d.y),
                                            gm_addr(d.z), kTotal));
    REQUIRE(sim.run().completed());
    CHECK_THAT(checker.findings(),
               npusim::ExactlyFindings({{.kind = npusim::FindingKind::RaceRAW,
                                         .space = npusim::MemSpace::UB,
                                         .scope = npusim::RaceScope::InterPipe,
                                         .first_pipe = npusim::Pipe::MTE2,
                                         .second_pipe = npusim::Pipe::V,
                                         .first_line = static_cast<unsigned>(g_copy_x_line),
                                         .second_line = static_cast<unsigned>(g_add_line)}}));
}
