// The kernel API: what a kernel's C++ code calls. One Block object per running block; it
// lives on the core's scalar unit (its SystemC thread), and every call issues one
// instruction (or runs on the scalar unit) at the simulated time of that scalar unit.
//
// Every call takes a defaulted std::source_location so that errors and reports point at
// the kernel's own source line.
//
//   void add_kernel(npusim::Block& b, GlobalTensor<float> x, GlobalTensor<float> z) {
//       auto ub = b.alloc<float>(MemSpace::UB, 1024);
//       b.copy(ub, x.sub(b.block_idx() * 1024, 1024), 1024);   // MTE2
//       b.set_flag(Pipe::MTE2, Pipe::MTE3, 0);
//       b.wait_flag(Pipe::MTE2, Pipe::MTE3, 0);
//       b.copy(z.sub(b.block_idx() * 1024, 1024), ub, 1024);   // MTE3
//   }
#pragma once

#include <cstdint>
#include <source_location>
#include <span>
#include <string_view>

#include "base/kernel_type.h"
#include "base/launch_identity.h"
#include "base/tensor.h"
#include "base/transaction.h"
#include "base/types.h"
#include "core/cube_call.h"
#include "core/request.h"

namespace npusim {

class AiCore;
struct BlockAssignment;

class Block final {
public:
    Block(AiCore& core, const BlockAssignment& work);
    Block(const Block&) = delete;
    Block& operator=(const Block&) = delete;

    /// This block's index among the kernel's blocks on this core type (see kernel_type.h).
    std::uint32_t block_idx() const;
    /// Number of the kernel's blocks on this core type (N, or 2N on AIV in MIX_AIC_1_2).
    std::uint32_t block_num() const;
    /// 0 or 1: which AIV of its group this block is (MIX_AIC_1_2); 0 otherwise.
    std::uint32_t sub_block_idx() const;
    /// The group (mixed kernels): equal on the AIC and the AIV(s) that run together.
    std::uint32_t group_idx() const;
    KernelType kernel_type() const;
    ScheduleMode schedule_mode() const;  // the launch's LaunchSpec::schedule_mode
    CoreType core_type() const;
    std::string_view kernel_name() const;
    /// The launch this block runs for (id, stream, ...): the same object for all its blocks,
    /// distinct for two launches of one kernel (per-launch state of front ends keys on it).
    const LaunchIdentity& launch() const;
    /// This block's scalar-unit time in cycles (for kernels that want to print or branch).
    Cycle now() const;

    // ---- local buffers -----------------------------------------------------------------
    /// Bump-allocates `count` elements in a local space (32-byte aligned, 512 on L0).
    /// Throws KernelError when the space is full. Allocations are released at block end.
    template <Element T>
    LocalTensor<T> alloc(MemSpace space, std::uint64_t count, Loc loc = Loc::current()) {
        return {space, allocate_local(space, count * sizeof(T), loc), count};
    }
    /// A view at an explicit byte offset (no allocation), for kernels that lay out UB by hand.
    template <Element T>
    LocalTensor<T> local(MemSpace space, std::uint64_t byte_offset, std::uint64_t count) const {
        return {space, byte_offset, count};
    }

    // ---- data movement (DataCopy) ------------------------------------------------------
    /// GM -> UB or GM -> L1 (PIPE_MTE2).
    template <Element T>
    void copy(LocalTensor<T> dst, GlobalTensor<T> src, std::uint64_t count,
              Loc loc = Loc::current()) {
        issue_copy(local_operand(dst), global_operand(src), count, loc);
    }
    /// UB -> GM (PIPE_MTE3) or L0C -> GM (PIPE_FIX).
    template <Element T>
    void copy(GlobalTensor<T> dst, LocalTensor<T> src, std::uint64_t count,
              Loc loc = Loc::current()) {
        issue_copy(global_operand(dst), local_operand(src), count, loc);
    }
    /// UB -> UB (PIPE_V) or L1 -> L0A / L0B (PIPE_MTE1).
    template <Element T>
    void copy(LocalTensor<T> dst, LocalTensor<T> src, std::uint64_t count,
              Loc loc = Loc::current()) {
        issue_copy(local_operand(dst), local_operand(src), count, loc);
    }

    /// The next copy is a further burst (row) of the DMA instruction the previous copy of
    /// its pipe began: front ends issue a strided copy (DataCopyParams) as one copy per row
    /// and mark the rows after the first, so it is timed as one instruction
    /// (docs/cost-model.md). Applies to the next copy only.
    void continue_dma() { m_dma_continues = true; }
    /// The next copy's GM read does not allocate in L2 (the vendor's cache hint
    /// CACHE_MODE_DISABLE, for data read once). Applies to the next copy only.
    void bypass_l2() { m_l2_bypass = true; }
    /// The next copy is one strided DMA instruction: `rows` rows of its count, the rows'
    /// starts `src_pitch` / `dst_pitch` bytes apart (DataCopyParams, DataCopyExtParams,
    /// Nd2NzParams). Costs the issue once and the burst cost per further row
    /// (docs/cost-model.md). Applies to the next copy only.
    void dma_rows(std::uint32_t rows, std::uint64_t src_pitch, std::uint64_t dst_pitch) {
        m_rows = Rows{rows, src_pitch, dst_pitch};
    }
    /// The next copy is a DataCopyPad row between GM and a local memory: its length need
    /// not be a multiple of 32 bytes (the local side's address still must be aligned). With
    /// `left_bytes` / `right_bytes` (GM -> local only) the destination row is the padding,
    /// then the data, then the padding, the padding filled with `pad_value` (the element's
    /// bit pattern, repeated) when `fill`, left unwritten otherwise (its bytes stay
    /// undefined). Applies to the next copy only.
    void pad_dma(std::uint32_t left_bytes = 0, std::uint32_t right_bytes = 0, bool fill = false,
                 std::uint64_t pad_value = 0) {
        m_pad = PadRow{true, left_bytes, right_bytes, fill, pad_value};
    }

    // ---- atomic copy-out (SetAtomicAdd / SetAtomicMax / SetAtomicMin / SetAtomicNone) ----
    /// From now on, this block's copies to GM (UB -> GM on MTE3, L0C -> GM on FIX) combine
    /// element-wise with what GM holds when they land (GM = op(GM, data), in T) instead of
    /// overwriting it; clear_atomic() ends it. Copies of another element type are rejected
    /// while the mode is set. Two atomic copies to the same bytes never race (the vendor
    /// sanitizer's rule); an atomic copy against any other access still does. A control
    /// register write, hardware-ordered with the pipes: it takes no simulated time here.
    template <Element T>
    void set_atomic(AtomicOp op, Loc loc = Loc::current()) {
        set_atomic(op, dtype_of<T>, loc);
    }
    /// The same with the element type as a value (front ends that read kernels from files).
    void set_atomic(AtomicOp op, DType dtype, Loc loc = Loc::current());
    void clear_atomic(Loc loc = Loc::current()) { set_atomic(AtomicOp::None, DType::F32, loc); }
    AtomicOp atomic_mode() const { return m_atomic; }

    // ---- vector unit (PIPE_V, operands in UB) -------------------------------------------
    template <Element T>
    void add(LocalTensor<T> d, LocalTensor<T> a, LocalTensor<T> b, std::uint64_t n,
             Loc loc = Loc::current()) {
        binary(Op::Add, d, a, b, n, loc);
    }
    template <Element T>
    void sub(LocalTensor<T> d, LocalTensor<T> a, LocalTensor<T> b, std::uint64_t n,
             Loc loc = Loc::current()) {
        binary(Op::Sub, d, a, b, n, loc);
    }
    template <Element T>
    void mul(LocalTensor<T> d, LocalTensor<T> a, LocalTensor<T> b, std::uint64_t n,
             Loc loc = Loc::current()) {
        binary(Op::Mul, d, a, b, n, loc);
    }
    template <Element T>
    void max(LocalTensor<T> d, LocalTensor<T> a, LocalTensor<T> b, std::uint64_t n,
             Loc loc = Loc::current()) {
        binary(Op::Max, d, a, b, n, loc);
    }
    template <Element T>
    void min(LocalTensor<T> d, LocalTensor<T> a, LocalTensor<T> b, std::uint64_t n,
             Loc loc = Loc::current()) {
        binary(Op::Min, d, a, b, n, loc);
    }
    template <Element T>
    void adds(LocalTensor<T> d, LocalTensor<T> a, T value, std::uint64_t n,
              Loc loc = Loc::current()) {
        with_scalar(Op::Adds, d, a, as_double(value), n, loc);
    }
    template <Element T>
    void muls(LocalTensor<T> d, LocalTensor<T> a, T value, std::uint64_t n,
              Loc loc = Loc::current()) {
        with_scalar(Op::Muls, d, a, as_double(value), n, loc);
    }
    template <FloatElement T>
    void exp(LocalTensor<T> d, LocalTensor<T> a, std::uint64_t n, Loc loc = Loc::current()) {
        with_scalar(Op::Exp, d, a, 0.0, n, loc);
    }
    template <Element T>
    void relu(LocalTensor<T> d, LocalTensor<T> a, std::uint64_t n, Loc loc = Loc::current()) {
        with_scalar(Op::Relu, d, a, 0.0, n, loc);
    }
    template <FloatElement T>
    void div(LocalTensor<T> d, LocalTensor<T> a, LocalTensor<T> b, std::uint64_t n,
             Loc loc = Loc::current()) {
        binary(Op::Div, d, a, b, n, loc);
    }
    template <Element T>
    void maxs(LocalTensor<T> d, LocalTensor<T> a, T value, std::uint64_t n,
              Loc loc = Loc::current()) {
        with_scalar(Op::Maxs, d, a, as_double(value), n, loc);
    }
    template <Element T>
    void mins(LocalTensor<T> d, LocalTensor<T> a, T value, std::uint64_t n,
              Loc loc = Loc::current()) {
        with_scalar(Op::Mins, d, a, as_double(value), n, loc);
    }
    template <FloatElement T>
    void ln(LocalTensor<T> d, LocalTensor<T> a, std::uint64_t n, Loc loc = Loc::current()) {
        with_scalar(Op::Ln, d, a, 0.0, n, loc);
    }
    template <Element T>
    void abs(LocalTensor<T> d, LocalTensor<T> a, std::uint64_t n, Loc loc = Loc::current()) {
        with_scalar(Op::Abs, d, a, 0.0, n, loc);
    }
    template <FloatElement T>
    void sqrt(LocalTensor<T> d, LocalTensor<T> a, std::uint64_t n, Loc loc = Loc::current()) {
        with_scalar(Op::Sqrt, d, a, 0.0, n, loc);
    }
    template <FloatElement T>
    void rsqrt(LocalTensor<T> d, LocalTensor<T> a, std::uint64_t n, Loc loc = Loc::current()) {
        with_scalar(Op::Rsqrt, d, a, 0.0, n, loc);
    }
    template <FloatElement T>
    void reciprocal(LocalTensor<T> d, LocalTensor<T> a, std::uint64_t n, Loc loc = Loc::current()) {
        with_scalar(Op::Reciprocal, d, a, 0.0, n, loc);
    }
    /// d = a > 0 ? a : a * alpha.
    template <FloatElement T>
    void leaky_relu(LocalTensor<T> d, LocalTensor<T> a, T alpha, std::uint64_t n,
                    Loc loc = Loc::current()) {
        with_scalar(Op::LeakyRelu, d, a, as_double(alpha), n, loc);
    }
    /// Broadcasts `value` into n elements (Duplicate).
    template <Element T>
    void fill(LocalTensor<T> d, T value, std::uint64_t n, Loc loc = Loc::current()) {
        destination_only(Op::Fill, d, as_double(value), n, loc);
    }
    /// d[0] = sum of a[0..n).
    template <Element T>
    void reduce_sum(LocalTensor<T> d, LocalTensor<T> a, std::uint64_t n, Loc loc = Loc::current()) {
        with_scalar(Op::ReduceSum, d, a, 0.0, n, loc);
    }
    /// d[0] = max / min of a[0..n).
    template <Element T>
    void reduce_max(LocalTensor<T> d, LocalTensor<T> a, std::uint64_t n, Loc loc = Loc::current()) {
        with_scalar(Op::ReduceMax, d, a, 0.0, n, loc);
    }
    template <Element T>
    void reduce_min(LocalTensor<T> d, LocalTensor<T> a, std::uint64_t n, Loc loc = Loc::current()) {
        with_scalar(Op::ReduceMin, d, a, 0.0, n, loc);
    }
    /// The same with the position of the extreme next to it (d[0..2), IndexOrder).
    template <Element T>
    void reduce_max(LocalTensor<T> d, LocalTensor<T> a, std::uint64_t n, IndexOrder order,
                    Loc loc = Loc::current()) {
        reduce_with_index(Op::ReduceMax, d, a, n, 0, order, loc);
    }
    template <Element T>
    void reduce_min(LocalTensor<T> d, LocalTensor<T> a, std::uint64_t n, IndexOrder order,
                    Loc loc = Loc::current()) {
        reduce_with_index(Op::ReduceMin, d, a, n, 0, order, loc);
    }
    /// Converts n elements; float -> int rounds to nearest even and saturates.
    template <Element D, Element S>
    void cast(LocalTensor<D> d, LocalTensor<S> a, std::uint64_t n, Loc loc = Loc::current()) {
        cast(d, a, n, RoundMode::None, loc);
    }
    /// The same with a rounding mode (RoundMode: the vendor's CAST_* modes); integer targets
    /// saturate, integer -> integer conversions saturate too.
    template <Element D, Element S>
    void cast(LocalTensor<D> d, LocalTensor<S> a, std::uint64_t n, RoundMode mode,
              Loc loc = Loc::current()) {
        Request r;
        r.op = Op::Cast;
        r.dst = local_operand(d);
        r.src0 = local_operand(a);
        r.count = n;
        r.mode = static_cast<std::uint32_t>(mode);
        issue(r, loc);
    }
    /// Bitwise d = a & b, a | b, ~a (integer types).
    template <IntegerElement T>
    void bitwise_and(LocalTensor<T> d, LocalTensor<T> a, LocalTensor<T> b, std::uint64_t n,
                     Loc loc = Loc::current()) {
        binary(Op::And, d, a, b, n, loc);
    }
    template <IntegerElement T>
    void bitwise_or(LocalTensor<T> d, LocalTensor<T> a, LocalTensor<T> b, std::uint64_t n,
                    Loc loc = Loc::current()) {
        binary(Op::Or, d, a, b, n, loc);
    }
    template <IntegerElement T>
    void bitwise_not(LocalTensor<T> d, LocalTensor<T> a, std::uint64_t n,
                     Loc loc = Loc::current()) {
        with_scalar(Op::Not, d, a, 0.0, n, loc);
    }
    /// d = relu(a + b) / relu(a - b) (AddRelu / SubRelu: one instruction).
    template <Element T>
    void add_relu(LocalTensor<T> d, LocalTensor<T> a, LocalTensor<T> b, std::uint64_t n,
                  Loc loc = Loc::current()) {
        binary(Op::AddRelu, d, a, b, n, loc);
    }
    template <Element T>
    void sub_relu(LocalTensor<T> d, LocalTensor<T> a, LocalTensor<T> b, std::uint64_t n,
                  Loc loc = Loc::current()) {
        binary(Op::SubRelu, d, a, b, n, loc);
    }
    /// d[i] = a[i] << bits (ShiftLeft; signed types keep the sign bit) / a[i] >> bits
    /// (ShiftRight; arithmetic for signed types). bits in [0, width of T].
    template <IntegerElement T>
    void shift_left(LocalTensor<T> d, LocalTensor<T> a, std::int64_t bits, std::uint64_t n,
                    Loc loc = Loc::current()) {
        with_scalar(Op::ShiftLeft, d, a, static_cast<double>(bits), n, loc);
    }
    template <IntegerElement T>
    void shift_right(LocalTensor<T> d, LocalTensor<T> a, std::int64_t bits, std::uint64_t n,
                     Loc loc = Loc::current()) {
        with_scalar(Op::ShiftRight, d, a, static_cast<double>(bits), n, loc);
    }
    /// d[i] = first + i (CreateVecIndex).
    template <Element T>
    void create_vec_index(LocalTensor<T> d, T first, std::uint64_t n, Loc loc = Loc::current()) {
        destination_only(Op::CreateVecIndex, d, as_double(first), n, loc);
    }
    /// d = a * alpha + d (reads d).
    template <Element T>
    void axpy(LocalTensor<T> d, LocalTensor<T> a, T alpha, std::uint64_t n,
              Loc loc = Loc::current()) {
        with_scalar(Op::Axpy, d, a, as_double(alpha), n, loc);
    }
    /// d[i x (32 / sizeof(T)) + k] = a[i]: each of n elements fills one 32-byte block (Brcb).
    template <Element T>
    void brcb(LocalTensor<T> d, LocalTensor<T> a, std::uint64_t n, Loc loc = Loc::current()) {
        with_scalar(Op::Brcb, d, a, 0.0, n, loc);
    }
    /// d[i] = the element at byte offset base + offsets[i] from the start of `src` (Gather);
    /// the whole of `src` counts as read, so a caller that knows the offsets passes the part
    /// they address and a base relative to it (negative when that part starts later). Offsets
    /// must address whole elements of `src` (the caller checks the values).
    template <Element T>
    void gather(LocalTensor<T> d, LocalTensor<T> src, LocalTensor<std::uint32_t> offsets,
                std::int64_t base, std::uint64_t n, Loc loc = Loc::current()) {
        Request r;
        r.op = Op::Gather;
        r.dst = local_operand(d);
        r.src0 = local_operand(src);
        r.src1 = local_operand(offsets);
        r.count = n;
        r.scalar = static_cast<double>(base);
        issue(r, loc);
    }
    /// GatherMask over n contiguous elements of `src`: the `kept` elements whose pattern bit
    /// is set, packed from d[0]; `pattern` 1-7 is a built-in pattern (`bits` unused), 0 takes
    /// bit i of `bits` (LSB first). `kept` must be the number of set bits.
    template <Element T, Element M>
    void gather_mask(LocalTensor<T> d, LocalTensor<T> src, LocalTensor<M> bits,
                     std::uint32_t pattern, std::uint64_t n, std::uint32_t kept,
                     Loc loc = Loc::current()) {
        Request r;
        r.op = Op::GatherMask;
        r.dst = local_operand(d);
        r.src0 = local_operand(src);
        r.mask = local_operand(bits);
        r.mode = pattern;
        r.group = kept;
        r.count = n;
        issue(r, loc);
    }
    /// Sort32 over n scores (n / 32 repeats): d holds n 8-byte (score, index) pairs.
    template <Element T>
    void sort32(LocalTensor<T> d, LocalTensor<T> scores, LocalTensor<std::uint32_t> indices,
                std::uint64_t n, Loc loc = Loc::current()) {
        Request r;
        r.op = Op::Sort32;
        r.dst = local_operand(d);
        r.src0 = local_operand(scores);
        r.src1 = local_operand(indices);
        r.count = n;
        issue(r, loc);
    }
    /// MrgSort of 2-4 sorted queues of (score, index) pairs, each queue the whole of its view.
    template <Element T>
    void mrg_sort(LocalTensor<T> d, std::span<const LocalTensor<T>> queues,
                  Loc loc = Loc::current()) {
        Request r;
        r.op = Op::MrgSort;
        r.dst = local_operand(d);
        Operand* slots[4] = {&r.src0, &r.src1, &r.src2, &r.src3};
        for (std::size_t q = 0; q < queues.size() && q < 4; ++q)
            *slots[q] = local_operand(queues[q]);
        r.group = static_cast<std::uint32_t>(queues.size());
        issue(r, loc);
    }
    /// One vector instruction on d and a whose other fields r holds (Transpose, CastInt4).
    template <Element D, Element S>
    void vector_call(Request r, LocalTensor<D> d, LocalTensor<S> a, Loc loc = Loc::current()) {
        r.dst = local_operand(d);
        r.src0 = local_operand(a);
        issue(r, loc);
    }
    /// Bit i of `bits` (uint8, LSB first) = a[i] <mode> b[i], for n elements (n / 8 bytes).
    template <Element T>
    void compare(LocalTensor<std::uint8_t> bits, LocalTensor<T> a, LocalTensor<T> b, CmpMode mode,
                 std::uint64_t n, Loc loc = Loc::current()) {
        Request r = bit_request(Op::Compare, bits, a, mode, n);
        r.src1 = local_operand(b);
        issue(r, loc);
    }
    /// Bit i of `bits` = a[i] <mode> value.
    template <Element T>
    void compare_scalar(LocalTensor<std::uint8_t> bits, LocalTensor<T> a, T value, CmpMode mode,
                        std::uint64_t n, Loc loc = Loc::current()) {
        Request r = bit_request(Op::CompareScalar, bits, a, mode, n);
        r.scalar = as_double(value);
        issue(r, loc);
    }
    /// d[i] = bit i of `mask` ? a[i] : b[i] (the mask's bytes, LSB first; any integer type).
    template <Element T, IntegerElement M>
    void select(LocalTensor<T> d, LocalTensor<M> mask, LocalTensor<T> a, LocalTensor<T> b,
                std::uint64_t n, Loc loc = Loc::current()) {
        Request r;
        r.op = Op::Select;
        r.dst = local_operand(d);
        r.mask = local_operand(mask);
        r.src0 = local_operand(a);
        r.src1 = local_operand(b);
        r.count = n;
        issue(r, loc);
    }
    /// d[i] = bit i of `mask` ? a[i] : value.
    template <Element T, IntegerElement M>
    void select(LocalTensor<T> d, LocalTensor<M> mask, LocalTensor<T> a, T value, std::uint64_t n,
                Loc loc = Loc::current()) {
        Request r;
        r.op = Op::SelectScalar;
        r.dst = local_operand(d);
        r.mask = local_operand(mask);
        r.src0 = local_operand(a);
        r.scalar = as_double(value);
        r.count = n;
        issue(r, loc);
    }
    /// d[j] = sum / max / min of a[j * group .. (j + 1) * group) for j < n / group: one
    /// instruction (the vendor's WholeReduce / BlockReduce / PairReduce over dense repeats).
    /// GroupReduceMax / Min with an IndexOrder write (value, position in the group) pairs.
    template <Element T>
    void group_reduce(Op op, LocalTensor<T> d, LocalTensor<T> a, std::uint64_t n,
                      std::uint32_t group, IndexOrder order = IndexOrder::None,
                      Loc loc = Loc::current()) {
        reduce_with_index(op, d, a, n, group, order, loc);
    }

    // ---- cube unit (PIPE_M) -------------------------------------------------------------
    /// c[m x n] (+)= a[m x k] * b[k x n] (L0A, L0B fp16 row-major; L0C fp32); !accumulate sets c.
    void mmad(LocalTensor<float> c, LocalTensor<half> a, LocalTensor<half> b, std::uint32_t m,
              std::uint32_t n, std::uint32_t k, bool accumulate = false, Loc loc = Loc::current());
    void mmad(const MmadCall& call, Loc loc = Loc::current());
    void fixpipe(const FixpipeCall& call, Loc loc = Loc::current());
    void load_fractals(const LoadFractalsCall& call, Loc loc = Loc::current());
    void init_const(const InitConstCall& call, Loc loc = Loc::current());
    void nd2nz(const Nd2NzCall& call, Loc loc = Loc::current());

    // ---- scalar unit (PIPE_S) -----------------------------------------------------------
    template <Element T>
    T load(GlobalTensor<T> src, std::uint64_t index, Loc loc = Loc::current()) {
        T value{};
        scalar_load(Operand{MemSpace::GM, src.address + index * sizeof(T), 1, dtype_of<T>}, &value,
                    loc);
        return value;
    }
    template <Element T>
    T load(LocalTensor<T> src, std::uint64_t index, Loc loc = Loc::current()) {
        T value{};
        scalar_load(Operand{src.space, src.address + index * sizeof(T), 1, dtype_of<T>}, &value,
                    loc);
        return value;
    }
    template <Element T>
    void store(GlobalTensor<T> dst, std::uint64_t index, T value, Loc loc = Loc::current()) {
        scalar_store(Operand{MemSpace::GM, dst.address + index * sizeof(T), 1, dtype_of<T>}, &value,
                     loc);
    }
    template <Element T>
    void store(LocalTensor<T> dst, std::uint64_t index, T value, Loc loc = Loc::current()) {
        scalar_store(Operand{dst.space, dst.address + index * sizeof(T), 1, dtype_of<T>}, &value,
                     loc);
    }

    /// Scalar work that touches no memory (address arithmetic, loop control): the scalar
    /// unit is busy for `cycles` cycles and issues nothing. Publishes no transaction.
    void scalar_work(Cycle cycles, Loc loc = Loc::current());
    /// Op::DataSyncBarrier, or Op::CacheClean of GM [address, +bytes) (0: the whole cache).
    void scalar_fence(Op op, std::uint64_t address = 0, std::uint64_t bytes = 0,
                      Loc loc = Loc::current());

    // ---- synchronization across blocks -------------------------------------------------
    /// Hard SyncAll: a hardware barrier over every block of the kernel (scope All) or over
    /// its AIV blocks (scope Vector). Drains this core's pipes first. Blocks that never get
    /// a core (more blocks than cores) make it wait forever: the run ends as a deadlock.
    void sync_all(SyncAllScope scope = SyncAllScope::All, Loc loc = Loc::current());
    /// Soft SyncAll: a software barrier through GM. Each block writes its own 32-byte slot
    /// of `gm_workspace` and polls all `used_cores` slots through `ub_workspace`, with real
    /// copies and scalar loads. Rules (KernelError naming the call's line): gm_workspace holds
    /// >= used_cores x 32 bytes and is zero at first use; ub_workspace holds >= used_cores x
    /// 32 bytes; used_cores <= block_num(); vector cores only.
    void sync_all(GlobalTensor<std::int32_t> gm_workspace, LocalTensor<std::int32_t> ub_workspace,
                  std::uint32_t used_cores, Loc loc = Loc::current());
    /// CrossCoreSetFlag<mode, pipe>(flag_id): issued into `pipe`, fires when it drained.
    /// Modes: 0 all AIVs or all AICs of the kernel, 1 the AIVs of one group, 2 between the AIC
    /// and the AIV(s) of a group. flag_id 0-15, but not 11-14 in a kernel that calls hard
    /// SyncAll (it uses them); a block's counter holds at most 16 sets.
    void cross_core_set_flag(std::uint32_t mode, Pipe pipe, std::uint32_t flag_id,
                             Loc loc = Loc::current());
    /// CrossCoreWaitFlag(flag_id): the scalar unit waits until this block's counter is > 0.
    void cross_core_wait_flag(std::uint32_t flag_id, Loc loc = Loc::current());
    /// A flag in GM (IBSet / IBWait, ...; core/sync_port.h GmFlagCall): set writes `value`
    /// into the 32-byte `slot` once the block's earlier work is complete; wait polls it until
    /// it holds `value` or more. `ub`: 32 bytes of UB (AIV only). `name`: for messages.
    void gm_flag(bool set, GlobalTensor<std::int32_t> slot, LocalTensor<std::int32_t> ub,
                 std::int32_t value, std::string name, Loc loc = Loc::current());

    // ---- intra-core synchronization ---------------------------------------------------
    /// SetFlag<src_dst>(id): issued into `src`; fires when src's earlier work completed.
    void set_flag(Pipe src, Pipe dst, std::uint32_t event_id, Loc loc = Loc::current());
    /// WaitFlag<src_dst>(id): issued into `dst`; dst stalls until the matching SetFlag.
    void wait_flag(Pipe src, Pipe dst, std::uint32_t event_id, Loc loc = Loc::current());
    /// PipeBarrier<pipe>: later instructions of `pipe` wait for its earlier ones to
    /// complete; Pipe::ALL makes the scalar unit wait for every pipe.
    void pipe_barrier(Pipe pipe, Loc loc = Loc::current());

    /// The same, marked Transaction::inserted: synchronization a layer above (sim/ascendc's
    /// automatic synchronization) issues for the kernel at `loc`, the line that needs it.
    void inserted_set_flag(Pipe src, Pipe dst, std::uint32_t event_id, Loc loc);
    void inserted_wait_flag(Pipe src, Pipe dst, std::uint32_t event_id, Loc loc);
    void inserted_pipe_barrier(Pipe pipe, Loc loc);

private:
    void flag(Op op, Pipe src, Pipe dst, std::uint32_t event_id, bool inserted, Loc loc);
    void barrier(Pipe pipe, bool inserted, Loc loc);
    template <Element T>
    void reduce_with_index(Op op, LocalTensor<T> d, LocalTensor<T> a, std::uint64_t n,
                           std::uint32_t group, IndexOrder order, Loc loc) {
        Request r;
        r.op = op;
        r.dst = local_operand(d);
        r.src0 = local_operand(a);
        r.count = n;
        r.group = group;
        r.mode = static_cast<std::uint32_t>(order);
        issue(r, loc);
    }
    template <Element T>
    static Request bit_request(Op op, LocalTensor<std::uint8_t> bits, LocalTensor<T> a,
                               CmpMode mode, std::uint64_t n) {
        Request r;
        r.op = op;
        r.dst = local_operand(bits);
        r.src0 = local_operand(a);
        r.count = n;
        r.mode = static_cast<std::uint32_t>(mode);
        return r;
    }
    template <Element T>
    void binary(Op op, LocalTensor<T> d, LocalTensor<T> a, LocalTensor<T> b, std::uint64_t n,
                Loc loc) {
        Request r;
        r.op = op;
        r.dst = local_operand(d);
        r.src0 = local_operand(a);
        r.src1 = local_operand(b);
        r.count = n;
        issue(r, loc);
    }
    template <Element T>
    void with_scalar(Op op, LocalTensor<T> d, LocalTensor<T> a, double value, std::uint64_t n,
                     Loc loc) {
        Request r;
        r.op = op;
        r.dst = local_operand(d);
        r.src0 = local_operand(a);
        r.count = n;
        r.scalar = value;
        issue(r, loc);
    }
    template <Element T>
    void destination_only(Op op, LocalTensor<T> d, double value, std::uint64_t n, Loc loc) {
        Request r;
        r.op = op;
        r.dst = local_operand(d);
        r.count = n;
        r.scalar = value;
        issue(r, loc);
    }
    void issue_copy(const Operand& dst, const Operand& src, std::uint64_t count, Loc loc);
    void issue(const Request& request, Loc loc);
    std::uint64_t allocate_local(MemSpace space, std::uint64_t bytes, Loc loc);
    void scalar_load(const Operand& where, void* value, Loc loc);
    void scalar_store(const Operand& where, const void* value, Loc loc);

    AiCore& m_core;
    const BlockAssignment& m_work;
    AtomicOp m_atomic = AtomicOp::None;  // set_atomic: applies to later copies to GM
    bool m_dma_continues = false;        // continue_dma: applies to the next copy
    bool m_l2_bypass = false;            // bypass_l2: applies to the next copy
    PadRow m_pad;                        // pad_dma: applies to the next copy
    struct Rows {
        std::uint32_t rows = 1;
        std::uint64_t src_pitch = 0, dst_pitch = 0;
    } m_rows;  // dma_rows: applies to the next copy
    DType m_atomic_dtype = DType::F32;
    Loc m_atomic_where;
};

}  // namespace npusim
