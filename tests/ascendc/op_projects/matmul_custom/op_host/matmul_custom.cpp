// MatmulCustom, c = a x b with a [m, k] and b [k, n] in fp16 and c [m, n] in fp32, written
// with the basic cube APIs. The tiling function splits the rows of c over the cube cores and
// rejects shapes that are not 16-aligned or whose tiles do not fit L0A, L0B or L0C.
#include "matmul_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    const gert::Shape& aShape = context->GetInputShape(0)->GetOriginShape();
    const gert::Shape& bShape = context->GetInputShape(1)->GetOriginShape();
    if (aShape.GetDimNum() != 2 || bShape.GetDimNum() != 2 ||
        aShape.GetDim(1) != bShape.GetDim(0)) {
        return ge::GRAPH_FAILED;
    }
    const uint32_t m = aShape.GetDim(0);
    const uint32_t k = aShape.GetDim(1);
    const uint32_t n = bShape.GetDim(1);
    platform_ascendc::PlatformAscendC platform(context->GetPlatformInfo());
    const uint32_t cores = platform.GetCoreNumAic();
    if (m % (cores * 16) != 0 || k % 16 != 0 || n % 16 != 0) return ge::GRAPH_FAILED;
    const uint32_t baseM = m / cores;
    uint64_t l0a = 0, l0b = 0, l0c = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_A, l0a);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_B, l0b);
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::L0_C, l0c);
    if (uint64_t{baseM} * k * 2 > l0a || uint64_t{k} * n * 2 > l0b ||
        uint64_t{baseM} * n * 4 > l0c) {
        return ge::GRAPH_FAILED;
    }
    MatmulCustomTilingData tiling;
    tiling.set_m(m);
    tiling.set_n(n);
    tiling.set_k(k);
    tiling.set_baseM(baseM);
    context->SetBlockDim(cores);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                        context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static graphStatus InferShape(gert::InferShapeContext* context) {
    gert::Shape* cShape = context->GetOutputShape(0);
    cShape->SetDimNum(0);
    cShape->AppendDim(context->GetInputShape(0)->GetDim(0));
    cShape->AppendDim(context->GetInputShape(1)->GetDim(1));
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class MatmulCustom : public OpDef {
public:
    explicit MatmulCustom(const char* name) : OpDef(name) {
        this->Input("a").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("b").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("c").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(MatmulCustom);
}  // namespace ops
