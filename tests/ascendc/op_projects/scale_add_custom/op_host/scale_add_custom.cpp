// ScaleAddCustom, z = alpha * (w[0] * x + w[1] * y), then max(z, 0) when "relu", for float or
// half tensors (two data type combinations: the kernel is built once per combination with its
// DTYPE_X). The input y is optional (tiling key 2 without it, 1 with it). Attributes of four
// types: Float "alpha", ListInt "weights" (two integers), Bool "relu", Int "tile" (the tile
// length, 0 for 256). Shapes that do not tile over the cores are rejected.
#include "register/op_def_registry.h"
#include "scale_add_custom_tiling.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    const float* alpha = attrs->GetFloat(0);
    const gert::ContinuousVector* weights = attrs->GetListInt(1);
    const bool* relu = attrs->GetBool(2);
    const int64_t* tile = attrs->GetInt(3);
    if (alpha == nullptr || weights == nullptr || weights->GetSize() != 2 || relu == nullptr ||
        tile == nullptr || *tile < 0) {
        return ge::GRAPH_FAILED;
    }
    const int64_t* w = static_cast<const int64_t*>(weights->GetData());
    const uint32_t tileLength = *tile == 0 ? 256 : static_cast<uint32_t>(*tile);
    const uint32_t length = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint32_t coreNum = platform.GetCoreNumAiv();
    if (length % (coreNum * tileLength) != 0) return ge::GRAPH_FAILED;
    const bool withY = context->GetOptionalInputShape(1) != nullptr;

    ScaleAddCustomTilingData tiling;
    tiling.set_xScale(*alpha * static_cast<float>(w[0]));
    tiling.set_yScale(*alpha * static_cast<float>(w[1]));
    tiling.set_relu(*relu ? 1 : 0);
    tiling.set_blockLength(length / coreNum);
    tiling.set_tileLength(tileLength);
    context->SetBlockDim(coreNum);
    context->SetTilingKey(withY ? 1 : 2);
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
static graphStatus InferDataType(gert::InferDataTypeContext* context) {
    context->SetOutputDataType(0, context->GetInputDataType(0));
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class ScaleAddCustom : public OpDef {
public:
    explicit ScaleAddCustom(const char* name) : OpDef(name) {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND})
            .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("y")
            .ParamType(OPTIONAL)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND})
            .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("z")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND})
            .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("alpha").AttrType(REQUIRED).Float();
        this->Attr("weights").AttrType(OPTIONAL).ListInt({1, 1});
        this->Attr("relu").AttrType(OPTIONAL).Bool(false);
        this->Attr("tile").AttrType(OPTIONAL).Int(0);
        this->SetInferShape(ge::InferShape).SetInferDataType(ge::InferDataType);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
        this->AICore().AddConfig("ascend310b");
    }
};
OP_ADD(ScaleAddCustom);
}  // namespace ops
