// MatmulLeakyCustom, c = LeakyReLU(a x b + bias) with a [m, k] and b [k, n] in fp16, bias [n]
// and c [m, n] in fp32, through the Matmul API in a mixed kernel: each AIV drives its block of
// c and applies the slope on its tiles in UB (tiling key 1). With a slope of 0 the op is a
// plain a x b + bias that the AIVs add into c atomically (tiling key 2): the tiling asks for
// the outputs to be zeroed first (SetNeedAtomic).
#include "matmul_leaky_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    const gert::Shape& aShape = context->GetInputShape(0)->GetOriginShape();
    const gert::Shape& bShape = context->GetInputShape(1)->GetOriginShape();
    if (aShape.GetDimNum() != 2 || bShape.GetDimNum() != 2 ||
        aShape.GetDim(1) != bShape.GetDim(0)) {
        return ge::GRAPH_FAILED;
    }
    const int32_t m = aShape.GetDim(0);
    const int32_t k = aShape.GetDim(1);
    const int32_t n = bShape.GetDim(1);
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    matmul_tiling::MultiCoreMatmulTiling cubeTiling(platform);
    cubeTiling.SetDim(platform.GetCoreNumAiv());  // the AIVs drive the Matmul
    cubeTiling.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                        matmul_tiling::DataType::DT_FLOAT16);
    cubeTiling.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                        matmul_tiling::DataType::DT_FLOAT16);
    cubeTiling.SetCType(matmul_tiling::TPosition::VECIN, matmul_tiling::CubeFormat::ND,
                        matmul_tiling::DataType::DT_FLOAT);
    cubeTiling.SetBiasType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                           matmul_tiling::DataType::DT_FLOAT);
    cubeTiling.SetShape(m, n, k);
    cubeTiling.SetOrgShape(m, n, k);
    cubeTiling.SetFixSplit(32, 32, -1);
    cubeTiling.SetBias(true);
    cubeTiling.SetBufferSpace(-1, -1, -1);
    MatmulLeakyCustomTilingData tiling;
    if (cubeTiling.GetTiling(tiling.cubeTilingData) == -1) return ge::GRAPH_FAILED;
    // The tiling struct's accessors, as the vendor's framework-launch samples use them.
    tiling.cubeTilingData.set_stepM(1);
    tiling.cubeTilingData.set_stepN(1);
    if (tiling.cubeTilingData.get_usedCoreNum() <= 0) return ge::GRAPH_FAILED;
    const float alpha = *context->GetAttrs()->GetAttrPointer<float>(0);
    tiling.set_alpha(alpha);
    context->SetTilingKey(alpha != 0.0F ? 1 : 2);
    context->SetNeedAtomic(alpha == 0.0F);
    // The block dim counts AIC:AIV groups; the tiling split the work over the AIVs.
    context->SetBlockDim(platform.GetCoreNumAic());
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                        context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = platform.GetLibApiWorkSpaceSize();
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
class MatmulLeakyCustom : public OpDef {
public:
    explicit MatmulLeakyCustom(const char* name) : OpDef(name) {
        this->Input("a").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("b").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("bias").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("c").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("alpha").AttrType(REQUIRED).Float(0.001F);
        this->SetInferShape(ge::InferShape);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(MatmulLeakyCustom);
}  // namespace ops
