// The host side's platform queries as kernel-launch and op hosts use them
// (platform_ascendc::PlatformAscendCManager::GetInstance(), or PlatformAscendC(
// context->GetPlatformInfo()) in an op project's tiling function): the core counts and memory
// sizes of the chip the running host program simulates (else the process's, NPUSIM_CHIP) and
// the system workspace size GetUserWorkspace skips.
#pragma once

#include <cstdint>

#include "acl/acl_base.h"
#include "base/chip_config.h"
#include "base/errors.h"
#include "npusim_ascendc/workspace.h"

namespace fe {
class PlatFormInfos;
}

namespace npusim::ascendc {
/// The chip of the process (npusim_ascendc/process.h registers it), for platform queries made
/// outside a host program (a CPU-debug host before its first launch). This header stays light
/// so that op_host sources compile fast.
inline const ChipConfig& (*g_process_chip)() = nullptr;
}  // namespace npusim::ascendc

namespace platform_ascendc {

/// The memories GetCoreMemSize answers for (one core's; L2 and HBM the chip's).
enum class CoreMemType { L0_A = 0, L0_B = 1, L0_C = 2, L1 = 3, L2 = 4, UB = 5, HBM = 6, RESERVED };
enum class SocVersion { ASCEND910 = 0, ASCEND910B, ASCEND310P, ASCEND310B, RESERVED_VERSION };

class PlatformAscendC {
public:
    PlatformAscendC() = default;
    /// An op project's tiling function: PlatformAscendC(context->GetPlatformInfo()).
    explicit PlatformAscendC(fe::PlatFormInfos* platform) { (void)platform; }
    /// An npusim extension: answers for `chip` (programs that run their own Simulator).
    explicit PlatformAscendC(const npusim::ChipConfig& chip) : m_chip(&chip) {}
    /// The memory sizes of the process's chip config.
    void GetCoreMemSize(CoreMemType type, std::uint64_t& size) const {
        const npusim::ChipConfig& c = chip();
        switch (type) {
            case CoreMemType::L0_A:
                size = c.l0a_bytes;
                return;
            case CoreMemType::L0_B:
                size = c.l0b_bytes;
                return;
            case CoreMemType::L0_C:
                size = c.l0c_bytes;
                return;
            case CoreMemType::L1:
                size = c.l1_bytes;
                return;
            case CoreMemType::L2:
                size = c.l2_bytes;
                return;
            case CoreMemType::UB:
                size = c.ub_bytes;
                return;
            case CoreMemType::HBM:
                size = c.gm_bytes;
                return;
            case CoreMemType::RESERVED:
                break;
        }
        size = 0;
    }
    /// npusim's chips model the A2 (Ascend910B) generation.
    SocVersion GetSocVersion() const { return SocVersion::ASCEND910B; }
    /// The system workspace the library APIs reserve (16 MiB, as on A2).
    std::uint32_t GetLibApiWorkSpaceSize() const {
        return static_cast<std::uint32_t>(npusim::ascendc::kSysWorkspaceBytes);
    }
    std::uint32_t GetCoreNumAiv() const { return static_cast<std::uint32_t>(chip().vector_cores); }
    std::uint32_t GetCoreNumAic() const { return static_cast<std::uint32_t>(chip().cube_cores); }
    /// The AI cores a vector kernel spreads over (the vendor's GetCoreNum on A2: the AIV count).
    std::uint32_t GetCoreNum() const { return GetCoreNumAiv(); }
    /// The block dim of a mixed (cube + vector) kernel whose work is `sliceNum` AIV slices:
    /// each block has aivCoreNum / aicCoreNum AIVs, so ceil(sliceNum / that ratio); sliceNum
    /// itself when either count is 0 (a vector-only or cube-only op) or there are fewer AIVs
    /// than AICs.
    std::uint32_t CalcTschBlockDim(std::uint32_t sliceNum, std::uint32_t aicCoreNum,
                                   std::uint32_t aivCoreNum) const {
        if (aicCoreNum == 0 || aivCoreNum == 0 || aicCoreNum > aivCoreNum) return sliceNum;
        const std::uint32_t ratio = aivCoreNum / aicCoreNum;
        return (sliceNum + ratio - 1) / ratio;
    }

private:
    /// The chip given at construction, else the running host program's
    /// (npusim::acl::run_host), else the process's.
    const npusim::ChipConfig& chip() const {
        if (m_chip != nullptr) return *m_chip;
        if (npusim::acl::g_host.chip != nullptr) return *npusim::acl::g_host.chip;
        if (npusim::ascendc::g_process_chip != nullptr) return npusim::ascendc::g_process_chip();
        throw npusim::UsageError(
            "platform_ascendc: a platform query outside a host program of a process that "
            "runs none (include npusim_ascendc/process.h or run the program with run_host)");
    }
    const npusim::ChipConfig* m_chip = nullptr;
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
