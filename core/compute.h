// Functional semantics of vector and cube instructions: bytes in, bytes out. No timing.
// half arithmetic is done in float and rounded back (round to nearest even); integer
// arithmetic wraps (two's complement); float -> integer casts round to nearest even and
// saturate.
#pragma once

#include <cstddef>

#include "base/transaction.h"

namespace npusim {

/// Computes a vector instruction (Add ... Cast). src1 may be null for unary ops; `out`
/// receives the destination bytes (count elements of tx.dtype; one element for ReduceSum).
void compute_vector(const Transaction& tx, const std::byte* src0, const std::byte* src1,
                    std::byte* out);

/// c[m x n] = (accumulate ? c : 0) + a[m x k] * b[k x n]; a, b fp16 row-major, c fp32.
/// `c_in` is read only when tx.accumulate.
void compute_mmad(const Transaction& tx, const std::byte* a, const std::byte* b,
                  const std::byte* c_in, std::byte* out);

}  // namespace npusim
