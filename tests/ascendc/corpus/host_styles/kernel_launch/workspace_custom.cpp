// A kernel without extern "C" that stages an intermediate in its user workspace (GM): the
// copy-out to the workspace must finish (MTE3 -> MTE2) before the copy back in reads it.
#include "kernel_operator.h"

#ifndef HOST_STYLES_DROP_SYNC
#define HOST_STYLES_DROP_SYNC 0
#endif

__global__ __aicore__ void workspace_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                            uint32_t tileLength) {
    AscendC::SetSysWorkspace(workspace);
    GM_ADDR user = AscendC::GetUserWorkspace(workspace);
    const uint64_t offset = tileLength * AscendC::GetBlockIdx();
    AscendC::GlobalTensor<float> xGm, yGm, wsGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + offset, tileLength);
    yGm.SetGlobalBuffer((__gm__ float*)y + offset, tileLength);
    wsGm.SetGlobalBuffer((__gm__ float*)user + offset, tileLength);

    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 2 * tileLength * sizeof(float));
    AscendC::LocalTensor<float> a = buf.Get<float>(tileLength);
    AscendC::LocalTensor<float> b =
        buf.GetWithOffset<float>(tileLength, tileLength * sizeof(float));

    AscendC::DataCopy(a, xGm, tileLength);
    AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
    AscendC::Muls(a, a, 2.0f, tileLength);
    AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
    AscendC::DataCopy(wsGm, a, tileLength);
#if (HOST_STYLES_DROP_SYNC & 1) == 0
    AscendC::SetFlag<AscendC::HardEvent::MTE3_MTE2>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE3_MTE2>(EVENT_ID0);
#endif
    AscendC::DataCopy(b, wsGm, tileLength);
    AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID1);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID1);
    AscendC::Adds(b, b, 1.0f, tileLength);
    AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID1);
    AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID1);
    AscendC::DataCopy(yGm, b, tileLength);
}
