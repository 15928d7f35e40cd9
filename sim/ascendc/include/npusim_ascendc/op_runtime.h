// The runtime behind the aclnn two-phase API that npusim_add_ascendc_op generates for an
// operator project (docs/ascendc.md, "Operator projects").
//
// aclnn<Op>GetWorkspaceSize -> prepare(): finds the op's definition (OP_ADD), checks the
// arguments against it (required tensors present, data types one of the declared
// combinations; output shapes are the caller's, InferShape is not run), runs its tiling function
// with a gert::TilingContext built from the tensors, the attributes and the chip, and returns an
// executor holding what the tiling function chose (block dim, tiling key, tiling bytes,
// workspace sizes, schedule mode) and the workspace size (the sum of GetWorkspaceSizes).
// aclnn<Op> -> launch(): copies the tiling bytes into GM (on the stream, before the kernel)
// and launches the kernel with (inputs..., outputs..., workspace, tiling) on the stream, with
// the block dim and type chosen; TILING_KEY_IS in the kernel compares with the key chosen.
// Failures return the documented status code and set aclGetRecentErrMsg's message, which
// names the API and the reason. The tiling buffers (one per call, the tiling data's size
// rounded up to 32 bytes) stay allocated in GM until the host program returns; then npusim
// waits for the device and frees them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "acl/acl_base.h"
#include "acl/acl_memory.h"
#include "acl/acl_op_host.h"
#include "aclnn/acl_meta.h"
#include "kernel_operator.h"
#include "npusim_ascendc/op_args.h"
#include "register/op_def_registry.h"

struct aclOpExecutor {
    std::string op;
    std::uint32_t block_dim = 0;
    std::uint64_t tiling_key = 0;
    std::vector<unsigned char> tiling;
    std::uint64_t workspace = 0;
    std::uint32_t schedule_mode = 0;
    /// The data type combination (column of the definition's DataType lists) the tensors
    /// match: which of the op's per-combination kernels aclnn<Op> launches.
    std::size_t combination = 0;
    /// What the kernel gets for each input, then each output: a device address (null for an
    /// absent optional input), or bytes aclnn<Op> copies into GM first (a DYNAMIC parameter's
    /// ListTensorDesc block, a ValueDepend array's or a scalar's values).
    struct Arg {
        void* device = nullptr;
        bool staged = false;
        std::vector<unsigned char> bytes;
    };
    std::vector<Arg> args;
    /// Outputs zeroed before the launch (SetNeedAtomic): device address and bytes.
    std::vector<std::pair<void*, std::uint64_t>> zeroed;
};

namespace npusim::ascendc::op {

/// The kernel type of the launches of an op, by tiling key (KERNEL_TASK_TYPE), and for other
/// keys (KERNEL_TASK_TYPE_DEFAULT or the kernel's qualifier; AIV_ONLY when none).
struct KernelTypes {
    std::map<std::uint64_t, KernelType> by_key;
    KernelType other = KernelType::AIV_ONLY;
};

/// The tiling buffer's capacity (GetRawTilingData()->GetCapacity()).
constexpr std::size_t kTilingCapacity = 64 * 1024;

inline aclnnStatus fail(aclnnStatus status, const std::string& message) {
    acl::g_host.last_error = message;
    return status;
}

/// The op's definition, made once from its OP_ADD registration; null when none.
inline const ops::OpDef* definition(const std::string& type) {
    static std::map<std::string, std::unique_ptr<ops::OpDef>> made;
    if (const auto found = made.find(type); found != made.end()) return found->second.get();
    const auto& registry = op_registry();
    const auto factory = registry.find(type);
    if (factory == registry.end()) return nullptr;
    return made.emplace(type, factory->second()).first->second.get();
}

inline gert::OpCallView::Parameter parameter(const aclTensor* tensor) {
    gert::OpCallView::Parameter p;
    if (tensor == nullptr) return p;
    gert::Shape view;
    for (const std::int64_t dim : tensor->view_dims) view.AppendDim(dim);
    gert::Shape storage;
    for (const std::int64_t dim : tensor->storage_dims) storage.AppendDim(dim);
    if (tensor->storage_dims.empty()) storage = view;
    const auto type = static_cast<ge::DataType>(tensor->data_type);
    const auto format = static_cast<ge::Format>(tensor->format);
    p.present = true;
    p.tensor = gert::Tensor(gert::StorageShape(view, storage), type, format);
    p.desc = gert::CompileTimeTensorDesc(type, format);
    return p;
}

/// A tensor of host values (a ValueDepend array, a scalar): shape [count], ND.
inline gert::OpCallView::Parameter values_parameter(const op::OpArg& a) {
    gert::OpCallView::Parameter p;
    const gert::Shape shape{a.count};
    const auto type = static_cast<ge::DataType>(a.type);
    p.present = true;
    p.tensor = gert::Tensor(gert::StorageShape(shape, shape), type, ge::FORMAT_ND);
    p.tensor.set_host_data(a.bytes);
    p.desc = gert::CompileTimeTensorDesc(type, ge::FORMAT_ND);
    return p;
}

/// Whether `tensor` is a contiguous row-major view from its data pointer (null strides: yes);
/// npusim passes kernels the data pointer only.
inline bool contiguous(const aclTensor& tensor) {
    if (tensor.offset != 0) return false;
    if (tensor.strides.empty()) return true;
    std::int64_t expected = 1;
    for (std::size_t i = tensor.view_dims.size(); i-- > 0;) {
        if (tensor.view_dims[i] != 1 && tensor.strides[i] != expected) return false;
        expected *= tensor.view_dims[i];
    }
    return true;
}

/// The data type combination the call's tensors match (the first matching column of the
/// definition's DataType lists; 0 when no parameter declares several), else the message
/// saying why none does. Every tensor of a DYNAMIC parameter is checked.
struct TypeMatch {
    std::size_t column = 0;
    std::optional<std::string> error;
};
inline TypeMatch match_data_types(const ops::OpDef& def, const gert::OpCallView& call) {
    std::vector<std::pair<const ops::OpParamDef*, const gert::OpCallView::Parameter*>> params;
    for (std::size_t i = 0; i < def.inputs().size(); ++i) {
        for (const auto& instance : call.inputs[i]) {
            if (instance.present) params.emplace_back(&def.inputs()[i], &instance);
        }
    }
    for (std::size_t i = 0; i < def.outputs().size(); ++i) {
        for (const auto& instance : call.outputs[i])
            params.emplace_back(&def.outputs()[i], &instance);
    }
    std::size_t columns = 0;
    for (const auto& [param, _] : params) {
        if (!param->type_list()) columns = std::max(columns, param->types().size());
    }
    // A type no combination has: name the tensor and the types it may have.
    for (const auto& [param, arg] : params) {
        const ge::DataType type = arg->desc.GetDataType();
        const auto& types = param->types();
        if (types.empty() || std::find(types.begin(), types.end(), type) != types.end()) continue;
        std::string accepted;
        for (const ge::DataType t : types) {
            if (accepted.find(ge::to_string(t)) == std::string::npos) {
                accepted += (accepted.empty() ? "" : ", ") + ge::to_string(t);
            }
        }
        return {0, param->name() + " has data type " + ge::to_string(type) + "; " + def.type() +
                       " accepts " + accepted + " for it"};
    }
    if (columns == 0) return {};
    for (std::size_t column = 0; column < columns; ++column) {
        bool all = true;
        for (const auto& [param, arg] : params) {
            const auto& types = param->types();
            if (types.empty() || param->type_list()) continue;
            if (column >= types.size() || types[column] != arg->desc.GetDataType()) all = false;
        }
        if (all) return {column, std::nullopt};
    }
    std::string given;
    for (const auto& [param, arg] : params) {
        given += (given.empty() ? "" : ", ") + param->name() + " " +
                 ge::to_string(arg->desc.GetDataType());
    }
    return {0, "no data type combination of " + def.type() + " matches " + given};
}

/// One tensor argument checked (device data, contiguous); the message when it fails.
inline std::optional<std::string> check_tensor(const aclTensor* tensor, const std::string& what) {
    if (tensor == nullptr) return what + " is null";
    if (tensor->data == nullptr) return what + " has no device data (null pointer)";
    if (!contiguous(*tensor)) {
        return what +
               " is not a contiguous row-major view from its data (an offset or strides): not "
               "supported yet";
    }
    return std::nullopt;
}

/// The instances and the kernel argument of one input or output; the aclnn status and message
/// when the argument is wrong.
struct Bound {
    std::vector<gert::OpCallView::Parameter> instances;
    aclOpExecutor::Arg arg;
    aclnnStatus status = ACLNN_SUCCESS;
    std::string error;
};
inline Bound bind_argument(const ops::OpParamDef& param, const OpArg& a, const std::string& what) {
    Bound b;
    auto failed = [&](aclnnStatus status, std::string message) {
        b.status = status;
        b.error = std::move(message);
        return b;
    };
    if (!a.given) {
        if (param.type() != ops::OPTIONAL)
            return failed(ACLNN_ERR_PARAM_NULLPTR, what + " is null");
        b.instances.emplace_back();  // absent: keeps its place
        return b;
    }
    if (a.kind == OpArg::Kind::List) {
        for (std::size_t i = 0; i < a.list->tensors.size(); ++i) {
            const aclTensor* tensor = a.list->tensors[i];
            const std::string item = what + " [" + std::to_string(i) + "]";
            if (const auto error = check_tensor(tensor, item)) {
                return failed(tensor == nullptr || tensor->data == nullptr
                                  ? ACLNN_ERR_PARAM_NULLPTR
                                  : ACLNN_ERR_PARAM_INVALID,
                              *error);
            }
            b.instances.push_back(parameter(tensor));
        }
        b.arg.staged = true;
        b.arg.bytes = list_tensor_desc_bytes(*a.list);
        return b;
    }
    if (a.kind == OpArg::Kind::Values) {
        b.instances.push_back(values_parameter(a));
        b.arg.staged = true;
        b.arg.bytes = a.bytes;
        return b;
    }
    if (const auto error = check_tensor(a.tensor, what)) {
        return failed(a.tensor->data == nullptr ? ACLNN_ERR_PARAM_NULLPTR : ACLNN_ERR_PARAM_INVALID,
                      *error);
    }
    b.instances.push_back(parameter(a.tensor));
    b.arg.device = a.tensor->data;
    if (param.value_depend()) {
        // <Op>TensorGetWorkspaceSize: the tiling function reads the values on the host.
        const gert::Shape& shape = b.instances[0].tensor.GetStorageShape();
        const std::uint64_t bytes =
            aclDataTypeSize(a.tensor->data_type) *
            static_cast<std::uint64_t>(std::max<std::int64_t>(shape.GetShapeSize(), 0));
        std::vector<unsigned char> host(bytes);
        if (bytes > 0 && aclrtMemcpy(host.data(), bytes, a.tensor->data, bytes,
                                     ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS) {
            return failed(ACLNN_ERR_RUNTIME_ERROR,
                          "reading the values of " + what + " from the device failed");
        }
        b.instances[0].tensor.set_host_data(host);
    }
    return b;
}

/// A Scalar input's value converted to the definition's To type (To(type), or To("<input>"):
/// that input's data type); false with a message when it cannot be.
inline bool convert_scalar(const ops::OpDef& def, const ops::OpParamDef& param, OpArg& a,
                           const std::vector<OpArg>& inputs, std::string& error) {
    // No To: the scalar keeps its own data type.
    aclDataType to = param.scalar_to() == ge::DT_UNDEFINED
                         ? ACL_DT_UNDEFINED
                         : static_cast<aclDataType>(param.scalar_to());
    if (!param.scalar_to_input().empty()) {
        to = ACL_DT_UNDEFINED;
        for (std::size_t i = 0; i < def.inputs().size(); ++i) {
            if (def.inputs()[i].name() != param.scalar_to_input() || !inputs[i].given) continue;
            if (inputs[i].kind == OpArg::Kind::Tensor) to = inputs[i].tensor->data_type;
            if (inputs[i].kind == OpArg::Kind::Values) to = inputs[i].type;
            if (inputs[i].kind == OpArg::Kind::List && !inputs[i].list->tensors.empty() &&
                inputs[i].list->tensors[0] != nullptr) {
                to = inputs[i].list->tensors[0]->data_type;
            }
        }
        if (to == ACL_DT_UNDEFINED) {
            error = "scalar " + param.name() + " takes the data type of input " +
                    param.scalar_to_input() + ", which the call does not give";
            return false;
        }
    }
    if (to == ACL_DT_UNDEFINED || to == a.type) return true;
    double value = 0;
    std::vector<unsigned char> converted;
    if (!read_number(a.type, a.bytes.data(), value) || !write_number(to, value, converted)) {
        error = "scalar " + param.name() + " cannot be converted to data type " +
                ge::to_string(static_cast<ge::DataType>(to));
        return false;
    }
    a.type = to;
    a.bytes = std::move(converted);
    return true;
}

/// aclnn<Op>GetWorkspaceSize.
inline aclnnStatus prepare(const char* api, const char* type, std::vector<OpArg> inputs,
                           std::vector<gert::AttrValue> attrs, const std::vector<OpArg>& outputs,
                           std::uint64_t* workspace_size, aclOpExecutor** executor) {
    const std::string at = std::string(api) + ": ";
    if (workspace_size == nullptr || executor == nullptr) {
        return fail(ACLNN_ERR_PARAM_NULLPTR, at + "workspaceSize and executor must not be null");
    }
    const ops::OpDef* def = definition(type);
    if (def == nullptr) {
        return fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR,
                    at + "no operator definition registered as " + type + " (OP_ADD(" + type +
                        ") in the op_host sources)");
    }
    if (def->inputs().size() != inputs.size() || def->outputs().size() != outputs.size() ||
        def->attrs().size() != attrs.size()) {
        return fail(ACLNN_ERR_INNER, at + "the definition of " + def->type() +
                                         " has other inputs, outputs or attributes than the "
                                         "generated API (rebuild the op project)");
    }
    auto made = std::make_unique<aclOpExecutor>();
    gert::OpCallView call;
    call.node_type = def->type();
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const ops::OpParamDef& param = def->inputs()[i];
        std::string error;
        if (inputs[i].scalar && inputs[i].given &&
            !convert_scalar(*def, param, inputs[i], inputs, error)) {
            return fail(ACLNN_ERR_PARAM_INVALID, at + error);
        }
        Bound bound = bind_argument(param, inputs[i], "input " + param.name());
        if (bound.status != ACLNN_SUCCESS) return fail(bound.status, at + bound.error);
        call.inputs.push_back(std::move(bound.instances));
        made->args.push_back(std::move(bound.arg));
    }
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        const ops::OpParamDef& param = def->outputs()[i];
        Bound bound = bind_argument(param, outputs[i], "output " + param.name());
        if (bound.status != ACLNN_SUCCESS) return fail(bound.status, at + bound.error);
        call.outputs.push_back(std::move(bound.instances));
        made->args.push_back(std::move(bound.arg));
    }
    call.attrs = gert::RuntimeAttrs(attrs);
    const TypeMatch matched = match_data_types(*def, call);
    if (matched.error) return fail(ACLNN_ERR_PARAM_INVALID, at + *matched.error);
    try {
        // InferShape is not run: the vendor's single-op API takes the output shapes from the
        // caller's tensors (shape inference serves graph mode). Public projects whose
        // InferShape copies the input shape for a reduction run right on the device.
        const ops::TilingKernelFunc tiling = def->aicore().tiling();
        if (tiling == nullptr) {
            return fail(ACLNN_ERR_INNER_TILING_ERROR,
                        at + def->type() + " has no tiling function (AICore().SetTiling)");
        }
        fe::PlatFormInfos platform;
        gert::TilingContext context(call, &platform, kTilingCapacity);
        const ge::graphStatus status = tiling(&context);
        if (status != ge::GRAPH_SUCCESS) {
            return fail(ACLNN_ERR_INNER_TILING_ERROR,
                        at + "the tiling function of " + def->type() + " returned " +
                            (status == ge::GRAPH_FAILED ? std::string("GRAPH_FAILED")
                                                        : "status " + std::to_string(status)));
        }
        if (context.GetBlockDim() == 0) {
            return fail(ACLNN_ERR_INNER_TILING_ERROR,
                        at + "the tiling function of " + def->type() + " set no block dim");
        }
        made->op = def->type();
        made->block_dim = context.GetBlockDim();
        made->tiling_key = context.GetTilingKey();
        made->schedule_mode = context.GetScheduleMode();
        made->combination = matched.column;
        const gert::TilingData& raw = *context.GetRawTilingData();
        const auto* bytes = static_cast<const unsigned char*>(raw.GetData());
        made->tiling.assign(bytes, bytes + std::min(raw.GetDataSize(), raw.GetCapacity()));
        for (const std::size_t size : context.workspaces()) made->workspace += size;
        for (const OpArg& output : outputs) {
            if (!context.GetNeedAtomic()) break;
            const std::vector<const aclTensor*> tensors =
                output.kind == OpArg::Kind::List ? output.list->tensors
                                                 : std::vector<const aclTensor*>{output.tensor};
            for (const aclTensor* tensor : tensors) {
                std::uint64_t size = aclDataTypeSize(tensor->data_type);
                for (const std::int64_t dim : tensor->storage_dims) {
                    size *= static_cast<std::uint64_t>(std::max<std::int64_t>(dim, 0));
                }
                made->zeroed.emplace_back(tensor->data, size);
            }
        }
        *workspace_size = made->workspace;
        *executor = made.release();
    } catch (const std::exception& error) {
        return fail(ACLNN_ERR_INNER_TILING_ERROR,
                    at + "the tiling function of " + def->type() + " failed: " + error.what());
    }
    return ACLNN_SUCCESS;
}

template <class Kernel, class... Args>
KernelBody bind_keyed_kernel(Kernel kernel, LaunchOptions options, std::uint64_t key,
                             std::uint8_t* workspace, Args... args) {
    return [kernel, options, key, workspace, args...](Block& block) {
        KernelContext ctx(block, options);
        t_current = &ctx;
        // The op framework sets the system workspace before the kernel runs (kernels of an
        // operator project call GetSysWorkSpacePtr without SetSysWorkspace).
        ctx.set_sys_workspace(gm_address(workspace));
        launch_tiling_keys()[&ctx] = key;
        struct Clear {
            KernelContext* ctx;
            ~Clear() {
                launch_tiling_keys().erase(ctx);
                t_current = nullptr;
            }
        } clear{&ctx};
        kernel(args...);
    };
}

template <class... Params, std::size_t... I>
KernelBody bind_op_kernel(void (*kernel)(Params...), const aclOpExecutor& ex,
                          const std::vector<std::uint8_t*>& args, std::uint8_t* workspace,
                          std::uint8_t* tiling, std::index_sequence<I...>) {
    auto arg = [&](std::size_t i) -> std::uint8_t* {
        if (i < args.size()) return args[i];
        return i == args.size() ? workspace : tiling;
    };
    return bind_keyed_kernel(kernel, launch_options_from_environment(), ex.tiling_key, workspace,
                             reinterpret_cast<Params>(arg(I))...);
}

/// aclnn<Op>: launches `kernel` (named `name`) for the prepared call and releases it.
template <class... Params>
aclnnStatus launch(const char* api, void (*kernel)(Params...), const char* name,
                   const KernelTypes& types, void* workspace, std::uint64_t workspace_size,
                   aclOpExecutor* executor, aclrtStream stream,
                   acl::Where where = acl::Where::current()) {
    const std::string at = std::string(api) + ": ";
    if (executor == nullptr) return fail(ACLNN_ERR_PARAM_NULLPTR, at + "executor is null");
    const std::unique_ptr<aclOpExecutor> ex(executor);
    if (workspace_size < ex->workspace || (ex->workspace > 0 && workspace == nullptr)) {
        return fail(ACLNN_ERR_PARAM_INVALID,
                    at + ex->op + " needs a workspace of " + std::to_string(ex->workspace) +
                        " bytes; given " + std::to_string(workspace_size) + " bytes at " +
                        (workspace == nullptr ? "null" : "a device pointer"));
    }
    if (sizeof...(Params) != ex->args.size() + 2) {
        return fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR,
                    at + "kernel " + name + " takes " + std::to_string(sizeof...(Params)) +
                        " arguments; " + ex->op + " passes " + std::to_string(ex->args.size() + 2) +
                        " (inputs, outputs, workspace, tiling)");
    }
    const aclError status = acl::call([&](Runtime& rt) {
        const Stream s = acl::stream_of(stream);
        // Bytes copied into a new GM buffer on the stream, before the kernel; freed when the
        // host program returns, after the device's work (the kernel reads them).
        auto stage = [&](const std::vector<unsigned char>& data, const std::string& label) {
            const std::uint64_t bytes = std::max<std::uint64_t>(32, (data.size() + 31) / 32 * 32);
            const DeviceBuffer device = rt.malloc(bytes, ex->op + " " + label, where);
            const HostBuffer host = rt.malloc_host(bytes, HostMemoryKind::Pinned, where);
            const std::span<std::byte> staged = rt.host_bytes(host, where);
            std::memset(staged.data(), 0, staged.size());
            if (!data.empty()) std::memcpy(staged.data(), data.data(), data.size());
            rt.memcpy_async(device, host, bytes, s, where);
            if (acl::g_host.at_exit.empty()) {
                acl::g_host.at_exit.emplace_back([](Runtime& r) { r.synchronize_device(); });
            }
            acl::g_host.at_exit.emplace_back([device](Runtime& r) { r.free(device); });
            return gm_pointer(device.address, where);
        };
        std::vector<std::uint8_t*> args;
        for (std::size_t i = 0; i < ex->args.size(); ++i) {
            const aclOpExecutor::Arg& arg = ex->args[i];
            args.push_back(arg.staged ? stage(arg.bytes, "argument " + std::to_string(i))
                                      : static_cast<std::uint8_t*>(arg.device));
        }
        std::uint8_t* const tiling = stage(ex->tiling, "tiling");
        for (const auto& [data, bytes] : ex->zeroed) {
            const DeviceBuffer output{gm_address(data, where), bytes};
            if (bytes > 0) rt.memset_async(output, 0, bytes, s, where);
        }
        LaunchSpec spec;
        spec.name = name;
        spec.blocks = ex->block_dim;
        const auto keyed = types.by_key.find(ex->tiling_key);
        spec.type = keyed != types.by_key.end() ? keyed->second : types.other;
        if (ex->schedule_mode == 1) spec.schedule_mode = ScheduleMode::Batch;
        rt.launch(s, spec,
                  bind_op_kernel(kernel, *ex, args, static_cast<std::uint8_t*>(workspace), tiling,
                                 std::index_sequence_for<Params...>{}),
                  where);
    });
    if (status != ACL_SUCCESS) {
        return fail(ACLNN_ERR_RUNTIME_ERROR,
                    at + "launching " + name + " failed (aclError " + std::to_string(status) +
                        (acl::g_host.last_error.empty() ? "" : ": " + acl::g_host.last_error) +
                        ")");
    }
    return ACLNN_SUCCESS;
}

/// aclnn<Op> of an op built once per data type combination (DTYPE_<NAME> differs): launches
/// the kernel of the combination GetWorkspaceSize matched.
template <class... Params, std::size_t N>
aclnnStatus launch(const char* api, void (*const (&kernels)[N])(Params...), const char* name,
                   const KernelTypes& types, void* workspace, std::uint64_t workspace_size,
                   aclOpExecutor* executor, aclrtStream stream,
                   acl::Where where = acl::Where::current()) {
    const std::size_t combination = executor != nullptr ? executor->combination : 0;
    if (combination >= N) {
        delete executor;
        return fail(ACLNN_ERR_INNER_FIND_KERNEL_ERROR,
                    std::string(api) + ": no kernel built for data type combination " +
                        std::to_string(combination) + " of " + name);
    }
    return launch(api, kernels[combination], name, types, workspace, workspace_size, executor,
                  stream, where);
}

}  // namespace npusim::ascendc::op
