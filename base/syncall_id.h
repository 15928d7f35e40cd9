// The identity of one SyncAll barrier instance, as Transaction::sync_id carries it: equal on
// every block that took part in the same instance, different for every other instance of the
// kernel. Written by sync/kernel_sync.cpp, read by the checker and the trace writer.
//   bits 62-63: kind (hard over all blocks, hard over AIV blocks, soft)
//   bits 0-61:  instance number within the kernel and kind, from 0
#pragma once

#include <cstdint>

namespace npusim {

struct SyncAllId {
    enum class Kind : std::uint8_t { HardAll = 0, HardVector = 1, Soft = 2 };
    static constexpr std::uint64_t kInstanceMask = (std::uint64_t{1} << 62) - 1;

    Kind kind = Kind::HardAll;
    std::uint64_t instance = 0;

    constexpr std::uint64_t encode() const {
        return (static_cast<std::uint64_t>(kind) << 62) | (instance & kInstanceMask);
    }
    static constexpr SyncAllId decode(std::uint64_t id) {
        return {static_cast<Kind>(id >> 62), id & kInstanceMask};
    }
    friend constexpr bool operator==(const SyncAllId&, const SyncAllId&) = default;
};

}  // namespace npusim
