#include "sim/kernels/json_kernel_interpreter.h"

#include <limits>

#include "base/errors.h"
#include "base/transaction.h"

namespace npusim::json_kernel_detail {

namespace {

// Ops (and loop iterations) one block may execute: a loop bound gone wrong stops with a
// message instead of running for hours.
constexpr std::uint64_t kMaxStepsPerBlock = 10'000'000;

template <class F>
void with_element(DType dtype, F&& f) {
    visit_dtype(dtype, std::forward<F>(f));
}

class Interpreter {
public:
    Interpreter(const Program& program, Block& block, const std::vector<RuntimeBuffer>& arguments,
                const std::vector<std::int64_t>& params)
        : m_program(program), m_block(block), m_slots(program.slot_count, 0) {
        m_slots[kBlockIdx] = block.block_idx();
        m_slots[kBlockNum] = block.block_num();
        m_slots[kSubBlockIdx] = block.sub_block_idx();
        m_slots[kIsCube] = block.core_type() == CoreType::Cube ? 1 : 0;
        for (std::size_t i = 0; i < params.size(); ++i) m_slots[kFixedSlots + i] = params[i];
        m_buffers.resize(program.buffers.size());
        for (std::size_t i = 0; i < arguments.size(); ++i) m_buffers[i] = arguments[i];
    }

    void run(const std::vector<Node>& body) {
        for (const Node& n : body) execute(n);
    }

private:
    [[noreturn]] void fail(const Node& n, const std::string& what) const {
        throw KernelError("kernel '" + m_program.kernel + "' block " +
                          std::to_string(m_block.block_idx()) + " at " + format_location(n.where) +
                          ": " + what);
    }

    std::int64_t value(const Node& n, const IntExpr& e) const {
        try {
            return e.evaluate(m_slots);
        } catch (const ExprError& error) {
            fail(n, "'" + e.text() + "': " + error.what());
        }
    }
    std::uint64_t unsigned_value(const Node& n, std::size_t i, const char* what) const {
        const std::int64_t v = value(n, n.exprs[i]);
        if (v < 0) fail(n, std::string(what) + " is " + std::to_string(v) + ", expected >= 0");
        return static_cast<std::uint64_t>(v);
    }
    std::uint32_t small_value(const Node& n, std::size_t i, const char* what) const {
        const std::uint64_t v = unsigned_value(n, i, what);
        if (v > std::numeric_limits<std::uint32_t>::max())
            fail(n, std::string(what) + " is " + std::to_string(v) + ", expected < 2^32");
        return static_cast<std::uint32_t>(v);
    }

    // The operand's buffer from its element offset on: address and remaining elements.
    RuntimeBuffer resolve(const Node& n, const OperandRef& r) const {
        const BufferDecl& d = m_program.buffers[r.buffer];
        const RuntimeBuffer& b = m_buffers[r.buffer];
        if (!b.ready) fail(n, "buffer '" + d.name + "' is used before its alloc ran");
        const std::int64_t offset = value(n, r.offset);
        if (offset < 0 || static_cast<std::uint64_t>(offset) > b.count) {
            fail(n, "offset " + std::to_string(offset) + " is outside buffer '" + d.name + "' (" +
                        std::to_string(b.count) + " elements)");
        }
        const auto off = static_cast<std::uint64_t>(offset);
        return {b.address + off * size_of(d.dtype), b.count - off, true};
    }
    template <class T>
    LocalTensor<T> local(const Node& n, std::size_t i) const {
        const OperandRef& r = n.operands[i];
        const RuntimeBuffer b = resolve(n, r);
        return {m_program.buffers[r.buffer].space, b.address, b.count};
    }
    template <class T>
    GlobalTensor<T> global(const Node& n, std::size_t i) const {
        const RuntimeBuffer b = resolve(n, n.operands[i]);
        return {b.address, b.count};
    }
    DType dtype(const Node& n, std::size_t i) const {
        return m_program.buffers[n.operands[i].buffer].dtype;
    }
    bool is_global(const Node& n, std::size_t i) const {
        return m_program.buffers[n.operands[i].buffer].global;
    }

    void copy(const Node& n, std::uint64_t count) {
        with_element(dtype(n, 0), [&]<class T>(T) {
            if (is_global(n, 0)) {
                m_block.copy(global<T>(n, 0), local<T>(n, 1), count, n.where);
            } else if (is_global(n, 1)) {
                if (n.bypass_l2) m_block.bypass_l2();
                m_block.copy(local<T>(n, 0), global<T>(n, 1), count, n.where);
            } else {
                m_block.copy(local<T>(n, 0), local<T>(n, 1), count, n.where);
            }
        });
    }

    void vector(const Node& n, std::uint64_t count) {
        with_element(dtype(n, 0), [&]<class T>(T) {
            switch (n.op) {
                case Op::Add:
                    return m_block.add(local<T>(n, 0), local<T>(n, 1), local<T>(n, 2), count,
                                       n.where);
                case Op::Sub:
                    return m_block.sub(local<T>(n, 0), local<T>(n, 1), local<T>(n, 2), count,
                                       n.where);
                case Op::Mul:
                    return m_block.mul(local<T>(n, 0), local<T>(n, 1), local<T>(n, 2), count,
                                       n.where);
                case Op::Max:
                    return m_block.max(local<T>(n, 0), local<T>(n, 1), local<T>(n, 2), count,
                                       n.where);
                case Op::Min:
                    return m_block.min(local<T>(n, 0), local<T>(n, 1), local<T>(n, 2), count,
                                       n.where);
                case Op::Adds:
                    return m_block.adds(local<T>(n, 0), local<T>(n, 1), static_cast<T>(n.scalar),
                                        count, n.where);
                case Op::Muls:
                    return m_block.muls(local<T>(n, 0), local<T>(n, 1), static_cast<T>(n.scalar),
                                        count, n.where);
                case Op::Exp:
                    if constexpr (FloatElement<T>) {
                        return m_block.exp(local<T>(n, 0), local<T>(n, 1), count, n.where);
                    }
                    return;
                case Op::Relu:
                    return m_block.relu(local<T>(n, 0), local<T>(n, 1), count, n.where);
                case Op::ReduceSum:
                    return m_block.reduce_sum(local<T>(n, 0), local<T>(n, 1), count, n.where);
                case Op::Fill:
                    return m_block.fill(local<T>(n, 0), static_cast<T>(n.scalar), count, n.where);
                default:
                    return;
            }
        });
    }

    void execute(const Node& n) {
        step(n);
        switch (n.kind) {
            case Kind::Alloc: {
                const BufferDecl& d = m_program.buffers[n.target];
                const std::uint64_t count = unsigned_value(n, 0, "count");
                with_element(d.dtype, [&]<class T>(T) {
                    const LocalTensor<T> t = m_block.alloc<T>(d.space, count, n.where);
                    m_buffers[n.target] = {t.address, t.count, true};
                });
                return;
            }
            case Kind::Copy:
                return copy(n, unsigned_value(n, 0, "count"));
            case Kind::Binary:
            case Kind::WithScalar:
            case Kind::Unary:
            case Kind::Fill:
                return vector(n, unsigned_value(n, 0, "count"));
            case Kind::Cast: {
                const std::uint64_t count = unsigned_value(n, 0, "count");
                with_element(dtype(n, 0), [&]<class D>(D) {
                    with_element(dtype(n, 1), [&]<class S>(S) {
                        m_block.cast(local<D>(n, 0), local<S>(n, 1), count, n.where);
                    });
                });
                return;
            }
            case Kind::Mmad:
                m_block.mmad(local<float>(n, 0), local<half>(n, 1), local<half>(n, 2),
                             small_value(n, 0, "m"), small_value(n, 1, "n"), small_value(n, 2, "k"),
                             n.accumulate, n.where);
                return;
            case Kind::Load:
                with_element(dtype(n, 0), [&]<class T>(T) {
                    if (is_global(n, 0)) {
                        (void)m_block.load(global<T>(n, 0), 0, n.where);
                    } else {
                        (void)m_block.load(local<T>(n, 0), 0, n.where);
                    }
                });
                return;
            case Kind::Store:
                with_element(dtype(n, 0), [&]<class T>(T) {
                    if (is_global(n, 0)) {
                        m_block.store(global<T>(n, 0), 0, static_cast<T>(n.scalar), n.where);
                    } else {
                        m_block.store(local<T>(n, 0), 0, static_cast<T>(n.scalar), n.where);
                    }
                });
                return;
            case Kind::ScalarWork:
                m_block.scalar_work(unsigned_value(n, 0, "cycles"), n.where);
                return;
            case Kind::SetFlag:
                m_block.set_flag(n.pipe_a, n.pipe_b, small_value(n, 0, "id"), n.where);
                return;
            case Kind::WaitFlag:
                m_block.wait_flag(n.pipe_a, n.pipe_b, small_value(n, 0, "id"), n.where);
                return;
            case Kind::PipeBarrier:
                m_block.pipe_barrier(n.pipe_a, n.where);
                return;
            case Kind::SetAtomic:
                m_block.set_atomic(n.atomic, n.dtype, n.where);
                return;
            case Kind::SyncAll:
                m_block.sync_all(n.scope, n.where);
                return;
            case Kind::SoftSyncAll:
                m_block.sync_all(global<std::int32_t>(n, 0), local<std::int32_t>(n, 1),
                                 small_value(n, 0, "cores"), n.where);
                return;
            case Kind::CrossCoreSetFlag:
                m_block.cross_core_set_flag(small_value(n, 0, "mode"), n.pipe_a,
                                            small_value(n, 1, "id"), n.where);
                return;
            case Kind::CrossCoreWaitFlag:
                m_block.cross_core_wait_flag(small_value(n, 0, "id"), n.where);
                return;
            case Kind::Loop: {
                const std::int64_t from = value(n, n.exprs[0]);
                const std::int64_t to = value(n, n.exprs[1]);
                const std::int64_t stride = value(n, n.exprs[2]);
                if (stride <= 0) fail(n, "step is " + std::to_string(stride) + ", expected > 0");
                for (std::int64_t i = from; i < to;) {
                    step(n);
                    m_slots[n.target] = i;
                    run(n.body);
                    if (__builtin_add_overflow(i, stride, &i)) break;
                }
                return;
            }
            case Kind::If:
                run(value(n, n.exprs[0]) != 0 ? n.body : n.other);
                return;
        }
    }

    void step(const Node& n) {
        if (++m_steps > kMaxStepsPerBlock) {
            fail(n, "the block executed more than " + std::to_string(kMaxStepsPerBlock) +
                        " ops and loop iterations (a loop bound too large?)");
        }
    }

    const Program& m_program;
    Block& m_block;
    std::vector<std::int64_t> m_slots;
    std::vector<RuntimeBuffer> m_buffers;
    std::uint64_t m_steps = 0;
};

}  // namespace

void run_json_kernel_body(const Program& program, Block& block,
                          const std::vector<RuntimeBuffer>& arguments,
                          const std::vector<std::int64_t>& params) {
    Interpreter(program, block, arguments, params).run(program.body);
}

// ---- checks for a launch ----------------------------------------------------------------

// Expressions that read only parameters (and block_num, where it is known before the run)
// are the same for every block: evaluate them for the launch, so that their errors are the
// scenario's (exit 2), not the run's.
void check_static(const std::vector<Node>& body, const std::vector<std::int64_t>& slots,
                  bool block_num_known, std::vector<std::pair<std::string, std::string>>& out) {
    for (const Node& n : body) {
        const auto check = [&](const IntExpr& e) {
            for (std::uint32_t s : e.slots_used()) {
                if (s == kBlockIdx || s == kSubBlockIdx || s == kIsCube || s >= slots.size())
                    return;
                if (s == kBlockNum && !block_num_known) return;
            }
            try {
                (void)e.evaluate(slots);
            } catch (const ExprError& error) {
                out.push_back({n.pointer, "'" + e.text() + "': " + error.what()});
            }
        };
        for (const IntExpr& e : n.exprs) check(e);
        for (const OperandRef& r : n.operands) check(r.offset);
        check_static(n.body, slots, block_num_known, out);
        check_static(n.other, slots, block_num_known, out);
    }
}

}  // namespace npusim::json_kernel_detail
