// Flags polled in GM (docs/checker.md): release and acquire through the value a scalar load
// observes. A block's scalar GM store publishes what its scalar unit knew when it issued it
// (its release clock) when the store is visible to other blocks (written through, or its line
// cleaned) and the block's earlier scalar stores were done (a DataSyncBarrier or a drain since
// the last one): a store behind undrained stores may overtake them, so it publishes nothing.
// Another block's scalar load of exactly those bytes that read GM after the store landed, with
// no later write in between, observed it and learns its release clock (acquire).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "sync/check/site.h"
#include "sync/check/vector_clock.h"

namespace npusim::check {

/// A block as the GM flags name it.
struct GmBlockKey {
    std::uint32_t kernel_id = 0;
    std::uint32_t block = 0;
    CoreType core_type = CoreType::Vector;
    bool operator==(const GmBlockKey&) const = default;
};

class ScalarGmSync final {
public:
    /// What a load observed: the store's release clock, its (agent, epoch) and its block.
    struct Observed {
        const VectorClock* release = nullptr;
        AgentId agent = 0;
        EpochCount epoch = 0;
        GmBlockKey writer;
    };

    bool empty() const { return m_stores.empty(); }

    /// A scalar GM store of [address, address + bytes) by `by`: `site` names its store-buffer
    /// agent and epoch, `site.time` when it lands. `release`: the block's scalar clock when its
    /// earlier stores are done, else null (the store publishes nothing).
    void store(const GmBlockKey& by, const Site& site, std::uint64_t address, std::uint64_t bytes,
               const VectorClock* release);
    /// A clean by `by` of [address, address + bytes) (bytes 0: every address): its stores there
    /// become visible to other blocks.
    void clean(const GmBlockKey& by, std::uint64_t address, std::uint64_t bytes);
    /// Another write over [lo, hi) (a DMA, an atomic): the stores there are overwritten.
    void overwrite(std::uint64_t lo, std::uint64_t hi);
    /// A scalar load by `by` of [address, address + bytes) that read GM at `read_at`: the visible,
    /// publishing store of another block it read, if any (the load acquires it; `by` is
    /// remembered as having seen it).
    std::optional<Observed> load(const GmBlockKey& by, std::uint64_t address, std::uint64_t bytes,
                                 Cycle read_at);
    /// Raises into `clock` the stores at `address` that `by` observed: its later accesses of
    /// those bytes come after them (coherence of one location), not after what they overtook.
    /// False when there are none (`clock` untouched).
    bool raise_seen(const GmBlockKey& by, std::uint64_t address, VectorClock& clock) const;
    /// The kernel ended: its stores are forgotten (later kernels are ordered after it).
    void forget_kernel(std::uint32_t kernel_id);

private:
    struct Record {
        GmBlockKey writer;
        std::uint64_t bytes = 0;
        AgentId agent = 0;
        EpochCount epoch = 0;
        Cycle lands = 0;
        bool visible = false;
        bool publishes = false;
        VectorClock release;
        std::vector<GmBlockKey> seen_by;
    };
    static constexpr std::size_t kPerAddress = 4;           // the latest stores kept per address
    std::map<std::uint64_t, std::vector<Record>> m_stores;  // by address, in landing order
};

}  // namespace npusim::check
