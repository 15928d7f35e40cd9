// The host side's platform queries as kernel-launch and op hosts use them
// (platform_ascendc::PlatformAscendCManager::GetInstance()): the core counts and per-core
// memory sizes of the chip the process simulates (NPUSIM_CHIP), and the system workspace
// size GetUserWorkspace skips. PlatformAscendC(chip) (an npusim extension) answers for a
// given chip config instead, for programs that run their own Simulator.
#pragma once

#include <cstdint>

#include "npusim_ascendc/process.h"
#include "npusim_ascendc/workspace.h"

namespace platform_ascendc {

/// The memories GetCoreMemSize reports (per core; HBM: the whole GM).
enum class CoreMemType : std::uint8_t { L0_A, L0_B, L0_C, L1, L2, UB, HBM, RESERVED };

enum class SocVersion : std::uint8_t { ASCEND910B, RESERVED_VERSION };

class PlatformAscendC {
public:
    PlatformAscendC() = default;
    explicit PlatformAscendC(const npusim::ChipConfig& chip) : m_chip(&chip) {}

    /// The system workspace the library APIs reserve (16 MiB, as on A2).
    std::uint32_t GetLibApiWorkSpaceSize() const {
        return static_cast<std::uint32_t>(npusim::ascendc::kSysWorkspaceBytes);
    }
    std::uint32_t GetCoreNumAiv() const { return static_cast<std::uint32_t>(chip().vector_cores); }
    std::uint32_t GetCoreNumAic() const { return static_cast<std::uint32_t>(chip().cube_cores); }
    /// The AI cores a vector kernel spreads over (the vendor's GetCoreNum on A2: the AIV count).
    std::uint32_t GetCoreNum() const { return GetCoreNumAiv(); }
    /// npusim models A2-class parts only.
    SocVersion GetSocVersion() const { return SocVersion::ASCEND910B; }
    /// The size of one core's memory `type` in bytes (HBM: GM; L2: the chip's L2, 0 when
    /// the chip models none; RESERVED: 0).
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

private:
    const npusim::ChipConfig& chip() const {
        return m_chip != nullptr ? *m_chip : npusim::ascendc::Process::get().sim().chip();
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
