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
#include "npusim_ascendc/op_attrs.h"

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

/// An input or output of the call: shapes, data type, format, and for a ValueDepend or Scalar
/// input its values on the host (GetData; null for the other tensors, whose data is on the
/// device only).
class Tensor {
public:
    Tensor() = default;
    Tensor(StorageShape shape, ge::DataType type, ge::Format format)
        : m_shape(std::move(shape)), m_type(type), m_format(format) {}
    template <class T = void>
    const T* GetData() const {
        return m_host.empty() ? nullptr : reinterpret_cast<const T*>(m_host.data());
    }
    /// The host values (npusim fills them for ValueDepend and Scalar inputs).
    void set_host_data(const std::vector<unsigned char>& bytes) {
        m_host.assign((bytes.size() + 7) / 8, 0);
        if (!bytes.empty()) std::memcpy(m_host.data(), bytes.data(), bytes.size());
    }
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
    std::vector<std::uint64_t> m_host;  // 8-byte aligned
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

/// How many tensors an input or output of the definition has in the call (a DYNAMIC one: its
/// list's length) and the instance index of its first (ComputeNodeInfo::GetInputInstanceInfo).
class AnchorInstanceInfo {
public:
    AnchorInstanceInfo(std::size_t start, std::size_t count) : m_start(start), m_count(count) {}
    std::size_t GetInstanceStart() const { return m_start; }
    std::size_t GetInstanceNum() const { return m_count; }

private:
    std::size_t m_start;
    std::size_t m_count;
};

/// What the shape, data-type and tiling contexts have in common: the call's inputs and
/// outputs and its attributes. Each input and output of the definition (by its index there,
/// the IR index) has its instances: one for a plain one (not present when an optional input is
/// absent), the list's tensors for a DYNAMIC one. GetInputShape(i) and the like count
/// instances (an absent optional input keeps its place); GetDynamicInputShape(ir, k) and
/// GetOptionalInputShape(ir) take the IR index.
class OpCallView {
public:
    struct Parameter {
        bool present = false;
        Tensor tensor;
        CompileTimeTensorDesc desc;
    };
    std::vector<std::vector<Parameter>> inputs;
    std::vector<std::vector<Parameter>> outputs;
    RuntimeAttrs attrs;
    std::string node_type;

    static const Parameter* instance(const std::vector<std::vector<Parameter>>& params,
                                     std::size_t index) {
        for (const auto& instances : params) {
            if (index < instances.size()) {
                return instances[index].present ? &instances[index] : nullptr;
            }
            index -= instances.size();
        }
        return nullptr;
    }
    static const Parameter* of_ir(const std::vector<std::vector<Parameter>>& params, std::size_t ir,
                                  std::size_t k) {
        if (ir >= params.size() || k >= params[ir].size() || !params[ir][k].present) {
            return nullptr;
        }
        return &params[ir][k];
    }
    static std::size_t count(const std::vector<std::vector<Parameter>>& params) {
        std::size_t n = 0;
        for (const auto& instances : params) n += instances.size();
        return n;
    }
    static AnchorInstanceInfo info(const std::vector<std::vector<Parameter>>& params,
                                   std::size_t ir) {
        std::size_t start = 0;
        for (std::size_t i = 0; i < ir && i < params.size(); ++i) start += params[i].size();
        return {start, ir < params.size() ? params[ir].size() : 0};
    }
};

/// The op's node in the call: its inputs' and outputs' instance counts.
class ComputeNodeInfo {
public:
    explicit ComputeNodeInfo(const OpCallView& call) {
        for (std::size_t i = 0; i < call.inputs.size(); ++i) {
            m_inputs.push_back(OpCallView::info(call.inputs, i));
        }
        for (std::size_t i = 0; i < call.outputs.size(); ++i) {
            m_outputs.push_back(OpCallView::info(call.outputs, i));
        }
        m_input_count = OpCallView::count(call.inputs);
        m_output_count = OpCallView::count(call.outputs);
        m_type = call.node_type;
    }
    const AnchorInstanceInfo* GetInputInstanceInfo(std::size_t ir) const {
        return ir < m_inputs.size() ? &m_inputs[ir] : nullptr;
    }
    const AnchorInstanceInfo* GetOutputInstanceInfo(std::size_t ir) const {
        return ir < m_outputs.size() ? &m_outputs[ir] : nullptr;
    }
    std::size_t GetIrInputsNum() const { return m_inputs.size(); }
    std::size_t GetIrOutputsNum() const { return m_outputs.size(); }
    std::size_t GetInputsNum() const { return m_input_count; }
    std::size_t GetOutputsNum() const { return m_output_count; }
    const char* GetNodeType() const { return m_type.c_str(); }
    const char* GetNodeName() const { return m_type.c_str(); }

private:
    std::vector<AnchorInstanceInfo> m_inputs;
    std::vector<AnchorInstanceInfo> m_outputs;
    std::size_t m_input_count = 0;
    std::size_t m_output_count = 0;
    std::string m_type;
};

/// The tiling function's context. GetInputShape(i) etc. index the op definition's inputs.
class TilingContext {
public:
    TilingContext(const OpCallView& call, fe::PlatFormInfos* platform, std::size_t capacity)
        : m_call(call), m_node(call), m_platform(platform), m_tiling(capacity) {}

    const StorageShape* GetInputShape(std::size_t index) const {
        return shape(OpCallView::instance(m_call.inputs, index));
    }
    const StorageShape* GetOptionalInputShape(std::size_t ir) const {
        return shape(OpCallView::of_ir(m_call.inputs, ir, 0));
    }
    const StorageShape* GetDynamicInputShape(std::size_t ir, std::size_t k) const {
        return shape(OpCallView::of_ir(m_call.inputs, ir, k));
    }
    const StorageShape* GetOutputShape(std::size_t index) const {
        return shape(OpCallView::instance(m_call.outputs, index));
    }
    const StorageShape* GetDynamicOutputShape(std::size_t ir, std::size_t k) const {
        return shape(OpCallView::of_ir(m_call.outputs, ir, k));
    }
    const Tensor* GetInputTensor(std::size_t index) const {
        return tensor(OpCallView::instance(m_call.inputs, index));
    }
    const Tensor* GetOptionalInputTensor(std::size_t ir) const {
        return tensor(OpCallView::of_ir(m_call.inputs, ir, 0));
    }
    const Tensor* GetDynamicInputTensor(std::size_t ir, std::size_t k) const {
        return tensor(OpCallView::of_ir(m_call.inputs, ir, k));
    }
    const Tensor* GetOutputTensor(std::size_t index) const {
        return tensor(OpCallView::instance(m_call.outputs, index));
    }
    const CompileTimeTensorDesc* GetInputDesc(std::size_t index) const {
        return desc(OpCallView::instance(m_call.inputs, index));
    }
    const CompileTimeTensorDesc* GetOptionalInputDesc(std::size_t ir) const {
        return desc(OpCallView::of_ir(m_call.inputs, ir, 0));
    }
    const CompileTimeTensorDesc* GetDynamicInputDesc(std::size_t ir, std::size_t k) const {
        return desc(OpCallView::of_ir(m_call.inputs, ir, k));
    }
    const CompileTimeTensorDesc* GetOutputDesc(std::size_t index) const {
        return desc(OpCallView::instance(m_call.outputs, index));
    }
    const ComputeNodeInfo* GetComputeNodeInfo() const { return &m_node; }
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
    using Parameter = OpCallView::Parameter;
    static const StorageShape* shape(const Parameter* p) {
        return p != nullptr ? &p->tensor.GetShape() : nullptr;
    }
    static const Tensor* tensor(const Parameter* p) { return p != nullptr ? &p->tensor : nullptr; }
    static const CompileTimeTensorDesc* desc(const Parameter* p) {
        return p != nullptr ? &p->desc : nullptr;
    }
    const OpCallView& m_call;
    ComputeNodeInfo m_node;
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
        return origin(OpCallView::instance(m_call.inputs, index));
    }
    const Shape* GetOptionalInputShape(std::size_t ir) const {
        return origin(OpCallView::of_ir(m_call.inputs, ir, 0));
    }
    const Shape* GetDynamicInputShape(std::size_t ir, std::size_t k) const {
        return origin(OpCallView::of_ir(m_call.inputs, ir, k));
    }
    const Tensor* GetInputTensor(std::size_t index) const {
        const OpCallView::Parameter* p = OpCallView::instance(m_call.inputs, index);
        return p != nullptr ? &p->tensor : nullptr;
    }
    Shape* GetOutputShape(std::size_t index) {
        return index < m_outputs.size() ? &m_outputs[index] : nullptr;
    }
    const RuntimeAttrs* GetAttrs() const { return &m_call.attrs; }
    const char* GetNodeType() const { return m_call.node_type.c_str(); }
    const char* GetNodeName() const { return m_call.node_type.c_str(); }

private:
    static const Shape* origin(const OpCallView::Parameter* p) {
        return p != nullptr ? &p->tensor.GetOriginShape() : nullptr;
    }
    const OpCallView& m_call;
    std::vector<Shape>& m_outputs;
};

/// The data-type-inference function's context.
class InferDataTypeContext {
public:
    InferDataTypeContext(const OpCallView& call, std::vector<ge::DataType>& outputs)
        : m_call(call), m_outputs(outputs) {}
    ge::DataType GetInputDataType(std::size_t index) const {
        return type(OpCallView::instance(m_call.inputs, index));
    }
    ge::DataType GetOptionalInputDataType(std::size_t ir) const {
        return type(OpCallView::of_ir(m_call.inputs, ir, 0));
    }
    ge::DataType GetDynamicInputDataType(std::size_t ir, std::size_t k) const {
        return type(OpCallView::of_ir(m_call.inputs, ir, k));
    }
    ge::graphStatus SetOutputDataType(std::size_t index, ge::DataType type) {
        if (index >= m_outputs.size()) return ge::GRAPH_FAILED;
        m_outputs[index] = type;
        return ge::GRAPH_SUCCESS;
    }
    const RuntimeAttrs* GetAttrs() const { return &m_call.attrs; }
    const char* GetNodeType() const { return m_call.node_type.c_str(); }

private:
    static ge::DataType type(const OpCallView::Parameter* p) {
        return p != nullptr ? p->desc.GetDataType() : ge::DT_UNDEFINED;
    }
    const OpCallView& m_call;
    std::vector<ge::DataType>& m_outputs;
};

/// Shape-range inference (dynamic shapes in graph mode) has no role in an aclnn call.
class InferShapeRangeContext;

}  // namespace gert
