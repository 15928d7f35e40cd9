// aclnn/acl_meta.h: the argument handles of aclnn calls. An aclTensor describes device data
// (shape, strides, offset, data type, format, storage shape and the aclrtMalloc pointer);
// aclScalar, aclIntArray, aclFloatArray and aclBoolArray hold host values; aclTensorList and
// aclScalarList group tensors and scalars (a DYNAMIC input or output, a ScalarList input). The
// data types and formats are acl/acl_op_host.h's.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "acl/acl_op_host.h"
#include "aclnn/aclnn_base.h"

struct aclTensor {
    std::vector<std::int64_t> view_dims;
    std::vector<std::int64_t> strides;
    std::int64_t offset = 0;
    aclDataType data_type = ACL_FLOAT;
    aclFormat format = ACL_FORMAT_ND;
    std::vector<std::int64_t> storage_dims;
    void* data = nullptr;
};
struct aclScalar {
    aclDataType data_type = ACL_FLOAT;
    std::vector<unsigned char> bytes;
};
struct aclIntArray {
    std::vector<std::int64_t> values;
};
struct aclFloatArray {
    std::vector<float> values;
};
struct aclBoolArray {
    std::vector<bool> values;
};
/// Owns its tensors (aclDestroyTensorList destroys them, as the vendor's does).
struct aclTensorList {
    std::vector<const aclTensor*> tensors;
};
/// Owns its scalars (aclDestroyScalarList destroys them).
struct aclScalarList {
    std::vector<const aclScalar*> scalars;
};

/// A tensor over device memory `tensorData` (offset and strides in elements). Null dims with
/// a count other than 0 give null.
inline aclTensor* aclCreateTensor(const std::int64_t* viewDims, std::uint64_t viewDimsNum,
                                  aclDataType dataType, const std::int64_t* stride,
                                  std::int64_t offset, aclFormat format,
                                  const std::int64_t* storageDims, std::uint64_t storageDimsNum,
                                  void* tensorData) {
    if ((viewDims == nullptr && viewDimsNum != 0) ||
        (storageDims == nullptr && storageDimsNum != 0)) {
        return nullptr;
    }
    auto* tensor = new aclTensor;
    tensor->view_dims.assign(viewDims, viewDims + viewDimsNum);
    if (stride != nullptr) tensor->strides.assign(stride, stride + viewDimsNum);
    tensor->offset = offset;
    tensor->data_type = dataType;
    tensor->format = format;
    tensor->storage_dims.assign(storageDims, storageDims + storageDimsNum);
    tensor->data = tensorData;
    return tensor;
}
inline aclnnStatus aclDestroyTensor(const aclTensor* tensor) {
    delete tensor;
    return ACLNN_SUCCESS;
}
/// A scalar of `dataType` read from host memory `value` (sizes by data type).
inline aclScalar* aclCreateScalar(void* value, aclDataType dataType) {
    std::size_t bytes = 0;
    switch (dataType) {
        case ACL_INT8:
        case ACL_UINT8:
        case ACL_BOOL:
            bytes = 1;
            break;
        case ACL_FLOAT16:
        case ACL_BF16:
        case ACL_INT16:
        case ACL_UINT16:
            bytes = 2;
            break;
        case ACL_FLOAT:
        case ACL_INT32:
        case ACL_UINT32:
            bytes = 4;
            break;
        case ACL_INT64:
        case ACL_UINT64:
        case ACL_DOUBLE:
            bytes = 8;
            break;
        case ACL_DT_UNDEFINED:
            break;
    }
    if (value == nullptr || bytes == 0) return nullptr;
    auto* scalar = new aclScalar;
    scalar->data_type = dataType;
    scalar->bytes.resize(bytes);
    std::memcpy(scalar->bytes.data(), value, bytes);
    return scalar;
}
inline aclnnStatus aclDestroyScalar(const aclScalar* scalar) {
    delete scalar;
    return ACLNN_SUCCESS;
}
inline aclIntArray* aclCreateIntArray(const std::int64_t* value, std::uint64_t size) {
    if (value == nullptr && size != 0) return nullptr;
    return new aclIntArray{std::vector<std::int64_t>(value, value + size)};
}
inline aclnnStatus aclDestroyIntArray(const aclIntArray* array) {
    delete array;
    return ACLNN_SUCCESS;
}
inline aclFloatArray* aclCreateFloatArray(const float* value, std::uint64_t size) {
    if (value == nullptr && size != 0) return nullptr;
    return new aclFloatArray{std::vector<float>(value, value + size)};
}
inline aclnnStatus aclDestroyFloatArray(const aclFloatArray* array) {
    delete array;
    return ACLNN_SUCCESS;
}
inline aclBoolArray* aclCreateBoolArray(const bool* value, std::uint64_t size) {
    if (value == nullptr && size != 0) return nullptr;
    return new aclBoolArray{std::vector<bool>(value, value + size)};
}
inline aclnnStatus aclDestroyBoolArray(const aclBoolArray* array) {
    delete array;
    return ACLNN_SUCCESS;
}
/// A list of `size` tensors; the list owns them from now on. Null `value` with a size other
/// than 0 gives null.
inline aclTensorList* aclCreateTensorList(const aclTensor* const* value, std::uint64_t size) {
    if (value == nullptr && size != 0) return nullptr;
    return new aclTensorList{std::vector<const aclTensor*>(value, value + size)};
}
/// Destroys the list and its tensors (they must not be destroyed again).
inline aclnnStatus aclDestroyTensorList(const aclTensorList* list) {
    if (list != nullptr) {
        for (const aclTensor* tensor : list->tensors) delete tensor;
    }
    delete list;
    return ACLNN_SUCCESS;
}
inline aclnnStatus aclGetTensorListSize(const aclTensorList* list, std::uint64_t* size) {
    if (list == nullptr || size == nullptr) return ACLNN_ERR_PARAM_NULLPTR;
    *size = list->tensors.size();
    return ACLNN_SUCCESS;
}
inline aclScalarList* aclCreateScalarList(const aclScalar* const* value, std::uint64_t size) {
    if (value == nullptr && size != 0) return nullptr;
    return new aclScalarList{std::vector<const aclScalar*>(value, value + size)};
}
inline aclnnStatus aclDestroyScalarList(const aclScalarList* list) {
    if (list != nullptr) {
        for (const aclScalar* scalar : list->scalars) delete scalar;
    }
    delete list;
    return ACLNN_SUCCESS;
}
