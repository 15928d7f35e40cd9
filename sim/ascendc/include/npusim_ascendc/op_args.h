// The arguments of a generated aclnn API (npusim_add_ascendc_op) as the op runtime sees them
// (npusim_ascendc/op_runtime.h): each input and output is one OpArg, made by arg() from what
// the caller passed:
//   - an aclTensor (a plain parameter; for a ValueDepend input of the <Op>TensorGetWorkspaceSize
//     variant, its values are read from the device);
//   - an aclTensorList (a DYNAMIC parameter): the kernel gets one GM address, a ListTensorDesc
//     block the runtime writes (list_tensor_desc_bytes);
//   - an aclIntArray / aclFloatArray / aclBoolArray (a ValueDepend input): a 1-D tensor of
//     DT_INT64 / DT_FLOAT / DT_BOOL whose values the tiling function reads on the host and the
//     kernel in GM;
//   - an aclScalar (a Scalar input): a tensor of shape [1] of the scalar's data type, or of the
//     definition's To(...) type, converted.
// Attribute arguments become gert::AttrValue (attr_value).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl_fp16.h"
#include "acl/acl_op_host.h"
#include "aclnn/acl_meta.h"
#include "npusim_ascendc/op_types.h"

namespace npusim::ascendc::op {

struct OpArg {
    enum class Kind { Tensor, List, Values };
    Kind kind = Kind::Tensor;
    bool given = false;  // false: the caller passed null
    const aclTensor* tensor = nullptr;
    const aclTensorList* list = nullptr;
    // Kind::Values: host values of `type`, `count` elements (shape [count]); `scalar`: an
    // aclScalar (converted by the definition's To).
    std::vector<unsigned char> bytes;
    aclDataType type = ACL_DT_UNDEFINED;
    std::int64_t count = 0;
    bool scalar = false;
};

inline OpArg arg(const aclTensor* tensor) {
    OpArg a;
    a.given = tensor != nullptr;
    a.tensor = tensor;
    return a;
}
inline OpArg arg(const aclTensorList* list) {
    OpArg a;
    a.kind = OpArg::Kind::List;
    a.given = list != nullptr;
    a.list = list;
    return a;
}
template <class T, class Stored>
OpArg values_arg(const std::vector<Stored>* values, aclDataType type) {
    OpArg a;
    a.kind = OpArg::Kind::Values;
    a.given = values != nullptr;
    a.type = type;
    if (values == nullptr) return a;
    a.count = static_cast<std::int64_t>(values->size());
    for (const Stored value : *values) {
        const T element = static_cast<T>(value);
        const auto* raw = reinterpret_cast<const unsigned char*>(&element);
        a.bytes.insert(a.bytes.end(), raw, raw + sizeof(T));
    }
    return a;
}
inline OpArg arg(const aclIntArray* array) {
    return values_arg<std::int64_t>(array != nullptr ? &array->values : nullptr, ACL_INT64);
}
inline OpArg arg(const aclFloatArray* array) {
    return values_arg<float>(array != nullptr ? &array->values : nullptr, ACL_FLOAT);
}
inline OpArg arg(const aclBoolArray* array) {
    return values_arg<std::uint8_t>(array != nullptr ? &array->values : nullptr, ACL_BOOL);
}
inline OpArg arg(const aclScalar* scalar) {
    OpArg a;
    a.kind = OpArg::Kind::Values;
    a.scalar = true;
    a.given = scalar != nullptr;
    if (scalar == nullptr) return a;
    a.type = scalar->data_type;
    a.count = 1;
    a.bytes = scalar->bytes;
    return a;
}

/// One value of `type` at `raw` as a double (false: a type npusim does not convert).
inline bool read_number(aclDataType type, const unsigned char* raw, double& out) {
    auto get = [&](auto sample) {
        decltype(sample) value;
        std::memcpy(&value, raw, sizeof(value));
        out = static_cast<double>(value);
        return true;
    };
    switch (type) {
        case ACL_FLOAT:
            return get(float{});
        case ACL_DOUBLE:
            return get(double{});
        case ACL_FLOAT16: {
            aclFloat16 half = 0;
            std::memcpy(&half, raw, sizeof(half));
            out = aclFloat16ToFloat(half);
            return true;
        }
        case ACL_BF16: {
            std::uint16_t high = 0;
            std::memcpy(&high, raw, sizeof(high));
            const std::uint32_t bits = static_cast<std::uint32_t>(high) << 16;
            float value = 0;
            std::memcpy(&value, &bits, sizeof(value));
            out = value;
            return true;
        }
        case ACL_INT8:
            return get(std::int8_t{});
        case ACL_UINT8:
        case ACL_BOOL:
            return get(std::uint8_t{});
        case ACL_INT16:
            return get(std::int16_t{});
        case ACL_UINT16:
            return get(std::uint16_t{});
        case ACL_INT32:
            return get(std::int32_t{});
        case ACL_UINT32:
            return get(std::uint32_t{});
        case ACL_INT64:
            return get(std::int64_t{});
        case ACL_UINT64:
            return get(std::uint64_t{});
        case ACL_DT_UNDEFINED:
            break;
    }
    return false;
}

/// `value` as the bytes of one element of `type` (false: a type npusim does not convert).
inline bool write_number(aclDataType type, double value, std::vector<unsigned char>& out) {
    auto put = [&](auto element) {
        out.resize(sizeof(element));
        std::memcpy(out.data(), &element, sizeof(element));
        return true;
    };
    switch (type) {
        case ACL_FLOAT:
            return put(static_cast<float>(value));
        case ACL_DOUBLE:
            return put(value);
        case ACL_FLOAT16:
            return put(aclFloatToFloat16(static_cast<float>(value)));
        case ACL_BF16: {
            const float f = static_cast<float>(value);
            std::uint32_t bits = 0;
            std::memcpy(&bits, &f, sizeof(bits));
            bits += 0x7FFFu + ((bits >> 16) & 1u);  // round to nearest even
            return put(static_cast<std::uint16_t>(bits >> 16));
        }
        case ACL_INT8:
            return put(static_cast<std::int8_t>(value));
        case ACL_UINT8:
            return put(static_cast<std::uint8_t>(value));
        case ACL_BOOL:
            return put(static_cast<std::uint8_t>(value != 0.0 ? 1 : 0));
        case ACL_INT16:
            return put(static_cast<std::int16_t>(value));
        case ACL_UINT16:
            return put(static_cast<std::uint16_t>(value));
        case ACL_INT32:
            return put(static_cast<std::int32_t>(value));
        case ACL_UINT32:
            return put(static_cast<std::uint32_t>(value));
        case ACL_INT64:
            return put(static_cast<std::int64_t>(value));
        case ACL_UINT64:
            return put(static_cast<std::uint64_t>(value));
        case ACL_DT_UNDEFINED:
            break;
    }
    return false;
}

/// The ListTensorDesc block of a DYNAMIC parameter (npusim_ascendc/list_tensor.h's layout):
/// word 0 ptrOffset, per tensor a word with its dim count (low 32 bits) and its index in the
/// list (high 32 bits) and its storage shape, then one data address per tensor.
inline std::vector<unsigned char> list_tensor_desc_bytes(const aclTensorList& list) {
    std::vector<std::uint64_t> words{0};
    for (std::size_t i = 0; i < list.tensors.size(); ++i) {
        const aclTensor& tensor = *list.tensors[i];
        const auto& dims = tensor.storage_dims.empty() ? tensor.view_dims : tensor.storage_dims;
        words.push_back(dims.size() | (static_cast<std::uint64_t>(i) << 32));
        for (const std::int64_t dim : dims) words.push_back(static_cast<std::uint64_t>(dim));
    }
    words[0] = words.size() * sizeof(std::uint64_t);
    for (const aclTensor* tensor : list.tensors) {
        words.push_back(static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(tensor->data)));
    }
    std::vector<unsigned char> bytes(words.size() * sizeof(std::uint64_t));
    std::memcpy(bytes.data(), words.data(), bytes.size());
    return bytes;
}

// Attribute arguments of the generated API, as the tiling function reads them.
inline gert::AttrValue attr_value(std::int64_t value) {
    return value;
}
inline gert::AttrValue attr_value(double value) {
    return static_cast<float>(value);
}
inline gert::AttrValue attr_value(bool value) {
    return value;
}
inline gert::AttrValue attr_value(const char* value) {
    return std::string(value != nullptr ? value : "");
}
inline gert::AttrValue attr_value(const aclIntArray* value) {
    return value != nullptr ? value->values : std::vector<std::int64_t>{};
}
inline gert::AttrValue attr_value(const aclFloatArray* value) {
    return value != nullptr ? value->values : std::vector<float>{};
}
inline gert::AttrValue attr_value(const aclBoolArray* value) {
    return value != nullptr ? value->values : std::vector<bool>{};
}

}  // namespace npusim::ascendc::op
