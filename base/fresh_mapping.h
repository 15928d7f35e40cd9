// Host memory the process maps itself (mmap, mprotect) and the address sanitizer.
//
// AddressSanitizer keeps a shadow byte for every 8 host bytes and does not reset it when
// memory is unmapped. A range mapped again may inherit the poison of whatever lived there
// before (a finished SystemC thread's stack, for instance, leaves "stack-use-after-scope"
// marks), and the next access to the new mapping is reported as an error that is not there.
#pragma once

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

namespace npusim {

/// Declares [memory, memory + bytes) freshly mapped and addressable: under AddressSanitizer
/// it clears the range's stale shadow; in other builds it does nothing. Call it for each
/// range the process maps (or makes accessible) before the range is touched; keep ranges
/// small (the shadow of `bytes` is written, bytes / 8 of it).
inline void declare_fresh_mapping([[maybe_unused]] void* memory,
                                  [[maybe_unused]] std::size_t bytes) {
#if defined(__SANITIZE_ADDRESS__)
    ASAN_UNPOISON_MEMORY_REGION(memory, bytes);
#endif
}

}  // namespace npusim
