// The newer header of the kernel-side dumps (asc_dump_gm, asc_dump_ubuf, asc_dump_l1buf, ...):
// declared so that a use fails to compile naming the function; dumping tensor contents is
// not modelled yet (docs/ascendc.md), like DumpTensor.
#pragma once

#include "kernel_operator.h"

#define NPUSIM_ASC_DUMP_UNSUPPORTED(name)                        \
    template <class T, class... Args>                            \
    void name(Args&&...) {                                       \
        static_assert(npusim::ascendc::kAlwaysFalse<T, Args...>, \
                      "npusim Ascend C: " #name                  \
                      " (tensor dumps) is not supported yet "    \
                      "(docs/ascendc.md)");                      \
    }
NPUSIM_ASC_DUMP_UNSUPPORTED(asc_dump_gm)
NPUSIM_ASC_DUMP_UNSUPPORTED(asc_dump_ubuf)
NPUSIM_ASC_DUMP_UNSUPPORTED(asc_dump_l1buf)
NPUSIM_ASC_DUMP_UNSUPPORTED(asc_dump_cbuf)
#undef NPUSIM_ASC_DUMP_UNSUPPORTED
