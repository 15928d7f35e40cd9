// ACL memory calls (acl/acl.h): aclrtMalloc and aclrtMallocHost, aclrtMemcpy(Async) and
// aclrtMemset(Async). aclrtMalloc returns the simulated GM address as a pointer (kernels
// receive it as GM_ADDR); host code must not dereference it. aclrtMallocHost returns real host
// memory. aclrtMemcpy infers the direction from the pointers (the kind is ignored, as
// documented); host pointers not from aclrtMallocHost are staged through pageable host
// buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "acl/acl_base.h"

namespace npusim::acl {

/// A host range for a runtime copy: an aclrtMallocHost buffer as is, other memory staged
/// through a pageable buffer (copied in before, out after).
class HostSide {
public:
    HostSide(Runtime& rt, void* pointer, std::uint64_t bytes, bool copy_in, Where where)
        : m_rt(rt), m_pointer(pointer), m_bytes(bytes), m_where(where) {
        if (const HostBuffer* known = host_at(pointer)) {
            m_buffer = *known;
            return;
        }
        m_buffer = rt.malloc_host(bytes, HostMemoryKind::Pageable, where);
        m_staged = true;
        if (copy_in) std::memcpy(rt.host_bytes(m_buffer, where).data(), pointer, bytes);
    }
    HostSide(const HostSide&) = delete;
    HostSide& operator=(const HostSide&) = delete;
    ~HostSide() {
        if (m_staged) m_rt.free_host(m_buffer, m_where);
    }
    const HostBuffer& buffer() const { return m_buffer; }
    void copy_out() {
        if (m_staged) std::memcpy(m_pointer, m_rt.host_bytes(m_buffer, m_where).data(), m_bytes);
    }

private:
    Runtime& m_rt;
    void* m_pointer;
    std::uint64_t m_bytes;
    Where m_where;
    HostBuffer m_buffer;
    bool m_staged = false;
};

/// Copies `bytes` from src to dst, direction from the pointers. `stream` null: synchronous.
inline aclError copy(void* dst, std::size_t dest_max, const void* src, std::size_t bytes,
                     const Stream* stream, Where where) {
    if (dst == nullptr || src == nullptr || bytes > dest_max) return ACL_ERROR_INVALID_PARAM;
    return call([&](Runtime& rt) {
        const DeviceBuffer d = device_at(dst);
        const DeviceBuffer s = device_at(src);
        if (d.bytes != 0 && s.bytes != 0) {
            if (stream != nullptr) {
                rt.memcpy_async(d, s, bytes, *stream, where);
            } else {
                rt.memcpy(d, s, bytes, where);
            }
        } else if (d.bytes != 0) {
            HostSide host(rt, const_cast<void*>(src), bytes, true, where);
            if (stream != nullptr) {
                rt.memcpy_async(d, host.buffer(), bytes, *stream, where);
            } else {
                rt.memcpy(d, host.buffer(), bytes, where);
            }
        } else if (s.bytes != 0) {
            HostSide host(rt, dst, bytes, false, where);
            if (stream != nullptr) {
                rt.memcpy_async(host.buffer(), s, bytes, *stream, where);
            } else {
                rt.memcpy(host.buffer(), s, bytes, where);
            }
            host.copy_out();
        } else {
            std::memmove(dst, src, bytes);  // host to host
        }
    });
}

}  // namespace npusim::acl

inline aclError aclrtMalloc(void** devPtr, std::size_t size, aclrtMemMallocPolicy policy,
                            npusim::acl::Where where = npusim::acl::Where::current()) {
    (void)policy;
    if (devPtr == nullptr || size == 0) return ACL_ERROR_INVALID_PARAM;
    return npusim::acl::call([&](npusim::Runtime& rt) {
        const npusim::DeviceBuffer buffer = rt.malloc(size, {}, where);
        npusim::acl::g_host.device[buffer.address] = buffer;
        *devPtr = npusim::ascendc::gm_pointer<void>(buffer.address, where);
    });
}
inline aclError aclrtFree(void* devPtr, npusim::acl::Where where = npusim::acl::Where::current()) {
    const std::uint64_t address = npusim::ascendc::gm_address_if_any(devPtr);
    const auto it = npusim::acl::g_host.device.find(address);
    if (it == npusim::acl::g_host.device.end()) return ACL_ERROR_INVALID_PARAM;
    const npusim::DeviceBuffer buffer = it->second;
    return npusim::acl::call([&](npusim::Runtime& rt) {
        rt.free(buffer, where);
        npusim::acl::g_host.device.erase(address);
    });
}
inline aclError aclrtMallocHost(void** hostPtr, std::size_t size,
                                npusim::acl::Where where = npusim::acl::Where::current()) {
    if (hostPtr == nullptr || size == 0) return ACL_ERROR_INVALID_PARAM;
    return npusim::acl::call([&](npusim::Runtime& rt) {
        const npusim::HostBuffer buffer =
            rt.malloc_host(size, npusim::HostMemoryKind::Pinned, where);
        std::byte* data = rt.host_bytes(buffer, where).data();
        npusim::acl::g_host.host[data] = buffer;
        *hostPtr = data;
    });
}
inline aclError aclrtFreeHost(void* hostPtr,
                              npusim::acl::Where where = npusim::acl::Where::current()) {
    const auto it = npusim::acl::g_host.host.find(static_cast<const std::byte*>(hostPtr));
    if (it == npusim::acl::g_host.host.end()) return ACL_ERROR_INVALID_PARAM;
    const npusim::HostBuffer buffer = it->second;
    return npusim::acl::call([&](npusim::Runtime& rt) {
        rt.free_host(buffer, where);
        npusim::acl::g_host.host.erase(it);
    });
}

inline aclError aclrtMemcpy(void* dst, std::size_t destMax, const void* src, std::size_t count,
                            aclrtMemcpyKind kind,
                            npusim::acl::Where where = npusim::acl::Where::current()) {
    (void)kind;  // reserved: the direction follows from the pointers
    return npusim::acl::copy(dst, destMax, src, count, nullptr, where);
}
inline aclError aclrtMemcpyAsync(void* dst, std::size_t destMax, const void* src, std::size_t count,
                                 aclrtMemcpyKind kind, aclrtStream stream,
                                 npusim::acl::Where where = npusim::acl::Where::current()) {
    (void)kind;
    const npusim::Stream s = npusim::acl::stream_of(stream);
    return npusim::acl::copy(dst, destMax, src, count, &s, where);
}
inline aclError aclrtMemset(void* devPtr, std::size_t maxCount, std::int32_t value,
                            std::size_t count,
                            npusim::acl::Where where = npusim::acl::Where::current()) {
    if (count > maxCount) return ACL_ERROR_INVALID_PARAM;
    const npusim::DeviceBuffer d = npusim::acl::device_at(devPtr);
    return npusim::acl::call([&](npusim::Runtime& rt) {
        if (d.bytes != 0) {
            rt.memset(d, static_cast<std::uint8_t>(value), count, where);
        } else if (const npusim::HostBuffer* h = npusim::acl::host_at(devPtr)) {
            rt.memset(*h, static_cast<std::uint8_t>(value), count, where);
        } else {
            throw npusim::RuntimeError(npusim::Status::InvalidValue,
                                       "aclrtMemset: memory not from aclrtMalloc/aclrtMallocHost",
                                       where);
        }
    });
}
inline aclError aclrtMemsetAsync(void* devPtr, std::size_t maxCount, std::int32_t value,
                                 std::size_t count, aclrtStream stream,
                                 npusim::acl::Where where = npusim::acl::Where::current()) {
    if (count > maxCount) return ACL_ERROR_INVALID_PARAM;
    const npusim::DeviceBuffer d = npusim::acl::device_at(devPtr);
    const npusim::Stream s = npusim::acl::stream_of(stream);
    return npusim::acl::call([&](npusim::Runtime& rt) {
        if (d.bytes != 0) {
            rt.memset_async(d, static_cast<std::uint8_t>(value), count, s, where);
        } else if (const npusim::HostBuffer* h = npusim::acl::host_at(devPtr)) {
            rt.memset_async(*h, static_cast<std::uint8_t>(value), count, s, where);
        } else {
            throw npusim::RuntimeError(npusim::Status::InvalidValue,
                                       "aclrtMemsetAsync: memory not from aclrtMalloc/"
                                       "aclrtMallocHost",
                                       where);
        }
    });
}
