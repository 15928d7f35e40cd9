// The ACL runtime header of this name (included by public samples): npusim declares the
// runtime in acl/acl.h.
#pragma once

#include "acl/acl.h"
