// acl/acl_op_compiler.h as operator-project host programs include it: the ACL API
// (acl/acl.h). npusim compiles no ops at run time; the op-compiler calls are not provided.
#pragma once

#include "acl/acl.h"
