// TBufPool: a region of one local memory taken from the TPipe (InitBufPool) and handed out to
// queues and buffers in order (InitBuffer), split further into sub-pools or shared by a second
// pool, and given back by Reset; EXTERN_IMPL_BUFPOOL makes a user class such a pool.
#pragma once

#include <algorithm>
#include <cstdint>
#include <source_location>
#include <string>
#include <vector>

#include "npusim_ascendc/pipe.h"

namespace npusim::ascendc {

/// What TBufPool and a user pool (EXTERN_IMPL_BUFPOOL) keep: the region, the next free byte,
/// and the queues it gave buffers to (registered with the TPipe, so the pipe's Destroy drains
/// them as its own).
class BufPoolCore {
public:
    void init(MemSpace space, std::uint64_t base, std::uint64_t bytes,
              std::vector<QueueCore*>* pipe_queues) {
        m_space = space;
        m_base = base;
        m_bytes = bytes;
        m_cursor = base;
        m_pipe_queues = pipe_queues;
        m_ready = true;
    }
    /// `bytes` (rounded up to 32) from the region: their address.
    std::uint64_t take(std::uint64_t bytes, const Loc& loc) {
        check_ready(loc);
        const std::uint64_t rounded = (bytes + 31) / 32 * 32;
        if (m_cursor + rounded > m_base + m_bytes) {
            throw KernelError(EventIds::where(loc) + "TBufPool: " + std::to_string(rounded) +
                              " bytes do not fit: " + std::to_string(m_base + m_bytes - m_cursor) +
                              " of the pool's " + std::to_string(m_bytes) + " bytes are left");
        }
        const std::uint64_t at = m_cursor;
        m_cursor += rounded;
        return at;
    }
    void adopt(QueueCore& queue, const Loc& loc) {
        check_ready(loc);
        queue.register_with(m_pipe_queues, loc);
        m_queues.push_back(&queue);
    }
    /// Reset: the queues drain their reuse flags and lose their buffers; the region is free.
    void reset(const Loc& loc) {
        for (QueueCore* queue : m_queues) {
            if (queue->has_pending_flags()) queue->drain(loc);
            queue->forget();
            if (m_pipe_queues != nullptr) std::erase(*m_pipe_queues, queue);
            queue->unregister();
        }
        m_queues.clear();
        m_cursor = m_base;
        m_handles = 0;
    }
    void check_ready(const Loc& loc) const {
        if (!m_ready) {
            throw KernelError(EventIds::where(loc) +
                              "TBufPool used before InitBufPool gave it its memory");
        }
    }

    MemSpace space() const { return m_space; }
    std::uint64_t base() const { return m_base; }
    std::uint64_t bytes() const { return m_bytes; }
    std::uint64_t cursor() const { return m_cursor; }
    void set_cursor(std::uint64_t address, const Loc& loc) {
        if (address < m_base || address > m_base + m_bytes) {
            throw KernelError(EventIds::where(loc) + "TBufPool: address " +
                              std::to_string(address) + " is outside the pool");
        }
        m_cursor = address;
    }
    std::vector<QueueCore*>* pipe_queues() const { return m_pipe_queues; }
    std::uint32_t handles() const { return m_handles; }
    void set_handles(std::uint32_t n) { m_handles = n; }

private:
    MemSpace m_space = MemSpace::UB;
    std::uint64_t m_base = 0;
    std::uint64_t m_bytes = 0;
    std::uint64_t m_cursor = 0;
    std::uint32_t m_handles = 0;
    bool m_ready = false;
    std::vector<QueueCore*>* m_pipe_queues = nullptr;
    std::vector<QueueCore*> m_queues;
};

}  // namespace npusim::ascendc

namespace AscendC {

/// The handle a user pool passes to InitStartBufHandle / InitBufHandle (an index here).
struct TBufHandleIndex {
    std::uint32_t index = 0;
};
using TBufHandle = TBufHandleIndex;

template <TPosition pos, std::uint32_t bufIDSize = 4>
class TBufPool {
public:
    static constexpr TPosition npusim_position = pos;

    template <TPosition src, TPosition dst, std::int32_t depth, auto... config>
    bool InitBuffer(TQueBind<src, dst, depth, config...>& que, std::uint8_t num, std::uint32_t len,
                    Loc loc = Loc::current()) {
        if (que.core().initialised()) {
            throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                      "InitBuffer: this queue already has its buffers");
        }
        const std::uint64_t bytes = (std::uint64_t{len} + 31) / 32 * 32;
        const std::uint64_t at = m_pool.take(bytes * num, loc);
        que.core().add_buffers(m_pool.space(), at, bytes, len, num);
        m_pool.adopt(que.core(), loc);
        return true;
    }
    template <TPosition bufPos>
    bool InitBuffer(TBuf<bufPos>& buf, std::uint32_t len, Loc loc = Loc::current()) {
        buf.npusim_bind(m_pool.take(len, loc), len);
        return true;
    }
    /// A sub-pool of `len` bytes from this pool; with `shareWith`, the region of that pool.
    template <class Pool>
    bool InitBufPool(Pool& sub, std::uint32_t len, Loc loc = Loc::current()) {
        sub.npusim_pool().init(m_pool.space(), m_pool.take(len, loc), len, m_pool.pipe_queues());
        return true;
    }
    template <class Pool, class Shared>
    bool InitBufPool(Pool& sub, std::uint32_t len, Shared& shareWith, Loc loc = Loc::current()) {
        const npusim::ascendc::BufPoolCore& other = shareWith.npusim_pool();
        other.check_ready(loc);
        sub.npusim_pool().init(other.space(), other.base(),
                               std::min<std::uint64_t>(len, other.bytes()), m_pool.pipe_queues());
        return true;
    }
    void Reset(Loc loc = Loc::current()) { m_pool.reset(loc); }

    npusim::ascendc::BufPoolCore& npusim_pool() { return m_pool; }
    const npusim::ascendc::BufPoolCore& npusim_pool() const { return m_pool; }

private:
    npusim::ascendc::BufPoolCore m_pool;
};

template <class Pool>
bool TPipe::InitBufPool(Pool& pool, std::uint32_t len, Loc loc) {
    npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    npusim::ascendc::Resume resume(ctx);
    constexpr npusim::MemSpace space = space_of<Pool::npusim_position>();
    const std::uint64_t bytes = (std::uint64_t{len} + 31) / 32 * 32;
    pool.npusim_pool().init(space, ctx.block().alloc<std::int8_t>(space, bytes, loc).address, bytes,
                            &m_queues);
    return true;
}
template <class Pool, class Shared>
bool TPipe::InitBufPool(Pool& pool, std::uint32_t len, Shared& shareWith, Loc loc) {
    const npusim::ascendc::BufPoolCore& other = shareWith.npusim_pool();
    other.check_ready(loc);
    pool.npusim_pool().init(other.space(), other.base(),
                            std::min<std::uint64_t>(len, other.bytes()), &m_queues);
    return true;
}

}  // namespace AscendC

/// Inside a user class: makes it a buffer pool at `position` (the vendor's macro; `num` is the
/// most buffers it hands out). The class's own InitBuffer functions take handles and addresses
/// from GetBufHandle / GetCurAddr and give them to a queue's InitStartBufHandle /
/// InitBufHandle, then move SetCurAddr / SetCurBufSize on; pipe.InitBufPool gives it memory.
#define EXTERN_IMPL_BUFPOOL(NAME, POSITION, NUM)                                         \
public:                                                                                  \
    static constexpr AscendC::TPosition npusim_position = POSITION;                      \
    void Init() {}                                                                       \
    void Reset(std::source_location npusim_loc = std::source_location::current()) {      \
        m_npusim_pool.reset(npusim_loc);                                                 \
    }                                                                                    \
    AscendC::TBufHandle GetBufHandle(std::uint32_t index) const {                        \
        return AscendC::TBufHandle{index};                                               \
    }                                                                                    \
    std::uint32_t GetCurBufSize() const {                                                \
        return m_npusim_pool.handles();                                                  \
    }                                                                                    \
    void SetCurBufSize(std::uint32_t n) {                                                \
        if (n > (NUM)) {                                                                 \
            throw npusim::KernelError(#NAME ": more than " #NUM " buffers in the pool"); \
        }                                                                                \
        m_npusim_pool.set_handles(n);                                                    \
    }                                                                                    \
    std::uint64_t GetCurAddr() const {                                                   \
        return m_npusim_pool.cursor();                                                   \
    }                                                                                    \
    void SetCurAddr(std::uint64_t address,                                               \
                    std::source_location npusim_loc = std::source_location::current()) { \
        m_npusim_pool.set_cursor(address, npusim_loc);                                   \
    }                                                                                    \
    npusim::ascendc::BufPoolCore& npusim_pool() {                                        \
        return m_npusim_pool;                                                            \
    }                                                                                    \
    const npusim::ascendc::BufPoolCore& npusim_pool() const {                            \
        return m_npusim_pool;                                                            \
    }                                                                                    \
                                                                                         \
private:                                                                                 \
    npusim::ascendc::BufPoolCore m_npusim_pool
