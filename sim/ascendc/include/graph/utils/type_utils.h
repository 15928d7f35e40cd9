// graph/utils/type_utils.h as operator projects' tiling functions include it: the bytes of a
// data type's element (ge::TypeUtils::GetDataTypeLength) and its name.
#pragma once

#include <cstdint>
#include <string>

#include "npusim_ascendc/op_types.h"

namespace ge {

class TypeUtils {
public:
    /// The bytes of one element of `type` in `length`; false (length unchanged) for a type
    /// without a size (DT_UNDEFINED).
    static bool GetDataTypeLength(DataType type, std::uint32_t& length) {
        const int size = GetSizeByDataType(type);
        if (size <= 0) return false;
        length = static_cast<std::uint32_t>(size);
        return true;
    }
    /// "DT_FLOAT16" and the like.
    static std::string DataTypeToSerialString(DataType type) { return to_string(type); }
};

}  // namespace ge
