// register/op_def_registry.h as an operator project's op_host source includes it: the
// operator definition (register/op_def.h), the graph-side types (ge::, gert::TilingContext),
// the platform queries (tiling/platform/platform_ascendc.h) and OP_ADD, which registers the
// definition under the class's name for the generated aclnn API (npusim_add_ascendc_op).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <iostream>  // the vendor's register headers bring it (op_host sources print with std::cout)
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "register/op_def.h"
#include "tiling/platform/platform_ascendc.h"

namespace npusim::ascendc::op {

using OpFactory = std::function<std::unique_ptr<ops::OpDef>()>;

/// The operator definitions OP_ADD registered, by op type.
inline std::map<std::string, OpFactory, std::less<>>& op_registry() {
    static std::map<std::string, OpFactory, std::less<>> ops;
    return ops;
}
inline bool add_op(const char* type, OpFactory factory) {
    op_registry()[type] = std::move(factory);
    return true;
}

}  // namespace npusim::ascendc::op

/// OP_ADD(XCustom): registers class XCustom (constructed with its name) as op type "XCustom".
/// Written with or without a trailing `;`.
#define OP_ADD(opType, ...)                                                                        \
    [[maybe_unused]] static const bool npusim_op_added_##opType = ::npusim::ascendc::op::add_op(   \
        #opType, [] { return std::unique_ptr<::ops::OpDef>(std::make_unique<opType>(#opType)); }); \
    [[maybe_unused]] static void npusim_op_added_fn_##opType() {}
