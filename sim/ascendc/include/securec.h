// The bounds-checked memory functions of the vendor's securec library that host programs of
// the public samples call (memcpy_s, memset_s), with its return convention: EOK (0) on
// success; a null pointer or count > destMax copies nothing and returns an error code
// (securec also clears dest on a range error when it can: so does this).
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
    if (count > destMax) {
        std::memset(dest, 0, destMax);
        return ERANGE;
    }
    if (count != 0) std::memmove(dest, src, count);
    return EOK;
}

inline errno_t memset_s(void* dest, std::size_t destMax, int c, std::size_t count) {
    if (dest == nullptr) return EINVAL;
    if (count > destMax) {
        std::memset(dest, c, destMax);
        return ERANGE;
    }
    std::memset(dest, c, count);
    return EOK;
}
