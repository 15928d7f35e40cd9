// register/op_def.h: the operator definition of an operator project's op_host source
// (class XCustom : public OpDef { Input/Output/Attr, SetInferShape, AICore().SetTiling(...)
// .AddConfig("ascend910b") } OP_ADD(XCustom)). The definition is what an aclnn call checks its
// arguments against (data types, required inputs) and how it finds the tiling function
// (npusim_ascendc/op_runtime.h). Parts with no role in an aclnn call on npusim are accepted and
// recorded (formats, AICore configs); parts npusim does not model are compile errors naming
// them (docs/ascendc.md).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "npusim_ascendc/op_types.h"

namespace ops {

enum Option {
    IGNORE = 0,
    OPTIONAL = 1,
    REQUIRED = 2,
    DYNAMIC = 3,
    VIRTUAL = 4,
};
/// What a ValueDepend input's values serve (both: the tiling function on npusim).
enum class DependScope { ALL = 0, TILING = 1 };

using TilingKernelFunc = ge::graphStatus (*)(gert::TilingContext*);
using InferShapeKernelFunc = ge::graphStatus (*)(gert::InferShapeContext*);
using InferDataTypeKernelFunc = ge::graphStatus (*)(gert::InferDataTypeContext*);

/// One input or output: its name, kind and the data types / formats it accepts (column j of
/// every parameter's list together is one supported combination).
class OpParamDef {
public:
    explicit OpParamDef(std::string name) : m_name(std::move(name)) {}
    OpParamDef& ParamType(Option type) {
        m_type = type;
        return *this;
    }
    OpParamDef& DataType(std::vector<ge::DataType> types) {
        m_types = std::move(types);
        m_type_list = false;
        return *this;
    }
    /// Every type in the list, with any combination of the other parameters.
    OpParamDef& DataTypeList(std::vector<ge::DataType> types) {
        m_types = std::move(types);
        m_type_list = true;
        return *this;
    }
    OpParamDef& Format(std::vector<ge::Format> formats) {
        m_formats = std::move(formats);
        return *this;
    }
    OpParamDef& FormatList(std::vector<ge::Format> formats) { return Format(std::move(formats)); }
    OpParamDef& UnknownShapeFormat(std::vector<ge::Format> formats) {
        return Format(std::move(formats));
    }
    /// Non-contiguous tensors are made contiguous by the framework; npusim's aclTensors are.
    OpParamDef& AutoContiguous() { return *this; }
    OpParamDef& IgnoreContiguous() { return *this; }
    /// The tiling function reads the input's values on the host (GetInputTensor(i)->GetData):
    /// the generated API takes an aclIntArray / aclFloatArray / aclBoolArray for it (and a
    /// <Op>TensorGetWorkspaceSize variant takes a device tensor).
    OpParamDef& ValueDepend(Option option, DependScope = DependScope::ALL) {
        m_value_depend = option;
        return *this;
    }
    /// The generated API takes an aclScalar for the input; the kernel gets it as a one-element
    /// tensor of the scalar's data type, or of To(type) / To("<input>")'s.
    OpParamDef& Scalar() {
        m_scalar = true;
        return *this;
    }
    OpParamDef& To(ge::DataType type) {
        m_scalar_to = type;
        return *this;
    }
    OpParamDef& To(const char* input) {
        m_scalar_to_input = input;
        return *this;
    }
    template <class T = void>
    OpParamDef& ScalarList() {
        static_assert(sizeof(T) == 0,
                      "npusim: OpParamDef::ScalarList (aclScalarList inputs) is not supported yet "
                      "(docs/ascendc.md)");
        return *this;
    }

    const std::string& name() const { return m_name; }
    Option type() const { return m_type; }
    const std::vector<ge::DataType>& types() const { return m_types; }
    bool type_list() const { return m_type_list; }
    bool value_depend() const { return m_value_depend != IGNORE; }
    bool scalar() const { return m_scalar; }
    ge::DataType scalar_to() const { return m_scalar_to; }
    const std::string& scalar_to_input() const { return m_scalar_to_input; }

private:
    std::string m_name;
    Option m_type = REQUIRED;
    Option m_value_depend = IGNORE;
    bool m_scalar = false;
    ge::DataType m_scalar_to = ge::DT_UNDEFINED;
    std::string m_scalar_to_input;
    std::vector<ge::DataType> m_types;
    bool m_type_list = false;
    std::vector<ge::Format> m_formats;
};

/// One attribute: its name, whether the caller must give it, and its type and default.
class OpAttrDef {
public:
    enum class Kind { Unset, Int, Float, Bool, String, ListInt, ListFloat, ListBool };
    explicit OpAttrDef(std::string name) : m_name(std::move(name)) {}
    OpAttrDef& AttrType(Option type) {
        m_type = type;
        return *this;
    }
    OpAttrDef& Int(std::int64_t value = 0) { return set(Kind::Int, value); }
    OpAttrDef& Float(float value = 0.0F) { return set(Kind::Float, value); }
    OpAttrDef& Bool(bool value = false) { return set(Kind::Bool, value); }
    OpAttrDef& String(const char* value = "") { return set(Kind::String, std::string(value)); }
    OpAttrDef& ListInt(std::vector<std::int64_t> value = {}) {
        return set(Kind::ListInt, std::move(value));
    }
    OpAttrDef& ListFloat(std::vector<float> value = {}) {
        return set(Kind::ListFloat, std::move(value));
    }
    OpAttrDef& ListBool(std::vector<bool> value = {}) {
        return set(Kind::ListBool, std::move(value));
    }

    const std::string& name() const { return m_name; }
    Option type() const { return m_type; }
    Kind kind() const { return m_kind; }
    const gert::AttrValue& default_value() const { return m_default; }

private:
    OpAttrDef& set(Kind kind, gert::AttrValue value) {
        m_kind = kind;
        m_default = std::move(value);
        return *this;
    }
    std::string m_name;
    Option m_type = REQUIRED;
    Kind m_kind = Kind::Unset;
    gert::AttrValue m_default;
};

/// A per-chip configuration (AddConfig(soc, config)): accepted and recorded; npusim runs the
/// op on the chip of the process.
class OpAICoreConfig {
public:
    OpAICoreConfig() = default;
    explicit OpAICoreConfig(const char*) {}
    OpParamDef& Input(const char* name) { return m_params.emplace_back(name); }
    OpParamDef& Output(const char* name) { return m_params.emplace_back(name); }
    OpAICoreConfig& DynamicCompileStaticFlag(bool) { return *this; }
    OpAICoreConfig& DynamicFormatFlag(bool) { return *this; }
    OpAICoreConfig& DynamicRankSupportFlag(bool) { return *this; }
    OpAICoreConfig& DynamicShapeSupportFlag(bool) { return *this; }
    OpAICoreConfig& NeedCheckSupportFlag(bool) { return *this; }
    OpAICoreConfig& PrecisionReduceFlag(bool) { return *this; }
    OpAICoreConfig& ExtendCfgInfo(const char*, const char*) { return *this; }

private:
    std::deque<OpParamDef> m_params;
};

class OpAICoreDef {
public:
    OpAICoreDef& SetTiling(TilingKernelFunc tiling) {
        m_tiling = tiling;
        return *this;
    }
    OpAICoreDef& AddConfig(const char* soc) {
        m_socs.emplace_back(soc);
        return *this;
    }
    OpAICoreDef& AddConfig(const char* soc, OpAICoreConfig&) { return AddConfig(soc); }
    template <class F>
    OpAICoreDef& SetCheckSupport(F) {
        static_assert(sizeof(F) == 0,
                      "npusim: OpAICoreDef::SetCheckSupport is not supported yet "
                      "(docs/ascendc.md)");
        return *this;
    }
    template <class F>
    OpAICoreDef& SetOpSelectFormat(F) {
        static_assert(sizeof(F) == 0,
                      "npusim: OpAICoreDef::SetOpSelectFormat is not supported yet "
                      "(docs/ascendc.md)");
        return *this;
    }
    TilingKernelFunc tiling() const { return m_tiling; }

private:
    TilingKernelFunc m_tiling = nullptr;
    std::vector<std::string> m_socs;
};

class OpDef {
public:
    explicit OpDef(const char* type) : m_type(type) {}
    virtual ~OpDef() = default;
    OpDef(const OpDef&) = delete;
    OpDef& operator=(const OpDef&) = delete;

    OpParamDef& Input(const char* name) { return m_inputs.emplace_back(name); }
    OpParamDef& Output(const char* name) { return m_outputs.emplace_back(name); }
    OpAttrDef& Attr(const char* name) { return m_attrs.emplace_back(name); }
    OpDef& SetInferShape(InferShapeKernelFunc infer) {
        m_infer_shape = infer;
        return *this;
    }
    OpDef& SetInferDataType(InferDataTypeKernelFunc infer) {
        m_infer_data_type = infer;
        return *this;
    }
    template <class F>
    OpDef& SetInferShapeRange(F) {
        return *this;  // graph mode only
    }
    OpAICoreDef& AICore() { return m_aicore; }
    template <class T = void>
    OpDef& MC2() {
        static_assert(sizeof(T) == 0,
                      "npusim: OpDef::MC2 (communication fused ops) is not supported yet "
                      "(docs/ascendc.md)");
        return *this;
    }

    const std::string& type() const { return m_type; }
    const std::deque<OpParamDef>& inputs() const { return m_inputs; }
    const std::deque<OpParamDef>& outputs() const { return m_outputs; }
    const std::deque<OpAttrDef>& attrs() const { return m_attrs; }
    InferShapeKernelFunc infer_shape() const { return m_infer_shape; }
    InferDataTypeKernelFunc infer_data_type() const { return m_infer_data_type; }
    const OpAICoreDef& aicore() const { return m_aicore; }

private:
    std::string m_type;
    // Deques: a reference the definition holds on to stays valid as parameters are added.
    std::deque<OpParamDef> m_inputs;
    std::deque<OpParamDef> m_outputs;
    std::deque<OpAttrDef> m_attrs;
    InferShapeKernelFunc m_infer_shape = nullptr;
    InferDataTypeKernelFunc m_infer_data_type = nullptr;
    OpAICoreDef m_aicore;
};

}  // namespace ops
