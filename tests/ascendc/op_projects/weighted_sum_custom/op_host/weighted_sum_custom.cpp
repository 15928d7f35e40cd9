// WeightedSumCustom: for a list of n float tensors x (a DYNAMIC input) and n integer weights w
// (a ValueDepend input: an aclIntArray the tiling function reads on the host),
//   parts[i] = w[i] * x[i]                      (a DYNAMIC output of n tensors)
//   y        = scale * sum_i w[i] * x[i]        (scale: a Scalar input, converted to x's type)
// The tiling function checks the list (same shapes, as many weights as tensors) through the
// dynamic-input queries and chooses tiling key 1 when every weight is 1 (the kernel adds
// without multiplying), else 2.
#include "register/op_def_registry.h"
#include "weighted_sum_custom_tiling.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    const size_t n = context->GetComputeNodeInfo()->GetInputInstanceInfo(0)->GetInstanceNum();
    if (n == 0) return ge::GRAPH_FAILED;
    const gert::StorageShape* first = context->GetDynamicInputShape(0, 0);
    for (size_t i = 1; i < n; ++i) {
        if (context->GetDynamicInputShape(0, i)->GetStorageShape() != first->GetStorageShape()) {
            return ge::GRAPH_FAILED;
        }
    }
    // Instances: x[0..n-1], then scale (n), then weights (n + 1).
    const gert::Tensor* weights = context->GetInputTensor(n + 1);
    if (weights == nullptr || static_cast<size_t>(weights->GetShapeSize()) != n) {
        return ge::GRAPH_FAILED;
    }
    const int64_t* w = weights->GetData<int64_t>();
    int64_t sum = 0;
    bool ones = true;
    for (size_t i = 0; i < n; ++i) {
        sum += w[i];
        ones = ones && w[i] == 1;
    }
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint32_t cores = platform.GetCoreNumAiv();
    const uint32_t length = first->GetStorageShape().GetShapeSize();
    if (length % (cores * 64) != 0) return ge::GRAPH_FAILED;

    WeightedSumCustomTilingData tiling;
    tiling.set_blockLength(length / cores);
    tiling.set_count(static_cast<uint32_t>(n));
    tiling.set_weightSum(sum);
    context->SetBlockDim(cores);
    context->SetTilingKey(ones ? 1 : 2);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                        context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class WeightedSumCustom : public OpDef {
public:
    explicit WeightedSumCustom(const char* name) : OpDef(name) {
        this->Input("x").ParamType(DYNAMIC).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("scale").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Scalar().To("x");
        this->Input("weights")
            .ParamType(REQUIRED)
            .DataType({ge::DT_INT64})
            .Format({ge::FORMAT_ND})
            .ValueDepend(REQUIRED);
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("parts").ParamType(DYNAMIC).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(WeightedSumCustom);
}  // namespace ops
