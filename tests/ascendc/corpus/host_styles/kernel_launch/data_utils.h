// This sample's data helpers: they include acl/acl.h on both branches and convert half data
// with aclFloat16, as the helpers that ship with most samples do.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"

inline std::vector<aclFloat16> ToHalf(const std::vector<float>& values) {
    std::vector<aclFloat16> out(values.size());
    for (size_t i = 0; i < values.size(); ++i) out[i] = aclFloatToFloat16(values[i]);
    return out;
}

inline int CheckHalf(const char* name, const aclFloat16* got, const std::vector<float>& want) {
    for (size_t i = 0; i < want.size(); ++i) {
        const float value = aclFloat16ToFloat(got[i]);
        if (std::fabs(value - want[i]) > 1e-2f * (1.0f + std::fabs(want[i]))) {
            std::printf("%s: output WRONG at %zu: %f, expected %f\n", name, i, value, want[i]);
            return 1;
        }
    }
    std::printf("%s: output OK\n", name);
    return 0;
}

inline int CheckFloat(const char* name, const float* got, const std::vector<float>& want) {
    for (size_t i = 0; i < want.size(); ++i) {
        if (std::fabs(got[i] - want[i]) > 1e-5f) {
            std::printf("%s: output WRONG at %zu: %f, expected %f\n", name, i, got[i], want[i]);
            return 1;
        }
    }
    std::printf("%s: output OK\n", name);
    return 0;
}
