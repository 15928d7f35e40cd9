#include "base/kernel_type.h"

namespace npusim {

std::string_view to_string(KernelType type) {
    switch (type) {
        case KernelType::AIV_ONLY:
            return "AIV_ONLY";
        case KernelType::AIC_ONLY:
            return "AIC_ONLY";
        case KernelType::MIX_AIV_1_0:
            return "MIX_AIV_1_0";
        case KernelType::MIX_AIC_1_0:
            return "MIX_AIC_1_0";
        case KernelType::MIX_AIC_1_1:
            return "MIX_AIC_1_1";
        case KernelType::MIX_AIC_1_2:
            return "MIX_AIC_1_2";
    }
    return "?";
}

std::uint32_t vector_cores_per_block(KernelType type) {
    switch (type) {
        case KernelType::AIV_ONLY:
        case KernelType::MIX_AIV_1_0:
        case KernelType::MIX_AIC_1_1:
            return 1;
        case KernelType::MIX_AIC_1_2:
            return 2;
        case KernelType::AIC_ONLY:
        case KernelType::MIX_AIC_1_0:
            return 0;
    }
    return 0;
}

std::uint32_t cube_cores_per_block(KernelType type) {
    switch (type) {
        case KernelType::AIC_ONLY:
        case KernelType::MIX_AIC_1_0:
        case KernelType::MIX_AIC_1_1:
        case KernelType::MIX_AIC_1_2:
            return 1;
        case KernelType::AIV_ONLY:
        case KernelType::MIX_AIV_1_0:
            return 0;
    }
    return 0;
}

namespace {

// "a-b", or "a" for a range of one id.
std::string id_range(std::uint32_t first, std::uint32_t last) {
    return first == last ? std::to_string(first)
                         : std::to_string(first) + "-" + std::to_string(last);
}

}  // namespace

std::string hard_sync_all_flag_id_rule() {
    const CrossCoreFlagIdRange reserved = kHardSyncAllFlagIds;
    std::string usable;
    if (reserved.first > 0) usable = id_range(0, reserved.first - 1);
    if (reserved.last + 1 < kCrossCoreFlagIds) {
        usable +=
            (usable.empty() ? "" : " or ") + id_range(reserved.last + 1, kCrossCoreFlagIds - 1);
    }
    return "use ids " + usable + " in kernels that call hard SyncAll; hard SyncAll uses " +
           id_range(reserved.first, reserved.last) + " internally";
}

std::uint32_t blocks_at_once(KernelType type, std::uint32_t vector_cores,
                             std::uint32_t cube_cores) {
    const std::uint32_t vectors = vector_cores_per_block(type);
    if (cube_cores_per_block(type) == 0) return vector_cores;
    if (vectors == 0) return cube_cores;
    std::uint32_t clusters = 0;
    for (std::uint32_t c = 0; c < cube_cores; ++c) {
        if (2 * std::uint64_t{c} + vectors - 1 < vector_cores) ++clusters;
    }
    return clusters;
}

}  // namespace npusim
