// The kernel class of class_typed_custom: its Init declares the kernel type, as some public
// kernels do, away from the __global__ function (npusim_add_ascendc_kernel finds it here).
#pragma once
#include "kernel_operator.h"

class KernelNegate {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t tileLength) {
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
        m_tileLength = tileLength;
        m_xGm.SetGlobalBuffer((__gm__ float*)x + tileLength * AscendC::GetBlockIdx(), tileLength);
        m_yGm.SetGlobalBuffer((__gm__ float*)y + tileLength * AscendC::GetBlockIdx(), tileLength);
        m_pipe.InitBuffer(m_in, 1, tileLength * sizeof(float));
        m_pipe.InitBuffer(m_out, 1, tileLength * sizeof(float));
    }
    __aicore__ inline void Process() {
        AscendC::LocalTensor<float> a = m_in.AllocTensor<float>();
        AscendC::DataCopy(a, m_xGm, m_tileLength);
        m_in.EnQue(a);
        a = m_in.DeQue<float>();
        AscendC::LocalTensor<float> b = m_out.AllocTensor<float>();
        AscendC::Muls(b, a, -1.0F, m_tileLength);
        m_out.EnQue(b);
        m_in.FreeTensor(a);
        b = m_out.DeQue<float>();
        AscendC::DataCopy(m_yGm, b, m_tileLength);
        m_out.FreeTensor(b);
    }

private:
    AscendC::TPipe m_pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> m_in;
    AscendC::TQue<AscendC::TPosition::VECOUT, 1> m_out;
    AscendC::GlobalTensor<float> m_xGm, m_yGm;
    uint32_t m_tileLength = 0;
};
