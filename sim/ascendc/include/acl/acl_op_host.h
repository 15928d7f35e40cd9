// ACL data types, formats, tensor descriptions and data buffers (acl/acl.h), as the host
// programs of operator projects use them to describe an op's inputs and outputs
// (aclCreateTensorDesc, aclGetTensorDescSize, aclCreateDataBuffer, ...), plus the run-mode
// query and the stream synchronization with a timeout. Host-side only: no simulated cost.
// The enums' values are the documented ones (docs/ascendc.md); they equal ge::DataType's and
// ge::Format's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "acl/acl_base.h"
#include "acl/acl_stream.h"

enum aclDataType {
    ACL_DT_UNDEFINED = -1,
    ACL_FLOAT = 0,
    ACL_FLOAT16 = 1,
    ACL_INT8 = 2,
    ACL_INT32 = 3,
    ACL_UINT8 = 4,
    ACL_INT16 = 6,
    ACL_UINT16 = 7,
    ACL_UINT32 = 8,
    ACL_INT64 = 9,
    ACL_UINT64 = 10,
    ACL_DOUBLE = 11,
    ACL_BOOL = 12,
    ACL_BF16 = 27,
};
enum aclFormat {
    ACL_FORMAT_UNDEFINED = -1,
    ACL_FORMAT_NCHW = 0,
    ACL_FORMAT_NHWC = 1,
    ACL_FORMAT_ND = 2,
    ACL_FORMAT_NC1HWC0 = 3,
    ACL_FORMAT_FRACTAL_Z = 4,
    ACL_FORMAT_FRACTAL_NZ = 29,
};
enum aclrtRunMode {
    ACL_DEVICE = 0,
    ACL_HOST = 1,
};

/// Bytes per element (0 for ACL_DT_UNDEFINED).
inline std::size_t aclDataTypeSize(aclDataType dataType) {
    switch (dataType) {
        case ACL_INT8:
        case ACL_UINT8:
        case ACL_BOOL:
            return 1;
        case ACL_FLOAT16:
        case ACL_BF16:
        case ACL_INT16:
        case ACL_UINT16:
            return 2;
        case ACL_FLOAT:
        case ACL_INT32:
        case ACL_UINT32:
            return 4;
        case ACL_INT64:
        case ACL_UINT64:
        case ACL_DOUBLE:
            return 8;
        case ACL_DT_UNDEFINED:
            break;
    }
    return 0;
}

struct aclTensorDesc {
    aclDataType data_type = ACL_DT_UNDEFINED;
    std::vector<std::int64_t> dims;
    aclFormat format = ACL_FORMAT_ND;
};
inline aclTensorDesc* aclCreateTensorDesc(aclDataType dataType, int numDims,
                                          const std::int64_t* dims, aclFormat format) {
    if (numDims < 0 || (numDims > 0 && dims == nullptr)) return nullptr;
    return new aclTensorDesc{dataType, std::vector<std::int64_t>(dims, dims + numDims), format};
}
inline void aclDestroyTensorDesc(const aclTensorDesc* desc) {
    delete desc;
}
inline aclDataType aclGetTensorDescType(const aclTensorDesc* desc) {
    return desc != nullptr ? desc->data_type : ACL_DT_UNDEFINED;
}
inline aclFormat aclGetTensorDescFormat(const aclTensorDesc* desc) {
    return desc != nullptr ? desc->format : ACL_FORMAT_UNDEFINED;
}
inline std::size_t aclGetTensorDescNumDims(const aclTensorDesc* desc) {
    return desc != nullptr ? desc->dims.size() : 0;
}
inline aclError aclGetTensorDescDimV2(const aclTensorDesc* desc, std::size_t index,
                                      std::int64_t* dimSize) {
    if (desc == nullptr || dimSize == nullptr || index >= desc->dims.size()) {
        return ACL_ERROR_INVALID_PARAM;
    }
    *dimSize = desc->dims[index];
    return ACL_SUCCESS;
}
inline std::size_t aclGetTensorDescElementCount(const aclTensorDesc* desc) {
    if (desc == nullptr) return 0;
    std::size_t count = 1;
    for (const std::int64_t dim : desc->dims) count *= static_cast<std::size_t>(dim);
    return count;
}
inline std::size_t aclGetTensorDescSize(const aclTensorDesc* desc) {
    return desc != nullptr ? aclGetTensorDescElementCount(desc) * aclDataTypeSize(desc->data_type)
                           : 0;
}

struct aclDataBuffer {
    void* data = nullptr;
    std::size_t size = 0;
};
inline aclDataBuffer* aclCreateDataBuffer(void* data, std::size_t size) {
    return new aclDataBuffer{data, size};
}
inline aclError aclDestroyDataBuffer(const aclDataBuffer* buffer) {
    delete buffer;
    return ACL_SUCCESS;
}
inline void* aclGetDataBufferAddr(const aclDataBuffer* buffer) {
    return buffer != nullptr ? buffer->data : nullptr;
}
inline std::size_t aclGetDataBufferSizeV2(const aclDataBuffer* buffer) {
    return buffer != nullptr ? buffer->size : 0;
}

/// npusim's host programs run on the host (ACL_HOST).
inline aclError aclrtGetRunMode(aclrtRunMode* runMode) {
    if (runMode == nullptr) return ACL_ERROR_INVALID_PARAM;
    *runMode = ACL_HOST;
    return ACL_SUCCESS;
}

/// The timeout (ms; -1 none) is not modelled: the host waits until the stream's work is done
/// (simulated time), as aclrtSynchronizeStream.
inline aclError aclrtSynchronizeStreamWithTimeout(
    aclrtStream stream, std::int32_t timeout,
    npusim::acl::Where where = npusim::acl::Where::current()) {
    (void)timeout;
    return aclrtSynchronizeStream(stream, where);
}
