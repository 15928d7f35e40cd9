// ReduceSumCustom, y[0] = the sum of x (float). Each vector core sums its share into the user
// workspace (one 32-byte slot per core); after SyncAll core 0 adds the slots. The workspace is
// the library APIs' system workspace plus those slots.
#include "reduce_sum_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t SLOT_BYTES = 32;
constexpr uint32_t MAX_BLOCK_BYTES = 64 * 1024;

static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    ReduceSumCustomTilingData tiling;
    const uint32_t totalLength = context->GetInputTensor(0)->GetShapeSize();
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    if (totalLength == 0 || totalLength % (coreNum * 64) != 0 ||
        totalLength / coreNum * sizeof(float) > MAX_BLOCK_BYTES) {
        return ge::GRAPH_FAILED;
    }
    tiling.set_totalLength(totalLength);
    tiling.set_blockLength(totalLength / coreNum);
    context->SetBlockDim(coreNum);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                        context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspaces = context->GetWorkspaceSizes(1);
    workspaces[0] = ascendcPlatform.GetLibApiWorkSpaceSize() + coreNum * SLOT_BYTES;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context) {
    gert::Shape* yShape = context->GetOutputShape(0);
    yShape->SetDimNum(0);
    yShape->AppendDim(1);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class ReduceSumCustom : public OpDef {
public:
    explicit ReduceSumCustom(const char* name) : OpDef(name) {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ReduceSumCustom)
}  // namespace ops
