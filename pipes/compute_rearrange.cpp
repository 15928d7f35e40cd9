// Compute of the ops that move elements to data-dependent places: Gather, GatherMask,
// Sort32, MrgSort, Transpose (semantics: docs/ascendc.md, "API status").
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "pipes/compute.h"
#include "pipes/element_access.h"

namespace npusim {

namespace {

using compute_detail::load_at;
using compute_detail::store_at;

// A (score, index) structure as Sort32 writes it: 8 bytes, the score in the low bytes (a
// half score leaves 2 bytes reserved, written as zero), the index in the high 4 bytes.
constexpr std::uint64_t kPairBytes = 8;

float pair_score(const std::byte* pair, DType dtype) {
    if (dtype == DType::F16) return static_cast<float>(load_at<half>(pair, 0));
    return load_at<float>(pair, 0);
}

}  // namespace

void compute_gather(const Transaction& tx, const std::byte* const* sources, std::byte* out) {
    // The caller checked every offset against the source read (the Ascend C layer reads them
    // on the scalar unit); one that changed since is a race the checker reports, and is
    // skipped here so that nothing is read outside the source.
    const std::int64_t size = static_cast<std::int64_t>(size_of(tx.dtype));
    const auto source_bytes = static_cast<std::int64_t>(tx.accesses[0].bytes);
    const auto base = static_cast<std::int64_t>(tx.scalar);  // may be negative: see Block
    for (std::uint64_t i = 0; i < tx.count; ++i) {
        const std::int64_t offset = base + load_at<std::uint32_t>(sources[1], i);
        if (offset >= 0 && offset + size <= source_bytes) {
            std::memcpy(out + i * static_cast<std::uint64_t>(size), sources[0] + offset,
                        static_cast<std::size_t>(size));
        }
    }
}

void compute_gather_mask(const Transaction& tx, const std::byte* const* sources, std::byte* out) {
    const std::uint64_t size = size_of(tx.dtype);
    std::uint64_t kept = 0;
    for (std::uint64_t i = 0; i < tx.count && kept < tx.group; ++i) {
        const bool take =
            tx.mode != 0 ? gather_mask_pattern_bit(tx.mode, i)
                         : ((std::to_integer<unsigned>(sources[1][i / 8]) >> (i % 8)) & 1U) != 0;
        if (take) std::memcpy(out + kept++ * size, sources[0] + i * size, size);
    }
}

void compute_sort32(const Transaction& tx, const std::byte* const* sources, std::byte* out) {
    const std::uint64_t size = size_of(tx.dtype);
    std::array<std::uint32_t, 32> order{};
    for (std::uint64_t r = 0; r < tx.count / 32; ++r) {
        const std::byte* scores = sources[0] + r * 32 * size;
        auto score = [&](std::uint32_t j) { return pair_score(scores + j * size, tx.dtype); };
        for (std::uint32_t j = 0; j < 32; ++j) order[j] = j;
        // Descending; equal scores keep their order (the earlier element first).
        std::stable_sort(order.begin(), order.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return score(a) > score(b); });
        for (std::uint32_t j = 0; j < 32; ++j) {
            std::byte* pair = out + (r * 32 + j) * kPairBytes;
            std::memset(pair, 0, kPairBytes);
            std::memcpy(pair, scores + order[j] * size, size);
            std::memcpy(pair + 4, sources[1] + (r * 32 + order[j]) * 4, 4);
        }
    }
}

void compute_mrg_sort(const Transaction& tx, const std::byte* const* sources, std::byte* out) {
    // Sources: the queues in order, each tx.accesses[q].bytes / 8 structures long.
    std::array<std::uint64_t, 4> length{};
    std::array<std::uint64_t, 4> next{};
    const std::uint32_t queues = tx.group;
    for (std::uint32_t q = 0; q < queues; ++q) length[q] = tx.accesses[q].bytes / kPairBytes;
    std::uint64_t written = 0;
    for (;;) {
        std::uint32_t best = queues;
        float best_score = 0.0F;
        for (std::uint32_t q = 0; q < queues; ++q) {
            if (next[q] == length[q]) continue;
            const float s = pair_score(sources[q] + next[q] * kPairBytes, tx.dtype);
            // Strictly greater: on equal scores the lower queue goes first.
            if (best == queues || s > best_score) {
                best = q;
                best_score = s;
            }
        }
        if (best == queues) break;
        std::memcpy(out + written++ * kPairBytes, sources[best] + next[best]++ * kPairBytes,
                    kPairBytes);
    }
}

void compute_transpose(const Transaction& tx, const std::byte* const* sources, std::byte* out) {
    const std::uint64_t size = size_of(tx.dtype);
    const std::uint64_t rows = tx.group;
    const std::uint64_t cols = rows == 0 ? 0 : tx.count / rows;
    const MemAccess& in = tx.accesses[0];
    const std::uint64_t pitch = in.rows > 1 ? in.pitch : cols * size;
    for (std::uint64_t i = 0; i < rows; ++i) {
        for (std::uint64_t j = 0; j < cols; ++j) {
            std::memcpy(out + (j * rows + i) * size, sources[0] + i * pitch + j * size, size);
        }
    }
}

}  // namespace npusim
