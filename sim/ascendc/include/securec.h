// The bounds-checked copies of the vendor toolchain's securec library that host code of
// public samples calls (memcpy_s, memset_s): the vendor's tiling headers make them visible.
// Contract as the library's: nothing is copied and an error is returned when the destination
// is null or smaller than the count (memcpy_s also on a null source); EOK (0) otherwise.
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstring>

#ifndef EOK
#define EOK 0
#endif

using errno_t = int;

inline errno_t memcpy_s(void* dest, std::size_t destMax, const void* src, std::size_t count) {
    if (dest == nullptr || src == nullptr) return EINVAL;
    if (count > destMax) return ERANGE;
    if (count != 0) std::memmove(dest, src, count);
    return EOK;
}
inline errno_t memset_s(void* dest, std::size_t destMax, int c, std::size_t count) {
    if (dest == nullptr) return EINVAL;
    if (count > destMax) return ERANGE;
    if (count != 0) std::memset(dest, c, count);
    return EOK;
}
