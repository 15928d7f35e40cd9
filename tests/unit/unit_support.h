// Shared helpers for the unit tests (tests/unit): the small chip, byte buffers of typed
// elements and a Transaction filled for a compute function. Header-only, SystemC-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "base/chip_config.h"
#include "base/transaction.h"
#include "base/types.h"

namespace npusim::unit {

/// The "small" preset (configs/chips/small.json).
inline const ChipConfig& small_chip() {
    static const ChipConfig chip = builtin_chip_config("small");
    return chip;
}

/// The bytes of `values`, as a memory would hold them.
template <class T>
std::vector<std::byte> to_bytes(const std::vector<T>& values) {
    std::vector<std::byte> bytes(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

/// `count` elements of T read back from `bytes`.
template <class T>
std::vector<T> from_bytes(const std::vector<std::byte>& bytes, std::size_t count) {
    std::vector<T> values(count);
    if (count != 0) std::memcpy(values.data(), bytes.data(), count * sizeof(T));
    return values;
}

/// A transaction as the decoder leaves it for a compute function.
inline Transaction compute_tx(Op op, DType dtype, std::uint64_t count, double scalar = 0.0,
                              DType src_dtype = DType::F32) {
    Transaction tx;
    tx.op = op;
    tx.dtype = dtype;
    tx.src_dtype = op == Op::Cast ? src_dtype : dtype;
    tx.count = count;
    tx.scalar = scalar;
    return tx;
}

}  // namespace npusim::unit
