// A mixed cube/vector kernel as public samples write it, three times: typed by the
// `__mix__(1, 2)` qualifier, by KERNEL_TASK_TYPE_DEFAULT in its body, and (a template) by a
// qualifier chosen under #if / #else, as the asc-devkit samples switch scenarios; the first is
// also launched through a function pointer (a kernel chosen at run time). The host program
// (main.cpp) launches both without naming a type: npusim_add_ascendc_kernel finds the types
// in this source. The body is in matmul_relu.h.
#include "matmul_relu.h"

extern "C" __global__ __mix__(1, 2) void mix_qualified(GM_ADDR a, GM_ADDR b, GM_ADDR c,
                                                       GM_ADDR out) {
    MatmulRelu(a, b, c, out);
}

extern "C" __global__ __aicore__ void mix_body_typed(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR out) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    MatmulRelu(a, b, c, out);
}

void mix_body_typed_do(uint32_t blockDim, void* stream, uint8_t* a, uint8_t* b, uint8_t* c,
                       uint8_t* out) {
    mix_body_typed<<<blockDim, nullptr, stream>>>(a, b, c, out);
}

template <int kUnused>
#if NPUSIM_SAMPLE_NEVER_DEFINED
__global__ __aicore__
#else
__global__ __mix__(1, 2)
#endif
    void
    mix_conditional(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR out) {
    MatmulRelu(a, b, c, out);
}

void mix_conditional_do(uint32_t blockDim, void* stream, uint8_t* a, uint8_t* b, uint8_t* c,
                        uint8_t* out) {
    mix_conditional<0><<<blockDim, nullptr, stream>>>(a, b, c, out);
}

void mix_pointer_do(uint32_t blockDim, void* stream, uint8_t* a, uint8_t* b, uint8_t* c,
                    uint8_t* out) {
    auto* const selected = &mix_qualified;
    selected<<<blockDim, nullptr, stream>>>(a, b, c, out);
}
