// Workspaces: the GM scratch an op is launched with. The host allocates one buffer (its size:
// the system workspace the library APIs reserve plus what the kernel needs) and passes it as
// the kernel's `workspace` argument; the kernel finds its own part with GetUserWorkspace and
// hands the system part to the library APIs with SetSysWorkspace / GetSysWorkSpacePtr.
#pragma once

#include <cstdint>

#include "npusim_ascendc/basics.h"
#include "npusim_ascendc/gm_pointer.h"

namespace npusim::ascendc {
/// The system workspace the library APIs reserve at the start of the workspace: 16 MiB, the
/// size GetLibApiWorkSpaceSize reports on A2 (tiling/platform/platform_ascendc.h).
inline constexpr std::uint64_t kSysWorkspaceBytes = 16u * 1024 * 1024;
}  // namespace npusim::ascendc

namespace AscendC {

/// Records the workspace whose first kSysWorkspaceBytes the library APIs use.
inline void SetSysWorkspace(GM_ADDR workspace, Loc loc = Loc::current()) {
    npusim::ascendc::context(loc).set_sys_workspace(npusim::ascendc::gm_address(workspace, loc));
}
/// The workspace SetSysWorkspace recorded (null if it recorded null, as an op launched
/// without a workspace); a KernelError naming the line before any SetSysWorkspace.
inline GM_ADDR GetSysWorkSpacePtr(Loc loc = Loc::current()) {
    const npusim::ascendc::KernelContext& ctx = npusim::ascendc::context(loc);
    const std::uint64_t address = ctx.sys_workspace();
    if (!ctx.has_sys_workspace()) {
        throw npusim::KernelError(npusim::ascendc::EventIds::where(loc) +
                                  "GetSysWorkSpacePtr before SetSysWorkspace (no system "
                                  "workspace was set in this block)");
    }
    return npusim::ascendc::gm_pointer(address, loc);
}
/// The user's part of the workspace: after the system workspace. Null stays null (an op
/// launched without a workspace).
inline GM_ADDR GetUserWorkspace(GM_ADDR workspace) {
    if (workspace == nullptr) return nullptr;
    return workspace + npusim::ascendc::kSysWorkspaceBytes;
}

}  // namespace AscendC
