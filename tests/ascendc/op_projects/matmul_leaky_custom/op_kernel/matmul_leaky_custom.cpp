// MatmulLeakyCustom's kernel: the Matmul object lives in AIV code (the AIC serves it from
// REGIST_MATMUL_OBJ); each AIV takes the block of c at its index in the tiling's split.
#include "kernel_operator.h"
#include "lib/matmul_intf.h"

using namespace matmul;

using AType = MatmulType<TPosition::GM, CubeFormat::ND, half>;
using CType = MatmulType<TPosition::VECIN, CubeFormat::ND, float>;
using BiasType = MatmulType<TPosition::GM, CubeFormat::ND, float>;

extern "C" __global__ __aicore__ void matmul_leaky_custom(GM_ADDR a, GM_ADDR b, GM_ADDR bias,
                                                          GM_ADDR c, GM_ADDR workspace,
                                                          GM_ADDR tilingGm) {
    GET_TILING_DATA(tilingData, tilingGm);
    const TCubeTiling& tiling = tilingData.cubeTilingData;
    Matmul<AType, AType, CType, BiasType> mm;
    TPipe pipe;
    REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, &tiling);
    const uint32_t index = GetBlockIdx();
    if (index >= static_cast<uint32_t>(tiling.usedCoreNum)) return;
    const uint32_t mBlocks = (tiling.M + tiling.singleCoreM - 1) / tiling.singleCoreM;
    const uint32_t row0 = index % mBlocks * tiling.singleCoreM;
    const uint32_t col0 = index / mBlocks * tiling.singleCoreN;
    GlobalTensor<half> aGm, bGm;
    GlobalTensor<float> biasGm, cGm;
    aGm.SetGlobalBuffer((__gm__ half*)a + row0 * tiling.Ka, tiling.singleCoreM * tiling.Ka);
    bGm.SetGlobalBuffer((__gm__ half*)b + col0, tiling.Kb * tiling.N - col0);
    biasGm.SetGlobalBuffer((__gm__ float*)bias + col0, tiling.singleCoreN);
    cGm.SetGlobalBuffer((__gm__ float*)c + row0 * tiling.N + col0,
                        tiling.singleCoreM * tiling.N - col0);
    mm.SetTensorA(aGm);
    mm.SetTensorB(bGm);
    mm.SetBias(biasGm);
    if (TILING_KEY_IS(2)) {
        mm.IterateAll(cGm, 1);  // atomic add into the zeroed output
        mm.End();
        return;
    }
    TQue<TPosition::VECIN, 1> mmOut;
    TQue<TPosition::VECOUT, 1> reluOut;
    const uint32_t tile = tiling.baseM * tiling.baseN;
    pipe.InitBuffer(mmOut, 1, tile * sizeof(float));
    pipe.InitBuffer(reluOut, 1, tile * sizeof(float));
    const uint32_t roundM = tiling.singleCoreM / tiling.baseM;
    for (uint32_t round = 0; mm.Iterate(); ++round) {
        LocalTensor<float> cLocal = mmOut.AllocTensor<float>();
        mm.GetTensorC(cLocal, false, true);
        mmOut.EnQue(cLocal);
        cLocal = mmOut.DeQue<float>();
        LocalTensor<float> yLocal = reluOut.AllocTensor<float>();
        LeakyRelu(yLocal, cLocal, tilingData.alpha, tile);
        reluOut.EnQue(yLocal);
        mmOut.FreeTensor(cLocal);
        yLocal = reluOut.DeQue<float>();
        const uint32_t at =
            round % roundM * tiling.baseM * tiling.N + round / roundM * tiling.baseN;
        DataCopyParams params{(uint16_t)tiling.baseM, (uint16_t)(tiling.baseN * 4 / 32), 0,
                              (uint16_t)((tiling.N - tiling.baseN) * 4 / 32)};
        DataCopy(cGm[at], yLocal, params);
        reluOut.FreeTensor(yLocal);
    }
    mm.End();
}
