// ScaleCustom, y = f(x) for float x with f chosen by the String attribute "mode" through the
// tiling key: "mul" (key 1) alpha * x, "add" (key 2) x + alpha, "relu" (key 3) max(x, 0), the
// last as a mixed kernel without cube part (KERNEL_TASK_TYPE in the kernel). The optional Float
// attribute "alpha" defaults to 1. Other modes and shapes that do not tile are rejected.
#include <cstring>

#include "register/op_def_registry.h"
#include "scale_custom_tiling.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t TILE_LENGTH = 256;

static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    const float* alpha = attrs->GetAttrPointer<float>(0);
    const char* mode = attrs->GetAttrPointer<char>(1);
    if (alpha == nullptr || mode == nullptr) return ge::GRAPH_FAILED;
    uint64_t key = 0;
    if (std::strcmp(mode, "mul") == 0) {
        key = 1;
    } else if (std::strcmp(mode, "add") == 0) {
        key = 2;
    } else if (std::strcmp(mode, "relu") == 0) {
        key = 3;
    } else {
        return ge::GRAPH_FAILED;
    }
    const uint32_t length = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    const uint32_t coreNum =
        platform_ascendc::PlatformAscendCManager::GetInstance()->GetCoreNumAiv();
    if (length % (coreNum * TILE_LENGTH) != 0) return ge::GRAPH_FAILED;

    ScaleCustomTilingData tiling;
    tiling.set_alpha(*alpha);
    const uint32_t reserved[2] = {0, 0};
    tiling.set_reserved(reserved);
    tiling.shape.set_blockLength(length / coreNum);
    tiling.shape.set_tileLength(TILE_LENGTH);
    context->SetBlockDim(coreNum);
    context->SetTilingKey(key);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                        context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context) {
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class ScaleCustom : public OpDef {
public:
    explicit ScaleCustom(const char* name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("alpha").AttrType(OPTIONAL).Float(1.0);
        this->Attr("mode").String();
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(ScaleCustom);
}  // namespace ops
