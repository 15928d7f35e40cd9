// InitGlobalMemory(gm, size, value): fills GM with a value as the vendor API does. It
// Duplicates the value into UB from address 0 (the API is documented for use before
// TPipe::InitBuffer), then copies it out on MTE3 behind a V -> MTE3 flag. Nothing waits for
// those copies at the end, so, as documented, the caller adds an MTE3_MTE2 flag before UB is
// reused and a SyncAll before other blocks touch the memory; the checker reports the hazard
// where either is missing. Often used to zero an output before SetAtomicAdd.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "npusim_ascendc/data_copy.h"
#include "npusim_ascendc/sync.h"
#include "npusim_ascendc/vector.h"

namespace AscendC {

template <class T>
void InitGlobalMemory(const GlobalTensor<T>& gm, const std::uint64_t size, const T value,
                      Loc loc = Loc::current()) {
    static_assert(npusim::Element<T>,
                  "npusim Ascend C: InitGlobalMemory<T>: T must be float, half, int32_t or int8_t "
                  "(uint16_t, int16_t and uint32_t are not element types of npusim yet)");
    if (size == 0) return;
    if (size * sizeof(T) % 32 != 0) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) + "InitGlobalMemory of " +
                                  std::to_string(size * sizeof(T)) +
                                  " bytes: only multiples of 32 bytes are supported yet");
    }
    constexpr std::uint64_t kScratchBytes = 16 * 1024;  // UB from address 0, one chunk
    const std::uint64_t chunk = std::min<std::uint64_t>(size, kScratchBytes / sizeof(T));
    const LocalTensor<T> scratch(npusim::LocalTensor<T>{npusim::MemSpace::UB, 0, chunk},
                                 TPosition::VECCALC);
    Duplicate(scratch, value, static_cast<std::int32_t>(chunk), loc);
    const auto id =
        static_cast<std::int32_t>(npusim::ascendc::context(loc).event_ids().framework_id(
            npusim::Pipe::V, npusim::Pipe::MTE3, loc));
    SetFlag<HardEvent::V_MTE3>(id, loc);
    WaitFlag<HardEvent::V_MTE3>(id, loc);
    for (std::uint64_t offset = 0; offset < size; offset += chunk) {
        DataCopy(gm[offset], scratch, static_cast<std::uint32_t>(std::min(chunk, size - offset)),
                 loc);
    }
}

/// InitOutput (the advanced API's spelling): InitGlobalMemory.
template <class T>
void InitOutput(const GlobalTensor<T>& gm, const std::uint64_t size, const T value,
                Loc loc = Loc::current()) {
    InitGlobalMemory(gm, size, value, loc);
}

/// Fill (the advanced API's GM form, lib/utils/init_global_memory.h): InitGlobalMemory on a
/// vector core; on a cube core it does nothing, as the vendor's A2 implementation (the AIC has
/// no UB): a cube-only kernel's Fill leaves GM as it was.
template <class T>
void Fill(const GlobalTensor<T>& gm, const std::uint64_t size, const T value,
          Loc loc = Loc::current()) {
    if (npusim::ascendc::context(loc).block().core_type() == npusim::CoreType::Cube) return;
    InitGlobalMemory(gm, size, value, loc);
}

}  // namespace AscendC
