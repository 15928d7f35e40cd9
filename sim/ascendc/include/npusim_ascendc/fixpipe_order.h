// The order in which npusim issues an NZ Fixpipe's per-block instructions (the hardware issues
// one), so that the results land as the one instruction would leave them.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "npusim_ascendc/data_copy.h"

namespace npusim::ascendc {

/// The order of an NZ Fixpipe's per-block instructions. The hardware's one instruction reads
/// every scale word (into its fixpipe buffer) before it writes a result, so results in L1 may
/// overwrite the words (asc-devkit `fixpipe_l0c2l1` keeps both at L1 address 0): a block whose
/// results cover words of another block goes after it, behind a PipeBarrier<PIPE_FIX> (the
/// checker sees a FIX pipe overlap its own instructions). Cyclic overlaps are a KernelError.
struct NzBlockOrder {
    std::vector<std::uint32_t> blocks;
    std::vector<bool> barrier_before;  // per position in `blocks`
};
template <class D, class W, template <class> class Out>
NzBlockOrder nz_block_order(const Out<D>& dst, const AscendC::LocalTensor<W>* scales,
                            std::uint32_t blocks, std::uint32_t c0, std::uint64_t block_elements,
                            const Loc& loc) {
    NzBlockOrder order;
    order.barrier_before.assign(blocks, false);
    for (std::uint32_t b = 0; b < blocks; ++b) order.blocks.push_back(b);
    constexpr bool kToL1 = std::is_same_v<Out<D>, AscendC::LocalTensor<D>>;
    if (!kToL1 || scales == nullptr) return order;
    const std::uint64_t out_at = view_of(dst).address, words_at = scales->native().address;
    const std::uint64_t out_bytes = block_elements * sizeof(D), word_bytes = std::uint64_t{c0} * 8;
    const auto covers = [&](std::uint32_t writer, std::uint32_t reader) {
        const std::uint64_t w0 = out_at + writer * out_bytes, r0 = words_at + reader * word_bytes;
        return writer != reader && w0 < r0 + word_bytes && r0 < w0 + out_bytes;
    };
    order.blocks.clear();
    std::vector<bool> done(blocks, false);
    while (order.blocks.size() < blocks) {
        std::uint32_t pick = blocks;
        for (std::uint32_t b = 0; b < blocks && pick == blocks; ++b) {
            bool blocked = done[b];
            for (std::uint32_t r = 0; r < blocks && !blocked; ++r)
                blocked = !done[r] && covers(b, r);
            if (!blocked) pick = b;
        }
        if (pick == blocks) {
            throw KernelError(EventIds::where(loc) +
                              "Fixpipe into L1: its results overwrite its own scale words in an "
                              "order npusim cannot issue block by block (not supported yet)");
        }
        for (const std::uint32_t earlier : order.blocks) {
            if (covers(pick, earlier)) order.barrier_before[order.blocks.size()] = true;
        }
        done[pick] = true;
        order.blocks.push_back(pick);
    }
    return order;
}

}  // namespace npusim::ascendc
