#include "sim/kernels/builtin_kernels.h"

#include <algorithm>
#include <cmath>

#include "memory/global_memory.h"
#include "sim/kernels/builtin_kernel_runs.h"
#include "sim/simulator.h"

namespace npusim {

namespace {

std::uint64_t param(const std::map<std::string, std::uint64_t>& params, const std::string& name) {
    return params.at(name);  // the scenario loader filled every parameter (defaults included)
}

using Problems = std::vector<std::pair<std::string, std::string>>;

// Ranges: what a real chip can hold (GM and UB are then checked against the chip at hand) and
// what a host can simulate in a sane budget; tighter per-chip limits come from each kernel's
// needs (check_kernel_needs).
constexpr std::uint64_t kMaxElements = std::uint64_t{1} << 28;  // 1 GiB per fp32 buffer
constexpr std::uint64_t kMaxTile = std::uint64_t{1} << 21;      // 8 MiB fp32: > any UB / 3
constexpr std::uint32_t kMaxReductionBlocks = 1024;

void multiple_of(Problems& out, const std::map<std::string, std::uint64_t>& params,
                 const std::string& name, std::uint64_t factor, const std::string& what) {
    if (params.at(name) % factor != 0) {
        out.push_back({"/params/" + name, "must be a multiple of " + what + " (" +
                                              std::to_string(factor) + "), got " +
                                              std::to_string(params.at(name))});
    }
}

Problems check_tiled(std::uint32_t blocks, const std::map<std::string, std::uint64_t>& params) {
    Problems out;
    multiple_of(out, params, "tile", 8, "8 (32-byte copies)");
    if (out.empty())
        multiple_of(out, params, "elements", blocks * params.at("tile"), "blocks x tile");
    return out;
}

Problems check_reduction(std::uint32_t blocks, const std::map<std::string, std::uint64_t>& params) {
    Problems out;
    multiple_of(out, params, "elements", 8, "8 (32-byte copies)");
    // Each block reads every other block's slice: the work grows as blocks^2.
    if (blocks > kMaxReductionBlocks) {
        out.push_back({"/blocks",
                       "syncall_reduction reads every block's slice in every block "
                       "(blocks^2 copies): expected 1.." +
                           std::to_string(kMaxReductionBlocks) + " blocks, got " +
                           std::to_string(blocks)});
    }
    return out;
}

Problems check_matmul(std::uint32_t blocks, const std::map<std::string, std::uint64_t>& params) {
    Problems out;
    for (const char* dim : {"m", "n", "k"}) multiple_of(out, params, dim, 16, "16 (cube fractal)");
    if (blocks != 1)
        out.push_back(
            {"/blocks", "mix_matmul runs one group: must be 1, got " + std::to_string(blocks)});
    return out;
}

// ---- what each kernel needs (sim/kernels/resource_estimate.h)
// ---------------------------------------

std::string num(std::uint64_t v) {
    return std::to_string(v);
}

std::uint64_t gm_rounded(std::uint64_t bytes) {
    constexpr std::uint64_t a = GlobalMemory::kAlignment;
    return (bytes + a - 1) / a * a;
}

// GM for `buffers` equal buffers of `bytes` each, after the allocator's first aligned slot.
std::uint64_t gm_total(std::initializer_list<std::uint64_t> buffer_bytes) {
    std::uint64_t total = GlobalMemory::kAlignment;
    for (std::uint64_t b : buffer_bytes) total += gm_rounded(b);
    return total;
}

KernelNeeds needs_vector_add(std::uint32_t blocks,
                             const std::map<std::string, std::uint64_t>& params) {
    const std::uint64_t elements = param(params, "elements");
    const std::uint64_t tile = param(params, "tile");
    const std::uint64_t buffers = param(params, "buffers");
    KernelNeeds n;
    n.kernel = "vector_add";
    n.type = KernelType::AIV_ONLY;
    n.ub = {tile * 4 * 3 * buffers, "/params/tile",
            "tile " + num(tile) + " x 4 bytes x 3 buffers (x, y, z) x " + num(buffers)};
    n.event_ids = {
        buffers, "/params/buffers",
        buffers == 2 ? "buffers 2 (ping-pong on event ids 0 and 1)" : "buffers 1 (event id 0)"};
    const std::uint64_t bytes = elements * 4;
    n.gm = {gm_total({bytes, bytes, bytes}), "/params/elements",
            "elements " + num(elements) + " x 4 bytes x 3 buffers (x, y, z), 512-byte aligned"};
    n.host_copies = {3 * bytes, "/params/elements",
                     "elements " + num(elements) + " x 4 bytes x 3 (x, y, z read back)"};
    const std::uint64_t tiles = elements / tile;
    const std::uint64_t per_tile = buffers == 2 ? 12 : 11;
    n.instructions = {tiles * per_tile + std::uint64_t{blocks} * 8, "/params/elements",
                      "elements " + num(elements) + " / tile " + num(tile) + " x " + num(per_tile)};
    return n;
}

KernelNeeds needs_reduction(std::uint32_t blocks,
                            const std::map<std::string, std::uint64_t>& params) {
    const std::uint64_t elements = param(params, "elements");
    const std::uint64_t sync = param(params, "sync");
    const std::uint64_t total = elements * blocks;
    KernelNeeds n;
    n.kernel = "syncall_reduction";
    n.type = KernelType::AIV_ONLY;
    const std::uint64_t workspace = sync == 2 ? std::uint64_t{blocks} * 8 * 4 : 0;
    n.ub = {elements * 4 * 2 + workspace, "/params/elements",
            "elements " + num(elements) + " x 4 bytes x 2 buffers" +
                (sync == 2 ? " + blocks " + num(blocks) + " x 32 bytes of SyncAll workspace"
                           : std::string())};
    n.event_ids = {1, "/kernel", "syncall_reduction (event id 0)"};
    n.gm = {gm_total({total * 4, total * 4, total * 4, std::uint64_t{blocks} * 32}),
            "/params/elements",
            "elements " + num(elements) + " x blocks " + num(blocks) +
                " x 4 bytes x 3 buffers + SyncAll workspace, 512-byte aligned"};
    n.host_copies = {total * 4 * 3, "/params/elements",
                     "elements " + num(elements) + " x blocks " + num(blocks) + " x 4 bytes x 3"};
    // Per block: 12 fixed instructions plus 7 per other block; soft SyncAll polls add more.
    const std::uint64_t per_block = 12 + 7 * std::uint64_t{blocks - 1} + (sync == 2 ? 40 : 0);
    n.instructions = {per_block * blocks, "/blocks",
                      "blocks " + num(blocks) + " x (12 + 7 x (blocks - 1))"};
    return n;
}

KernelNeeds needs_matmul(std::uint32_t, const std::map<std::string, std::uint64_t>& params) {
    const std::uint64_t m = param(params, "m"), n = param(params, "n"), k = param(params, "k");
    KernelNeeds r;
    r.kernel = "mix_matmul";
    r.type = KernelType::MIX_AIC_1_2;
    r.ub = {m / 2 * n * 4, "/params/m",
            "m " + num(m) + " / 2 rows x n " + num(n) + " x 4 bytes (fp32)"};
    r.l1 = {(m * k + k * n) * 2, "/params/k",
            "(m " + num(m) + " x k " + num(k) + " + k " + num(k) + " x n " + num(n) +
                ") x 2 bytes (fp16 A and B)"};
    r.l0a = {m * k * 2, "/params/k", "m " + num(m) + " x k " + num(k) + " x 2 bytes (fp16 A)"};
    r.l0b = {k * n * 2, "/params/k", "k " + num(k) + " x n " + num(n) + " x 2 bytes (fp16 B)"};
    r.l0c = {m * n * 4, "/params/n", "m " + num(m) + " x n " + num(n) + " x 4 bytes (fp32 C)"};
    r.event_ids = {1, "/kernel", "mix_matmul (event id 0)"};
    r.gm = {gm_total({m * k * 2, k * n * 2, m * n * 4, m * n * 4}), "/params/m",
            "A, B (fp16), C and out (fp32) for m " + num(m) + ", n " + num(n) + ", k " + num(k)};
    r.host_copies = {(m * k + k * n) * 2 + m * n * 4 * 2, "/params/m",
                     "A, B, expected and read-back output"};
    r.instructions = {40, "/kernel", "one group"};
    return r;
}

KernelNeeds needs_vector_chain(std::uint32_t blocks,
                               const std::map<std::string, std::uint64_t>& params) {
    const std::uint64_t elements = param(params, "elements");
    const std::uint64_t tile = param(params, "tile");
    KernelNeeds n;
    n.kernel = "vector_chain";
    n.type = KernelType::AIV_ONLY;
    n.ub = {tile * 4 * 2, "/params/tile", "tile " + num(tile) + " x 4 bytes x 2 buffers"};
    n.event_ids = {1, "/kernel", "vector_chain (event id 0)"};
    n.gm = {gm_total({elements * 4, elements * 4}), "/params/elements",
            "elements " + num(elements) + " x 4 bytes x 2 buffers (x, out), 512-byte aligned"};
    n.host_copies = {elements * 4 * 3, "/params/elements",
                     "elements " + num(elements) + " x 4 bytes x 3 (x, expected, out)"};
    n.instructions = {elements / tile * 11 + std::uint64_t{blocks}, "/params/elements",
                      "elements " + num(elements) + " / tile " + num(tile) + " x 11"};
    return n;
}

KernelNeeds needs_busy(std::uint32_t blocks, const std::map<std::string, std::uint64_t>& params) {
    const std::uint64_t cycles = param(params, "cycles");
    KernelNeeds n;
    n.kernel = "busy";
    n.type = KernelType::AIV_ONLY;
    n.ub = {32, "/kernel", "busy (one 32-byte scratch slot)"};
    n.gm = {gm_total({std::uint64_t{blocks} * 4}), "/blocks",
            "blocks " + num(blocks) + " x 4 bytes (out)"};
    n.host_copies = {std::uint64_t{blocks} * 4, "/blocks", "blocks " + num(blocks) + " x 4 bytes"};
    // A UB scalar load costs at least 4 cycles on the shipped chips.
    n.instructions = {std::uint64_t{blocks} * (cycles / 4 + 3), "/params/cycles",
                      "blocks " + num(blocks) + " x cycles " + num(cycles) + " / 4"};
    return n;
}

KernelNeeds needs_syncall(std::uint32_t blocks,
                          const std::map<std::string, std::uint64_t>& params) {
    const std::uint64_t count = param(params, "count");
    const bool soft = param(params, "soft") != 0;
    KernelNeeds n;
    n.kernel = "syncall";
    n.type = KernelType::AIV_ONLY;
    n.ub = {soft ? std::uint64_t{blocks} * 32 : 0, "/blocks",
            soft ? "blocks " + num(blocks) + " x 32 bytes of SyncAll workspace" : "none"};
    n.gm = {gm_total({std::uint64_t{blocks} * 64, std::uint64_t{blocks} * 32}), "/blocks",
            "blocks " + num(blocks) + " x (64 bytes of data + 32 bytes of workspace)"};
    n.host_copies = {std::uint64_t{blocks} * 64 * 2, "/blocks",
                     "blocks " + num(blocks) + " x 64 bytes x 2 (expected, read back)"};
    n.instructions = {
        std::uint64_t{blocks} * count * (soft ? 40 : 4), "/params/count",
        "blocks " + num(blocks) + " x count " + num(count) + " x " + (soft ? "40" : "4")};
    return n;
}

// ---- arguments and instances for host-program launches -----------------------------------

template <Element T>
GlobalTensor<T> bound(const KernelBindings& buffers, const std::string& name, std::uint64_t count) {
    const auto it = buffers.find(name);
    if (it == buffers.end()) return {};
    return {it->second.address, count};
}

using ByteRule = std::function<std::uint64_t(std::uint32_t, const KernelParams&)>;

ByteRule elements_bytes(std::uint64_t element_bytes) {
    return [element_bytes](std::uint32_t, const KernelParams& p) {
        return param(p, "elements") * element_bytes;
    };
}

KernelInstance instance_vector_add(std::uint32_t, const KernelParams& params,
                                   const KernelBindings& buffers) {
    const std::uint64_t elements = param(params, "elements");
    kernels::VectorAddArgs args;
    args.x = bound<float>(buffers, "x", elements);
    args.y = bound<float>(buffers, "y", elements);
    args.z = bound<float>(buffers, "z", elements);
    args.tile = param(params, "tile");
    if (param(params, "buffers") == 2) {
        return {"vector_add_double_buffered", KernelType::AIV_ONLY,
                [args](Block& b) { kernels::vector_add_double_buffered(b, args); }};
    }
    return {"vector_add_single_buffered", KernelType::AIV_ONLY,
            [args](Block& b) { kernels::vector_add_single_buffered(b, args); }};
}

KernelInstance instance_reduction(std::uint32_t blocks, const KernelParams& params,
                                  const KernelBindings& buffers) {
    kernels::ReductionArgs args;
    args.elements = param(params, "elements");
    args.sync = static_cast<std::uint32_t>(param(params, "sync"));
    const std::uint64_t total = args.elements * blocks;
    args.input = bound<float>(buffers, "input", total);
    args.work = bound<float>(buffers, "work", total);
    args.output = bound<float>(buffers, "output", total);
    args.sync_workspace = bound<std::int32_t>(buffers, "sync_workspace", std::uint64_t{blocks} * 8);
    const char* name = args.sync == 0   ? "syncall_reduction_nosync"
                       : args.sync == 1 ? "syncall_reduction_hard"
                                        : "syncall_reduction_soft";
    return {name, KernelType::AIV_ONLY, [args](Block& b) { kernels::syncall_reduction(b, args); }};
}

KernelInstance instance_matmul(std::uint32_t, const KernelParams& params,
                               const KernelBindings& buffers) {
    kernels::MixMatmulArgs args;
    args.m = static_cast<std::uint32_t>(param(params, "m"));
    args.n = static_cast<std::uint32_t>(param(params, "n"));
    args.k = static_cast<std::uint32_t>(param(params, "k"));
    const std::uint64_t m = args.m, n = args.n, k = args.k;
    args.a = bound<half>(buffers, "a", m * k);
    args.b = bound<half>(buffers, "b", k * n);
    args.c = bound<float>(buffers, "c", m * n);
    args.out = bound<float>(buffers, "out", m * n);
    return {"mix_matmul_postprocess", KernelType::MIX_AIC_1_2,
            [args](Block& b) { kernels::mix_matmul_postprocess(b, args); }};
}

KernelInstance instance_vector_chain(std::uint32_t, const KernelParams& params,
                                     const KernelBindings& buffers) {
    const std::uint64_t elements = param(params, "elements");
    kernels::VectorChainArgs args;
    args.tile = param(params, "tile");
    args.barrier = param(params, "barrier") != 0;
    args.x = bound<float>(buffers, "x", elements);
    args.out = bound<float>(buffers, "out", elements);
    return {args.barrier ? "vector_chain" : "vector_chain_no_barrier", KernelType::AIV_ONLY,
            [args](Block& b) { kernels::vector_chain(b, args); }};
}

KernelInstance instance_busy(std::uint32_t blocks, const KernelParams& params,
                             const KernelBindings& buffers) {
    kernels::BusyArgs args;
    args.cycles = param(params, "cycles");
    args.value = static_cast<std::int32_t>(param(params, "value"));
    args.write = param(params, "write") != 0;
    args.out = bound<std::int32_t>(buffers, "out", blocks);
    return {"busy", KernelType::AIV_ONLY, [args](Block& b) { kernels::busy(b, args); }};
}

KernelInstance instance_syncall(std::uint32_t blocks, const KernelParams& params,
                                const KernelBindings& buffers) {
    kernels::SyncAllArgs args;
    args.count = static_cast<std::uint32_t>(param(params, "count"));
    args.soft = param(params, "soft") != 0;
    args.data = bound<float>(buffers, "data", std::uint64_t{blocks} * 16);
    args.workspace = bound<std::int32_t>(buffers, "workspace", std::uint64_t{blocks} * 8);
    return {args.soft ? "syncall_soft" : "syncall_hard", KernelType::AIV_ONLY,
            [args](Block& b) { kernels::syncall(b, args); }};
}

std::vector<KernelArgument> arguments_vector_add() {
    return {{"x", DType::F32, "input, elements float32", elements_bytes(4)},
            {"y", DType::F32, "input, elements float32", elements_bytes(4)},
            {"z", DType::F32, "output z = x + y, elements float32", elements_bytes(4)}};
}

std::vector<KernelArgument> arguments_reduction() {
    const ByteRule per_block = [](std::uint32_t blocks, const KernelParams& p) {
        return param(p, "elements") * blocks * 4;
    };
    return {{"input", DType::F32, "input, elements x blocks float32", per_block},
            {"work", DType::F32, "workspace, elements x blocks float32", per_block},
            {"output", DType::F32, "output, elements x blocks float32", per_block},
            {"sync_workspace", DType::I32, "soft SyncAll workspace (sync 2): blocks x 8, zeroed",
             [](std::uint32_t blocks, const KernelParams& p) {
                 return param(p, "sync") == 2 ? std::uint64_t{blocks} * 32 : 0;
             }}};
}

std::vector<KernelArgument> arguments_matmul() {
    const auto dims = [](const char* rows, const char* cols, std::uint64_t bytes) -> ByteRule {
        return [rows, cols, bytes](std::uint32_t, const KernelParams& p) {
            return param(p, rows) * param(p, cols) * bytes;
        };
    };
    return {{"a", DType::F16, "A, m x k float16 row-major", dims("m", "k", 2)},
            {"b", DType::F16, "B, k x n float16 row-major", dims("k", "n", 2)},
            {"c", DType::F32, "C = A x B workspace, m x n float32", dims("m", "n", 4)},
            {"out", DType::F32, "output relu(C) * 0.5, m x n float32", dims("m", "n", 4)}};
}

std::vector<KernelArgument> arguments_vector_chain() {
    return {{"x", DType::F32, "input, elements float32", elements_bytes(4)},
            {"out", DType::F32, "output (x + x) * 2, elements float32", elements_bytes(4)}};
}

std::vector<KernelArgument> arguments_busy() {
    return {{"out", DType::I32, "write 1: value per block, blocks int32",
             [](std::uint32_t blocks, const KernelParams& p) {
                 return param(p, "write") != 0 ? std::uint64_t{blocks} * 4 : 0;
             }}};
}

std::vector<KernelArgument> arguments_syncall() {
    return {{"data", DType::F32, "slots, blocks x 16 float32",
             [](std::uint32_t blocks, const KernelParams&) { return std::uint64_t{blocks} * 64; }},
            {"workspace", DType::I32, "soft SyncAll workspace (soft 1): blocks x 8, zeroed",
             [](std::uint32_t blocks, const KernelParams& p) {
                 return param(p, "soft") != 0 ? std::uint64_t{blocks} * 32 : 0;
             }}};
}

Problems check_none(std::uint32_t, const KernelParams&) {
    return {};
}

}  // namespace

const std::vector<KernelDefinition>& builtin_kernels() {
    static const std::vector<KernelDefinition> kernels{
        {"vector_add",
         "z = x + y over fp32 vectors on vector cores; single- or double-buffered",
         {{"elements", 1u << 20, 8, kMaxElements, "elements per vector"},
          {"tile", 2048, 8, kMaxTile, "elements per UB tile (multiple of 8)"},
          {"buffers", 2, 1, 2, "1 = single-buffered, 2 = double-buffered (ping-pong)"}},
         check_tiled,
         needs_vector_add,
         builtin_kernel_runs::run_vector_add,
         arguments_vector_add(),
         instance_vector_add},
        {"syncall_reduction",
         "each block doubles its slice, writes it to GM, SyncAlls, then sums all slices; "
         "every output element must be 2 x blocks",
         {{"elements", 32, 8, 16384, "fp32 elements per block (multiple of 8)"},
          {"sync", 1, 0, 2, "0 = no SyncAll (racy), 1 = hard SyncAll, 2 = soft SyncAll"}},
         check_reduction,
         needs_reduction,
         builtin_kernel_runs::run_syncall_reduction,
         arguments_reduction(),
         instance_reduction},
        {"mix_matmul",
         "MIX_AIC_1_2: the cube core computes C = A x B, signals its two vector cores with a "
         "cross-core flag, each post-processes half: out = relu(C) * 0.5",
         {{"m", 32, 16, 128, "rows of A and C (multiple of 16)"},
          {"n", 32, 16, 128, "columns of B and C (multiple of 16)"},
          {"k", 32, 16, 128, "columns of A, rows of B (multiple of 16)"}},
         check_matmul,
         needs_matmul,
         builtin_kernel_runs::run_mix_matmul,
         arguments_matmul(),
         instance_matmul},
        {"vector_chain",
         "out = (x + x) * 2 with both steps on PIPE_V; barrier = 0 drops the PipeBarrier<PIPE_V> "
         "between them (an intra-pipe RAW hazard)",
         {{"elements", 8192, 8, kMaxElements, "elements"},
          {"tile", 256, 8, kMaxTile, "elements per UB tile (multiple of 8)"},
          {"barrier", 1, 0, 1, "1 = PipeBarrier<PIPE_V> between the dependent ops, 0 = none"}},
         check_tiled,
         needs_vector_chain,
         builtin_kernel_runs::run_vector_chain,
         arguments_vector_chain(),
         instance_vector_chain},
        {"busy",
         "scalar work: each block keeps its scalar unit busy for `cycles` cycles, then (write 1) "
         "stores `value` to out[block]; a long-running kernel for event queries",
         {{"cycles", 1000, 1, 100'000'000, "cycles of scalar work per block (at least)"},
          {"value", 1, 0, 2'147'483'647, "int32 each block stores to out[block]"},
          {"write", 1, 0, 1, "1 = store value to out, 0 = no GM access"}},
         check_none,
         needs_busy,
         builtin_kernel_runs::run_busy,
         arguments_busy(),
         instance_busy},
        {"syncall",
         "count rounds of: write this block's slot, SyncAll (hard, or soft through a GM "
         "workspace), read the next block's slot; more blocks than cores deadlock",
         {{"count", 1, 1, 64, "SyncAll rounds"},
          {"soft", 0, 0, 1, "0 = hard SyncAll, 1 = soft SyncAll through the workspace buffer"}},
         check_none,
         needs_syncall,
         builtin_kernel_runs::run_syncall,
         arguments_syncall(),
         instance_syncall},
    };
    return kernels;
}

const KernelDefinition* find_builtin_kernel(std::string_view name) {
    for (const KernelDefinition& k : builtin_kernels()) {
        if (k.name == name) return &k;
    }
    return nullptr;
}

}  // namespace npusim