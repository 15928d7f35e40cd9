#include "core/ai_core.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "core/compute.h"
#include "core/errors.h"

namespace npusim {

namespace {

constexpr std::uint32_t kPhaseRead = 0;    // at start: read sources, compute into scratch
constexpr std::uint32_t kPhaseCommit = 1;  // at end: write scratch to the destination

std::array<std::uint64_t, kMemSpaces> capacities_for(const ChipConfig& c, CoreType type) {
    std::array<std::uint64_t, kMemSpaces> caps{};
    if (type == CoreType::Vector) {
        caps[static_cast<std::size_t>(MemSpace::UB)] = c.ub_bytes;
    } else {
        caps[static_cast<std::size_t>(MemSpace::L1)] = c.l1_bytes;
        caps[static_cast<std::size_t>(MemSpace::L0A)] = c.l0a_bytes;
        caps[static_cast<std::size_t>(MemSpace::L0B)] = c.l0b_bytes;
        caps[static_cast<std::size_t>(MemSpace::L0C)] = c.l0c_bytes;
    }
    return caps;
}

bool is_l0(MemSpace space) {
    return space == MemSpace::L0A || space == MemSpace::L0B || space == MemSpace::L0C;
}

std::uint64_t alignment_of(MemSpace space) {
    return is_l0(space) ? 512 : 32;
}

std::string hex(std::uint64_t value) {
    std::ostringstream out;
    out << "0x" << std::hex << value;
    return out.str();
}

std::string_view short_name(Pipe pipe) {
    return to_string(pipe).substr(5);
}

std::string flag_name(const Transaction& tx) {
    std::string text(to_string(tx.op));
    text += '<';
    text += short_name(tx.flag_src);
    text += '_';
    text += short_name(tx.flag_dst);
    text += ">(" + std::to_string(tx.event_id) + ")";
    return text;
}

}  // namespace

/// An issued instruction whose data effects are still pending.
struct AiCore::InFlight final : DeferredEffect {
    AiCore* core = nullptr;
    Transaction tx;
    std::vector<std::byte> scratch;  // source bytes or computed result, start -> end
    std::uint64_t queue_index = 0;
    CopyPath path;
    int write_access = -1;  // index into tx.accesses written at commit

    void apply(std::uint32_t phase) override { core->apply_effect(*this, phase); }
};

AiCore::AiCore(const sc_core::sc_module_name& name, ChipResources& chip, WorkSource& work,
               CoreType type, std::uint32_t index, std::size_t stack_bytes)
    : sc_core::sc_module(name),
      m_chip(chip),
      m_work(work),
      m_type(type),
      m_index(index),
      m_local(capacities_for(chip.config, type)),
      m_flags(static_cast<std::uint32_t>(chip.config.event_ids)),
      m_pipes(kPipeSlots, PipeTimeline(chip.config.queue_depth)) {
    SC_HAS_PROCESS(AiCore);
    SC_THREAD(scalar_thread);
    set_stack_size(stack_bytes);
}

AiCore::~AiCore() = default;

bool AiCore::has_pipe(CoreType type, Pipe pipe) {
    const auto& pipes = pipes_of(type);
    return std::find(pipes.begin(), pipes.end(), pipe) != pipes.end();
}

const std::vector<Pipe>& AiCore::pipes_of(CoreType type) {
    static const std::vector<Pipe> vector_pipes{Pipe::S, Pipe::MTE2, Pipe::V, Pipe::MTE3};
    static const std::vector<Pipe> cube_pipes{Pipe::S, Pipe::MTE2, Pipe::MTE1, Pipe::M, Pipe::FIX};
    return type == CoreType::Vector ? vector_pipes : cube_pipes;
}

PipeStatistics AiCore::pipe_statistics(Pipe pipe) const {
    if (pipe == Pipe::S) return {0, m_scalar_instructions};
    const PipeTimeline& t = m_pipes[static_cast<std::size_t>(pipe)];
    return {t.busy_cycles(), t.instructions()};
}

void AiCore::reset_statistics() {
    for (PipeTimeline& t : m_pipes) t.reset_statistics();
    m_scalar_instructions = 0;
    m_blocks_run = 0;
}

void AiCore::reset_after_abort() {
    for (auto& queue : m_stalled) {
        for (InFlight* f : queue) release(f);
        queue.clear();
    }
    std::fill(m_pipes.begin(), m_pipes.end(), PipeTimeline(m_chip.config.queue_depth));
    m_flags.clear();
    m_stuck.reset();
    m_current = {};
    m_next.reset();
    m_internal = false;
}

// ---- the scalar unit's thread ---------------------------------------------------------

void AiCore::assign(const BlockAssignment& work) {
    m_next = work;
    m_wake.notify(sc_core::SC_ZERO_TIME);
}

void AiCore::scalar_thread() {
    for (;;) {
        while (!m_next) {
            if (m_chip.shutdown) return;
            wait(m_wake);
        }
        const BlockAssignment work = *m_next;
        m_next.reset();
        run_block(work);
    }
}

void AiCore::run_block(const BlockAssignment& work) {
    m_current = work;
    m_serial = 0;
    m_alloc_top.fill(0);
    m_soft_epoch.clear();
    const auto& offsets = work.kernel->start_offsets;
    const Cycle offset = work.group < offsets.size() ? offsets[work.group] : 0;
    m_local_time = std::max(m_local_time, now_cycles()) + offset;
    m_sync_deadline = now_cycles() + m_chip.quantum;
    try {
        check_abort();
        Block block(*this, work);
        work.kernel->body(block);
        finish_block();
        ++m_blocks_run;
        m_current = {};
        m_work.block_finished(*this, work, m_local_time);
        return;
    } catch (const BlockAborted&) {
        // Another block failed or the chip deadlocked: unwind quietly.
    } catch (const sc_core::sc_unwind_exception&) {
        throw;  // SystemC's own process kill/reset: must propagate
    } catch (const KernelError& error) {
        m_chip.fail(error.what());
    } catch (const std::exception& error) {
        m_chip.fail("kernel '" + work.kernel->name + "' block " + std::to_string(work.block_idx) +
                    " threw: " + error.what());
    } catch (...) {
        m_chip.fail("kernel '" + work.kernel->name + "' block " + std::to_string(work.block_idx) +
                    " threw a non-standard exception");
    }
    m_internal = false;
    m_current = {};
}

void AiCore::finish_block() {
    Cycle done = std::max(m_local_time, m_scalar_drained);
    for (Pipe pipe : pipes_of(m_type)) {
        if (pipe == Pipe::S) continue;
        if (!stalled(pipe).empty()) {
            const Transaction& wait = stalled(pipe).front()->tx;
            block_stuck(wait.where, "block ended while " + std::string(to_string(pipe)) +
                                        " waits at " + flag_name(wait) + " (serial " +
                                        std::to_string(wait.serial) +
                                        "): the matching SetFlag is never issued");
        }
        done = std::max(done, timeline(pipe).drained_at());
    }
    m_local_time = done;
    sync_to(m_local_time);
}

// ---- instruction records ----------------------------------------------------------------

AiCore::InFlight* AiCore::acquire() {
    if (m_free.empty()) {
        m_pool.push_back(std::make_unique<InFlight>());
        m_pool.back()->core = this;
        return m_pool.back().get();
    }
    InFlight* f = m_free.back();
    m_free.pop_back();
    return f;
}

void AiCore::release(InFlight* item) {
    m_free.push_back(item);
}

AiCore::InFlight* AiCore::begin(Pipe pipe, Op op, const Loc& loc) {
    check_abort();
    InFlight* f = acquire();
    f->write_access = -1;
    Transaction& tx = f->tx;
    tx = Transaction{};
    tx.kernel_id = m_current.kernel->id;
    tx.block = m_current.block_idx;
    tx.core = m_index;
    tx.core_type = m_type;
    tx.pipe = pipe;
    tx.op = op;
    tx.serial = ++m_serial;
    tx.where = loc;
    tx.sub_block = m_current.sub_block_idx;
    tx.internal = m_internal;
    return f;
}

void AiCore::rule_error(const Transaction& tx, const std::string& what) const {
    std::string text = "kernel '" + m_current.kernel->name + "' block " + std::to_string(tx.block) +
                       " (" + std::string(to_string(m_type)) + ") " +
                       std::string(to_string(tx.pipe)) + " serial " + std::to_string(tx.serial) +
                       " at " + format_location(tx.where) + ": " + what;
    throw KernelError(text);
}

void AiCore::block_stuck(const Loc& loc, std::string reason) {
    m_stuck = StuckInfo{m_current.kernel->id, m_current.kernel->name, m_current.block_idx,
                        format_location(loc), [text = std::move(reason)] { return text; }};
    ++m_chip.blocked_cores;
    for (;;) {
        wait(m_chip.abort_event);
        if (m_chip.abort) {
            --m_chip.blocked_cores;
            throw BlockAborted{};
        }
    }
}

void AiCore::block_until(const std::function<bool()>& ready, const Loc& loc,
                         std::function<std::string()> reason) {
    if (ready()) return;
    m_stuck = StuckInfo{m_current.kernel->id, m_current.kernel->name, m_current.block_idx,
                        format_location(loc), std::move(reason)};
    ++m_chip.blocked_cores;
    do {
        wait(m_current.runtime->sync_event | m_chip.abort_event);
        if (m_chip.abort) {
            --m_chip.blocked_cores;
            throw BlockAborted{};
        }
    } while (!ready());
    --m_chip.blocked_cores;
    m_stuck.reset();
    m_local_time = std::max(m_local_time, now_cycles());
}

// ---- validation -----------------------------------------------------------------------

void AiCore::validate_local(const Transaction& tx, const Operand& operand, std::uint64_t count,
                            const char* role, std::uint64_t align) const {
    const std::uint64_t capacity = m_local.capacity(operand.space);
    const std::string name(to_string(operand.space));
    if (capacity == 0) {
        rule_error(tx, std::string(role) + " is in " + name + ", which an " +
                           std::string(to_string(m_type)) + " core does not have");
    }
    if (align == 0) align = alignment_of(operand.space);
    if (operand.address % align != 0) {
        rule_error(tx, std::string(role) + " " + name + " address " + hex(operand.address) +
                           " is not " + std::to_string(align) + "-byte aligned");
    }
    if (count > operand.count) {
        rule_error(tx, std::string(role) + " needs " + std::to_string(count) +
                           " elements but its tensor holds " + std::to_string(operand.count));
    }
    const std::uint64_t bytes = count * size_of(operand.dtype);
    if (operand.address > capacity || bytes > capacity - operand.address) {
        rule_error(tx, std::string(role) + " " + name + " range [" + hex(operand.address) + ", " +
                           hex(operand.address + bytes) + ") is outside " + name + " (" +
                           std::to_string(capacity) + " bytes)");
    }
}

void AiCore::validate_global(const Transaction& tx, const Operand& operand, std::uint64_t count,
                             const char* role) const {
    if (count > operand.count) {
        rule_error(tx, std::string(role) + " needs " + std::to_string(count) +
                           " elements but its tensor holds " + std::to_string(operand.count));
    }
    const std::uint64_t bytes = count * size_of(operand.dtype);
    const std::uint64_t capacity = m_chip.gm.capacity();
    if (operand.address > capacity || bytes > capacity - operand.address) {
        rule_error(tx, std::string(role) + " GM range [" + hex(operand.address) + ", " +
                           hex(operand.address + bytes) + ") is outside GM (" +
                           std::to_string(capacity) + " bytes)");
    }
}

void AiCore::prepare_copy(InFlight& f, const Request& r) {
    Transaction& tx = f.tx;
    tx.dtype = tx.src_dtype = r.src0.dtype;
    tx.count = r.count;
    const std::string route =
        std::string(to_string(r.src0.space)) + "->" + std::string(to_string(r.dst.space));
    if (r.count == 0) rule_error(tx, "DataCopy " + route + " of 0 elements");
    const std::uint64_t bytes = r.count * size_of(r.src0.dtype);
    if (bytes % 32 != 0) {
        rule_error(tx, "DataCopy " + route + " length " + std::to_string(bytes) +
                           " bytes is not a multiple of 32 bytes");
    }
    for (const Operand* op : {&r.src0, &r.dst}) {
        const char* role = op == &r.dst ? "destination" : "source";
        if (op->space == MemSpace::GM) {
            validate_global(tx, *op, r.count, role);
        } else {
            validate_local(tx, *op, r.count, role);
        }
    }
    tx.add_access(r.src0.space, false, r.src0.address, bytes);
    tx.add_access(r.dst.space, true, r.dst.address, bytes);
    f.write_access = 1;
}

void AiCore::prepare_vector(InFlight& f, const Request& r) {
    Transaction& tx = f.tx;
    tx.dtype = r.dst.dtype;
    tx.src_dtype = r.op == Op::Fill ? r.dst.dtype : r.src0.dtype;
    tx.count = r.count;
    tx.scalar = r.scalar;
    if (m_type != CoreType::Vector) {
        rule_error(tx, std::string(to_string(r.op)) + " needs a vector core");
    }
    if (r.count == 0) rule_error(tx, std::string(to_string(r.op)) + " of 0 elements");
    const std::uint64_t out_count = r.op == Op::ReduceSum ? 1 : r.count;
    auto check_ub = [&](const Operand& op, std::uint64_t count, const char* role) {
        if (op.space != MemSpace::UB) {
            rule_error(
                tx, std::string(role) + " must be in UB, not " + std::string(to_string(op.space)));
        }
        validate_local(tx, op, count, role);
    };
    if (r.op != Op::Fill) {
        check_ub(r.src0, r.count, "source");
        tx.add_access(MemSpace::UB, false, r.src0.address, r.count * size_of(r.src0.dtype));
    }
    const bool binary =
        r.op == Op::Add || r.op == Op::Sub || r.op == Op::Mul || r.op == Op::Max || r.op == Op::Min;
    if (binary) {
        check_ub(r.src1, r.count, "second source");
        tx.add_access(MemSpace::UB, false, r.src1.address, r.count * size_of(r.src1.dtype));
    }
    check_ub(r.dst, out_count, "destination");
    f.write_access = tx.access_count;
    tx.add_access(MemSpace::UB, true, r.dst.address, out_count * size_of(r.dst.dtype));
}

void AiCore::prepare_mmad(InFlight& f, const Request& r) {
    Transaction& tx = f.tx;
    tx.dtype = DType::F32;
    tx.src_dtype = DType::F16;
    tx.m = r.m;
    tx.n = r.n;
    tx.k = r.k;
    tx.accumulate = r.accumulate;
    if (m_type != CoreType::Cube) rule_error(tx, "Mmad needs a cube core");
    if (r.m == 0 || r.n == 0 || r.k == 0) rule_error(tx, "Mmad with a zero dimension");
    const std::uint64_t m = r.m, n = r.n, k = r.k;
    auto check = [&](const Operand& op, MemSpace space, std::uint64_t count, const char* role) {
        if (op.space != space) {
            rule_error(tx, std::string(role) + " must be in " + std::string(to_string(space)) +
                               ", not " + std::string(to_string(op.space)));
        }
        validate_local(tx, op, count, role);
    };
    check(r.src0, MemSpace::L0A, m * k, "left matrix");
    check(r.src1, MemSpace::L0B, k * n, "right matrix");
    check(r.dst, MemSpace::L0C, m * n, "result matrix");
    tx.add_access(MemSpace::L0A, false, r.src0.address, m * k * 2);
    tx.add_access(MemSpace::L0B, false, r.src1.address, k * n * 2);
    f.write_access = tx.access_count;
    tx.add_access(MemSpace::L0C, true, r.dst.address, m * n * 4);
    if (r.accumulate) tx.add_access(MemSpace::L0C, false, r.dst.address, m * n * 4);
}

// ---- issuing --------------------------------------------------------------------------

void AiCore::issue(const Request& r, const Loc& loc) {
    switch (r.op) {
        case Op::Copy: {
            const auto path = m_chip.cost.copy_path(r.src0.space, r.dst.space);
            InFlight* f = begin(path ? path->pipe : Pipe::S, Op::Copy, loc);
            if (!path) {
                rule_error(f->tx, "no DataCopy path from " + std::string(to_string(r.src0.space)) +
                                      " to " + std::string(to_string(r.dst.space)));
            }
            f->path = *path;
            prepare_copy(*f, r);
            issue_to_pipe(f, loc);
            return;
        }
        case Op::Mmad: {
            InFlight* f = begin(Pipe::M, Op::Mmad, loc);
            prepare_mmad(*f, r);
            issue_to_pipe(f, loc);
            return;
        }
        case Op::SetFlag:
        case Op::WaitFlag: {
            InFlight* f = begin(r.op == Op::SetFlag ? r.flag_src : r.flag_dst, r.op, loc);
            Transaction& tx = f->tx;
            tx.flag_src = r.flag_src;
            tx.flag_dst = r.flag_dst;
            tx.event_id = r.event_id;
            for (Pipe p : {r.flag_src, r.flag_dst}) {
                if (!has_pipe(m_type, p)) {
                    rule_error(tx, flag_name(tx) + ": " + std::string(to_string(p)) +
                                       " does not exist on an " + std::string(to_string(m_type)) +
                                       " core");
                }
            }
            if (r.flag_src == r.flag_dst)
                rule_error(tx, flag_name(tx) + ": source and destination pipe are the same");
            if (r.event_id >= m_chip.config.event_ids) {
                rule_error(tx, flag_name(tx) + ": event id " + std::to_string(r.event_id) +
                                   " is out of range (this chip has event ids 0-" +
                                   std::to_string(m_chip.config.event_ids - 1) + ")");
            }
            if (r.op == Op::SetFlag && r.flag_src == Pipe::S) {
                scalar_set_flag(f);
            } else if (r.op == Op::WaitFlag && r.flag_dst == Pipe::S) {
                scalar_wait_flag(f, loc);
            } else {
                issue_to_pipe(f, loc);
            }
            return;
        }
        case Op::PipeBarrier: {
            InFlight* f = begin(r.barrier_pipe, Op::PipeBarrier, loc);
            if (r.barrier_pipe == Pipe::S) {
                rule_error(f->tx,
                           "PipeBarrier<PIPE_S> is a hardware error: the scalar unit cannot "
                           "wait for itself");
            }
            if (r.barrier_pipe == Pipe::ALL) {
                barrier_all(f, loc);
                return;
            }
            if (!has_pipe(m_type, r.barrier_pipe)) {
                rule_error(f->tx, "PipeBarrier: " + std::string(to_string(r.barrier_pipe)) +
                                      " does not exist on an " + std::string(to_string(m_type)) +
                                      " core");
            }
            issue_to_pipe(f, loc);
            return;
        }
        default: {
            InFlight* f = begin(Pipe::V, r.op, loc);
            prepare_vector(*f, r);
            issue_to_pipe(f, loc);
            return;
        }
    }
}

void AiCore::issue_to_pipe(InFlight* f, const Loc& loc) {
    Transaction& tx = f->tx;
    PipeTimeline& pipe = timeline(tx.pipe);
    m_local_time += m_chip.cost.scalar_call();
    const Cycle slot = pipe.queue_slot_free_at();
    if (slot == PipeTimeline::kNotStarted) {
        const Transaction& head = stalled(tx.pipe).front()->tx;
        release(f);
        block_stuck(loc, "the queue of " + std::string(to_string(tx.pipe)) +
                             " is full while it waits at " + flag_name(head) + " (serial " +
                             std::to_string(head.serial) + ", " + format_location(head.where) +
                             ") for a SetFlag that is never issued");
    }
    m_local_time = std::max(m_local_time, slot);  // scalar stalls until a queue slot frees
    tx.issue = m_local_time;
    f->queue_index = pipe.enqueue();
    auto& queue = stalled(tx.pipe);
    if (!queue.empty() || !try_schedule(f)) queue.push_back(f);
    maybe_sync();
}

bool AiCore::try_schedule(InFlight* f) {
    Transaction& tx = f->tx;
    PipeTimeline& pipe = timeline(tx.pipe);
    Cycle start = std::max(tx.issue, pipe.free_at());
    switch (tx.op) {
        case Op::WaitFlag: {
            const auto set = m_flags.consume(tx.flag_src, tx.flag_dst, tx.event_id);
            if (!set) return false;
            tx.partner_serial = set->serial;
            complete_zero_length(f, std::max(start, set->time));
            return true;
        }
        case Op::SetFlag: {
            // Fires once everything issued earlier to this pipe has completed.
            start = std::max(start, pipe.drained_at());
            const Pipe src = tx.flag_src, dst = tx.flag_dst;
            const std::uint32_t id = tx.event_id;
            const FlagSet set{start, tx.serial, tx.block};
            complete_zero_length(f, start);
            m_flags.set(src, dst, id, set);
            resolve(dst);
            return true;
        }
        case Op::CrossCoreSetFlag: {
            start = std::max(start, pipe.drained_at());
            const Transaction copy = tx;
            complete_zero_length(f, start);
            post_cross_core(copy, start);
            return true;
        }
        case Op::PipeBarrier:
            pipe.barrier();
            complete_zero_length(f, std::max(tx.issue, pipe.free_at()));
            return true;
        default:
            break;
    }

    Cycle pipe_free = start;
    Cycle latency = 0;
    std::uint64_t result_bytes = 0;
    if (tx.op == Op::Copy) {
        const std::uint64_t bytes = tx.accesses[0].bytes;
        if (f->path.uses_gm) {
            pipe_free = m_chip.bandwidth.transfer(start, bytes, f->path.bytes_per_cycle);
        } else {
            pipe_free = start + m_chip.cost.local_copy(f->path, bytes).occupancy;
        }
        latency = f->path.latency;
        result_bytes = bytes;
    } else if (tx.op == Op::Mmad) {
        const InstructionCost cost = m_chip.cost.cube_op(tx.m, tx.n, tx.k);
        pipe_free = start + cost.occupancy;
        latency = cost.latency;
        result_bytes = std::uint64_t{tx.m} * tx.n * 4;
    } else {
        std::uint64_t bytes = 0;
        for (std::uint8_t i = 0; i < tx.access_count; ++i) {
            bytes = std::max(bytes, tx.accesses[i].bytes);
        }
        const InstructionCost cost = m_chip.cost.vector_op(bytes);
        pipe_free = start + cost.occupancy;
        latency = cost.latency;
        result_bytes = tx.accesses[static_cast<std::size_t>(f->write_access)].bytes;
    }
    tx.start = start;
    tx.pipe_free = pipe_free;
    tx.end = pipe_free + latency;
    pipe.occupy(start, pipe_free, tx.end);
    pipe.mark_started(f->queue_index, start);
    f->scratch.resize(result_bytes);
    m_chip.publish(tx);
    m_chip.effects.schedule(tx.start, f, kPhaseRead);
    m_chip.effects.schedule(tx.end, f, kPhaseCommit);
    if (tx.op == Op::Copy && tx.accesses[0].space == MemSpace::GM) {
        m_chip.gm.prefetch(tx.accesses[0].address, tx.accesses[0].bytes);  // read at tx.start
    }
    return true;
}

void AiCore::complete_zero_length(InFlight* f, Cycle at) {
    Transaction& tx = f->tx;
    PipeTimeline& pipe = timeline(tx.pipe);
    tx.start = tx.end = tx.pipe_free = at;
    pipe.occupy(at, at, at);
    pipe.mark_started(f->queue_index, at);
    m_chip.publish(tx);
    release(f);
}

void AiCore::resolve(Pipe pipe) {
    if (pipe == Pipe::S) return;  // the scalar unit consumes its flags when it reaches them
    auto& queue = stalled(pipe);
    while (!queue.empty()) {
        InFlight* f = queue.front();
        queue.pop_front();  // popped first: scheduling may resolve other pipes re-entrantly
        if (!try_schedule(f)) {
            queue.push_front(f);
            return;
        }
    }
}

void AiCore::scalar_set_flag(InFlight* f) {
    Transaction& tx = f->tx;
    m_local_time += m_chip.cost.scalar_call();
    ++m_scalar_instructions;
    // The scalar unit has reached the SetFlag once its buffered stores are visible.
    const Cycle at = std::max(m_local_time, m_scalar_drained);
    tx.issue = m_local_time;
    tx.start = tx.end = tx.pipe_free = at;
    const Pipe src = tx.flag_src, dst = tx.flag_dst;
    const std::uint32_t id = tx.event_id;
    const FlagSet set{at, tx.serial, tx.block};
    m_chip.publish(tx);
    release(f);
    m_flags.set(src, dst, id, set);
    resolve(dst);
    maybe_sync();
}

void AiCore::scalar_wait_flag(InFlight* f, const Loc& loc) {
    Transaction& tx = f->tx;
    m_local_time += m_chip.cost.scalar_call();
    ++m_scalar_instructions;
    tx.issue = m_local_time;
    const auto set = m_flags.consume(tx.flag_src, tx.flag_dst, tx.event_id);
    if (!set) {
        const std::string name = flag_name(tx);
        release(f);
        block_stuck(loc, "the scalar unit waits at " + name +
                             " for a SetFlag that is never issued (or is stalled behind a "
                             "WaitFlag of its own pipe)");
    }
    m_local_time = std::max(m_local_time, set->time);
    tx.partner_serial = set->serial;
    tx.start = tx.end = tx.pipe_free = m_local_time;
    m_chip.publish(tx);
    release(f);
    maybe_sync();
}

void AiCore::drain_pipes(InFlight* f, const Loc& loc, const char* what) {
    Cycle done = std::max(m_local_time, m_scalar_drained);
    for (Pipe pipe : pipes_of(m_type)) {
        if (pipe == Pipe::S) continue;
        if (!stalled(pipe).empty()) {
            const Transaction head = stalled(pipe).front()->tx;
            release(f);
            block_stuck(loc, std::string(what) + " waits for " + std::string(to_string(pipe)) +
                                 ", which waits at " + flag_name(head) + " (serial " +
                                 std::to_string(head.serial) + ", " + format_location(head.where) +
                                 ") for a SetFlag that is never issued");
        }
        done = std::max(done, timeline(pipe).drained_at());
    }
    m_local_time = done;
}

void AiCore::barrier_all(InFlight* f, const Loc& loc) {
    Transaction& tx = f->tx;
    m_local_time += m_chip.cost.scalar_call();
    ++m_scalar_instructions;
    tx.issue = m_local_time;
    drain_pipes(f, loc, "PipeBarrier<PIPE_ALL>");
    tx.start = tx.end = tx.pipe_free = m_local_time;
    m_chip.publish(tx);
    release(f);
    maybe_sync();
}

// ---- synchronization across blocks ------------------------------------------------------

void AiCore::hard_sync_all(SyncAllScope scope, const Loc& loc) {
    InFlight* f = begin(Pipe::S, Op::SyncAll, loc);
    Transaction& tx = f->tx;
    KernelRuntime& rt = *m_current.runtime;
    if (scope == SyncAllScope::Vector && m_type != CoreType::Vector) {
        rule_error(tx, "SyncAll over vector cores only, called on a cube core");
    }
    m_local_time += m_chip.cost.scalar_call();
    ++m_scalar_instructions;
    tx.issue = m_local_time;
    drain_pipes(f, loc, "SyncAll");
    sync_to(m_local_time);  // arrivals reach the barrier in simulated-time order
    HardBarrier& barrier = scope == SyncAllScope::All ? rt.barrier_all : rt.barrier_vector;
    const std::uint32_t me = rt.participant(m_type, m_current.block_idx);
    const HardBarrier::Arrival arrival =
        barrier.arrive(me, m_local_time, m_chip.config.syncall_latency);
    tx.start = m_local_time;
    tx.mode = static_cast<std::uint32_t>(scope);
    tx.sync_id = (static_cast<std::uint64_t>(scope) << 56) | arrival.generation;
    publish_arrival(tx);
    if (arrival.last) rt.sync_event.notify(sc_core::SC_ZERO_TIME);
    block_until([&] { return barrier.released(arrival.generation); }, loc,
                [&barrier, &rt] {
                    std::string text = "hard SyncAll: " + std::to_string(barrier.arrived()) +
                                       " of " + std::to_string(barrier.participants()) +
                                       " blocks arrived; still waiting for";
                    int listed = 0;
                    for (std::uint32_t p : barrier.missing()) {
                        if (listed++ == 8) {
                            text += " ...";
                            break;
                        }
                        const bool vec = p < rt.vector_blocks;
                        text += std::string(listed > 1 ? "," : "") + (vec ? " aiv " : " aic ") +
                                std::to_string(vec ? p : p - rt.vector_blocks);
                    }
                    return text;
                });
    m_local_time = std::max(m_local_time, barrier.last_release());
    tx.end = tx.pipe_free = m_local_time;
    m_chip.publish(tx);
    release(f);
    maybe_sync();
}

void AiCore::soft_sync_all(const Operand& gm_ws, const Operand& ub_ws, std::uint32_t used,
                           const Loc& loc) {
    InFlight* marker = begin(Pipe::S, Op::SoftSyncAll, loc);
    Transaction& tx = marker->tx;
    KernelRuntime& rt = *m_current.runtime;
    const std::uint64_t need = std::uint64_t{used} * 32;
    if (m_type != CoreType::Vector) {
        rule_error(tx,
                   "soft SyncAll(gm, ub, usedCores) runs on vector cores only; use the "
                   "hard SyncAll on cube cores");
    }
    if (used == 0 || used > block_num()) {
        rule_error(tx, "soft SyncAll: usedCores " + std::to_string(used) +
                           " must be between 1 and the kernel's block count " +
                           std::to_string(block_num()));
    }
    if (m_current.block_idx >= used) {
        rule_error(tx, "soft SyncAll: block " + std::to_string(m_current.block_idx) +
                           " takes part but usedCores is " + std::to_string(used));
    }
    if (gm_ws.count * 4 < need) {
        rule_error(tx, "soft SyncAll: GM workspace holds " + std::to_string(gm_ws.count * 4) +
                           " bytes, needs usedCores x 32 = " + std::to_string(need));
    }
    if (ub_ws.space != MemSpace::UB || ub_ws.count * 4 < need) {
        rule_error(tx, "soft SyncAll: UB workspace must be in UB and hold usedCores x 32 = " +
                           std::to_string(need) + " bytes (it holds " +
                           std::to_string(ub_ws.count * 4) + " in " +
                           std::string(to_string(ub_ws.space)) + ")");
    }
    validate_global(tx, gm_ws, need / 4, "GM workspace");
    validate_local(tx, ub_ws, need / 4, "UB workspace");
    m_local_time += m_chip.cost.scalar_call();
    ++m_scalar_instructions;
    tx.issue = tx.start = m_local_time;
    if (rt.soft_sync_checked.insert(gm_ws.address).second) {
        // First use in this kernel: nobody has written a slot yet, so it must be all zero.
        sync_to(m_local_time);
        std::vector<std::int32_t> slots(need / 4);
        m_chip.gm.read(gm_ws.address, slots.data(), need);
        for (std::uint32_t i = 0; i < used; ++i) {
            if (slots[i * 8] != 0) {
                rule_error(tx, "soft SyncAll: GM workspace is not zero before first use (slot " +
                                   std::to_string(i) + " holds " + std::to_string(slots[i * 8]) +
                                   "); zero it on the host before the launch");
            }
        }
    }
    const std::int32_t epoch = ++m_soft_epoch[gm_ws.address];
    const Operand my_slot{MemSpace::GM, gm_ws.address + std::uint64_t{m_current.block_idx} * 32, 8,
                          DType::I32};
    const Operand ub_slot{MemSpace::UB, ub_ws.address, 8, DType::I32};
    const Operand all_slots{MemSpace::GM, gm_ws.address, used * 8u, DType::I32};
    const Operand ub_all{MemSpace::UB, ub_ws.address, used * 8u, DType::I32};
    Request drain;
    drain.op = Op::PipeBarrier;
    drain.barrier_pipe = Pipe::ALL;

    tx.sync_id =
        (std::uint64_t{2} << 56) | (gm_ws.address << 16) | static_cast<std::uint32_t>(epoch);
    m_internal = true;
    // Everything this block did before must be complete before its slot says "arrived".
    issue(drain, loc);
    tx.start = m_local_time;
    publish_arrival(tx);
    Request fill;
    fill.op = Op::Fill;
    fill.dst = ub_slot;
    fill.count = 8;
    fill.scalar = epoch;
    issue(fill, loc);
    issue(drain, loc);
    Request write;
    write.op = Op::Copy;
    write.dst = my_slot;
    write.src0 = ub_slot;
    write.count = 8;
    issue(write, loc);
    issue(drain, loc);

    std::vector<std::uint32_t> behind;
    std::uint64_t seen_epoch = m_chip.progress_epoch;
    Cycle quiet_since = m_local_time;
    int quiet_polls = 0;
    bool counted_quiet = false;
    for (;;) {
        Request poll;
        poll.op = Op::Copy;
        poll.dst = ub_all;
        poll.src0 = all_slots;
        poll.count = used * 8u;
        issue(poll, loc);
        issue(drain, loc);
        behind.clear();
        for (std::uint32_t i = 0; i < used; ++i) {
            std::int32_t value = 0;
            scalar_load({MemSpace::UB, ub_ws.address + std::uint64_t{i} * 32, 1, DType::I32},
                        &value, loc);
            if (value < epoch) behind.push_back(i);
        }
        if (behind.empty()) break;
        // No progress anywhere since the last poll?
        if (m_chip.progress_epoch != seen_epoch) {
            seen_epoch = m_chip.progress_epoch;
            quiet_since = m_local_time;
            quiet_polls = 0;
            if (counted_quiet) {
                --m_chip.quiet_spinners;
                counted_quiet = false;
            }
        } else if (++quiet_polls >= 2 && !counted_quiet) {
            ++m_chip.quiet_spinners;
            counted_quiet = true;
        }
        const bool everyone_stuck =
            counted_quiet && m_chip.quiet_spinners + m_chip.blocked_cores >= m_chip.busy_cores;
        if (everyone_stuck || m_local_time - quiet_since > m_chip.idle_limit)
            m_chip.deadlock = true;
        if (m_chip.deadlock) {
            if (counted_quiet) --m_chip.quiet_spinners;
            m_internal = false;
            std::string text = "soft SyncAll (epoch " + std::to_string(epoch) +
                               ") polls forever: slots still behind for blocks";
            for (std::size_t i = 0; i < behind.size() && i < 8; ++i) {
                text += (i ? ", " : " ") + std::to_string(behind[i]);
            }
            if (behind.size() > 8) text += ", ...";
            release(marker);
            block_stuck(loc, text);
        }
    }
    if (counted_quiet) --m_chip.quiet_spinners;
    m_internal = false;
    tx.end = tx.pipe_free = m_local_time;
    m_chip.publish(tx);
    release(marker);
    maybe_sync();
}

void AiCore::publish_arrival(const Transaction& tx) {
    Transaction arrival = tx;
    arrival.arrival = true;
    arrival.internal = false;
    arrival.end = arrival.pipe_free = arrival.start;
    m_chip.publish(arrival);
}

void AiCore::cross_core_set_flag(std::uint32_t mode, Pipe pipe, std::uint32_t flag_id,
                                 const Loc& loc) {
    InFlight* f = begin(pipe, Op::CrossCoreSetFlag, loc);
    Transaction& tx = f->tx;
    tx.mode = mode;
    tx.event_id = flag_id;
    const KernelType type = m_current.kernel->type;
    const std::string name = "CrossCoreSetFlag<" + std::to_string(mode) + ", " +
                             std::string(to_string(pipe)) + ">(" + std::to_string(flag_id) + ")";
    if (flag_id >= CrossCoreFlags::kFlagIds) {
        rule_error(tx, name + ": flag id must be 0-10");
    }
    if (mode > 2) rule_error(tx, name + ": mode must be 0, 1 or 2");
    if (pipe == Pipe::ALL || !has_pipe(m_type, pipe)) {
        rule_error(tx, name + ": " + std::string(to_string(pipe)) + " is not a pipe of an " +
                           std::string(to_string(m_type)) + " core");
    }
    if (mode == 1 && (m_type != CoreType::Vector || type != KernelType::MIX_AIC_1_2)) {
        rule_error(tx, name +
                           ": mode 1 syncs the two AIVs of a group and needs a MIX_AIC_1_2 "
                           "kernel on a vector core (this is " +
                           std::string(to_string(type)) + " on an " +
                           std::string(to_string(m_type)) + " core)");
    }
    if (mode == 2 && (vector_cores_per_block(type) == 0 || cube_cores_per_block(type) == 0)) {
        rule_error(tx, name +
                           ": mode 2 syncs the AIC and AIV(s) of a group and needs a "
                           "MIX_AIC_1_1 or MIX_AIC_1_2 kernel (this is " +
                           std::string(to_string(type)) + ")");
    }
    if (pipe == Pipe::S) {
        m_local_time += m_chip.cost.scalar_call();
        ++m_scalar_instructions;
        const Cycle at = std::max(m_local_time, m_scalar_drained);
        tx.issue = m_local_time;
        tx.start = tx.end = tx.pipe_free = at;
        const Transaction copy = tx;
        m_chip.publish(tx);
        release(f);
        post_cross_core(copy, at);
        maybe_sync();
        return;
    }
    issue_to_pipe(f, loc);
}

void AiCore::post_cross_core(const Transaction& tx, Cycle at) {
    KernelRuntime& rt = *m_current.runtime;
    const Cycle latency = m_chip.config.cross_core_flag_latency;
    const std::uint32_t id = tx.event_id;
    const CrossCoreSet set{at + latency, tx.block, m_type, tx.serial};
    const std::uint32_t group = m_current.group;
    const KernelType type = m_current.kernel->type;
    bool ok = true;
    std::string full;
    if (tx.mode == 0) {
        std::vector<BlockKey> members;
        const std::uint32_t n = block_num();
        for (std::uint32_t b = 0; b < n; ++b) members.push_back({m_type, b});
        ok = rt.flags.join_round(static_cast<std::uint64_t>(m_type), id, members,
                                 {at, tx.block, m_type, tx.serial}, latency);
        full = "a block of the round";
    } else if (tx.mode == 1) {
        const std::vector<BlockKey> members{{CoreType::Vector, 2 * group},
                                            {CoreType::Vector, 2 * group + 1}};
        ok = rt.flags.join_round((std::uint64_t{1} << 40) | group, id, members,
                                 {at, tx.block, m_type, tx.serial}, latency);
        full = "an AIV of group " + std::to_string(group);
    } else if (m_type == CoreType::Cube) {
        const std::uint32_t per = vector_cores_per_block(type);
        for (std::uint32_t sub = 0; sub < per; ++sub) {
            ok = rt.flags.post({CoreType::Vector, per * group + sub}, id, set) && ok;
        }
        full = "an AIV of group " + std::to_string(group);
    } else {
        ok = rt.flags.post({CoreType::Cube, group}, id, set);
        full = "the AIC of group " + std::to_string(group);
    }
    if (!ok) {
        rule_error(tx, "cross-core flag " + std::to_string(id) + " overflows: " + full +
                           " already holds 16 sets that no CrossCoreWaitFlag consumed");
    }
    rt.sync_event.notify(sc_core::SC_ZERO_TIME);
}

void AiCore::cross_core_wait_flag(std::uint32_t flag_id, const Loc& loc) {
    InFlight* f = begin(Pipe::S, Op::CrossCoreWaitFlag, loc);
    Transaction& tx = f->tx;
    tx.event_id = flag_id;
    if (flag_id >= CrossCoreFlags::kFlagIds) {
        rule_error(tx, "CrossCoreWaitFlag(" + std::to_string(flag_id) + "): flag id must be 0-10");
    }
    KernelRuntime& rt = *m_current.runtime;
    m_local_time += m_chip.cost.scalar_call();
    ++m_scalar_instructions;
    tx.issue = m_local_time;
    sync_to(m_local_time);  // every set before this cycle has been posted
    const BlockKey me{m_type, m_current.block_idx};
    std::optional<CrossCoreSet> got;
    block_until([&] { return (got = rt.flags.take(me, flag_id)).has_value(); }, loc,
                [flag_id] {
                    return "waits at CrossCoreWaitFlag(" + std::to_string(flag_id) +
                           "): no block sets this flag for it";
                });
    m_local_time = std::max(m_local_time, got->visible);
    tx.partner_block = got->block;
    tx.partner_core_type = got->core_type;
    tx.partner_serial = got->serial;
    tx.start = tx.issue;
    tx.end = tx.pipe_free = m_local_time;
    m_chip.publish(tx);
    release(f);
    maybe_sync();
}

// ---- scalar memory access -------------------------------------------------------------

std::uint64_t AiCore::allocate_local(MemSpace space, std::uint64_t bytes, const Loc& loc) {
    const std::uint64_t capacity = m_local.capacity(space);
    const std::string name(to_string(space));
    auto fail = [&](const std::string& what) {
        throw KernelError(
            "kernel '" + m_current.kernel->name + "' block " + std::to_string(m_current.block_idx) +
            " (" + std::string(to_string(m_type)) + ") at " + format_location(loc) + ": " + what);
    };
    if (space == MemSpace::GM) fail("alloc() is for local memories; GM buffers come from the host");
    if (capacity == 0)
        fail(name + " does not exist on an " + std::string(to_string(m_type)) + " core");
    const std::uint64_t align = alignment_of(space);
    std::uint64_t& top = m_alloc_top[static_cast<std::size_t>(space)];
    const std::uint64_t rounded = (bytes + align - 1) / align * align;
    if (bytes == 0 || rounded > capacity - top) {
        fail("cannot allocate " + std::to_string(bytes) + " bytes in " + name + ": " +
             std::to_string(capacity - top) + " of " + std::to_string(capacity) + " bytes left");
    }
    const std::uint64_t address = top;
    top += rounded;
    const LocalAllocation allocation{
        m_current.kernel->id, m_current.block_idx, m_type, m_index, space, address, bytes, loc};
    for (TransactionObserver* o : m_chip.observers) o->on_local_alloc(allocation);
    return address;
}

AiCore::InFlight* AiCore::begin_scalar_access(Op op, const Operand& where, const Loc& loc) {
    const bool store = op == Op::ScalarStore;
    InFlight* f = begin(Pipe::S, op, loc);
    Transaction& tx = f->tx;
    tx.dtype = tx.src_dtype = where.dtype;
    tx.count = 1;
    const std::uint64_t bytes = size_of(where.dtype);
    const char* role = store ? "destination" : "source";
    if (where.space == MemSpace::GM) {
        validate_global(tx, where, 1, role);
    } else {
        // The scalar unit addresses single elements: element alignment, not DataCopy's.
        validate_local(tx, {where.space, where.address, 1, where.dtype}, 1, role, bytes);
    }
    if (where.address % bytes != 0) {
        rule_error(tx, std::string("scalar ") + (store ? "store" : "load") + " address " +
                           hex(where.address) + " is not " + std::to_string(bytes) +
                           "-byte aligned");
    }
    if (store) f->write_access = 0;
    tx.add_access(where.space, store, where.address, bytes);
    return f;
}

void AiCore::scalar_load(const Operand& where, void* value, const Loc& loc) {
    InFlight* f = begin_scalar_access(Op::ScalarLoad, where, loc);
    Transaction& tx = f->tx;
    m_local_time += m_chip.cost.scalar_call();
    ++m_scalar_instructions;
    tx.issue = m_local_time;
    // The scalar unit sees its own earlier stores: a load waits until they are visible.
    m_local_time = std::max(m_local_time, m_scalar_drained + 1);
    // The value must reflect every effect before this cycle, on every core: synchronize.
    sync_to(m_local_time);
    read_bytes(tx.accesses[0], static_cast<std::byte*>(value));
    tx.start = m_local_time;
    m_local_time += m_chip.cost.scalar_access(where.space);
    tx.end = tx.pipe_free = m_local_time;
    tx.scalar = [&] {
        switch (where.dtype) {
            case DType::F16:
                return as_double(*static_cast<half*>(value));
            case DType::F32:
                return as_double(*static_cast<float*>(value));
            case DType::I32:
                return as_double(*static_cast<std::int32_t*>(value));
            case DType::I8:
                return as_double(*static_cast<std::int8_t*>(value));
        }
        return 0.0;
    }();
    m_chip.publish(tx);
    release(f);
}

void AiCore::scalar_store(const Operand& where, const void* value, const Loc& loc) {
    InFlight* f = begin_scalar_access(Op::ScalarStore, where, loc);
    Transaction& tx = f->tx;
    const std::uint64_t bytes = size_of(where.dtype);
    m_local_time += m_chip.cost.scalar_call();
    ++m_scalar_instructions;
    tx.issue = tx.start = m_local_time;
    tx.end = tx.pipe_free = m_local_time + m_chip.cost.scalar_access(where.space);
    m_scalar_drained = std::max(m_scalar_drained, tx.end);
    f->scratch.assign(static_cast<const std::byte*>(value),
                      static_cast<const std::byte*>(value) + bytes);
    m_chip.publish(tx);
    m_chip.effects.schedule(tx.end, f, kPhaseCommit);
    maybe_sync();
}

// ---- data effects -----------------------------------------------------------------------

void AiCore::read_bytes(const MemAccess& access, std::byte* out) {
    if (access.space == MemSpace::GM) {
        m_chip.gm.read(access.address, out, access.bytes);
    } else {
        std::memcpy(out, m_local.data(access.space) + access.address, access.bytes);
    }
}

void AiCore::write_bytes(const MemAccess& access, const std::byte* in) {
    if (access.space == MemSpace::GM) {
        m_chip.gm.write(access.address, in, access.bytes);
    } else {
        std::memcpy(m_local.data(access.space) + access.address, in, access.bytes);
    }
}

void AiCore::apply_effect(InFlight& f, std::uint32_t phase) {
    const Transaction& tx = f.tx;
    if (phase == kPhaseCommit) {
        write_bytes(tx.accesses[static_cast<std::size_t>(f.write_access)], f.scratch.data());
        release(&f);
        return;
    }
    switch (tx.op) {
        case Op::Copy:
            read_bytes(tx.accesses[0], f.scratch.data());
            break;
        case Op::Mmad: {
            std::byte* base_a = m_local.data(MemSpace::L0A);
            std::byte* base_b = m_local.data(MemSpace::L0B);
            std::byte* base_c = m_local.data(MemSpace::L0C);
            compute_mmad(tx, base_a + tx.accesses[0].address, base_b + tx.accesses[1].address,
                         base_c + tx.accesses[2].address, f.scratch.data());
            break;
        }
        default: {
            std::byte* ub = m_local.data(MemSpace::UB);
            const std::byte* src0 = nullptr;
            const std::byte* src1 = nullptr;
            if (f.write_access >= 1) src0 = ub + tx.accesses[0].address;
            if (f.write_access >= 2) src1 = ub + tx.accesses[1].address;
            compute_vector(tx, src0, src1, f.scratch.data());
            break;
        }
    }
}

// ---- time -------------------------------------------------------------------------------

Cycle AiCore::now_cycles() const {
    return sc_core::sc_time_stamp().value();
}

void AiCore::sync_to(Cycle t) {
    const Cycle now = now_cycles();
    if (t > now) {
        wait(sc_core::sc_time::from_value(t - now));
        check_abort();
    }
    // Every core has issued everything it will issue before `t` (none runs behind SystemC
    // time), so effects before `t` are final.
    m_chip.effects.apply_before(t);
    m_chip.bandwidth.forget_before(t);
    m_sync_deadline = t + m_chip.quantum;
}

// ---- Block: thin forwarding ---------------------------------------------------------------

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
CoreType Block::core_type() const {
    return m_core.type();
}
std::string_view Block::kernel_name() const {
    return m_work.kernel->name;
}

void Block::sync_all(SyncAllScope scope, Loc loc) {
    m_core.hard_sync_all(scope, loc);
}

void Block::sync_all(GlobalTensor<std::int32_t> gm_workspace,
                     LocalTensor<std::int32_t> ub_workspace, std::uint32_t used_cores, Loc loc) {
    m_core.soft_sync_all(global_operand(gm_workspace), local_operand(ub_workspace), used_cores,
                         loc);
}

void Block::cross_core_set_flag(std::uint32_t mode, Pipe pipe, std::uint32_t flag_id, Loc loc) {
    m_core.cross_core_set_flag(mode, pipe, flag_id, loc);
}

void Block::cross_core_wait_flag(std::uint32_t flag_id, Loc loc) {
    m_core.cross_core_wait_flag(flag_id, loc);
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

void Block::set_flag(Pipe src, Pipe dst, std::uint32_t event_id, Loc loc) {
    Request r;
    r.op = Op::SetFlag;
    r.flag_src = src;
    r.flag_dst = dst;
    r.event_id = event_id;
    issue(r, loc);
}

void Block::wait_flag(Pipe src, Pipe dst, std::uint32_t event_id, Loc loc) {
    Request r;
    r.op = Op::WaitFlag;
    r.flag_src = src;
    r.flag_dst = dst;
    r.event_id = event_id;
    issue(r, loc);
}

void Block::pipe_barrier(Pipe pipe, Loc loc) {
    Request r;
    r.op = Op::PipeBarrier;
    r.barrier_pipe = pipe;
    issue(r, loc);
}

void Block::issue_copy(const Operand& dst, const Operand& src, std::uint64_t count, Loc loc) {
    Request r;
    r.op = Op::Copy;
    r.dst = dst;
    r.src0 = src;
    r.count = count;
    issue(r, loc);
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
