// The ACL runtime API as Ascend C sample hosts use it, mapped onto npusim::Runtime
// (sim/host/runtime.h). Host programs run on npusim's simulated host thread: either through
// npusim::acl::run_host(sim, program), or, for a sample's unchanged main.cpp, through the
// main() of the npusim::ascendc_main library (this header renames the program's main to
// npusim_acl_user_main unless NPUSIM_ACL_NO_MAIN is defined).
//
// Pointers: aclrtMalloc returns the simulated GM address as a pointer (kernels receive it as
// GM_ADDR); host code must not dereference it. aclrtMallocHost returns real host memory.
// aclrtMemcpy infers the direction from the pointers (the kind is ignored, as documented);
// host pointers not from aclrtMallocHost are staged through pageable host buffers.
// Status codes are the documented numeric values (docs/ascendc.md lists the mapping).
//
// The parts: acl/acl_base.h (types, status codes, host state, device setup), acl/acl_memory.h,
// acl/acl_stream.h (streams and events), acl/acl_launch.h (host programs, kernel launches,
// model run instances), acl/acl_op_host.h (data types, formats, tensor descriptions and data
// buffers of operator-project hosts). Include this header; the parts are not meant to be
// included alone (aclnn/acl_meta.h includes acl/acl_op_host.h).
#pragma once

#include "acl/acl_base.h"
#include "acl/acl_fp16.h"
#include "acl/acl_launch.h"
#include "acl/acl_memory.h"
#include "acl/acl_op_host.h"
#include "acl/acl_stream.h"
#include "securec.h"  // memcpy_s / memset_s, which the samples' hosts call

// A sample's main() becomes the simulated host program (the npusim::ascendc_main library
// provides the process's main). Define NPUSIM_ACL_NO_MAIN to call npusim::acl::run_host
// yourself. In a CPU-debug build (ASCENDC_CPU_DEBUG) main stays the program's own: its CPU
// branch runs the kernels through tikicpulib.h, so a main.cpp that includes this header on
// both branches works in both forms. A single-source .asc program is an ACL host program in
// both forms: npusim_add_ascendc_kernel defines NPUSIM_ACL_HOST_PROGRAM for it.
#if !defined(NPUSIM_ACL_NO_MAIN) && \
    (!defined(ASCENDC_CPU_DEBUG) || defined(NPUSIM_ACL_HOST_PROGRAM))
int npusim_acl_user_main();
int npusim_acl_user_main(int argc, char** argv);
int npusim_acl_user_main(int argc, const char** argv);
#define main npusim_acl_user_main
#endif
