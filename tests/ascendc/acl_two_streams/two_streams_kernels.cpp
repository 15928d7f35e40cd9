// The Ascend C kernels of the two-stream ACL program (acl_two_streams_test.cpp), built into a
// user kernel library (sim/kernels/kernel_registry.h) that both forms run: the ACL program links it
// and launches the kernels with ACLRT_LAUNCH_KERNEL / <<<>>>, the JSON scenarios next to this
// file load it with "library". One copy of the kernel code, so findings name the same lines.
//
//   scale_custom: y = 2 * x      shift_custom: z = y + 1      (perBlock elements per block)
#include "kernel_operator.h"
#include "sim/kernels/kernel_registry.h"

extern "C" __global__ __aicore__ void scale_custom(GM_ADDR x, GM_ADDR y, uint32_t perBlock) {
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> inQueue;
    AscendC::TQue<AscendC::TPosition::VECOUT, 1> outQueue;
    pipe.InitBuffer(inQueue, 1, perBlock * sizeof(float));
    pipe.InitBuffer(outQueue, 1, perBlock * sizeof(float));
    AscendC::GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x + perBlock * AscendC::GetBlockIdx(), perBlock);
    yGm.SetGlobalBuffer((__gm__ float*)y + perBlock * AscendC::GetBlockIdx(), perBlock);
    AscendC::LocalTensor<float> in = inQueue.AllocTensor<float>();
    AscendC::DataCopy(in, xGm, perBlock);
    inQueue.EnQue(in);
    in = inQueue.DeQue<float>();
    AscendC::LocalTensor<float> out = outQueue.AllocTensor<float>();
    AscendC::Muls(out, in, 2.0F, perBlock);
    outQueue.EnQue(out);
    inQueue.FreeTensor(in);
    out = outQueue.DeQue<float>();
    AscendC::DataCopy(yGm, out, perBlock);  // SCALE-WRITES-Y
    outQueue.FreeTensor(out);
}

extern "C" __global__ __aicore__ void shift_custom(GM_ADDR y, GM_ADDR z, uint32_t perBlock) {
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> inQueue;
    AscendC::TQue<AscendC::TPosition::VECOUT, 1> outQueue;
    pipe.InitBuffer(inQueue, 1, perBlock * sizeof(float));
    pipe.InitBuffer(outQueue, 1, perBlock * sizeof(float));
    AscendC::GlobalTensor<float> yGm, zGm;
    yGm.SetGlobalBuffer((__gm__ float*)y + perBlock * AscendC::GetBlockIdx(), perBlock);
    zGm.SetGlobalBuffer((__gm__ float*)z + perBlock * AscendC::GetBlockIdx(), perBlock);
    AscendC::LocalTensor<float> in = inQueue.AllocTensor<float>();
    AscendC::DataCopy(in, yGm, perBlock);  // SHIFT-READS-Y
    inQueue.EnQue(in);
    in = inQueue.DeQue<float>();
    AscendC::LocalTensor<float> out = outQueue.AllocTensor<float>();
    AscendC::Adds(out, in, 1.0F, perBlock);
    outQueue.EnQue(out);
    inQueue.FreeTensor(in);
    out = outQueue.DeQue<float>();
    AscendC::DataCopy(zGm, out, perBlock);
    outQueue.FreeTensor(out);
}

// The scenarios' entry points: the registry hands over the Block, GM tensors and parameters;
// bind_kernel runs the Ascend C kernel on them with the launch options the ACL launch uses.
namespace {

using Kernel = void (*)(GM_ADDR, GM_ADDR, uint32_t);

template <Kernel kernel>
void run_ascendc(npusim::Block& block, npusim::GlobalTensor<float> in,
                 npusim::GlobalTensor<float> out, std::uint64_t per_block) {
    npusim::ascendc::bind_kernel(kernel, npusim::ascendc::launch_options_from_environment(),
                                 npusim::ascendc::gm_addr(in), npusim::ascendc::gm_addr(out),
                                 static_cast<uint32_t>(per_block))(block);
}

}  // namespace

NPUSIM_REGISTER_KERNEL(scale_custom, AIV_ONLY, run_ascendc<scale_custom>,
                       npusim::kernel_arg("x", "input, blocks x per_block float32"),
                       npusim::kernel_arg("y", "output 2 * x"),
                       npusim::kernel_param("per_block", 1024, 8, 16384,
                                            "elements per block (multiple of 8)"));
NPUSIM_REGISTER_KERNEL(shift_custom, AIV_ONLY, run_ascendc<shift_custom>,
                       npusim::kernel_arg("y", "input, blocks x per_block float32"),
                       npusim::kernel_arg("z", "output y + 1"),
                       npusim::kernel_param("per_block", 1024, 8, 16384,
                                            "elements per block (multiple of 8)"));
