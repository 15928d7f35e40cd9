// The graph-side types an operator project's host code uses (register/op_def_registry.h):
// ge::DataType, ge::Format, ge::graphStatus, and the gert contexts the tiling, shape-inference
// and data-type-inference functions receive (gert::TilingContext and its shapes, tensors,
// descriptions and attributes). npusim fills a TilingContext from the aclnn call's tensors and
// attributes and the chip config (npusim_ascendc/op_runtime.h). Numeric values of the enums
// are the documented ones (docs/ascendc.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "npusim_ascendc/ge_data_type.h"

namespace fe {
/// The platform handle TilingContext::GetPlatformInfo returns; PlatformAscendC(handle) answers
/// from the chip config of the process (tiling/platform/platform_ascendc.h).
class PlatFormInfos {};
}  // namespace fe

namespace ge {

enum Format {
    FORMAT_NCHW = 0,
    FORMAT_NHWC = 1,
    FORMAT_ND = 2,
    FORMAT_NC1HWC0 = 3,
    FORMAT_FRACTAL_Z = 4,
    FORMAT_FRACTAL_NZ = 29,
    FORMAT_RESERVED = 40,
};
using graphStatus = std::uint32_t;
constexpr graphStatus GRAPH_SUCCESS = 0;
constexpr graphStatus GRAPH_FAILED = 0xFFFFFFFF;

/// The size in bytes of one element of `type` (graph/types.h's GetSizeByDataType); -1 for
/// DT_UNDEFINED.
inline int GetSizeByDataType(DataType type) {
    switch (type) {
        case DT_INT8:
        case DT_UINT8:
        case DT_BOOL:
            return 1;
        case DT_FLOAT16:
        case DT_BF16:
        case DT_INT16:
        case DT_UINT16:
            return 2;
        case DT_FLOAT:
        case DT_INT32:
        case DT_UINT32:
            return 4;
        case DT_INT64:
        case DT_UINT64:
        case DT_DOUBLE:
            return 8;
        case DT_UNDEFINED:
            return -1;
    }
    return -1;
}

/// The name of a data type as messages print it ("DT_FLOAT16").
inline std::string to_string(DataType type) {
    switch (type) {
        case DT_FLOAT:
            return "DT_FLOAT";
        case DT_FLOAT16:
            return "DT_FLOAT16";
        case DT_INT8:
            return "DT_INT8";
        case DT_INT32:
            return "DT_INT32";
        case DT_UINT8:
            return "DT_UINT8";
        case DT_INT16:
            return "DT_INT16";
        case DT_UINT16:
            return "DT_UINT16";
        case DT_UINT32:
            return "DT_UINT32";
        case DT_INT64:
            return "DT_INT64";
        case DT_UINT64:
            return "DT_UINT64";
        case DT_DOUBLE:
            return "DT_DOUBLE";
        case DT_BOOL:
            return "DT_BOOL";
        case DT_BF16:
            return "DT_BF16";
        case DT_UNDEFINED:
            return "DT_UNDEFINED";
    }
    return "data type " + std::to_string(static_cast<int>(type));
}

}  // namespace ge

namespace gert {

class Shape {
public:
    Shape() = default;
    Shape(std::initializer_list<std::int64_t> dims) : m_dims(dims) {}
    std::size_t GetDimNum() const { return m_dims.size(); }
    std::int64_t GetDim(std::size_t index) const {
        return index < m_dims.size() ? m_dims[index] : 0;
    }
    void SetDim(std::size_t index, std::int64_t value) {
        if (index < m_dims.size()) m_dims[index] = value;
    }
    void SetDimNum(std::size_t count) { m_dims.resize(count, 0); }
    Shape& AppendDim(std::int64_t value) {
        m_dims.push_back(value);
        return *this;
    }
    /// The element count (1 for a scalar shape).
    std::int64_t GetShapeSize() const {
        std::int64_t size = 1;
        for (const std::int64_t dim : m_dims) size *= dim;
        return size;
    }
    bool IsScalar() const { return m_dims.empty(); }
    std::int64_t operator[](std::size_t index) const { return GetDim(index); }
    std::int64_t& operator[](std::size_t index) { return m_dims.at(index); }
    bool operator==(const Shape& other) const { return m_dims == other.m_dims; }
    bool operator!=(const Shape& other) const { return !(*this == other); }

private:
    std::vector<std::int64_t> m_dims;
};

/// A tensor's shape as the caller views it (origin) and as it is stored (storage).
class StorageShape {
public:
    StorageShape() = default;
    StorageShape(Shape origin, Shape storage)
        : m_origin(std::move(origin)), m_storage(std::move(storage)) {}
    const Shape& GetOriginShape() const { return m_origin; }
    const Shape& GetStorageShape() const { return m_storage; }
    Shape& MutableOriginShape() { return m_origin; }
    Shape& MutableStorageShape() { return m_storage; }
    bool operator==(const StorageShape& other) const {
        return m_origin == other.m_origin && m_storage == other.m_storage;
    }

private:
    Shape m_origin;
    Shape m_storage;
};

/// A tensor's data type and formats, as the tiling function sees them.
class CompileTimeTensorDesc {
public:
    CompileTimeTensorDesc() = default;
    CompileTimeTensorDesc(ge::DataType type, ge::Format format) : m_type(type), m_format(format) {}
    ge::DataType GetDataType() const { return m_type; }
    ge::Format GetOriginFormat() const { return m_format; }
    ge::Format GetStorageFormat() const { return m_format; }

private:
    ge::DataType m_type = ge::DT_UNDEFINED;
    ge::Format m_format = ge::FORMAT_ND;
};

/// An input or output of the call: shapes, data type, format (no host data: GetData is not
/// supported, the data is on the device).
class Tensor {
public:
    Tensor() = default;
    Tensor(StorageShape shape, ge::DataType type, ge::Format format)
        : m_shape(std::move(shape)), m_type(type), m_format(format) {}
    std::int64_t GetShapeSize() const { return m_shape.GetStorageShape().GetShapeSize(); }
    const Shape& GetOriginShape() const { return m_shape.GetOriginShape(); }
    const Shape& GetStorageShape() const { return m_shape.GetStorageShape(); }
    const StorageShape& GetShape() const { return m_shape; }
    ge::DataType GetDataType() const { return m_type; }
    ge::Format GetOriginFormat() const { return m_format; }
    ge::Format GetStorageFormat() const { return m_format; }

private:
    StorageShape m_shape;
    ge::DataType m_type = ge::DT_UNDEFINED;
    ge::Format m_format = ge::FORMAT_ND;
};

/// A list attribute's values (GetListInt, GetListFloat).
template <class T>
class TypedContinuousVector {
public:
    TypedContinuousVector() = default;
    explicit TypedContinuousVector(std::vector<T> values) : m_values(std::move(values)) {}
    std::size_t GetSize() const { return m_values.size(); }
    const T* GetData() const { return m_values.data(); }

private:
    std::vector<T> m_values;
};
using ContinuousVector = TypedContinuousVector<std::int64_t>;

/// One attribute value: Int attributes are int64_t, Float float, Bool bool, String a string,
/// ListInt / ListFloat typed vectors.
using AttrValue = std::variant<std::int64_t, float, bool, std::string,
                               TypedContinuousVector<std::int64_t>, TypedContinuousVector<float>>;

class RuntimeAttrs {
public:
    RuntimeAttrs() = default;
    explicit RuntimeAttrs(std::vector<AttrValue> values) : m_values(std::move(values)) {}
    std::size_t GetAttrNum() const { return m_values.size(); }
    /// The attribute at `index` when it holds a T, else null.
    template <class T>
    const T* GetAttrPointer(std::size_t index) const {
        if (index >= m_values.size()) return nullptr;
        if constexpr (std::is_same_v<T, char>) {
            const auto* text = std::get_if<std::string>(&m_values[index]);
            return text != nullptr ? text->c_str() : nullptr;
        } else {
            return std::get_if<T>(&m_values[index]);
        }
    }
    const std::int64_t* GetInt(std::size_t index) const {
        return GetAttrPointer<std::int64_t>(index);
    }
    const float* GetFloat(std::size_t index) const { return GetAttrPointer<float>(index); }
    const bool* GetBool(std::size_t index) const { return GetAttrPointer<bool>(index); }
    const char* GetStr(std::size_t index) const { return GetAttrPointer<char>(index); }
    const TypedContinuousVector<std::int64_t>* GetListInt(std::size_t index) const {
        return GetAttrPointer<TypedContinuousVector<std::int64_t>>(index);
    }
    const TypedContinuousVector<float>* GetListFloat(std::size_t index) const {
        return GetAttrPointer<TypedContinuousVector<float>>(index);
    }

private:
    std::vector<AttrValue> m_values;
};

/// The raw tiling-data buffer the tiling function writes (SaveToBuffer + SetDataSize).
class TilingData {
public:
    explicit TilingData(std::size_t capacity) : m_bytes(capacity, 0) {}
    void* GetData() { return m_bytes.data(); }
    const void* GetData() const { return m_bytes.data(); }
    std::size_t GetCapacity() const { return m_bytes.size(); }
    std::size_t GetDataSize() const { return m_size; }
    void SetDataSize(std::size_t size) { m_size = size; }

private:
    std::vector<unsigned char> m_bytes;
    std::size_t m_size = 0;
};

/// What the shape, data-type and tiling contexts have in common: the call's inputs and
/// outputs (by their index in the op definition; an absent optional input is null) and its
/// attributes.
class OpCallView {
public:
    struct Parameter {
        bool present = false;
        Tensor tensor;
        CompileTimeTensorDesc desc;
    };
    std::vector<Parameter> inputs;
    std::vector<Parameter> outputs;
    RuntimeAttrs attrs;
    std::string node_type;

    const StorageShape* input_shape(std::size_t index) const {
        return index < inputs.size() && inputs[index].present ? &inputs[index].tensor.GetShape()
                                                              : nullptr;
    }
    const Tensor* input_tensor(std::size_t index) const {
        return index < inputs.size() && inputs[index].present ? &inputs[index].tensor : nullptr;
    }
    const CompileTimeTensorDesc* input_desc(std::size_t index) const {
        return index < inputs.size() && inputs[index].present ? &inputs[index].desc : nullptr;
    }
    const StorageShape* output_shape(std::size_t index) const {
        return index < outputs.size() ? &outputs[index].tensor.GetShape() : nullptr;
    }
    const Tensor* output_tensor(std::size_t index) const {
        return index < outputs.size() ? &outputs[index].tensor : nullptr;
    }
    const CompileTimeTensorDesc* output_desc(std::size_t index) const {
        return index < outputs.size() ? &outputs[index].desc : nullptr;
    }
};

/// The tiling function's context. GetInputShape(i) etc. index the op definition's inputs.
class TilingContext {
public:
    TilingContext(const OpCallView& call, fe::PlatFormInfos* platform, std::size_t capacity)
        : m_call(call), m_platform(platform), m_tiling(capacity) {}

    const StorageShape* GetInputShape(std::size_t index) const { return m_call.input_shape(index); }
    const StorageShape* GetOptionalInputShape(std::size_t index) const {
        return m_call.input_shape(index);
    }
    const StorageShape* GetOutputShape(std::size_t index) const {
        return m_call.output_shape(index);
    }
    const Tensor* GetInputTensor(std::size_t index) const { return m_call.input_tensor(index); }
    const Tensor* GetOptionalInputTensor(std::size_t index) const {
        return m_call.input_tensor(index);
    }
    const Tensor* GetOutputTensor(std::size_t index) const { return m_call.output_tensor(index); }
    const CompileTimeTensorDesc* GetInputDesc(std::size_t index) const {
        return m_call.input_desc(index);
    }
    const CompileTimeTensorDesc* GetOptionalInputDesc(std::size_t index) const {
        return m_call.input_desc(index);
    }
    const CompileTimeTensorDesc* GetOutputDesc(std::size_t index) const {
        return m_call.output_desc(index);
    }
    const RuntimeAttrs* GetAttrs() const { return &m_call.attrs; }
    const char* GetNodeType() const { return m_call.node_type.c_str(); }
    const char* GetNodeName() const { return m_call.node_type.c_str(); }
    fe::PlatFormInfos* GetPlatformInfo() const { return m_platform; }

    std::uint32_t SetBlockDim(std::uint32_t block_dim) {
        m_block_dim = block_dim;
        return ge::GRAPH_SUCCESS;
    }
    std::uint32_t GetBlockDim() const { return m_block_dim; }
    std::uint32_t SetTilingKey(std::uint64_t key) {
        m_tiling_key = key;
        return ge::GRAPH_SUCCESS;
    }
    std::uint64_t GetTilingKey() const { return m_tiling_key; }
    /// `count` workspace sizes in bytes (the first includes the system workspace the library
    /// APIs reserve); the aclnn call's workspace is their sum.
    std::size_t* GetWorkspaceSizes(std::size_t count) {
        if (m_workspaces.size() < count) m_workspaces.resize(count, 0);
        return m_workspaces.data();
    }
    std::size_t GetWorkspaceNum() const { return m_workspaces.size(); }
    TilingData* GetRawTilingData() { return &m_tiling; }
    /// The tiling buffer as a T (a plain struct the kernel reads with GET_TILING_DATA):
    /// sets the data size to sizeof(T).
    template <class T>
    T* GetTilingData() {
        static_assert(std::is_trivially_copyable_v<T>, "tiling data must be a plain struct");
        if (sizeof(T) > m_tiling.GetCapacity()) return nullptr;
        m_tiling.SetDataSize(sizeof(T));
        return static_cast<T*>(m_tiling.GetData());
    }
    /// Batch mode (the kernel owns all its cores); recorded, npusim launches every op in the
    /// normal schedule mode unless 1 (batch) is set.
    std::uint32_t SetScheduleMode(std::uint32_t mode) {
        m_schedule_mode = mode;
        return ge::GRAPH_SUCCESS;
    }
    std::uint32_t GetScheduleMode() const { return m_schedule_mode; }
    /// The op accumulates into its outputs with atomic adds: aclnn<Op> zeroes every output on
    /// the stream before the launch, as the framework's atomic clean does.
    std::uint32_t SetNeedAtomic(bool atomic) {
        m_need_atomic = atomic;
        return ge::GRAPH_SUCCESS;
    }
    bool GetNeedAtomic() const { return m_need_atomic; }
    template <class T = void>
    const T* GetCompileInfo() const {
        static_assert(sizeof(T) == 0,
                      "npusim: TilingContext::GetCompileInfo (TilingParse) is not supported yet "
                      "(docs/ascendc.md)");
        return nullptr;
    }

    const std::vector<std::size_t>& workspaces() const { return m_workspaces; }

private:
    const OpCallView& m_call;
    fe::PlatFormInfos* m_platform;
    TilingData m_tiling;
    std::uint32_t m_block_dim = 0;
    std::uint64_t m_tiling_key = 0;
    std::uint32_t m_schedule_mode = 0;
    bool m_need_atomic = false;
    std::vector<std::size_t> m_workspaces;
};

/// The shape-inference function's context: the inputs' shapes, the outputs' to fill.
class InferShapeContext {
public:
    InferShapeContext(const OpCallView& call, std::vector<Shape>& outputs)
        : m_call(call), m_outputs(outputs) {}
    const Shape* GetInputShape(std::size_t index) const {
        const StorageShape* shape = m_call.input_shape(index);
        return shape != nullptr ? &shape->GetOriginShape() : nullptr;
    }
    const Shape* GetOptionalInputShape(std::size_t index) const { return GetInputShape(index); }
    Shape* GetOutputShape(std::size_t index) {
        return index < m_outputs.size() ? &m_outputs[index] : nullptr;
    }
    const RuntimeAttrs* GetAttrs() const { return &m_call.attrs; }
    const char* GetNodeType() const { return m_call.node_type.c_str(); }
    const char* GetNodeName() const { return m_call.node_type.c_str(); }

private:
    const OpCallView& m_call;
    std::vector<Shape>& m_outputs;
};

/// The data-type-inference function's context.
class InferDataTypeContext {
public:
    InferDataTypeContext(const OpCallView& call, std::vector<ge::DataType>& outputs)
        : m_call(call), m_outputs(outputs) {}
    ge::DataType GetInputDataType(std::size_t index) const {
        const CompileTimeTensorDesc* desc = m_call.input_desc(index);
        return desc != nullptr ? desc->GetDataType() : ge::DT_UNDEFINED;
    }
    ge::DataType GetOptionalInputDataType(std::size_t index) const {
        return GetInputDataType(index);
    }
    ge::graphStatus SetOutputDataType(std::size_t index, ge::DataType type) {
        if (index >= m_outputs.size()) return ge::GRAPH_FAILED;
        m_outputs[index] = type;
        return ge::GRAPH_SUCCESS;
    }
    const RuntimeAttrs* GetAttrs() const { return &m_call.attrs; }
    const char* GetNodeType() const { return m_call.node_type.c_str(); }

private:
    const OpCallView& m_call;
    std::vector<ge::DataType>& m_outputs;
};

/// Shape-range inference (dynamic shapes in graph mode) has no role in an aclnn call.
class InferShapeRangeContext;

}  // namespace gert
