#include "core/ai_core.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

#include <algorithm>
#include <cstdio>

#include "base/errors.h"
#include "base/invariant.h"
#include "base/memory_spaces.h"
#include "pipes/compute.h"
#include "pipes/op_table.h"

namespace npusim {

namespace {

constexpr std::uint32_t kPhaseRead = 0;    // at start: read sources, compute into scratch
constexpr std::uint32_t kPhaseCommit = 1;  // at end: write scratch to the destination

/// DataCopyPad rows' padding around the data in `rows` (Transaction::pad_left / pad_right):
/// the element's bit pattern, repeated.
void fill_padding(const Transaction& tx, std::vector<std::byte>& rows) {
    const std::size_t element = size_of(tx.dtype);
    const std::size_t row_bytes = tx.accesses[0].bytes + tx.pad_left + tx.pad_right;
    const std::size_t data_end = row_bytes - tx.pad_right;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const std::size_t at = i % row_bytes;
        if (at >= tx.pad_left && at < data_end) continue;
        rows[i] = static_cast<std::byte>((tx.pad_value >> (8 * (at % element))) & 0xFF);
    }
}

}  // namespace

/// An issued instruction whose pipe timing or data effects are still pending.
struct AiCore::InFlight final : PipeInstruction, DeferredEffect {
    AiCore* core = nullptr;
    std::vector<std::byte> scratch;  // source bytes or computed result, start -> end

    void apply(std::uint32_t phase) override { core->apply_effect(*this, phase); }
};

AiCore::AiCore(const sc_core::sc_module_name& name, ChipResources& chip, WorkSource& work,
               CoreType type, std::uint32_t index, std::size_t stack_bytes)
    : sc_core::sc_module(name),
      m_chip(chip),
      m_work(work),
      m_type(type),
      m_index(index),
      m_local(local_capacities(chip.config, type)),
      m_allocator(local_capacities(chip.config, type)),
      m_memory(chip.gm, m_local),
      m_decoder(type, chip.config),
      m_pipes(chip.config, chip.cost, chip.bandwidth, *this) {
    if (chip.l2.enabled()) {
        m_pipes.attach_l2({&chip.l2, &chip.l2_bandwidth, chip.config.l2_read_bytes_per_cycle,
                           chip.config.l2_write_bytes_per_cycle});
    }
    SC_HAS_PROCESS(AiCore);
    SC_THREAD(scalar_thread);
    set_stack_size(stack_bytes);
    m_stack_bytes = stack_bytes;
}

AiCore::~AiCore() = default;

PipeStatistics AiCore::pipe_statistics(Pipe pipe) const {
    if (pipe == Pipe::S) return {0, m_scalar_instructions};
    const PipeTimeline& t = m_pipes.unit(pipe).timeline();
    return {t.busy_cycles(), t.instructions()};
}

void AiCore::reset_statistics() {
    m_pipes.reset_statistics();
    m_scalar_instructions = 0;
    m_blocks_run = 0;
}

void AiCore::reset_after_abort() {
    m_pipes.reset([this](PipeInstruction* dropped) { release(static_cast<InFlight*>(dropped)); });
    m_stuck.reset();
    m_poll.reset();
    m_current = {};
    m_next.reset();
    m_internal = false;
}

// ---- the scalar unit's thread ---------------------------------------------------------

void AiCore::assign(const BlockAssignment& work) {
    m_next = work;
    m_wake.notify(sc_core::SC_ZERO_TIME);
}

// SystemC's coroutine stacks are heap blocks, and SystemC does not tell ASan about its stack
// switches: frames abandoned by an unwinding (a deadlock's, a stopped run's) or by an earlier
// simulator leave their redzones poisoned, and the next unwinding on the stack trips over
// them in ASan's own bookkeeping. Everything below the calling frame is unused: clear it.
// Only in ASan builds.
void AiCore::clear_stale_stack_poison() const {
#if defined(__SANITIZE_ADDRESS__)
    char here = 0;
    const std::size_t below = m_stack_bytes > 32768 ? m_stack_bytes - 32768 : 0;
    __asan_unpoison_memory_region(&here - below, below);
#endif
}

[[noreturn]] void AiCore::abort_block() {
#if defined(__SANITIZE_ADDRESS__)
    // The frames between here and run_block are about to be unwound, and ASan cannot clear
    // their redzones on a SystemC stack it does not know (see clear_stale_stack_poison).
    char here = 0;
    if (m_block_frame != nullptr && m_block_frame > &here) {
        const std::size_t span = static_cast<std::size_t>(m_block_frame - &here);
        const std::uintptr_t low = reinterpret_cast<std::uintptr_t>(&here) - 16384;
        __asan_unpoison_memory_region(reinterpret_cast<void*>(low), span + 16384);
    }
#endif
    throw BlockAborted{};
}

void AiCore::scalar_thread() {
    clear_stale_stack_poison();
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
    clear_stale_stack_poison();  // the previous block may have been unwound
    const char frame = 0;
    m_block_frame = &frame;
    m_current = work;
    m_serial = 0;
    try {
        m_allocator.reset();
        m_decoder.set_kernel(work.kernel->name, work.kernel->type, block_num());
        const auto& offsets = work.kernel->start_offsets;
        const Cycle offset = work.group < offsets.size() ? offsets[work.group] : 0;
        m_local_time = std::max({m_local_time, now_cycles(), work.not_before}) + offset;
        m_sync_deadline = now_cycles() + m_chip.quantum;
        check_abort();
        Block block(*this, work);
        work.kernel->body(block);
        finish_block();
        m_poll.reset();
        ++m_blocks_run;
        m_current = {};
        m_work.block_finished(*this, work, m_local_time);
        return;
    } catch (const BlockAborted&) {
        // Another block failed or the chip deadlocked: unwind quietly.
    } catch (const sc_core::sc_unwind_exception&) {
        throw;  // SystemC's own process kill/reset: must propagate
    } catch (const InternalError& error) {
        m_chip.fail(error.what(), /*internal=*/true);
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
    m_poll.reset();
    m_current = {};
}

void AiCore::finish_block() {
    Cycle done = std::max(m_local_time, m_scalar_drained);
    for (Pipe pipe : pipes_of(m_type)) {
        if (pipe == Pipe::S) continue;
        if (const PipeInstruction* head = m_pipes.stalled_head(pipe)) {
            const Transaction wait = head->tx;
            block_stuck(wait.where,
                        "block ended while " + std::string(to_string(pipe)) + " waits at " +
                            flag_instruction_name(wait) + " (serial " +
                            std::to_string(wait.serial) + "): the matching SetFlag is never issued",
                        flag_wait(wait));
        }
        done = std::max(done, m_pipes.drained_at(pipe));
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

Transaction AiCore::begin_record(Pipe pipe, Op op, const Loc& loc) {
    Transaction tx;
    fill_record(tx, pipe, op, loc);
    return tx;
}

void AiCore::fill_record(Transaction& tx, Pipe pipe, Op op, const Loc& loc) {
    check_abort();
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
}

AiCore::InFlight* AiCore::begin(Pipe pipe, Op op, const Loc& loc) {
    InFlight* f = acquire();
    f->write_access = -1;
    fill_record(f->tx, pipe, op, loc);  // in place: the hot path copies no record
    return f;
}

void AiCore::scalar_issue(Transaction& tx) {
    if (tx.op != Op::ScalarLoad && tx.op != Op::DataSyncBarrier && tx.op != Op::CacheClean)
        m_poll.reset();  // anything else ends a poll
    m_local_time += m_chip.cost.scalar_call();
    ++m_scalar_instructions;
    tx.issue = m_local_time;
}

void AiCore::publish_arrival(const Transaction& tx) {
    Transaction arrival = tx;
    arrival.arrival = true;
    arrival.internal = false;
    arrival.end = arrival.pipe_free = arrival.start;
    m_chip.publish(arrival);
}

// ---- issuing --------------------------------------------------------------------------

void AiCore::issue(const Request& r, const Loc& loc) {
    InFlight* f = begin(InstructionDecoder::pipe_of(r), r.op, loc);
    const DecodedInstruction decoded = m_decoder.decode(r, f->tx);
    f->write_access = decoded.write_access;
    f->tx.inserted = r.inserted;
    if (decoded.route) f->path = *m_chip.cost.copy_path(decoded.route->src, decoded.route->dst);
    const Transaction& tx = f->tx;
    if (r.op == Op::SetFlag && tx.flag_src == Pipe::S) {
        scalar_set_flag(f);
    } else if (r.op == Op::WaitFlag && tx.flag_dst == Pipe::S) {
        scalar_wait_flag(f, loc);
    } else if (r.op == Op::PipeBarrier && tx.pipe == Pipe::ALL) {
        barrier_all(f, loc);
    } else {
        issue_to_pipe(f, loc);
    }
}

void AiCore::issue_to_pipe(InFlight* f, const Loc& loc) {
    Transaction& tx = f->tx;
    m_local_time += m_chip.cost.scalar_call();
    const Cycle slot = m_pipes.queue_slot_free_at(tx.pipe);
    if (slot == PipeTimeline::kNotStarted) {
        const Transaction head = m_pipes.stalled_head(tx.pipe)->tx;
        const std::string pipe(to_string(tx.pipe));
        release(f);
        block_stuck(loc,
                    "the queue of " + pipe + " is full while it waits at " +
                        flag_instruction_name(head) + " (serial " + std::to_string(head.serial) +
                        ", " + format_location(head.where) + ") for a SetFlag that is never issued",
                    flag_wait(head));
    }
    m_local_time = std::max(m_local_time, slot);  // scalar stalls until a queue slot frees
    tx.issue = m_local_time;
    m_pipes.enqueue(f);
    maybe_sync();
}

void AiCore::on_data_started(PipeInstruction& instruction) {
    auto& f = static_cast<InFlight&>(instruction);
    const Transaction& tx = f.tx;
    NPUSIM_INVARIANT(f.write_access >= 0 && f.write_access < tx.access_count, "AiCore", tx.start,
                     "a data instruction started without a destination access");
    m_chip.publish(tx);
    if (!m_chip.model_data) {  // data-free timing: only the release at the end
        m_chip.effects.schedule(tx.end, &f, kPhaseCommit);
        return;
    }
    f.scratch.resize(tx.accesses[static_cast<std::size_t>(f.write_access)].total_bytes());
    m_chip.effects.schedule(tx.start, &f, kPhaseRead);
    m_chip.effects.schedule(tx.end, &f, kPhaseCommit);
    // Many cores' short copies interleave GM read streams that the host's prefetcher does
    // not follow; the source is read at tx.start, so warm it now.
    if (tx.op == Op::Copy && tx.accesses[0].space == MemSpace::GM) {
        m_chip.gm.prefetch(tx.accesses[0].address, tx.accesses[0].bytes);
    }
}

void AiCore::on_zero_length_done(PipeInstruction& instruction) {
    m_chip.publish(instruction.tx);
    release(static_cast<InFlight*>(&instruction));
}

void AiCore::on_cross_core_set(const Transaction& tx, Cycle at) {
    m_current.runtime->sync->post_cross_core(*this, tx, at);
}

void AiCore::scalar_set_flag(InFlight* f) {
    Transaction& tx = f->tx;
    scalar_issue(tx);
    // The scalar unit has reached the SetFlag once its buffered stores are visible.
    const Cycle at = std::max(m_local_time, m_scalar_drained);
    tx.start = tx.end = tx.pipe_free = at;
    const Pipe dst = tx.flag_dst;
    const FlagSet set{at, tx.serial, tx.block};
    m_chip.publish(tx);
    m_pipes.scalar_set_flag(dst, tx.event_id, set);
    release(f);
    maybe_sync();
}

void AiCore::scalar_wait_flag(InFlight* f, const Loc& loc) {
    Transaction& tx = f->tx;
    scalar_issue(tx);
    const auto set = m_pipes.scalar_consume_flag(tx.flag_src, tx.event_id);
    if (!set) {
        const std::string name = flag_instruction_name(tx);
        const StuckWait wait = flag_wait(tx);
        release(f);
        block_stuck(loc,
                    "the scalar unit waits at " + name +
                        " for a SetFlag that is never issued (or is stalled behind a "
                        "WaitFlag of its own pipe)",
                    wait);
    }
    m_local_time = std::max(m_local_time, set->time);
    tx.partner_serial = set->serial;
    tx.start = tx.end = tx.pipe_free = m_local_time;
    m_chip.publish(tx);
    release(f);
    maybe_sync();
}

void AiCore::barrier_all(InFlight* f, const Loc& loc) {
    Transaction tx = f->tx;
    release(f);
    scalar_issue(tx);
    drain_pipes(loc, "PipeBarrier<PIPE_ALL>");
    tx.start = tx.end = tx.pipe_free = m_local_time;
    m_chip.publish(tx);
    maybe_sync();
}

// ---- synchronization across blocks: sync/kernel_sync.h through core/sync_port.h --------

void AiCore::hard_sync_all(SyncAllScope scope, const Loc& loc) {
    m_current.runtime->sync->hard_sync_all(*this, scope, loc);
}

void AiCore::soft_sync_all(const Operand& gm_workspace, const Operand& ub_workspace,
                           std::uint32_t used_cores, const Loc& loc) {
    m_current.runtime->sync->soft_sync_all(*this, gm_workspace, ub_workspace, used_cores, loc);
}

void AiCore::gm_flag(const GmFlagCall& call, const Loc& loc) {
    m_current.runtime->sync->gm_flag(*this, call, loc);
}

void AiCore::cross_core_set_flag(std::uint32_t mode, Pipe pipe, std::uint32_t flag_id,
                                 const Loc& loc) {
    InFlight* f = begin(pipe, Op::CrossCoreSetFlag, loc);
    m_decoder.decode_cross_core_set(mode, pipe, flag_id, f->tx);
    if (pipe != Pipe::S) {
        issue_to_pipe(f, loc);  // fires when the pipe has drained (core/core_pipes.h)
        return;
    }
    Transaction fired = f->tx;
    release(f);
    scalar_issue(fired);
    const Cycle at = std::max(m_local_time, m_scalar_drained);
    fired.start = fired.end = fired.pipe_free = at;
    m_chip.publish(fired);
    on_cross_core_set(fired, at);
    maybe_sync();
}

void AiCore::cross_core_wait_flag(std::uint32_t flag_id, const Loc& loc) {
    Transaction tx = begin_record(Pipe::S, Op::CrossCoreWaitFlag, loc);
    m_decoder.decode_cross_core_wait(flag_id, tx);
    scalar_issue(tx);
    sync_to(m_local_time);  // every set before this cycle has been posted
    const Cycle visible = m_current.runtime->sync->take_cross_core(*this, tx, loc);
    m_local_time = std::max(m_local_time, visible);
    tx.start = tx.issue;
    tx.end = tx.pipe_free = m_local_time;
    m_chip.publish(tx);
    maybe_sync();
}

// ---- local memory and scalar access ------------------------------------------------------

std::uint64_t AiCore::allocate_local(MemSpace space, std::uint64_t bytes, const Loc& loc) {
    const LocalAllocator::Result result = m_allocator.allocate(space, bytes, m_type);
    if (!result.ok()) {
        throw KernelError("kernel '" + m_current.kernel->name + "' block " +
                          std::to_string(m_current.block_idx) + " (" +
                          std::string(to_string(m_type)) + ") at " + format_location(loc) + ": " +
                          result.error);
    }
    const LocalAllocation allocation{m_current.kernel->id,
                                     m_current.block_idx,
                                     m_type,
                                     m_index,
                                     space,
                                     result.address,
                                     bytes,
                                     loc};
    for (TransactionObserver* o : m_chip.observers) o->on_local_alloc(allocation);
    return result.address;
}

void AiCore::scalar_load(const Operand& where, void* value, const Loc& loc) {
    Transaction tx = begin_record(Pipe::S, Op::ScalarLoad, loc);
    m_decoder.decode_scalar_access(Op::ScalarLoad, where, tx);
    scalar_issue(tx);
    // The scalar unit sees its own earlier stores: a load waits until they are visible.
    m_local_time = std::max(m_local_time, m_scalar_drained + 1);
    // A poll catches up with the blocks that finished (one may have set what it waits for).
    const std::uint32_t busy = m_chip.busy_cores;
    if (m_poll.watching()) m_local_time = std::max(m_local_time, m_chip.last_block_end);
    // The value must reflect every effect before this cycle, on every core: synchronize.
    sync_to(m_local_time);
    m_memory.read(tx.accesses[0], static_cast<std::byte*>(value));
    tx.start = m_local_time;
    m_local_time += m_chip.cost.scalar_access(where.space);
    tx.end = tx.pipe_free = m_local_time;
    tx.scalar = visit_dtype(where.dtype, [&](auto element) {
        return as_double(*static_cast<decltype(element)*>(value));
    });
    const bool repeat = where.space == MemSpace::GM &&
                        m_poll.repeats(tx.accesses[0].address, value, tx.accesses[0].bytes);
    m_chip.publish(tx, !repeat);
    if (repeat && m_poll.stuck(m_chip, m_local_time, busy)) {
        m_poll.reset();
        char text[80];
        std::snprintf(text, sizeof text, "a scalar poll of GM 0x%llx (holds %g)",
                      static_cast<unsigned long long>(tx.accesses[0].address), tx.scalar);
        StuckWait wait;
        wait.kind = StuckWaitKind::GmFlag;
        wait.gm_flag = text;
        block_stuck(loc, std::string(text) + " reads the same value forever: no block changes it",
                    std::move(wait));
    }
}

void AiCore::scalar_store(const Operand& where, const void* value, const Loc& loc) {
    InFlight* f = begin(Pipe::S, Op::ScalarStore, loc);
    f->write_access = m_decoder.decode_scalar_access(Op::ScalarStore, where, f->tx).write_access;
    Transaction& tx = f->tx;
    const std::uint64_t bytes = size_of(where.dtype);
    scalar_issue(tx);
    tx.start = tx.issue;
    tx.end = tx.pipe_free = m_local_time + m_chip.cost.scalar_access(where.space);
    m_scalar_drained = std::max(m_scalar_drained, tx.end);
    f->scratch.assign(static_cast<const std::byte*>(value),
                      static_cast<const std::byte*>(value) + bytes);
    m_chip.publish(tx);
    m_chip.effects.schedule(tx.end, f, kPhaseCommit);
    maybe_sync();
}

// DataSyncBarrier waits for the scalar unit's stores; a cache clean costs its one cycle.
void AiCore::scalar_fence(Op op, std::uint64_t address, std::uint64_t bytes, const Loc& loc) {
    Transaction tx = begin_record(Pipe::S, op, loc);
    scalar_issue(tx);
    if (op == Op::DataSyncBarrier) m_local_time = std::max(m_local_time, m_scalar_drained);
    tx.start = tx.end = tx.pipe_free = m_local_time;
    tx.sync_id = address;
    tx.count = bytes;
    m_chip.publish(tx, false);
    maybe_sync();
}

// ---- data effects -----------------------------------------------------------------------

void AiCore::apply_effect(InFlight& f, std::uint32_t phase) {
    const Transaction& tx = f.tx;
    if (phase == kPhaseCommit && !m_chip.model_data && tx.op != Op::ScalarStore) {
        release(&f);
        return;
    }
    if (phase == kPhaseCommit) {
        const MemAccess& dst = tx.accesses[static_cast<std::size_t>(f.write_access)];
        if (tx.atomic != AtomicOp::None) {  // read-combine-write, indivisible at tx.end
            m_atomic_gm.resize(dst.total_bytes());
            m_memory.read(dst, m_atomic_gm.data());
            // Every row of a strided copy (tx.count counts one row's elements).
            Transaction whole = tx;
            whole.count = dst.total_bytes() / size_of(tx.dtype);
            combine_atomic(whole, m_atomic_gm.data(), f.scratch.data());
            m_memory.write(dst, m_atomic_gm.data());
        } else {
            m_memory.write(dst, f.scratch.data());
        }
        release(&f);
        return;
    }
    const OpInfo& info = op_info(tx.op);
    if (info.unit == OpUnit::Copy && info.compute == nullptr) {
        const std::uint64_t padding = std::uint64_t{tx.pad_left} + tx.pad_right;
        m_memory.read(tx.accesses[0], f.scratch.data() + tx.pad_left,
                      padding == 0 ? 0 : tx.accesses[0].bytes + padding);
        if (padding != 0) fill_padding(tx, f.scratch);
        if (tx.layout == CubeLayout::Fractal) nd2nz_in_place(tx, f.scratch.data());
        return;
    }
    // Compute reads its local sources in place, in access order (core/instruction_decoder.h).
    const std::byte* sources[4] = {nullptr, nullptr, nullptr, nullptr};
    std::size_t count = 0;
    for (std::uint8_t i = 0; i < tx.access_count && count < 4; ++i) {
        if (!tx.accesses[i].write) sources[count++] = m_memory.local_bytes(tx.accesses[i]);
    }
    info.compute(tx, sources, f.scratch.data());
}

// ---- time -------------------------------------------------------------------------------

Cycle AiCore::now_cycles() const {
    return sc_core::sc_time_stamp().value();
}

void AiCore::sync_to(Cycle t) {
    // A stop request or a failing progress callback ends the run here: nothing is half-issued.
    if (m_chip.poll()) check_abort();
    const Cycle now = now_cycles();
    if (t > now) {
        wait(sc_core::sc_time::from_value(t - now));
        check_abort();
    }
    // Every core has issued everything it will issue before `t` (none runs behind SystemC
    // time), so effects before `t` are final.
    m_chip.effects.apply_before(t);
    m_chip.bandwidth.forget_before(t);
    m_chip.l2_bandwidth.forget_before(t);
    m_sync_deadline = t + m_chip.quantum;
}

}  // namespace npusim
