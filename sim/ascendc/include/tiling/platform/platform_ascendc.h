// The host side's platform queries as kernel-launch and op hosts use them
// (platform_ascendc::PlatformAscendCManager::GetInstance()): the core counts of the chip the
// process simulates (NPUSIM_CHIP) and the system workspace size GetUserWorkspace skips.
#pragma once

#include <cstdint>

#include "npusim_ascendc/process.h"
#include "npusim_ascendc/workspace.h"

namespace platform_ascendc {

class PlatformAscendC {
public:
    /// The system workspace the library APIs reserve (16 MiB, as on A2).
    std::uint32_t GetLibApiWorkSpaceSize() const {
        return static_cast<std::uint32_t>(npusim::ascendc::kSysWorkspaceBytes);
    }
    std::uint32_t GetCoreNumAiv() const { return static_cast<std::uint32_t>(chip().vector_cores); }
    std::uint32_t GetCoreNumAic() const { return static_cast<std::uint32_t>(chip().cube_cores); }
    /// The AI cores a vector kernel spreads over (the vendor's GetCoreNum on A2: the AIV count).
    std::uint32_t GetCoreNum() const { return GetCoreNumAiv(); }

private:
    static const npusim::ChipConfig& chip() { return npusim::ascendc::Process::get().sim().chip(); }
};

class PlatformAscendCManager {
public:
    /// `socVersion` is accepted and ignored: the chip is the process's (NPUSIM_CHIP).
    static PlatformAscendC* GetInstance(const char* socVersion = nullptr) {
        (void)socVersion;
        static PlatformAscendC platform;
        return &platform;
    }
};

}  // namespace platform_ascendc
