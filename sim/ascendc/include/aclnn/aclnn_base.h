// aclnn/aclnn_base.h: the status type and codes of the aclnn two-phase API (numeric values
// as documented, docs/ascendc.md) and the executor handle aclnn<Op>GetWorkspaceSize returns.
#pragma once

#include <cstdint>

using aclnnStatus = std::int32_t;
constexpr aclnnStatus ACLNN_SUCCESS = 0;
constexpr aclnnStatus ACLNN_ERR_PARAM_NULLPTR = 161001;
constexpr aclnnStatus ACLNN_ERR_PARAM_INVALID = 161002;
constexpr aclnnStatus ACLNN_ERR_RUNTIME_ERROR = 361001;
constexpr aclnnStatus ACLNN_ERR_INNER = 561000;
constexpr aclnnStatus ACLNN_ERR_INNER_INFERSHAPE_ERROR = 561001;
constexpr aclnnStatus ACLNN_ERR_INNER_TILING_ERROR = 561002;
constexpr aclnnStatus ACLNN_ERR_INNER_FIND_KERNEL_ERROR = 561003;

/// One prepared call (npusim_ascendc/op_runtime.h): what the tiling function chose. It is
/// used by one aclnn<Op> call, which releases it.
struct aclOpExecutor;
