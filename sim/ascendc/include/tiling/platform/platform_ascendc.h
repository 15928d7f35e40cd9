// The host side's platform query for workspaces (what op hosts and kernel-launch hosts size
// the workspace with): GetLibApiWorkSpaceSize is the system workspace GetUserWorkspace skips.
#pragma once

#include <cstdint>

#include "npusim_ascendc/workspace.h"

namespace platform_ascendc {

class PlatformAscendC {
public:
    std::uint32_t GetLibApiWorkSpaceSize() const {
        return static_cast<std::uint32_t>(npusim::ascendc::kSysWorkspaceBytes);
    }
};

class PlatformAscendCManager {
public:
    static PlatformAscendC* GetInstance() {
        static PlatformAscendC platform;
        return &platform;
    }
};

}  // namespace platform_ascendc
