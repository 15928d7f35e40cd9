// Every simulated instruction is published as one Transaction to the observers attached to
// a simulator. This is the seam the trace writer and the checkers attach to: they never
// reach into the core model.
#pragma once

#include <array>
#include <cstdint>
#include <source_location>
#include <string>
#include <string_view>
#include <vector>

#include "base/cube_layout.h"
#include "base/host_ops.h"
#include "base/img2col.h"
#include "base/invariant.h"
#include "base/kernel_type.h"
#include "base/launch_identity.h"
#include "base/types.h"

namespace npusim {

enum class Op : std::uint8_t {
    Copy,  // DataCopy between two spaces; the pipe follows from the spaces
    Add,
    Sub,
    Mul,
    Max,
    Min,  // binary vector ops
    Adds,
    Muls,  // vector op with a scalar operand
    Exp,
    Relu,       // unary vector ops
    Fill,       // broadcast a scalar
    ReduceSum,  // sum of count elements into dst[0]
    Cast,       // dtype conversion
    Div,        // binary, float types
    Maxs,
    Mins,  // vector op with a scalar operand
    Ln,
    Abs,
    Sqrt,
    Rsqrt,
    Reciprocal,  // unary vector ops (float types except Abs)
    LeakyRelu,   // x > 0 ? x : x * scalar
    ReduceMax,
    ReduceMin,  // max / min of count elements into dst[0]
    Mmad,       // cube: L0A x L0B -> L0C
    ScalarLoad,
    ScalarStore,  // PIPE_S access to GM or UB
    SetFlag,
    WaitFlag,     // intra-core event flags
    PipeBarrier,  // order one pipe (or all)
    SyncAll,      // hard SyncAll: start = arrival, end = release
    SoftSyncAll,  // soft SyncAll: start = call, end = every slot seen
    CrossCoreSetFlag,
    CrossCoreWaitFlag,
    // A flag in GM between the blocks of a kernel (IBSet / IBWait, NotifyNextBlock /
    // WaitPreBlock; sync/soft_sync_all.h): Transaction::sync_id names the flag and value
    // (gm_flag_id). Set: what the block did before is complete; wait: the value was seen.
    GmFlagSet,
    GmFlagWait,
    And,
    Or,    // bitwise, integer types
    Not,   // bitwise, integer types
    Axpy,  // dst = src * scalar + dst
    Compare,
    CompareScalar,  // one result bit per element into a uint8 bit mask; `mode` = CmpMode
    Select,
    SelectScalar,  // bit i of a mask source picks src0[i], else src1[i] (or the scalar)
    GroupReduceSum,
    GroupReduceMax,
    GroupReduceMin,  // dst[j] = reduction of src[j * group .. (j + 1) * group)
    Brcb,            // each source element fills one 32-byte block of dst
    Gather,          // dst[i] = src element at byte offset scalar + offsets[i] (uint32)
    GatherMask,      // the src elements whose pattern bit is set, packed into dst
    Sort32,          // each 32 (score, index) pairs sorted by score, descending, 8 bytes each
    MrgSort,         // up to 4 sorted (score, index) queues merged, descending
    Fixpipe,         // L0C -> GM on FIX converting on the way: quantisation, ReLU (FixQuant)
    ShiftLeft,       // integer types: src << scalar (signed types keep the sign bit)
    ShiftRight,      // integer types: src >> scalar (logical unsigned, arithmetic signed)
    CreateVecIndex,  // dst[i] = scalar + i
    AddRelu,
    SubRelu,  // relu(src0 + src1) / relu(src0 - src1), one instruction
    // LoadData 2D as one instruction: 512-byte fractals L1 -> L0A / L0B on MTE1, the source
    // fractals any distance apart (0: the same one again); `mode` 1 transposes each fractal
    // (ifTranspose, LoadDataWithTranspose: 16 x 16 elements of 16 bits); `mode` 2 / 3 write
    // the first / second fractal of each transposed square of two fractals (1024 bytes read:
    // 32 x 32 int8, or 16 x 16 of 32-bit elements from two 16 x 8 fractals side by side).
    LoadFractals,
    // A rows x cols matrix (Transaction::group rows) written as its cols x rows transpose, one
    // vector instruction (Transpose, TransDataTo5HD); either side's rows may be strided.
    Transpose,
    // Cast to or from 4-bit integers (int4b_t), two a byte, element 2i in the low nibble of
    // byte i: half -> int4 (Transaction::mode the RoundMode, saturating to [-8, 7]) when the
    // source is fp16, int4 -> half otherwise; the int4 side is an int8 operand of count / 2.
    CastInt4,
    // The scalar unit's memory fences (no data access; docs/checker.md "Flags polled in GM"):
    // DataSyncBarrier waits until its earlier scalar stores are done (start = when they are);
    // CacheClean writes the GM data-cache line(s) [sync_id, sync_id + count) back (count 0:
    // the whole data cache), as dcci / DataCacheCleanAndInvalid, and a bypassing store's own
    // write-through.
    DataSyncBarrier,
    CacheClean,
    // LoadData 3D v2 (img2col) L1 -> L0A / L0B on MTE1: Transaction::img2col (base/img2col.h)
    // says which feature-map element each destination element is; the write comes first.
    LoadImg2Col,
    // InitConstValue: a local buffer (L1 on MTE2, L0A / L0B on MTE1) set to one value: the
    // write access only (rows of 32- or 512-byte blocks), the value's bits in pad_value.
    InitConstValue,
};

/// Fixpipe's conversion out of L0C (Transaction::mode of a Fixpipe), in the order of the
/// vendor's QuantMode_t for the A2/A3 generation; the rows of pipes/op_table.h say what each
/// converts.
enum class FixQuant : std::uint8_t {
    None,
    F322F16,
    F322BF16,
    DEQF16,
    VDEQF16,
    QF322B8,
    VQF322B8,
    REQ8,
    VREQ8,
};

/// Whether GatherMask's built-in pattern `pattern` (Transaction::mode, 1-7) keeps element i of
/// a repeat: 1 the even elements, 2 the odd ones, 3-6 the first to fourth of every four, 7 all
/// (the vendor's API reference; read by the compute and by the Ascend C layer's count).
constexpr bool gather_mask_pattern_bit(std::uint32_t pattern, std::uint64_t i) {
    if (pattern == 1 || pattern == 2) return i % 2 == pattern - 1;
    if (pattern >= 3 && pattern <= 6) return i % 4 == pattern - 3;
    return true;  // 7 (the decoder admits 1-7 only)
}
/// Compare modes (Transaction::mode of Compare / CompareScalar), as the vendor's CMPMODE.
enum class CmpMode : std::uint8_t { LT, GT, EQ, LE, GE, NE };
/// Whether ReduceMax / ReduceMin / GroupReduceMax / GroupReduceMin also write the position of
/// the extreme (Transaction::mode), and in which order.
enum class IndexOrder : std::uint8_t { None, ValueThenIndex, IndexThenValue };
/// Rounding of a Cast (Transaction::mode), as the vendor's RoundMode: None rounds to nearest
/// even like Rint; Round is half away from zero; Odd is round to odd (von Neumann).
enum class RoundMode : std::uint8_t { None, Rint, Floor, Ceil, Round, Trunc, Odd };

/// One memory access of an instruction, in bytes. For GM `address` is a GM address; for
/// local spaces it is the byte offset inside that core's memory.
/// A strided DMA instruction's access is `rows` rows of `bytes` each, `pitch` bytes from one
/// row's start to the next (rows 1: one contiguous range).
struct MemAccess {
    MemSpace space = MemSpace::GM;
    bool write = false;
    std::uint64_t address = 0;
    std::uint64_t bytes = 0;  // of one row
    std::uint32_t rows = 1;
    std::uint64_t pitch = 0;

    std::uint64_t total_bytes() const { return bytes * rows; }
    std::uint64_t row_address(std::uint32_t row) const { return address + row * pitch; }
};

/// Contract: filled completely before observers see it. start <= end; times are absolute
/// cycles of the simulation. `serial` is the issue order of the block's scalar unit
/// (starting at 1 per block), the number reports quote.
struct Transaction {
    std::uint32_t kernel_id = 0;
    std::uint32_t block = 0;
    std::uint32_t core = 0;  // physical core index within its type
    CoreType core_type = CoreType::Vector;
    Pipe pipe = Pipe::S;
    Op op = Op::Copy;
    DType dtype = DType::F32;      // element type (destination type for Cast)
    DType src_dtype = DType::F32;  // source type for Cast, otherwise equal to dtype
    std::uint64_t serial = 0;
    std::source_location where;
    Cycle issue = 0;  // when the scalar unit issued it
    Cycle start = 0;  // when its pipe began executing it
    Cycle end = 0;    // when its results were visible
    // When its pipe could start the next instruction (start <= pipe_free <= end). The part
    // after pipe_free is latency that overlaps later instructions of the same pipe; traces
    // draw [start, pipe_free) so that one lane never shows overlapping slices.
    Cycle pipe_free = 0;
    std::array<MemAccess, 5> accesses{};  // MrgSort: 4 queues and dst
    std::uint8_t access_count = 0;
    // Synchronization (SetFlag / WaitFlag / PipeBarrier).
    Pipe flag_src = Pipe::S;
    Pipe flag_dst = Pipe::S;
    std::uint32_t event_id = 0;
    std::uint64_t partner_serial = 0;  // WaitFlag: serial of the SetFlag it consumed
    // Cross-core synchronization: the block whose set a CrossCoreWaitFlag consumed, the
    // mode of a CrossCoreSetFlag, and the barrier instance of a SyncAll (equal on every
    // block that took part in the same barrier).
    std::uint32_t partner_block = 0;
    CoreType partner_core_type = CoreType::Vector;
    std::uint32_t mode = 0;  // also: Cast's RoundMode, Compare's CmpMode, a reduction's IndexOrder
    std::uint64_t sync_id = 0;
    std::uint32_t sub_block = 0;
    /// Issued by the library on the kernel's behalf as part of a synchronization primitive
    /// (the GM/UB traffic of a soft SyncAll). Checkers treat the primitive as one barrier.
    bool internal = false;
    /// SyncAll / SoftSyncAll are published twice per block: once when the block arrives
    /// (arrival = true, start = end = arrival) and once when it leaves (start = arrival,
    /// end = release). Checkers join the arrivals; traces draw the second.
    bool arrival = false;
    /// Synchronization the Ascend C layer inserted on the kernel's behalf (its automatic
    /// synchronization, sim/ascendc): a real instruction that orders like any other; `where`
    /// is the user's line that made it necessary.
    bool inserted = false;
    // Operation parameters.
    std::uint64_t count = 0;  // elements (bytes for nothing: always elements of dtype)
    double scalar = 0.0;      // Adds/Muls/Fill operand, ScalarLoad/Store value
    std::uint32_t m = 0, n = 0, k = 0;
    bool accumulate = false;
    // Mmad: a bias row (fp32, n elements) initialises every result row (read after b), and
    // operands held transposed (a as k x m, b as n x k, row-major).
    bool bias = false;
    bool a_transposed = false;
    bool b_transposed = false;
    /// Mmad and Fixpipe: how the cube's operands are held (base/cube_layout.h); a Copy with
    /// Fractal is the ND -> NZ copy (its source rows land as C0 column blocks, the write
    /// access's rows). Fixpipe, Fractal: L0C elements between column blocks.
    CubeLayout layout = CubeLayout::RowMajor;
    std::uint64_t block_stride = 0;
    std::uint32_t group = 0;  // GroupReduce*: source elements per result
    /// Fixpipe: negative results become 0 (ReLU) and the scale word of a scalar
    /// quantisation (the vendor's deqScalar: bits 31..13 the scale, 45..37 an offset, 46
    /// signed output).
    bool relu = false;
    std::uint64_t quant_word = 0;
    /// A copy to GM in atomic mode (Block::set_atomic): its write combines with GM's bytes
    /// at commit. Checkers: two atomic writes never race each other.
    AtomicOp atomic = AtomicOp::None;
    /// A copy that is a further burst (row) of the DMA instruction the previous copy of its
    /// pipe began (a strided DataCopy's rows): it pays the burst cost, not the issue cost.
    bool dma_continues = false;
    /// A GM read that does not allocate in L2 (GlobalTensor::SetL2CacheHint(CACHE_MODE_DISABLE)).
    bool l2_bypass = false;
    /// DataCopyPad rows GM -> local with filled padding (Block::pad_dma): each destination
    /// row is pad_left bytes of padding, the data, pad_right bytes of padding; the padding
    /// holds pad_value (the element's bit pattern).
    std::uint32_t pad_left = 0;
    std::uint32_t pad_right = 0;
    std::uint64_t pad_value = 0;  // also LoadImg2Col's pad value
    /// LoadImg2Col: the window of the image-to-column matrix it loads.
    Img2Col img2col;

    void add_access(MemSpace space, bool write, std::uint64_t address, std::uint64_t bytes,
                    std::uint32_t rows = 1, std::uint64_t pitch = 0) {
        NPUSIM_INVARIANT(access_count < accesses.size(), "Transaction", issue,
                         "an instruction has more memory accesses than a transaction holds");
        accesses[access_count++] = MemAccess{space, write, address, bytes, rows, pitch};
    }
};

/// "file.cpp:17:5", with the directory part removed so reports stay short and stable. A
/// location in a data file (synthetic_location, line 0) prints as its name alone:
/// "add.json#/kernels/add/body/3".
std::string format_location(const std::source_location& where);
/// How a fix hint names the place: "line 17" in C++, the op's pointer for a data file.
std::string location_line(const std::source_location& where);
/// The file part a report prints: the name without its directories ("dir/k.cpp" -> "k.cpp";
/// for "dir/add.json#/kernels/add/body/3" only the part before '#' loses its directories).
std::string_view location_file(std::string_view file_name);

/// A source location naming a place in a data file instead of C++ code: the op of a kernel
/// written in JSON, `file_name` "add.json#/kernels/add/body/3", line and column 0. Kernel
/// code passes it where the Block API takes a std::source_location, so every report, trace
/// and checker finding names the op as it names a C++ line, with no second code path.
/// Interned for the life of the process (equal texts share one location; findings keep them
/// past a run). Thread-safe. Throws UsageError where the standard library's source_location
/// cannot be built this way (only libstdc++'s layout is supported).
std::source_location synthetic_location(std::string_view file_name);

/// What observers learn about a kernel launch.
struct KernelInfo : LaunchIdentity {
    CoreType core_type = CoreType::Vector;  // Cube for kernels with a cube part
};

/// A local buffer a block allocated with Block::alloc (memcheck bounds).
struct LocalAllocation {
    std::uint32_t kernel_id = 0;
    std::uint32_t block = 0;
    CoreType core_type = CoreType::Vector;
    std::uint32_t core = 0;
    MemSpace space = MemSpace::UB;
    std::uint64_t address = 0;
    std::uint64_t bytes = 0;
    std::source_location where;
};

/// What a stuck block waits for, structured for the deadlock checker (sync/deadlock/).
enum class StuckWaitKind : std::uint8_t {
    Unknown,
    HardSyncAll,    // a hard SyncAll barrier: `missing_*` have not arrived
    SoftSyncAll,    // a soft SyncAll (spinning): `missing_vector` slots are behind
    Flag,           // an intra-core WaitFlag whose SetFlag is never issued
    CrossCoreFlag,  // a CrossCoreWaitFlag(flag_id) no set arrived for
    GmFlag,         // a wait for a flag in GM (IBWait, WaitPreBlock): `gm_flag` names it
};

struct StuckWait {
    StuckWaitKind kind = StuckWaitKind::Unknown;
    std::uint64_t sync_id = 0;                  // SyncAll: the instance (Transaction::sync_id)
    std::vector<std::uint32_t> missing_vector;  // SyncAll: blocks not arrived, AIV block index
    std::vector<std::uint32_t> missing_cube;    // ... AIC block index
    std::uint32_t flag_id = 0;                  // Flag: event id; CrossCoreFlag: flag id
    Pipe flag_src = Pipe::S;                    // Flag: SetFlag<src, dst>
    Pipe flag_dst = Pipe::S;
    std::string flag_where;  // Flag: source location of the WaitFlag ("" : the block's)
    std::string gm_flag;     // GmFlag: "IBWait(block 0, event 0)"
};

/// A block that can make no progress when the chip stopped (deadlock).
struct StuckNote {
    std::uint32_t kernel_id = 0;
    std::string kernel;
    std::uint32_t block = 0;
    CoreType core_type = CoreType::Vector;
    std::string where;
    std::string reason;
    std::uint32_t core = 0;  // physical core index within its type
    StuckWait wait;
    Cycle stopped_at = 0;  // when the run stopped (the end of the blocked time)
};

/// Contract: called on the simulation thread, in a deterministic order. on_transaction sees
/// each instruction exactly once, after its timing is known; within one block in issue order
/// except that an instruction stalled behind a WaitFlag is published when the flag resolves.
/// Observers must not throw through the simulator; they must not keep the reference.
class TransactionObserver {
public:
    virtual ~TransactionObserver() = default;
    virtual void on_kernel_start(const KernelInfo& /*kernel*/, Cycle /*at*/) {}
    virtual void on_transaction(const Transaction& tx) = 0;
    virtual void on_kernel_end(const KernelInfo& /*kernel*/, Cycle /*at*/) {}
    /// The host wrote GM bytes (Simulator::write): they count as initialised.
    virtual void on_host_write(std::uint64_t /*address*/, std::uint64_t /*bytes*/) {}
    virtual void on_local_alloc(const LocalAllocation& /*allocation*/) {}
    virtual void on_block_stuck(const StuckNote& /*note*/) {}

    // The host runtime (Simulator::run_host), see base/host_ops.h.
    /// In host program order, when the host queues the op (before it can start).
    virtual void on_host_op_queued(const HostOpInfo& /*op*/) {}
    /// The op began on its stream (the previous op there completed). For a kernel this comes
    /// before its on_kernel_start, whose KernelInfo::host_op names the op.
    virtual void on_host_op_started(std::uint64_t /*op*/, Cycle /*at*/) {}
    /// The op completed: a kernel's last block finished, a copy's data landed.
    virtual void on_host_op_completed(std::uint64_t /*op*/, Cycle /*at*/) {}
    /// The host thread learned that `op` completed, and with it everything before it on its
    /// stream (a synchronize, or a query that returned Success).
    virtual void on_host_synchronized(std::uint64_t /*op*/) {}
    /// A synchronous runtime call read or wrote GM on the host thread.
    virtual void on_host_access(const HostAccess& /*access*/) {}
};

}  // namespace npusim
