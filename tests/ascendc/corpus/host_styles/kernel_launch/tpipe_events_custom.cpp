// The TPipe paradigm with explicit flags: TBuf scratch (no implicit synchronization), event
// ids taken from the pipe (FetchEventID, AllocEventID / ReleaseEventID) instead of literals.
#include "kernel_operator.h"

#ifndef HOST_STYLES_DROP_SYNC
#define HOST_STYLES_DROP_SYNC 0
#endif

extern "C" __global__ __aicore__ void tpipe_events_custom(GM_ADDR x, GM_ADDR y,
                                                          uint32_t tileLength) {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> inBuf, outBuf;
    pipe.InitBuffer(inBuf, tileLength * sizeof(float));
    pipe.InitBuffer(outBuf, tileLength * sizeof(float));
    AscendC::GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + tileLength * AscendC::GetBlockIdx(), tileLength);
    yGm.SetGlobalBuffer((__gm__ float*)y + tileLength * AscendC::GetBlockIdx(), tileLength);
    AscendC::LocalTensor<float> in = inBuf.Get<float>();
    AscendC::LocalTensor<float> out = outBuf.Get<float>();

    AscendC::DataCopy(in, xGm, tileLength);
    event_t inReady =
        static_cast<event_t>(AscendC::GetTPipePtr()->FetchEventID(AscendC::HardEvent::MTE2_V));
    AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(inReady);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(inReady);
    AscendC::Abs(out, in, tileLength);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::Maxs(out, out, 2.0f, tileLength);
    const int32_t outReady = pipe.AllocEventID<AscendC::HardEvent::V_MTE3>();
#if (HOST_STYLES_DROP_SYNC & 4) == 0
    AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(outReady);
    AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(outReady);
#endif
    pipe.ReleaseEventID<AscendC::HardEvent::V_MTE3>(outReady);
    AscendC::DataCopy(yGm, out, tileLength);
}
