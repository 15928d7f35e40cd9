// TPipe, TQue / TQueBind and TBuf: local buffers and the queue framework's implicit flags.
//
// Implicit flags (docs/ascendc.md, "The queue framework's implicit flags"), by the queue's (source,
// destination) positions, as a producer pipe P and a consumer pipe C:
//   GM -> VECIN: MTE2 / V      VECOUT -> GM: V / MTE3      VECIN -> VECOUT: MTE2 / MTE3
//   GM -> A1/B1/C1: MTE2 / MTE1   A1 -> A2, B1 -> B2, C1 -> C2: MTE1 / M   CO1 -> GM: M / FIX
//   EnQue: SetFlag<P_C>    DeQue: WaitFlag<P_C>    (the consumer waits for the data)
//   FreeTensor: SetFlag<C_P>    the next AllocTensor of that buffer: WaitFlag<C_P>
// VECCALC queues and TBuf insert nothing. Ids come from EventIds::framework_id (7 down).
// A queue going out of scope (or TPipe::Destroy, or the TPipe's destructor, whichever comes
// first) waits for the FreeTensor flags no AllocTensor consumed, so a kernel leaves no flag
// set; those waits carry the InitBuffer line.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/memory_spaces.h"
#include "npusim_ascendc/tensors.h"

namespace npusim::ascendc {

/// In a mixed kernel the code before the AIC / AIV split runs on both cores, and the
/// vendor's InitBuffer of a memory the core lacks (UB on the AIC, L1 or L0 on an AIV) is
/// address bookkeeping there: nothing is reserved, and only a use of that memory fails.
inline bool absent_on_this_core(Block& block, MemSpace space) {
    const MemSpaceInfo& info = mem_space_info(space);
    const bool on_vector = block.core_type() == CoreType::Vector;
    const bool mixed = vector_cores_per_block(block.kernel_type()) > 0 &&
                       cube_cores_per_block(block.kernel_type()) > 0;
    return mixed && space != MemSpace::GM && (on_vector ? !info.on_vector : !info.on_cube);
}

/// One buffer of a queue and the flag that guards its reuse.
struct QueueBuffer {
    MemSpace space = MemSpace::UB;
    std::uint64_t address = 0;
    std::uint64_t bytes = 0;
    enum class State : std::uint8_t { Free, Allocated, Queued } state = State::Free;
    bool free_flag_pending = false;  // FreeTensor set C_P; the next AllocTensor waits
    std::uint32_t free_event = 0;
    std::uint32_t data_event = 0;  // EnQue's P_C id, waited for by DeQue
};

/// The type-independent part of a queue (the TPipe keeps a list of them).
class QueueCore {
public:
    QueueCore(Pipe producer, Pipe consumer, std::uint32_t depth)
        : m_producer(producer), m_consumer(consumer), m_depth(depth) {}
    /// A queue that goes out of scope before its TPipe (the usual order: the TPipe is
    /// declared first) consumes its own pending reuse flags and leaves the pipe's list.
    ~QueueCore() noexcept(false) {
        if (m_registry == nullptr) return;
        std::erase(*m_registry, this);
        if (std::uncaught_exceptions() == 0 && t_current != nullptr && has_pending_flags()) {
            drain(m_created_at);
        }
    }
    QueueCore(const QueueCore&) = delete;
    QueueCore& operator=(const QueueCore&) = delete;

    bool synchronized() const { return m_producer != Pipe::S; }

    /// The TPipe's list of live queues; the queue removes itself when destroyed first.
    void register_with(std::vector<QueueCore*>* registry, const Loc& loc) {
        m_registry = registry;
        m_created_at = loc;
        registry->push_back(this);
    }
    void unregister() { m_registry = nullptr; }

    /// `num` buffers of `bytes` each (what AllocTensor's tensor holds), `stride` apart.
    void add_buffers(MemSpace space, std::uint64_t first, std::uint64_t stride, std::uint64_t bytes,
                     std::uint32_t num) {
        for (std::uint32_t i = 0; i < num; ++i) {
            m_buffers.push_back(QueueBuffer{space, first + i * stride, bytes});
        }
    }
    bool initialised() const { return !m_buffers.empty() || m_absent_space.has_value(); }
    /// InitBuffer on a core without the queue's memory (see absent_on_this_core): the queue
    /// has no buffers, and an AllocTensor of it names that memory.
    void set_absent(MemSpace space) { m_absent_space = space; }

    /// The next free buffer in ring order, after its reuse flag.
    QueueBuffer& allocate(const Loc& loc) {
        KernelContext& ctx = context(loc);
        Resume resume(ctx);
        if (m_absent_space) {
            throw KernelError(EventIds::where(loc) + "AllocTensor: " +
                              std::string(to_string(*m_absent_space)) + " does not exist on an " +
                              std::string(to_string(ctx.block().core_type())) + " core");
        }
        if (m_buffers.empty()) {
            throw KernelError(EventIds::where(loc) +
                              "AllocTensor on a queue that TPipe::InitBuffer never set up");
        }
        for (std::size_t n = 0; n < m_buffers.size(); ++n) {
            QueueBuffer& buffer = m_buffers[(m_next + n) % m_buffers.size()];
            if (buffer.state != QueueBuffer::State::Free) continue;
            m_next = (m_next + n + 1) % m_buffers.size();
            if (buffer.free_flag_pending) {
                ctx.wait_flag(m_consumer, m_producer, buffer.free_event, loc);
                buffer.free_flag_pending = false;
            }
            buffer.state = QueueBuffer::State::Allocated;
            return buffer;
        }
        throw KernelError(EventIds::where(loc) + "AllocTensor: all " +
                          std::to_string(m_buffers.size()) +
                          " buffers of the queue are in use (FreeTensor missing?)");
    }
    void enqueue(std::uint64_t address, const Loc& loc) {
        KernelContext& ctx = context(loc);
        Resume resume(ctx);
        QueueBuffer& buffer = find(address, "EnQue", loc);
        if (buffer.state != QueueBuffer::State::Allocated) {
            throw KernelError(EventIds::where(loc) +
                              "EnQue of a tensor that is not allocated from this queue");
        }
        if (m_fifo.size() >= m_depth) {
            throw KernelError(EventIds::where(loc) + "EnQue: the queue's depth " +
                              std::to_string(m_depth) + " is exceeded");
        }
        if (synchronized()) {
            buffer.data_event = ctx.event_ids().framework_id(m_producer, m_consumer, loc);
            ctx.set_flag(m_producer, m_consumer, buffer.data_event, loc);
        }
        buffer.state = QueueBuffer::State::Queued;
        m_fifo.push_back(&buffer);
    }
    QueueBuffer& dequeue(const Loc& loc) {
        KernelContext& ctx = context(loc);
        Resume resume(ctx);
        if (m_fifo.empty()) {
            throw KernelError(EventIds::where(loc) + "DeQue on an empty queue (EnQue missing?)");
        }
        QueueBuffer& buffer = *m_fifo.front();
        m_fifo.pop_front();
        if (synchronized()) ctx.wait_flag(m_producer, m_consumer, buffer.data_event, loc);
        buffer.state = QueueBuffer::State::Allocated;
        return buffer;
    }
    void free(std::uint64_t address, const Loc& loc) {
        KernelContext& ctx = context(loc);
        Resume resume(ctx);
        QueueBuffer& buffer = find(address, "FreeTensor", loc);
        if (buffer.state != QueueBuffer::State::Allocated) {
            throw KernelError(EventIds::where(loc) +
                              "FreeTensor of a tensor that is not allocated (or still queued)");
        }
        if (synchronized()) {
            buffer.free_event = ctx.event_ids().framework_id(m_consumer, m_producer, loc);
            ctx.set_flag(m_consumer, m_producer, buffer.free_event, loc);
            buffer.free_flag_pending = true;
        }
        buffer.state = QueueBuffer::State::Free;
    }
    /// TPipe::Destroy: consume the reuse flags nobody waited for.
    void drain(const Loc& loc) {
        KernelContext& ctx = context(loc);
        Resume resume(ctx);
        for (QueueBuffer& buffer : m_buffers) {
            if (!buffer.free_flag_pending) continue;
            ctx.wait_flag(m_consumer, m_producer, buffer.free_event, loc);
            buffer.free_flag_pending = false;
        }
    }
    void forget() {
        m_buffers.clear();
        m_fifo.clear();
        m_next = 0;
    }
    bool has_pending_flags() const {
        for (const QueueBuffer& buffer : m_buffers) {
            if (buffer.free_flag_pending) return true;
        }
        return false;
    }

private:
    QueueBuffer& find(std::uint64_t address, const char* what, const Loc& loc) {
        for (QueueBuffer& buffer : m_buffers) {
            if (buffer.address == address) return buffer;
        }
        throw KernelError(EventIds::where(loc) + what +
                          " of a tensor that is not the start of one of the queue's buffers");
    }

    Pipe m_producer;
    Pipe m_consumer;
    std::uint32_t m_depth;
    std::vector<QueueBuffer> m_buffers;
    std::optional<MemSpace> m_absent_space;
    std::deque<QueueBuffer*> m_fifo;
    std::size_t m_next = 0;
    std::vector<QueueCore*>* m_registry = nullptr;
    Loc m_created_at;
};

struct PipePair {
    Pipe producer = Pipe::S;  // Pipe::S: no implicit flags
    Pipe consumer = Pipe::S;
};

/// The implicit flag pair of a TQueBind<src, dst>; unsupported bindings fail to compile.
template <AscendC::TPosition src, AscendC::TPosition dst>
constexpr PipePair queue_pipes() {
    using AscendC::TPosition;
    if constexpr (src == TPosition::GM && dst == TPosition::VECIN) {
        return {Pipe::MTE2, Pipe::V};
    } else if constexpr (src == TPosition::VECOUT && dst == TPosition::GM) {
        return {Pipe::V, Pipe::MTE3};
    } else if constexpr (src == TPosition::VECIN && dst == TPosition::VECOUT) {
        return {Pipe::MTE2, Pipe::MTE3};
    } else if constexpr (src == TPosition::GM &&
                         (dst == TPosition::A1 || dst == TPosition::B1 || dst == TPosition::C1)) {
        return {Pipe::MTE2, Pipe::MTE1};
    } else if constexpr ((src == TPosition::A1 && dst == TPosition::A2) ||
                         (src == TPosition::B1 && dst == TPosition::B2) ||
                         (src == TPosition::C1 && dst == TPosition::C2)) {
        return {Pipe::MTE1, Pipe::M};
    } else if constexpr (src == TPosition::CO1 && (dst == TPosition::GM || dst == TPosition::CO2)) {
        return {Pipe::M, Pipe::FIX};
    } else if constexpr (src == TPosition::VECCALC || dst == TPosition::VECCALC) {
        return {Pipe::S, Pipe::S};
    } else {
        static_assert(kAlwaysFalse<decltype(src)>,
                      "npusim Ascend C: this TQueBind<src, dst> binding is not supported yet");
        return {};
    }
}

/// TQue<pos> is TQueBind of the position with GM on its other side.
template <AscendC::TPosition pos>
constexpr AscendC::TPosition queue_source() {
    using AscendC::TPosition;
    if constexpr (pos == TPosition::VECOUT || pos == TPosition::CO1) {
        return pos;
    } else if constexpr (pos == TPosition::A2) {
        return TPosition::A1;
    } else if constexpr (pos == TPosition::B2) {
        return TPosition::B1;
    } else if constexpr (pos == TPosition::C2) {
        return TPosition::C1;
    } else if constexpr (pos == TPosition::VECCALC) {
        return TPosition::VECCALC;
    } else {
        return TPosition::GM;
    }
}
template <AscendC::TPosition pos>
constexpr AscendC::TPosition queue_destination() {
    using AscendC::TPosition;
    if constexpr (pos == TPosition::VECOUT || pos == TPosition::CO1) {
        return TPosition::GM;
    } else {
        return pos;
    }
}

}  // namespace npusim::ascendc

namespace AscendC {

template <TPosition src, TPosition dst, std::int32_t depth, auto... config>
class TQueBind;
template <TPosition pos>
class TBuf;

/// Local memory for queues and TBufs. Buffers are bump-allocated in the block's local
/// memory (npusim's allocator: 32-byte aligned, KernelError naming the line when UB/L1/L0 is
/// full). Destroy() ends the queues; npusim does not reuse the memory afterwards.
class TPipe {
public:
    /// The block's current pipe from here on (GetTPipePtr).
    explicit TPipe(Loc loc = Loc::current()) : m_created_at(loc) {
        npusim::ascendc::context(loc).set_pipe(this);
    }
    ~TPipe() noexcept(false) {
        npusim::ascendc::KernelContext* ctx = npusim::ascendc::t_current;
        if (ctx != nullptr && ctx->pipe() == this) ctx->set_pipe(nullptr);
        if (std::uncaught_exceptions() == 0 && !m_destroyed && ctx != nullptr) {
            Destroy(m_created_at);
        }
        // Queues that outlive the pipe (declared before it, as the Matmul API's are in the
        // vendor samples, or left behind by an unwinding kernel) must not reach its list.
        for (npusim::ascendc::QueueCore* queue : m_queues) queue->unregister();
    }
    TPipe(const TPipe&) = delete;
    TPipe& operator=(const TPipe&) = delete;

    void Init() {}

    template <TPosition src, TPosition dst, std::int32_t depth, auto... config>
    bool InitBuffer(TQueBind<src, dst, depth, config...>& que, std::uint8_t num, std::uint32_t len,
                    Loc loc = Loc::current()) {
        constexpr TPosition where = dst == TPosition::GM ? src : dst;
        allocate(que.core(), npusim::ascendc::queue_pipes<src, dst>(), space_of<where>(), num, len,
                 loc);
        return true;
    }
    template <TPosition pos>
    bool InitBuffer(TBuf<pos>& buf, std::uint32_t len, Loc loc = Loc::current());
    /// A TBufPool (or a user pool, EXTERN_IMPL_BUFPOOL) of `len` bytes; with `shareWith`, the
    /// region of that pool (npusim_ascendc/buf_pool.h).
    template <class Pool>
    bool InitBufPool(Pool& pool, std::uint32_t len, Loc loc = Loc::current());
    template <class Pool, class Shared>
    bool InitBufPool(Pool& pool, std::uint32_t len, Shared& shareWith, Loc loc = Loc::current());

    void Destroy(Loc loc = Loc::current()) {
        m_destroyed = true;
        for (npusim::ascendc::QueueCore* queue : m_queues) {
            if (queue->has_pending_flags()) queue->drain(loc);
            queue->forget();
            queue->unregister();
        }
        m_queues.clear();
    }
    void Reset() {}
    /// What the Matmul API's objects on this pipe share (isA2B2Shared: one set of L0
    /// buffers, npusim_ascendc/matmul_l0.h); it lives as long as the pipe or an object.
    std::shared_ptr<void>& npusim_matmul_shared() { return m_matmul_shared; }

    // Event ids for explicit SetFlag/WaitFlag in the TPipe paradigm.
    template <HardEvent event>
    std::int32_t AllocEventID(Loc loc = Loc::current());
    template <HardEvent event>
    void ReleaseEventID(std::int32_t id, Loc loc = Loc::current());
    std::int32_t FetchEventID(HardEvent event, Loc loc = Loc::current());
    template <HardEvent event>
    std::int32_t FetchEventID(Loc loc = Loc::current()) {
        return FetchEventID(event, loc);
    }

private:
    void allocate(npusim::ascendc::QueueCore& queue, npusim::ascendc::PipePair,
                  npusim::MemSpace space, std::uint32_t num, std::uint32_t len, const Loc& loc) {
        npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
        npusim::ascendc::Resume resume(ctx);
        if (queue.initialised()) {
            throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                      "InitBuffer: this queue already has its buffers");
        }
        const std::uint64_t bytes = (std::uint64_t{len} + 31) / 32 * 32;
        if (npusim::ascendc::absent_on_this_core(ctx.block(), space)) {
            queue.set_absent(space);
            queue.register_with(&m_queues, loc);
            return;
        }
        const npusim::LocalTensor<std::int8_t> all =
            ctx.block().alloc<std::int8_t>(space, bytes * num, loc);
        queue.add_buffers(space, all.address, bytes, len, num);
        queue.register_with(&m_queues, loc);
    }

    std::vector<npusim::ascendc::QueueCore*> m_queues;
    std::shared_ptr<void> m_matmul_shared;
    bool m_destroyed = false;
    Loc m_created_at;
};

inline TPipe* GetTPipePtr(Loc loc = Loc::current()) {
    return static_cast<TPipe*>(npusim::ascendc::context(loc).pipe());
}

template <TPosition src, TPosition dst, std::int32_t depth, auto... config>
class TQueBind {
public:
    TQueBind() = default;

    template <class T>
    LocalTensor<T> AllocTensor(Loc loc = Loc::current()) {
        const npusim::ascendc::QueueBuffer& b = m_core.allocate(loc);
        return {npusim::LocalTensor<T>{b.space, b.address, b.bytes / sizeof(T)}, kWhere};
    }
    template <class T>
    bool EnQue(const LocalTensor<T>& tensor, Loc loc = Loc::current()) {
        m_core.enqueue(tensor.native().address, loc);
        return true;
    }
    template <class T>
    LocalTensor<T> DeQue(Loc loc = Loc::current()) {
        const npusim::ascendc::QueueBuffer& b = m_core.dequeue(loc);
        return {npusim::LocalTensor<T>{b.space, b.address, b.bytes / sizeof(T)}, kWhere};
    }
    template <class T>
    void FreeTensor(LocalTensor<T>& tensor, Loc loc = Loc::current()) {
        m_core.free(tensor.native().address, loc);
    }

    /// Consumes the reuse flags of the buffers nobody allocated again (the vendor's protection
    /// against unmatched events; a queue used in pairs needs none).
    void FreeAllEvent(Loc loc = Loc::current()) { m_core.drain(loc); }

    npusim::ascendc::QueueCore& core() { return m_core; }

    /// A user pool's InitBuffer (EXTERN_IMPL_BUFPOOL): `num` buffers of `len` bytes follow.
    template <class Handle>
    void InitStartBufHandle(Handle, std::uint8_t num, std::uint32_t len, Loc loc = Loc::current()) {
        (void)len;
        if (m_core.initialised() || num == 0) {
            throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                      "InitStartBufHandle: the queue already has its buffers, "
                                      "or no buffer is asked for");
        }
    }
    /// Buffer `index` of the queue at byte `address` of the pool's memory.
    template <class Pool, class Handle>
    void InitBufHandle(Pool* pool, std::uint32_t index, Handle, std::uint64_t address,
                       std::uint32_t len, Loc loc = Loc::current()) {
        m_core.add_buffers(pool->npusim_pool().space(), address, len, len, 1);
        if (index == 0) pool->npusim_pool().adopt(m_core, loc);
    }

private:
    static constexpr TPosition kWhere = dst == TPosition::GM ? src : dst;
    static constexpr npusim::ascendc::PipePair kPipes = npusim::ascendc::queue_pipes<src, dst>();
    npusim::ascendc::QueueCore m_core{kPipes.producer, kPipes.consumer,
                                      static_cast<std::uint32_t>(depth > 0 ? depth : 1)};
};

template <TPosition pos, std::int32_t depth = 1, auto... config>
using TQue = TQueBind<npusim::ascendc::queue_source<pos>(),
                      npusim::ascendc::queue_destination<pos>(), depth, config...>;

/// Scratch local memory without any implicit synchronization.
template <TPosition pos = TPosition::VECCALC>
class TBuf {
public:
    template <class T>
    LocalTensor<T> Get() const {
        return {npusim::LocalTensor<T>{space_of<pos>(), m_address, m_bytes / sizeof(T)}, pos};
    }
    template <class T>
    LocalTensor<T> Get(std::uint32_t count) const {
        return {npusim::LocalTensor<T>{space_of<pos>(), m_address, count}, pos};
    }
    template <class T>
    LocalTensor<T> GetWithOffset(std::uint32_t count, std::uint32_t byte_offset) const {
        return {npusim::LocalTensor<T>{space_of<pos>(), m_address + byte_offset, count}, pos};
    }
    /// AllocTensor<T>(): the whole buffer, as Get<T>() (the vendor's TBuf accepts it too).
    template <class T>
    LocalTensor<T> AllocTensor() const {
        return Get<T>();
    }
    /// FreeTensor(tensor): a TBuf's buffer is the kernel's until the pipe ends; nothing to do
    /// (the vendor's TBuf accepts the call too).
    template <class T>
    void FreeTensor(const LocalTensor<T>&) const {}
    /// Its memory, from a TBufPool.
    void npusim_bind(std::uint64_t address, std::uint64_t bytes) {
        m_address = address;
        m_bytes = bytes;
    }
    /// A user pool's InitBuffer (EXTERN_IMPL_BUFPOOL): the buffer at byte `address`.
    template <class Handle>
    void InitStartBufHandle(Handle, std::uint8_t, std::uint32_t) {}
    template <class Pool, class Handle>
    void InitBufHandle(Pool*, std::uint32_t, Handle, std::uint64_t address, std::uint32_t len) {
        npusim_bind(address, len);
    }

private:
    friend class TPipe;
    std::uint64_t m_address = 0;
    std::uint64_t m_bytes = 0;
};

template <TPosition pos>
bool TPipe::InitBuffer(TBuf<pos>& buf, std::uint32_t len, Loc loc) {
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    npusim::ascendc::Resume resume(ctx);
    const std::uint64_t bytes = (std::uint64_t{len} + 31) / 32 * 32;
    buf.m_bytes = len;
    // Bookkeeping only (see absent_on_this_core): a use of the buffer there fails.
    if (npusim::ascendc::absent_on_this_core(ctx.block(), space_of<pos>())) return true;
    buf.m_address = ctx.block().alloc<std::int8_t>(space_of<pos>(), bytes, loc).address;
    buf.m_bytes = len;
    return true;
}

}  // namespace AscendC
