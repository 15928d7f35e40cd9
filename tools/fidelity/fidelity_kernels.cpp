// The fidelity benchmark's kernels, written in the Ascend C layer from the structure the
// vendor's best-practice READMEs describe (no vendor code): see fidelity_kernels.h.
#include "fidelity_kernels.h"

#include <algorithm>
#include <map>

#include "kernel_operator.h"
#include "sim/simulator.h"

using namespace AscendC;

namespace {

// ---- bank_conflict_ub: 1000 fp32 Adds of 4096 elements at fixed UB addresses -------------
constexpr uint32_t kBankElements = 4096;
constexpr uint32_t kBankLoops = 1000;

extern "C" __global__ __aicore__ void fidelity_bank_add(uint32_t src0, uint32_t src1,
                                                        uint32_t dst) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> ub;
    pipe.InitBuffer(ub, 0x30000);
    LocalTensor<float> a = ub.GetWithOffset<float>(kBankElements, src0);
    LocalTensor<float> b = ub.GetWithOffset<float>(kBankElements, src1);
    LocalTensor<float> c = ub.GetWithOffset<float>(kBankElements, dst);
    for (uint32_t i = 0; i < kBankLoops; ++i) Add(c, a, b, kBankElements);
}

// ---- add_high_performance: z = x + y, 8192 x 8192 fp16, rows split evenly over cores -----
constexpr uint32_t kAddSide = 8192;
constexpr uint32_t kAddDoubleBuffer = 1, kAddBypassL2 = 2, kAddShiftBanks = 4;

template <int32_t kDepth>
__aicore__ inline void AddRows(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t tile, uint32_t flags) {
    const auto cores = static_cast<uint32_t>(GetBlockNum());
    const auto idx = static_cast<uint32_t>(GetBlockIdx());
    const uint32_t base = kAddSide / cores, remainder = kAddSide % cores;
    const uint32_t rows = base + (idx < remainder ? 1 : 0);
    const uint64_t first_row = uint64_t{idx} * base + std::min(idx, remainder);
    const uint64_t length = uint64_t{rows} * kAddSide;
    GlobalTensor<half> xGm, yGm, zGm;
    xGm.SetGlobalBuffer((__gm__ half*)x + first_row * kAddSide, length);
    yGm.SetGlobalBuffer((__gm__ half*)y + first_row * kAddSide, length);
    zGm.SetGlobalBuffer((__gm__ half*)z + first_row * kAddSide, length);
    if ((flags & kAddBypassL2) != 0) {  // x and y are read once
        xGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
        yGm.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);
    }
    TPipe pipe;
    TQue<TPosition::VECIN, kDepth> inX, inY;
    TQue<TPosition::VECOUT, kDepth> outZ;
    TBuf<TPosition::VECCALC> shift;
    pipe.InitBuffer(inX, kDepth, tile * sizeof(half));
    // Conflict-free layout: y starts 8 bank groups (256 bytes) after x's groups.
    if ((flags & kAddShiftBanks) != 0) pipe.InitBuffer(shift, 256);
    pipe.InitBuffer(inY, kDepth, tile * sizeof(half));
    pipe.InitBuffer(outZ, kDepth, tile * sizeof(half));
    for (uint64_t at = 0; at < length; at += tile) {
        const auto count = static_cast<uint32_t>(std::min<uint64_t>(tile, length - at));
        LocalTensor<half> xl = inX.template AllocTensor<half>();
        LocalTensor<half> yl = inY.template AllocTensor<half>();
        DataCopy(xl, xGm[at], count);
        DataCopy(yl, yGm[at], count);
        inX.EnQue(xl);
        inY.EnQue(yl);
        xl = inX.template DeQue<half>();
        yl = inY.template DeQue<half>();
        LocalTensor<half> zl = outZ.template AllocTensor<half>();
        Add(zl, xl, yl, count);
        outZ.EnQue(zl);
        inX.FreeTensor(xl);
        inY.FreeTensor(yl);
        zl = outZ.template DeQue<half>();
        DataCopy(zGm[at], zl, count);
        outZ.FreeTensor(zl);
    }
}

extern "C" __global__ __aicore__ void fidelity_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t tile,
                                                   uint32_t flags) {
    if ((flags & kAddDoubleBuffer) != 0) {
        AddRows<2>(x, y, z, tile / 2, flags);  // the tile split in halves, ping and pong
    } else {
        AddRows<1>(x, y, z, tile, flags);
    }
}

// ---- data_copy: GM -> UB (DataCopyPad) and GM -> L1 (Nd2Nz) of a 12288 x 12288 fp16 matrix
constexpr uint32_t kCopySide = 12288;

extern "C" __global__ __aicore__ void fidelity_copy_ub(GM_ADDR src, uint32_t tileM, uint32_t tileN,
                                                       uint32_t slices, uint32_t repeats,
                                                       uint32_t cols) {
    const auto rows = static_cast<uint32_t>(kCopySide / GetBlockNum());
    GlobalTensor<half> gm;
    gm.SetGlobalBuffer((__gm__ half*)src + static_cast<uint64_t>(GetBlockIdx()) * rows * cols,
                       uint64_t{rows} * cols);
    TPipe pipe;
    TBuf<TPosition::VECCALC> ub;
    pipe.InitBuffer(ub, tileM * tileN * sizeof(half));
    LocalTensor<half> dst = ub.Get<half>();
    const uint32_t sliceCols = cols / slices;
    const DataCopyPadExtParams<half> pad{};
    for (uint32_t s = 0; s < slices; ++s) {
        const uint32_t end = s + 1 == slices ? cols : (s + 1) * sliceCols;
        for (uint32_t r = 0; r < repeats; ++r) {
            for (uint32_t m = 0; m < rows; m += tileM) {
                for (uint32_t n = s * sliceCols; n < end; n += tileN) {
                    const uint32_t curCols = std::min(tileN, end - n);  // the tail is narrower
                    DataCopyExtParams params;
                    params.blockCount = static_cast<uint16_t>(tileM);
                    params.blockLen = curCols * sizeof(half);
                    params.srcStride = (cols - curCols) * sizeof(half);
                    params.dstStride = 0;
                    DataCopyPad(dst, gm[uint64_t{m} * cols + n], params, pad);
                }
            }
        }
    }
}

extern "C" __global__ __aicore__ void fidelity_copy_l1(GM_ADDR src, uint32_t tileM, uint32_t tileN,
                                                       uint32_t cols) {
    const auto rows = static_cast<uint32_t>(kCopySide / GetBlockNum());
    GlobalTensor<half> gm;
    gm.SetGlobalBuffer((__gm__ half*)src + static_cast<uint64_t>(GetBlockIdx()) * rows * cols,
                       uint64_t{rows} * cols);
    TPipe pipe;
    TBuf<TPosition::A1> l1;
    pipe.InitBuffer(l1, tileM * tileN * sizeof(half));
    LocalTensor<half> dst = l1.Get<half>();
    Nd2NzParams params;
    params.ndNum = 1;
    params.nValue = static_cast<uint16_t>(tileM);
    params.srcDValue = static_cast<uint16_t>(cols);
    params.dstNzC0Stride = static_cast<uint16_t>((tileM + 15) / 16 * 16);
    params.dstNzNStride = 1;
    for (uint32_t m = 0; m < rows; m += tileM) {
        for (uint32_t n = 0; n < cols; n += tileN) {
            params.dValue = static_cast<uint16_t>(std::min(tileN, cols - n));
            DataCopy(dst, gm[uint64_t{m} * cols + n], params);
        }
    }
}

// ---- matmul_high_performance, case 8: 8192^3 fp16 -> fp32 on 24 AIC ------------------
// 4 x 6 core split (each core a 2048-row band and a range of 256-column base blocks: 32
// split 6, 6, 5, 5, 5, 5), base block 128 x 256 x 64, the core's band in M order (the L2
// split's two M halves one after the other, so that B stays in L2). A and B come into L1 in
// chunks of 2 base-K steps (128 x 128 and 128 x 256), ping-pong in L1, loaded GM -> L1 with
// ND -> NZ; per base-K step LoadData into L0A / L0B (double-buffered) and one Mmad; the
// 128 x 256 fp32 result leaves by Fixpipe. Not followed: the MDL "large package" chunks of
// case 8 (stepKa 8, stepKb 4; A and B would advance at different rates) and its unit flag
// (Fixpipe overlapping the next block's Mmad).
constexpr uint32_t kMmSide = 8192, kBaseM = 128, kBaseN = 256, kBaseK = 64;
constexpr uint32_t kStepKa = 2, kStepKb = 2;  // base-K steps per L1 chunk

// blocksPerCoreN 0: the 32 base-N blocks split evenly (6, 6, 5, 5, 5, 5), core idx in row
// idx / 6; otherwise that many per core column and the rest to the last (the basic-API
// sample's singleCoreN 1536: 6, 6, 6, 6, 6, 2), core idx in row idx % 4 (its mIterIdx).
extern "C" __global__ __aicore__ void fidelity_matmul(GM_ADDR a, GM_ADDR b, GM_ADDR c,
                                                      uint32_t blocksPerCoreN) {
    const auto idx = static_cast<uint32_t>(GetBlockIdx());
    const uint32_t nBlocks = kMmSide / kBaseN;  // 32 over 6 columns
    const bool even = blocksPerCoreN == 0;
    const uint32_t row = even ? idx / 6 : idx % 4, col = even ? idx % 6 : idx / 4;
    const uint32_t firstN =
        even ? col * (nBlocks / 6) + std::min(col, nBlocks % 6) : col * blocksPerCoreN;
    const uint32_t countN = even ? nBlocks / 6 + (col < nBlocks % 6 ? 1 : 0)
                                 : std::min(blocksPerCoreN, nBlocks - std::min(nBlocks, firstN));
    const uint32_t rowsPerCore = kMmSide / 4;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> cGm;
    aGm.SetGlobalBuffer((__gm__ half*)a, uint64_t{kMmSide} * kMmSide);
    bGm.SetGlobalBuffer((__gm__ half*)b, uint64_t{kMmSide} * kMmSide);
    cGm.SetGlobalBuffer((__gm__ float*)c, uint64_t{kMmSide} * kMmSide);
    TPipe pipe;
    TQue<TPosition::A1, 2> inA1;
    TQue<TPosition::B1, 2> inB1;
    TQue<TPosition::A2, 2> inA2;
    TQue<TPosition::B2, 2> inB2;
    TQue<TPosition::CO1, 1> outCO1;
    pipe.InitBuffer(inA1, 2, kBaseM * kBaseK * kStepKa * sizeof(half));
    pipe.InitBuffer(inB1, 2, kBaseK * kStepKb * kBaseN * sizeof(half));
    pipe.InitBuffer(inA2, 2, kBaseM * kBaseK * sizeof(half));
    pipe.InitBuffer(inB2, 2, kBaseK * kBaseN * sizeof(half));
    pipe.InitBuffer(outCO1, 1, kBaseM * kBaseN * sizeof(float));
    constexpr uint32_t kFractalElems = 512 / sizeof(half);
    constexpr uint32_t kASteps = kBaseM * kBaseK / kFractalElems;  // fractals per L0A load
    constexpr uint32_t kBSteps = kBaseK * kBaseN / kFractalElems;
    constexpr uint32_t kChunkK = kBaseK * kStepKa;
    static_assert(kStepKa == kStepKb, "A and B chunks advance together");
    for (uint32_t m = 0; m < rowsPerCore; m += kBaseM) {  // the two M halves in order
        const uint64_t m0 = uint64_t{row} * rowsPerCore + m;
        for (uint32_t nb = firstN; nb < firstN + countN; ++nb) {
            const uint64_t n0 = uint64_t{nb} * kBaseN;
            LocalTensor<float> c1 = outCO1.AllocTensor<float>();
            for (uint32_t k = 0; k < kMmSide; k += kChunkK) {
                // GM -> L1 with ND -> NZ, into one of two L1 buffers (ping-pong).
                LocalTensor<half> a1 = inA1.AllocTensor<half>();
                LocalTensor<half> b1 = inB1.AllocTensor<half>();
                Nd2NzParams nd;
                nd.ndNum = 1;
                nd.nValue = kBaseM;
                nd.dValue = kChunkK;
                nd.srcDValue = static_cast<uint16_t>(kMmSide);
                nd.dstNzC0Stride = kBaseM;
                nd.dstNzNStride = 1;
                DataCopy(a1, aGm[m0 * kMmSide + k], nd);
                nd.nValue = kChunkK;
                nd.dValue = kBaseN;
                nd.dstNzC0Stride = kChunkK;
                DataCopy(b1, bGm[uint64_t{k} * kMmSide + n0], nd);
                inA1.EnQue(a1);
                inB1.EnQue(b1);
                a1 = inA1.DeQue<half>();
                b1 = inB1.DeQue<half>();
                for (uint32_t s = 0; s < kStepKa; ++s) {
                    LocalTensor<half> a2 = inA2.AllocTensor<half>();
                    LocalTensor<half> b2 = inB2.AllocTensor<half>();
                    LoadData2DParams load;
                    load.srcStride = 1;
                    load.repeatTimes = kASteps;
                    load.startIndex = static_cast<uint16_t>(s * kASteps);
                    LoadData(a2, a1, load);
                    load.repeatTimes = kBSteps;
                    load.startIndex = static_cast<uint16_t>(s * kBSteps);
                    LoadData(b2, b1, load);
                    inA2.EnQue(a2);
                    inB2.EnQue(b2);
                    a2 = inA2.DeQue<half>();
                    b2 = inB2.DeQue<half>();
                    MmadParams mm{kBaseM, kBaseN, kBaseK};
                    mm.cmatrixInitVal = k == 0 && s == 0;
                    Mmad(c1, a2, b2, mm);
                    inA2.FreeTensor(a2);
                    inB2.FreeTensor(b2);
                }
                inA1.FreeTensor(a1);
                inB1.FreeTensor(b1);
            }
            outCO1.EnQue(c1);
            c1 = outCO1.DeQue<float>();
            FixpipeParamsV220<> fix;
            fix.nSize = kBaseN;
            fix.mSize = kBaseM;
            fix.dstStride = kMmSide;
            Fixpipe(cGm[m0 * kMmSide + n0], c1, fix);
            outCO1.FreeTensor(c1);
        }
    }
}

// ---- running one case ------------------------------------------------------------------

npusim::fidelity::Prediction finish(const npusim::RunResult& r) {
    npusim::fidelity::Prediction p;
    p.cycles = r.cycles();
    p.instructions = r.instructions;
    p.gm_read_bytes = r.gm_read_bytes;
    p.l2_hit_bytes = r.l2_hit_bytes;
    std::uint64_t cube_sum = 0, cube_cores = 0;
    for (const npusim::CoreUsage& core : r.cores) {
        for (const npusim::PipeUsage& pipe : core.pipes) {
            if (pipe.pipe != npusim::Pipe::M) continue;
            cube_sum += pipe.busy_cycles;
            ++cube_cores;
        }
    }
    p.cube_avg_cycles = cube_cores == 0 ? 0 : cube_sum / cube_cores;
    for (const npusim::CoreUsage& core : r.cores) {
        for (const npusim::PipeUsage& pipe : core.pipes) {
            if (pipe.pipe == npusim::Pipe::MTE2)
                p.mte2_cycles = std::max(p.mte2_cycles, pipe.busy_cycles);
            if (pipe.pipe == npusim::Pipe::V)
                p.vec_cycles = std::max(p.vec_cycles, pipe.busy_cycles);
            if (pipe.pipe == npusim::Pipe::M)
                p.cube_cycles = std::max(p.cube_cycles, pipe.busy_cycles);
        }
    }
    return p;
}

npusim::SimOptions data_free() {
    npusim::SimOptions options;
    options.model_data = false;
    options.deadlock_idle_cycles = 100'000'000;
    return options;
}

npusim::RunResult run_checked(npusim::Simulator& sim) {
    npusim::RunResult r = sim.run();
    if (!r.completed()) throw npusim::KernelError("fidelity kernel did not complete");
    return r;
}

npusim::fidelity::Prediction bank(uint32_t src1, uint32_t dst) {
    npusim::Simulator sim(npusim::builtin_chip_config("a2"), data_free());
    sim.launch({.name = "bank_add", .blocks = 1},
               npusim::ascendc::bind_kernel(fidelity_bank_add, 0U, src1, dst));
    npusim::fidelity::Prediction p = finish(run_checked(sim));
    // Timed inside the kernel (GetSystemCycle around the loop): without the launch cost.
    p.cycles -= npusim::builtin_chip_config("a2").kernel_start_cycles;
    return p;
}

npusim::fidelity::Prediction add(uint32_t cores, uint32_t tile, uint32_t flags) {
    npusim::Simulator sim(npusim::builtin_chip_config("a2"), data_free());
    const std::uint64_t count = std::uint64_t{kAddSide} * kAddSide;
    auto x = sim.allocate<half>(count, "x");
    auto y = sim.allocate<half>(count, "y");
    auto z = sim.allocate<half>(count, "z");
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "add", .blocks = cores},
               npusim::ascendc::bind_kernel(fidelity_add, gm_addr(x), gm_addr(y), gm_addr(z), tile,
                                            flags));
    return finish(run_checked(sim));
}

npusim::fidelity::Prediction copy_ub(uint32_t tileM, uint32_t tileN, uint32_t slices,
                                     uint32_t repeats, uint32_t cols = kCopySide) {
    npusim::Simulator sim(npusim::builtin_chip_config("a2"), data_free());
    auto src = sim.allocate<half>(std::uint64_t{kCopySide} * cols, "src");
    sim.launch({.name = "copy_ub", .blocks = 48},
               npusim::ascendc::bind_kernel(fidelity_copy_ub, npusim::ascendc::gm_addr(src), tileM,
                                            tileN, slices, repeats, cols));
    return finish(run_checked(sim));
}

npusim::fidelity::Prediction matmul(uint32_t blocksPerCoreN) {
    npusim::Simulator sim(npusim::builtin_chip_config("a2"), data_free());
    const std::uint64_t count = std::uint64_t{kMmSide} * kMmSide;
    auto a = sim.allocate<half>(count, "a");
    auto b = sim.allocate<half>(count, "b");
    auto c = sim.allocate<float>(count, "c");
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "matmul", .blocks = 24, .type = npusim::KernelType::AIC_ONLY},
               npusim::ascendc::bind_kernel(fidelity_matmul, gm_addr(a), gm_addr(b), gm_addr(c),
                                            blocksPerCoreN));
    return finish(run_checked(sim));
}

npusim::fidelity::Prediction copy_l1(uint32_t tileM, uint32_t tileN, uint32_t cols = kCopySide) {
    npusim::Simulator sim(npusim::builtin_chip_config("a2"), data_free());
    auto src = sim.allocate<half>(std::uint64_t{kCopySide} * cols, "src");
    sim.launch({.name = "copy_l1", .blocks = 24, .type = npusim::KernelType::AIC_ONLY},
               npusim::ascendc::bind_kernel(fidelity_copy_l1, npusim::ascendc::gm_addr(src), tileM,
                                            tileN, cols));
    return finish(run_checked(sim));
}

}  // namespace

namespace npusim::fidelity {

std::optional<Prediction> run_case(const std::string& id, std::string& why) {
    Prediction p;
    if (id == "C1") {
        p = bank(0x10100, 0x20000);
    } else if (id == "B7") {
        p = bank(0x4000, 0x10000);
    } else if (id == "B8") {
        p = bank(0x10100, 0x4020);
    } else if (id == "B1") {
        p = add(1, 4096, 0);
    } else if (id == "B2") {
        p = add(48, 4096, 0);
    } else if (id == "B3") {
        p = add(48, 16384, 0);
    } else if (id == "B4") {
        p = add(48, 16384, kAddDoubleBuffer);
    } else if (id == "B5") {
        p = add(48, 16384, kAddDoubleBuffer | kAddBypassL2);
    } else if (id == "B6") {
        p = add(48, 16384, kAddDoubleBuffer | kAddBypassL2 | kAddShiftBanks);
    } else if (id == "C2") {
        p = copy_ub(64, 1024, 1, 1);
    } else if (id == "B9") {
        p = copy_ub(1, 64, 1, 1);
    } else if (id == "B10") {
        p = copy_ub(64, 64, 1, 1);
    } else if (id == "B14") {
        p = copy_ub(64, 1024, 1, 4);
    } else if (id == "B15") {
        p = copy_ub(64, 1024, 4, 4);
    } else if (id == "C3") {
        p = copy_l1(64, 256);
    } else if (id == "B11") {
        p = copy_l1(64, 64);
    } else if (id == "B12") {
        p = copy_ub(64, 1024, 1, 1, kCopySide - 1);  // [12288, 12287]: rows 24574 bytes apart
    } else if (id == "B13") {
        p = copy_l1(64, 256, kCopySide - 1);
    } else if (id == "C4" || id == "B16") {
        static std::optional<Prediction> once;  // one simulation serves both rows
        if (!once) once = matmul(0);
        p = *once;
        p.compare_cube_busy = id == "C4";  // the published figure is the cube busy time
    } else if (id == "B17") {
        p = matmul(6);  // singleCoreN 1536, no L2 split
        p.note =
            "basic-API kernel: its split (singleCoreN 1536: 6,6,6,6,6,2 base blocks); LoadData2D "
            "and 2-step chunks for its LoadData3D and 8/4-step chunks";
    } else {
        why = "unknown case";
        return std::nullopt;
    }
    return p;
}

}  // namespace npusim::fidelity
