// VaddCustom, z = x + y, for float or int32 tensors of the same shape. The tiling function
// spreads the elements over the vector cores and picks the kernel branch by data type with the
// tiling key (1: float, 2: int32); element counts that do not split into whole double-buffered
// tiles of 32 bytes are rejected.
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "vadd_custom_tiling.h"

namespace optiling {
constexpr uint32_t TILE_NUM = 4;
constexpr uint32_t BUFFER_NUM = 2;
constexpr uint32_t ELEMENTS_PER_BLOCK = 8;  // 32 bytes of 4-byte elements

static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    VaddCustomTilingData tiling;
    const uint32_t totalLength = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
    if (context->GetInputShape(1)->GetOriginShape().GetShapeSize() != totalLength) {
        return ge::GRAPH_FAILED;
    }
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    if (totalLength == 0 ||
        totalLength % (coreNum * TILE_NUM * BUFFER_NUM * ELEMENTS_PER_BLOCK) != 0) {
        return ge::GRAPH_FAILED;
    }
    context->SetBlockDim(coreNum);
    context->SetTilingKey(context->GetInputDesc(0)->GetDataType() == ge::DT_FLOAT ? 1 : 2);
    tiling.set_totalLength(totalLength);
    tiling.set_tileNum(TILE_NUM);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                        context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* currentWorkspace = context->GetWorkspaceSizes(1);
    currentWorkspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context) {
    const gert::Shape* x1_shape = context->GetInputShape(0);
    gert::Shape* y_shape = context->GetOutputShape(0);
    *y_shape = *x1_shape;
    return GRAPH_SUCCESS;
}
static graphStatus InferDataType(gert::InferDataTypeContext* context) {
    const auto inputDataType = context->GetInputDataType(0);
    context->SetOutputDataType(0, inputDataType);
    return ge::GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class VaddCustom : public OpDef {
public:
    explicit VaddCustom(const char* name) : OpDef(name) {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_INT32})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_INT32})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("z")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_INT32})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(VaddCustom);
}  // namespace ops
