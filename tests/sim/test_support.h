// Shared helpers for the simulation tests: chip factories, a recording observer, temp
// files and small data generators. Header-only; every test file of tests/sim includes it.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "base/chip_config.h"
#include "base/tensor.h"
#include "base/transaction.h"
#include "base/types.h"
#include "core/block.h"
#include "sim/host/runtime.h"
#include "sim/kernels/builtin_kernels.h"
#include "sim/simulator.h"
#include "temp_dir.h"

namespace npusim::test {

/// The "small" preset: 4 vector cores, 2 cube cores, 1000 MHz (configs/chips/small.json).
inline ChipConfig small_chip() {
    return builtin_chip_config("small");
}

/// The "a2" preset: 48 vector cores, GM 889 B/cycle shared, MTE2 32 B/cycle per core.
inline ChipConfig a2_chip() {
    return builtin_chip_config("a2");
}

/// Records every transaction and kernel event it observes, in observation order.
class Recorder final : public TransactionObserver {
public:
    void on_kernel_start(const KernelInfo& kernel, Cycle at) override {
        kernel_starts.push_back({kernel, at});
    }
    void on_transaction(const Transaction& tx) override { transactions.push_back(tx); }
    void on_kernel_end(const KernelInfo& kernel, Cycle at) override {
        kernel_ends.push_back({kernel, at});
    }

    void clear() {
        transactions.clear();
        kernel_starts.clear();
        kernel_ends.clear();
    }

    /// Transactions of one op (optionally one pipe, one block), in observation order.
    std::vector<Transaction> of(Op op) const {
        std::vector<Transaction> out;
        std::copy_if(transactions.begin(), transactions.end(), std::back_inserter(out),
                     [&](const Transaction& tx) { return tx.op == op; });
        return out;
    }
    std::vector<Transaction> on_pipe(Pipe pipe) const {
        std::vector<Transaction> out;
        std::copy_if(transactions.begin(), transactions.end(), std::back_inserter(out),
                     [&](const Transaction& tx) { return tx.pipe == pipe; });
        return out;
    }
    struct KernelEvent {
        KernelInfo kernel;
        Cycle at = 0;
    };
    std::vector<Transaction> transactions;
    std::vector<KernelEvent> kernel_starts;
    std::vector<KernelEvent> kernel_ends;
};

/// Union length of the [start, end) intervals of `txs` (what PipeUsage::busy_cycles means).
inline Cycle busy_union(std::vector<Transaction> txs) {
    std::sort(txs.begin(), txs.end(),
              [](const Transaction& a, const Transaction& b) { return a.start < b.start; });
    Cycle busy = 0;
    Cycle covered = 0;
    for (const Transaction& tx : txs) {
        const Cycle from = std::max(tx.start, covered);
        if (tx.end > from) busy += tx.end - from;
        covered = std::max(covered, tx.end);
    }
    return busy;
}

/// "file_name.cpp:LINE:" as format_location() writes the start of a kernel source location.
inline std::string location_prefix(const char* file, int line) {
    std::string name = std::filesystem::path(file).filename().string();
    return name + ":" + std::to_string(line) + ":";
}

inline std::string read_text(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Deterministic fp32 data with exactly representable sums: multiples of 0.25 in [-64, 64).
inline std::vector<float> pattern_f32(std::uint64_t count, std::uint64_t seed = 1) {
    std::vector<float> values(count);
    for (std::uint64_t i = 0; i < count; ++i) {
        values[i] =
            static_cast<float>(static_cast<std::int64_t>((i * 37 + seed * 101) % 512) - 256) *
            0.25F;
    }
    return values;
}

/// One block's worth of z = x + y through GM -> UB -> V -> UB -> GM with correct flags.
/// `n` fp32 elements (a multiple of 8), block b handles elements [b*n, (b+1)*n).
struct AddBuffers {
    GlobalTensor<float> x, y, z;
    std::uint64_t n = 0;
};

inline void synced_add_kernel(Block& b, const AddBuffers& buf) {
    const std::uint64_t n = buf.n;
    const std::uint64_t at = std::uint64_t{b.block_idx()} * n;
    auto xs = b.alloc<float>(MemSpace::UB, n);
    auto ys = b.alloc<float>(MemSpace::UB, n);
    auto zs = b.alloc<float>(MemSpace::UB, n);
    b.copy(xs, buf.x.sub(at, n), n);
    b.copy(ys, buf.y.sub(at, n), n);
    b.set_flag(Pipe::MTE2, Pipe::V, 0);
    b.wait_flag(Pipe::MTE2, Pipe::V, 0);
    b.add(zs, xs, ys, n);
    b.set_flag(Pipe::V, Pipe::MTE3, 0);
    b.wait_flag(Pipe::V, Pipe::MTE3, 0);
    b.copy(buf.z.sub(at, n), zs, n);
}

/// Allocates and fills x, y (blocks * n elements each) and an output z in `sim`.
inline AddBuffers make_add_buffers(Simulator& sim, std::uint32_t blocks, std::uint64_t n) {
    AddBuffers buf;
    buf.n = n;
    buf.x = sim.allocate<float>(blocks * n, "x");
    buf.y = sim.allocate<float>(blocks * n, "y");
    buf.z = sim.allocate<float>(blocks * n, "z");
    sim.write(buf.x, pattern_f32(blocks * n, 1));
    sim.write(buf.y, pattern_f32(blocks * n, 2));
    return buf;
}

/// Elements of z that differ from x + y (0 means the output is right).
inline std::uint64_t add_mismatches(Simulator& sim, const AddBuffers& buf) {
    const std::vector<float> x = sim.read(buf.x);
    const std::vector<float> y = sim.read(buf.y);
    const std::vector<float> z = sim.read(buf.z);
    std::uint64_t wrong = 0;
    for (std::size_t i = 0; i < z.size(); ++i) {
        if (z[i] != x[i] + y[i]) ++wrong;
    }
    return wrong;
}

/// Runs a small correct kernel (z = x + y on `blocks` blocks) and returns how many output
/// elements are wrong; used to prove that a simulator is still usable after an error.
inline std::uint64_t run_correct_add(Simulator& sim, std::uint32_t blocks = 2,
                                     std::uint64_t n = 256) {
    const AddBuffers buf = make_add_buffers(sim, blocks, n);
    const RunResult r = sim.run({.name = "recovery_add", .blocks = blocks}, synced_add_kernel, buf);
    if (!r.completed()) return blocks * n;
    return add_mismatches(sim, buf);
}

/// Inputs x, y (pattern_f32 with the given seeds) and an output z of `elements` fp32 each, as
/// the builtin vector-add kernels take them; x and y are kept to compute expectations.
struct VectorAddData {
    kernels::VectorAddArgs args;
    std::vector<float> x, y;

    /// x + y, elementwise: what z must hold after the kernel.
    std::vector<float> sum() const {
        std::vector<float> out(x.size());
        for (std::size_t i = 0; i < x.size(); ++i) out[i] = x[i] + y[i];
        return out;
    }
};

inline VectorAddData make_vector_add(Simulator& sim, std::uint64_t elements, std::uint64_t tile,
                                     std::uint64_t x_seed, std::uint64_t y_seed) {
    VectorAddData data;
    data.args.x = sim.allocate<float>(elements, "x");
    data.args.y = sim.allocate<float>(elements, "y");
    data.args.z = sim.allocate<float>(elements, "z");
    data.args.tile = tile;
    data.x = pattern_f32(elements, x_seed);
    data.y = pattern_f32(elements, y_seed);
    sim.write(data.args.x, data.x);
    sim.write(data.args.y, data.y);
    return data;
}

/// What a runtime call threw: its status, call site and message (empty if it did not throw).
struct Caught {
    std::optional<Status> status;
    std::string where;
    std::string message;
};
template <class F>
Caught catch_runtime_error(F&& f) {
    Caught caught;
    try {
        f();
    } catch (const RuntimeError& error) {
        caught.status = error.status();
        caught.where = error.where();
        caught.message = error.what();
    }
    return caught;
}

}  // namespace npusim::test
