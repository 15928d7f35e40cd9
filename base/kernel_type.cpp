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

}  // namespace npusim
