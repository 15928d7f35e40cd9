// A softmax-like row kernel (ReduceMax, Sub, Exp, ReduceSum, Div) in Ascend C style, and the
// compiler's automatic synchronization around it:
//   - written with every PipeBarrier<PIPE_V> and V -> S flag it needs, it is right and clean
//     with auto-sync on and off, and nothing is inserted;
//   - with the barrier between Sub and Exp removed it is still clean with auto-sync on (one
//     PipeBarrier inserted, marked as such, at the Exp line) and with auto-sync off reports
//     exactly that intra-pipe RAW at the Sub and Exp lines;
//   - a kernel that relies on auto-sync (dependent vector ops, GetValue after a vector op)
//     is clean with it on and reports the intra-pipe and V -> S hazards with it off.
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "kernel_operator.h"
#include "sim/report/trace_writer.h"
#include "sim/simulator.h"
#include "sync/check/catch_matchers.h"
#include "sync/check/checker.h"
#include "temp_dir.h"

using namespace AscendC;

BEGIN_TILING_DATA_DEF(SoftmaxTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rowsPerBlock)
TILING_DATA_FIELD_DEF(uint32_t, cols)
TILING_DATA_FIELD_DEF(uint32_t, skipBarrier)
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(SoftmaxCustom, SoftmaxTilingData);

namespace {

constexpr uint32_t kBlocks = 2;
constexpr uint32_t kRows = 4;   // per block
constexpr uint32_t kCols = 64;  // fp32 per row

int g_sub_line = 0;
int g_exp_line = 0;

extern "C" __global__ __aicore__ void softmax_custom(GM_ADDR x, GM_ADDR y, GM_ADDR tilingGm) {
    GET_TILING_DATA(tiling, tilingGm);
    const uint32_t cols = tiling.cols;
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    TBuf<TPosition::VECCALC> calc;
    pipe.InitBuffer(inQueue, 1, cols * sizeof(float));
    pipe.InitBuffer(outQueue, 1, cols * sizeof(float));
    pipe.InitBuffer(calc, 2 * cols * sizeof(float) + 3 * 32);
    LocalTensor<float> broadcast = calc.Get<float>();
    LocalTensor<float> ex = broadcast[cols];
    LocalTensor<float> maxValue = broadcast[2 * cols];
    LocalTensor<float> sumValue = broadcast[2 * cols + 8];
    LocalTensor<float> work = broadcast[2 * cols + 16];

    GlobalTensor<float> xGm, yGm;
    const uint64_t first = GetBlockIdx() * tiling.rowsPerBlock * cols;
    xGm.SetGlobalBuffer((__gm__ float*)x + first, tiling.rowsPerBlock * cols);
    yGm.SetGlobalBuffer((__gm__ float*)y + first, tiling.rowsPerBlock * cols);
    const int32_t toScalar = GetTPipePtr()->FetchEventID(HardEvent::V_S);

    for (uint32_t row = 0; row < tiling.rowsPerBlock; ++row) {
        LocalTensor<float> in = inQueue.AllocTensor<float>();
        DataCopy(in, xGm[row * cols], cols);
        inQueue.EnQue(in);
        in = inQueue.DeQue<float>();

        ReduceMax(maxValue, in, work, cols);
        SetFlag<HardEvent::V_S>(toScalar);
        WaitFlag<HardEvent::V_S>(toScalar);
        const float rowMax = maxValue.GetValue(0);
        Duplicate(broadcast, rowMax, cols);
        PipeBarrier<PIPE_V>();
        g_sub_line = __LINE__ + 1;
        Sub(in, in, broadcast, cols);
        if (tiling.skipBarrier == 0) PipeBarrier<PIPE_V>();
        g_exp_line = __LINE__ + 1;
        Exp(ex, in, cols);
        PipeBarrier<PIPE_V>();
        ReduceSum(sumValue, ex, work, cols);
        SetFlag<HardEvent::V_S>(toScalar);
        WaitFlag<HardEvent::V_S>(toScalar);
        const float rowSum = sumValue.GetValue(0);
        Duplicate(broadcast, rowSum, cols);
        PipeBarrier<PIPE_V>();
        LocalTensor<float> out = outQueue.AllocTensor<float>();
        Div(out, ex, broadcast, cols);
        outQueue.EnQue(out);
        inQueue.FreeTensor(in);

        out = outQueue.DeQue<float>();
        DataCopy(yGm[row * cols], out, cols);
        outQueue.FreeTensor(out);
    }
}

int g_adds_line = 0;
int g_muls_line = 0;
int g_get_line = 0;

// Relies on auto-sync: Muls reads what Adds wrote and GetValue reads what Muls wrote, with no
// barrier or flag in the source.
extern "C" __global__ __aicore__ void scale_and_peek(GM_ADDR x, GM_ADDR y) {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> inQueue;
    TQue<TPosition::VECOUT, 1> outQueue;
    pipe.InitBuffer(inQueue, 1, kCols * sizeof(float));
    pipe.InitBuffer(outQueue, 1, kCols * sizeof(float));
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, kCols);
    yGm.SetGlobalBuffer((__gm__ float*)y, kCols);
    LocalTensor<float> in = inQueue.AllocTensor<float>();
    DataCopy(in, xGm, kCols);
    inQueue.EnQue(in);
    in = inQueue.DeQue<float>();
    LocalTensor<float> out = outQueue.AllocTensor<float>();
    g_adds_line = __LINE__ + 1;
    Adds(out, in, 1.0F, kCols);
    g_muls_line = __LINE__ + 1;
    Muls(out, out, 2.0F, kCols);
    g_get_line = __LINE__ + 1;
    const float first = out.GetValue(0);
    (void)first;
    outQueue.EnQue(out);
    inQueue.FreeTensor(in);
    out = outQueue.DeQue<float>();
    DataCopy(yGm, out, kCols);
    outQueue.FreeTensor(out);
}

/// Records the transactions the layer marked as inserted.
class InsertedRecorder final : public npusim::TransactionObserver {
public:
    void on_transaction(const npusim::Transaction& tx) override {
        if (tx.inserted) inserted.push_back(tx);
    }
    std::vector<npusim::Transaction> inserted;
};

struct SoftmaxRun {
    std::vector<float> input, output;
    std::vector<npusim::Finding> findings;
    std::vector<npusim::Transaction> inserted;
    bool completed = false;
};

SoftmaxRun run_softmax(bool auto_sync, bool skip_barrier, const std::string& trace = {}) {
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    InsertedRecorder recorder;
    sim.attach(checker);
    sim.attach(recorder);
    std::unique_ptr<npusim::ChromeTraceWriter> writer;
    if (!trace.empty()) {
        writer = std::make_unique<npusim::ChromeTraceWriter>(trace, sim.chip().clock_mhz);
        sim.attach(*writer);
    }
    const uint32_t n = kBlocks * kRows * kCols;
    auto x = sim.allocate<float>(n, "x");
    auto y = sim.allocate<float>(n, "y");
    auto tiling = sim.allocate<int32_t>(8, "tiling");
    SoftmaxRun run;
    for (uint32_t i = 0; i < n; ++i) {
        run.input.push_back(static_cast<float>(static_cast<int>(i * 7 % 23) - 11) * 0.25F);
    }
    sim.write(x, run.input);
    sim.write(tiling, std::vector<int32_t>{kRows, kCols, skip_barrier ? 1 : 0, 0, 0, 0, 0, 0});
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "softmax_custom", .blocks = kBlocks},
               npusim::ascendc::bind_kernel(softmax_custom, {.auto_sync = auto_sync}, gm_addr(x),
                                            gm_addr(y), gm_addr(tiling)));
    run.completed = sim.run().completed();
    run.output = sim.read(y);
    run.findings = checker.findings();
    run.inserted = recorder.inserted;
    if (writer) writer->finish();
    return run;
}

std::uint64_t softmax_mismatches(const SoftmaxRun& run) {
    std::uint64_t wrong = 0;
    for (uint32_t row = 0; row < kBlocks * kRows; ++row) {
        const float* in = &run.input[row * kCols];
        float max = in[0];
        for (uint32_t c = 1; c < kCols; ++c) max = std::max(max, in[c]);
        float sum = 0.0F;
        for (uint32_t c = 0; c < kCols; ++c) sum += std::exp(in[c] - max);
        for (uint32_t c = 0; c < kCols; ++c) {
            const float expected = std::exp(in[c] - max) / sum;
            if (std::fabs(run.output[row * kCols + c] - expected) > 1e-6F) ++wrong;
        }
    }
    return wrong;
}

}  // namespace

TEST_CASE("Ascend C softmax rows with all their syncs: right - clean - nothing inserted",
          "[ascendc]") {
    const bool auto_sync = GENERATE(true, false);
    CAPTURE(auto_sync);
    const SoftmaxRun run = run_softmax(auto_sync, /*skip_barrier=*/false);
    REQUIRE(run.completed);
    CHECK(softmax_mismatches(run) == 0);
    CHECK_THAT(run.findings, npusim::NoFindings());
    CHECK(run.inserted.empty());
}

TEST_CASE("Ascend C softmax without the Sub -> Exp barrier: auto-sync inserts it at the Exp line",
          "[ascendc]") {
    const npusim::test::TempDir dir;
    const std::string trace = dir.file("softmax.json").string();
    const SoftmaxRun run = run_softmax(/*auto_sync=*/true, /*skip_barrier=*/true, trace);
    REQUIRE(run.completed);
    CHECK(softmax_mismatches(run) == 0);
    std::ifstream in(trace);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    CHECK(text.find(R"("inserted":true)") != std::string::npos);
    CHECK_THAT(run.findings, npusim::NoFindings());
    REQUIRE(run.inserted.size() == kBlocks * kRows);
    for (const npusim::Transaction& tx : run.inserted) {
        CHECK(tx.op == npusim::Op::PipeBarrier);
        CHECK(tx.pipe == npusim::Pipe::V);
        CHECK(tx.where.line() == static_cast<unsigned>(g_exp_line));
    }
}

TEST_CASE("Ascend C softmax without the Sub -> Exp barrier - auto-sync off: the intra-pipe RAW",
          "[ascendc]") {
    const SoftmaxRun run = run_softmax(/*auto_sync=*/false, /*skip_barrier=*/true);
    REQUIRE(run.completed);
    CHECK(run.inserted.empty());
    CHECK_THAT(run.findings, npusim::ExactlyFindings({{.kind = npusim::FindingKind::RaceRAW,
                                                       .space = npusim::MemSpace::UB,
                                                       .scope = npusim::RaceScope::IntraPipe,
                                                       .first_pipe = npusim::Pipe::V,
                                                       .second_pipe = npusim::Pipe::V,
                                                       .first_line = unsigned(g_sub_line),
                                                       .second_line = unsigned(g_exp_line)}}));
}

TEST_CASE("a kernel relying on auto-sync: clean with it on - intra-pipe and V -> S RAW with it off",
          "[ascendc]") {
    const bool auto_sync = GENERATE(true, false);
    CAPTURE(auto_sync);
    npusim::Simulator sim(npusim::builtin_chip_config("small"));
    npusim::Checker checker(sim.global_memory());
    InsertedRecorder recorder;
    sim.attach(checker);
    sim.attach(recorder);
    auto x = sim.allocate<float>(kCols, "x");
    auto y = sim.allocate<float>(kCols, "y");
    std::vector<float> xs(kCols);
    for (uint32_t i = 0; i < kCols; ++i) xs[i] = static_cast<float>(i);
    sim.write(x, xs);
    using npusim::ascendc::gm_addr;
    sim.launch({.name = "scale_and_peek"},
               npusim::ascendc::bind_kernel(scale_and_peek, {.auto_sync = auto_sync}, gm_addr(x),
                                            gm_addr(y)));
    REQUIRE(sim.run().completed());
    if (auto_sync) {
        const std::vector<float> ys = sim.read(y);
        for (uint32_t i = 0; i < kCols; ++i) CHECK(ys[i] == (xs[i] + 1.0F) * 2.0F);
        CHECK_THAT(checker.findings(), npusim::NoFindings());
        // A PipeBarrier<PIPE_V> at the Muls line, a SetFlag/WaitFlag<V_S> at the GetValue line.
        REQUIRE(recorder.inserted.size() == 3);
        CHECK(recorder.inserted[0].op == npusim::Op::PipeBarrier);
        CHECK(recorder.inserted[0].where.line() == unsigned(g_muls_line));
        CHECK(recorder.inserted[1].op == npusim::Op::SetFlag);
        CHECK(recorder.inserted[1].flag_src == npusim::Pipe::V);
        CHECK(recorder.inserted[1].flag_dst == npusim::Pipe::S);
        CHECK(recorder.inserted[1].where.line() == unsigned(g_get_line));
        CHECK(recorder.inserted[2].op == npusim::Op::WaitFlag);
    } else {
        CHECK(recorder.inserted.empty());
        CHECK_THAT(checker.findings(),
                   npusim::ExactlyFindings({{.kind = npusim::FindingKind::RaceRAW,
                                             .space = npusim::MemSpace::UB,
                                             .scope = npusim::RaceScope::IntraPipe,
                                             .first_line = unsigned(g_adds_line),
                                             .second_line = unsigned(g_muls_line)},
                                            {.kind = npusim::FindingKind::RaceWAW,
                                             .space = npusim::MemSpace::UB,
                                             .scope = npusim::RaceScope::IntraPipe,
                                             .first_line = unsigned(g_adds_line),
                                             .second_line = unsigned(g_muls_line)},
                                            {.kind = npusim::FindingKind::RaceRAW,
                                             .space = npusim::MemSpace::UB,
                                             .scope = npusim::RaceScope::InterPipe,
                                             .first_pipe = npusim::Pipe::V,
                                             .second_pipe = npusim::Pipe::S,
                                             .first_line = unsigned(g_muls_line),
                                             .second_line = unsigned(g_get_line)}}));
    }
}
