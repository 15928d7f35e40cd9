#include "core/block.h"

#include "core/ai_core.h"

namespace npusim {

Block::Block(AiCore& core, const BlockAssignment& work) : m_core(core), m_work(work) {}

std::uint32_t Block::block_idx() const {
    return m_work.block_idx;
}
std::uint32_t Block::block_num() const {
    return m_core.block_num();
}
std::uint32_t Block::sub_block_idx() const {
    return m_work.sub_block_idx;
}
std::uint32_t Block::group_idx() const {
    return m_work.group;
}
KernelType Block::kernel_type() const {
    return m_work.kernel->type;
}
ScheduleMode Block::schedule_mode() const {
    return m_work.kernel->schedule_mode;
}
CoreType Block::core_type() const {
    return m_core.type();
}
std::string_view Block::kernel_name() const {
    return m_work.kernel->name;
}
const LaunchIdentity& Block::launch() const {
    return *m_work.kernel;
}

void Block::sync_all(SyncAllScope scope, Loc loc) {
    m_core.hard_sync_all(scope, loc);
}

void Block::sync_all(GlobalTensor<std::int32_t> gm_workspace,
                     LocalTensor<std::int32_t> ub_workspace, std::uint32_t used_cores, Loc loc) {
    m_core.soft_sync_all(global_operand(gm_workspace), local_operand(ub_workspace), used_cores,
                         loc);
}

void Block::gm_flag(bool set, GlobalTensor<std::int32_t> slot, LocalTensor<std::int32_t> ub,
                    std::int32_t value, std::string name, Loc loc) {
    m_core.gm_flag(GmFlagCall{.set = set,
                              .slot = global_operand(slot),
                              .ub = local_operand(ub),
                              .value = value,
                              .name = std::move(name)},
                   loc);
}

void Block::cross_core_set_flag(std::uint32_t mode, Pipe pipe, std::uint32_t flag_id, Loc loc) {
    m_core.cross_core_set_flag(mode, pipe, flag_id, loc);
}

void Block::cross_core_wait_flag(std::uint32_t flag_id, Loc loc) {
    m_core.cross_core_wait_flag(flag_id, loc);
}
void Block::scalar_work(Cycle cycles, Loc) {
    m_core.advance_to(m_core.local_time() + cycles);
    m_core.maybe_sync();
}

void Block::scalar_fence(Op op, std::uint64_t address, std::uint64_t bytes, Loc loc) {
    m_core.scalar_fence(op, address, bytes, loc);
}

Cycle Block::now() const {
    return m_core.local_time();
}

void Block::mmad(LocalTensor<float> c, LocalTensor<half> a, LocalTensor<half> b, std::uint32_t m,
                 std::uint32_t n, std::uint32_t k, bool accumulate, Loc loc) {
    Request r;
    r.op = Op::Mmad;
    r.dst = local_operand(c);
    r.src0 = local_operand(a);
    r.src1 = local_operand(b);
    r.m = m;
    r.n = n;
    r.k = k;
    r.accumulate = accumulate;
    issue(r, loc);
}

void Block::mmad(const MmadCall& call, Loc loc) {
    Request r;
    r.op = Op::Mmad;
    r.dst = call.c.operand;
    r.src0 = call.a.operand;
    r.src1 = call.b.operand;
    r.m = call.m;
    r.n = call.n;
    r.k = call.k;
    r.accumulate = call.accumulate;
    r.has_bias = call.has_bias;
    if (call.has_bias) r.bias = call.bias.operand;
    r.a_transposed = call.a_transposed;
    r.b_transposed = call.b_transposed;
    r.layout = call.layout;
    r.block_stride = call.a_block_stride;
    issue(r, loc);
}

void Block::fixpipe(const FixpipeCall& call, Loc loc) {
    Request r;
    r.op = Op::Fixpipe;
    r.src0 = call.src.operand;
    r.dst = call.dst.operand;
    r.src1 = call.scales.operand;
    r.m = call.m;
    r.n = call.n;
    r.dst_pitch = call.dst_pitch;
    r.mode = static_cast<std::uint32_t>(call.quant);
    r.relu = call.relu;
    r.quant_word = call.quant_word;
    r.layout = call.layout;
    r.block_stride = call.src_block_stride;
    r.atomic = m_atomic;  // the decoder refuses a conversion under SetAtomic
    r.atomic_dtype = m_atomic_dtype;
    r.atomic_where = m_atomic_where;
    issue(r, loc);
}

void Block::load_fractals(const LoadFractalsCall& call, Loc loc) {
    Request r;
    r.op = Op::LoadFractals;
    r.src0 = call.src.operand;
    r.dst = call.dst.operand;
    r.rows = call.fractals;
    r.src_pitch = call.src_pitch;
    r.dst_pitch = call.dst_pitch;
    r.mode = call.square_half >= 0 ? 2 + static_cast<std::uint32_t>(call.square_half)
                                   : (call.transpose ? 1 : 0);
    if (call.img2col) {
        r.op = Op::LoadImg2Col;
        r.img2col = call.geometry;
        r.pad.pad_value = call.pad_value;
    }
    issue(r, loc);
}

void Block::init_const(const InitConstCall& call, Loc loc) {
    Request r;
    r.op = Op::InitConstValue;
    r.dst = call.dst.operand;
    // No data is read: the source space names the route, i.e. the pipe that writes the
    // buffer (GM -> L1 on MTE2, L1 -> L0A / L0B on MTE1).
    r.src0.space = r.dst.space == MemSpace::L1 ? MemSpace::GM : MemSpace::L1;
    r.rows = call.repeats;
    r.count = call.blocks;
    r.dst_pitch = call.gap;
    r.pad.pad_value = call.value_bits;
    issue(r, loc);
}

void Block::nd2nz(const Nd2NzCall& call, Loc loc) {
    Request r;
    r.op = Op::Copy;
    r.src0 = call.src.operand;
    r.dst = call.dst.operand;
    r.rows = call.rows;
    r.count = call.cols;
    r.src_pitch = call.src_pitch;
    r.dst_pitch = call.dst_block_pitch;
    r.layout = CubeLayout::Fractal;
    issue(r, loc);
}

void Block::set_flag(Pipe src, Pipe dst, std::uint32_t event_id, Loc loc) {
    flag(Op::SetFlag, src, dst, event_id, false, loc);
}

void Block::wait_flag(Pipe src, Pipe dst, std::uint32_t event_id, Loc loc) {
    flag(Op::WaitFlag, src, dst, event_id, false, loc);
}

void Block::pipe_barrier(Pipe pipe, Loc loc) {
    barrier(pipe, false, loc);
}

void Block::inserted_set_flag(Pipe src, Pipe dst, std::uint32_t event_id, Loc loc) {
    flag(Op::SetFlag, src, dst, event_id, true, loc);
}

void Block::inserted_wait_flag(Pipe src, Pipe dst, std::uint32_t event_id, Loc loc) {
    flag(Op::WaitFlag, src, dst, event_id, true, loc);
}

void Block::inserted_pipe_barrier(Pipe pipe, Loc loc) {
    barrier(pipe, true, loc);
}

void Block::flag(Op op, Pipe src, Pipe dst, std::uint32_t event_id, bool inserted, Loc loc) {
    Request r;
    r.op = op;
    r.flag_src = src;
    r.flag_dst = dst;
    r.event_id = event_id;
    r.inserted = inserted;
    issue(r, loc);
}

void Block::barrier(Pipe pipe, bool inserted, Loc loc) {
    Request r;
    r.op = Op::PipeBarrier;
    r.barrier_pipe = pipe;
    r.inserted = inserted;
    issue(r, loc);
}

void Block::issue_copy(const Operand& dst, const Operand& src, std::uint64_t count, Loc loc) {
    Request r;
    r.op = Op::Copy;
    r.dst = dst;
    r.src0 = src;
    r.count = count;
    r.atomic = m_atomic;
    r.atomic_dtype = m_atomic_dtype;
    r.atomic_where = m_atomic_where;
    r.dma_continues = m_dma_continues;
    r.l2_bypass = m_l2_bypass;
    r.pad = m_pad;
    r.rows = m_rows.rows;
    r.src_pitch = m_rows.src_pitch;
    r.dst_pitch = m_rows.dst_pitch;
    m_rows = Rows{};
    m_dma_continues = false;
    m_l2_bypass = false;
    m_pad = PadRow{};
    issue(r, loc);
}

void Block::set_atomic(AtomicOp op, DType dtype, Loc loc) {
    m_atomic = op;
    m_atomic_dtype = dtype;
    m_atomic_where = loc;
}

void Block::issue(const Request& request, Loc loc) {
    m_core.issue(request, loc);
}

std::uint64_t Block::allocate_local(MemSpace space, std::uint64_t bytes, Loc loc) {
    return m_core.allocate_local(space, bytes, loc);
}

void Block::scalar_load(const Operand& where, void* value, Loc loc) {
    m_core.scalar_load(where, value, loc);
}

void Block::scalar_store(const Operand& where, const void* value, Loc loc) {
    m_core.scalar_store(where, value, loc);
}

}  // namespace npusim
