// The high-level Matmul API is out of scope for npusim's Ascend C layer.
#pragma once
#error "npusim Ascend C: the high-level Matmul API (lib/matmul_intf.h) is not supported yet"
