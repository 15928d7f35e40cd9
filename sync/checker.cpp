#include "sync/checker.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <set>
#include <sstream>

namespace npusim {

std::string_view to_string(FindingKind kind) {
    switch (kind) {
        case FindingKind::RaceRAW:
            return "RAW";
        case FindingKind::RaceWAR:
            return "WAR";
        case FindingKind::RaceWAW:
            return "WAW";
        case FindingKind::UnpairedSetFlag:
            return "unpaired SetFlag";
        case FindingKind::DuplicateSetFlag:
            return "duplicate SetFlag";
        case FindingKind::UnsatisfiableWait:
            return "unsatisfiable wait";
        case FindingKind::CrossCoreOverflow:
            return "cross-core flag overflow";
        case FindingKind::OutOfBounds:
            return "out-of-bounds access";
        case FindingKind::UseAfterFree:
            return "use after free";
        case FindingKind::Leak:
            return "leak";
        case FindingKind::UninitializedRead:
            return "uninitialized read";
    }
    return "?";
}

std::string_view to_string(RaceScope scope) {
    switch (scope) {
        case RaceScope::IntraPipe:
            return "intra-pipe";
        case RaceScope::InterPipe:
            return "inter-pipe";
        case RaceScope::InterCore:
            return "inter-core";
        case RaceScope::None:
            return "";
    }
    return "";
}

bool is_race(FindingKind kind) {
    return kind == FindingKind::RaceRAW || kind == FindingKind::RaceWAR ||
           kind == FindingKind::RaceWAW;
}

namespace {

// Agent slots of one block: the scalar unit, its store buffer, and the pipes.
enum Slot : std::uint8_t { kS, kStores, kV, kM, kMte1, kMte2, kMte3, kFix, kSlots };

Slot slot_of(Pipe pipe) {
    switch (pipe) {
        case Pipe::S:
            return kS;
        case Pipe::V:
            return kV;
        case Pipe::M:
            return kM;
        case Pipe::MTE1:
            return kMte1;
        case Pipe::MTE2:
            return kMte2;
        case Pipe::MTE3:
            return kMte3;
        case Pipe::FIX:
            return kFix;
        case Pipe::ALL:
            return kS;
    }
    return kS;
}

std::string short_pipe(Pipe pipe) {
    return std::string(to_string(pipe).substr(5));
}

// One access as the checker names it: enough to order it and to report it.
struct Site {
    std::uint32_t kernel_id = 0;
    std::uint32_t block = 0;
    CoreType core_type = CoreType::Vector;
    Pipe pipe = Pipe::S;
    std::uint64_t serial = 0;
    std::source_location where;
    AgentId agent = 0;
    EpochCount epoch = 0;
    Cycle time = 0;  // when it took effect (read: start, write: end): names which of two
                     // unordered accesses came first, and whether a read saw a write land
};

bool same_location(const std::source_location& a, const std::source_location& b) {
    return a.line() == b.line() && a.column() == b.column() &&
           (a.file_name() == b.file_name() || std::strcmp(a.file_name(), b.file_name()) == 0);
}

// What the shadow memory keeps: runs of accesses by one agent from one source location,
// laid end to end. Piece k covers [origin + k*size, origin + (k+1)*size) and is the
// instruction with epoch first.epoch + k*epoch_step and serial first.serial + k*serial_step.
// A tiled loop's loads of one operand (or stores of its result) become one run however many
// tiles it has. Exact for happens-before: each piece keeps its own epoch, and coverage is
// decided per piece. Times: piece 0 keeps its own, later pieces share the last one's.
struct Run {
    Site first;
    std::uint64_t origin = 0;
    std::uint64_t size = 0;
    std::uint32_t pieces = 1;
    std::uint32_t refs = 0;
    EpochCount epoch_step = 0;
    std::uint64_t serial_step = 0;
    Cycle last_time = 0;

    Site piece(std::uint32_t k) const {
        Site s = first;
        s.epoch = first.epoch + k * epoch_step;
        s.serial = first.serial + k * serial_step;
        if (k > 0) s.time = last_time;
        return s;
    }
    std::uint32_t piece_of(std::uint64_t address) const {
        return static_cast<std::uint32_t>((address - origin) / size);
    }
};

constexpr std::uint32_t kNoRun = ~std::uint32_t{0};

// Run ids of an interval's reads: up to three inline, the rest on the heap.
class IdList {
public:
    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    std::uint32_t operator[](std::size_t i) const {
        return i < kInline ? m_inline[i] : m_more[i - kInline];
    }
    void push_back(std::uint32_t id) {
        if (m_size < kInline) {
            m_inline[m_size] = id;
        } else {
            m_more.push_back(id);
        }
        ++m_size;
    }
    void clear() {
        m_size = 0;
        m_more.clear();
    }
    bool operator==(const IdList& other) const {
        if (m_size != other.m_size) return false;
        for (std::size_t i = 0; i < m_size; ++i)
            if ((*this)[i] != other[i]) return false;
        return true;
    }
    /// Keeps the ids for which keep(id) is true, in order.
    template <class Keep>
    void filter(Keep keep) {
        std::size_t out = 0;
        for (std::size_t i = 0; i < m_size; ++i) {
            const std::uint32_t id = (*this)[i];
            if (!keep(id)) continue;
            set(out++, id);
        }
        m_size = static_cast<std::uint32_t>(out);
        if (out <= kInline) {
            m_more.clear();
        } else {
            m_more.resize(out - kInline);
        }
    }

private:
    static constexpr std::size_t kInline = 3;
    void set(std::size_t i, std::uint32_t id) {
        if (i < kInline) {
            m_inline[i] = id;
        } else {
            m_more[i - kInline] = id;
        }
    }
    std::uint32_t m_size = 0;
    std::uint32_t m_inline[kInline]{};
    std::vector<std::uint32_t> m_more;
};

struct Interval {
    std::uint64_t hi = 0;
    std::uint32_t write = kNoRun;    // the last write, if any
    Cycle first_landed = ~Cycle{0};  // when the earliest write to these bytes landed
    IdList reads;                    // reads since the last write
};

struct Uninit {
    MemSpace space = MemSpace::GM;
    Site site;
    std::uint64_t lo = 0, hi = 0;
};

struct Shadow {
    std::map<std::uint64_t, Interval> map;  // keyed by interval start
    // Reads of never-written bytes, decided at kernel end: keyed by (start, sequence).
    std::map<std::pair<std::uint64_t, std::uint64_t>, Uninit> uninit;
    std::uint64_t uninit_span = 0;  // the longest candidate, to bound the overlap search
};

// "Is `site` ordered before the accessor?" The accessor's clock plus at most one extra
// (agent, count) pair: the scalar unit's own store buffer when it checks its own accesses.
struct View {
    const VectorClock& clock;
    AgentId extra_agent = ~AgentId{0};
    EpochCount extra = 0;
    AgentId self_agent = ~AgentId{0};  // the accessing instruction itself: an in-place op
    EpochCount self_epoch = 0;         // reads and writes the same bytes without a hazard
    bool covers(const Site& site) const {
        if (site.agent == self_agent && site.epoch == self_epoch) return true;
        if (site.agent == extra_agent && site.epoch <= extra) return true;
        return clock.get(site.agent) >= site.epoch;
    }
};

struct FlagRecord {
    std::uint64_t serial = 0;
    std::uint32_t kernel_id = 0;
    std::uint32_t block = 0;
    std::source_location where;
    VectorClock clock;
    bool reported = false;
};

}  // namespace

struct Checker::Impl {
    struct Agent {
        VectorClock clock;       // what this agent knows; clock[self] is its completed frontier
        EpochCount counter = 0;  // instructions issued on this agent
        std::uint64_t scalar_version_seen = 0;
    };
    struct Block {
        std::uint32_t kernel_id = 0;
        std::uint32_t block = 0;
        CoreType type = CoreType::Vector;
        std::uint32_t core = 0;
        AgentId agents[kSlots]{};
        std::vector<std::pair<MemSpace, std::pair<std::uint64_t, std::uint64_t>>> allocations;
        std::array<Shadow*, kMemSpaces> local_shadows{};  // this core's local spaces
        // Flag queues of this block's core by (src, dst, id) for ids below 8, found once.
        std::unique_ptr<std::array<std::deque<FlagRecord>*, kPipeSlots * kPipeSlots * 8>>
            flag_cache;
    };
    struct KernelState {
        KernelInfo info;
        VectorClock start_clock;  // the host's knowledge at launch
        std::vector<Block*> blocks;
        bool ended = false;
    };

    Impl(Checker& owner, const GlobalMemory& memory, CheckerOptions opts)
        : self(owner), gm(memory), options(opts) {
        agents.emplace_back();  // agent 0: the host
    }

    static constexpr AgentId kHost = 0;
    Checker& self;
    const GlobalMemory& gm;
    CheckerOptions options;
    std::vector<Agent> agents;
    std::map<std::tuple<std::uint32_t, CoreType, std::uint32_t>, std::unique_ptr<Block>> blocks;
    std::map<std::pair<CoreType, std::uint32_t>, Block*> on_core;  // block running on a core
    std::map<std::uint32_t, KernelState> kernels;
    std::map<std::tuple<MemSpace, CoreType, std::uint32_t>, Shadow> shadows;  // local spaces
    Shadow gm_shadow;
    std::map<std::tuple<std::uint32_t, std::uint64_t, std::uint32_t>, VectorClock> barriers;
    // Intra-core flags: per (core, src, dst, id), oldest first.
    std::map<std::tuple<CoreType, std::uint32_t, Pipe, Pipe, std::uint32_t>, std::deque<FlagRecord>>
        flags;
    // The same queues by a packed key: a hash lookup per SetFlag / WaitFlag (the ordered map
    // gives the report order at kernel end).
    std::unordered_map<std::uint64_t, std::deque<FlagRecord>*> flag_index;
    std::deque<FlagRecord>& flag_queue(Block& b, const Transaction& tx) {
        std::deque<FlagRecord>** cached = nullptr;
        if (tx.event_id < 8) {
            if (!b.flag_cache) {
                b.flag_cache = std::make_unique<
                    std::array<std::deque<FlagRecord>*, kPipeSlots * kPipeSlots * 8>>();
                b.flag_cache->fill(nullptr);
            }
            cached = &(*b.flag_cache)[(static_cast<std::size_t>(tx.flag_src) * kPipeSlots +
                                       static_cast<std::size_t>(tx.flag_dst)) *
                                          8 +
                                      tx.event_id];
            if (*cached != nullptr) return **cached;
        }
        const std::uint64_t key = (std::uint64_t{tx.event_id} << 32) |
                                  (std::uint64_t{b.core} << 10) |
                                  (static_cast<std::uint64_t>(b.type) << 9) |
                                  (static_cast<std::uint64_t>(tx.flag_src) << 4) |
                                  static_cast<std::uint64_t>(tx.flag_dst);
        std::deque<FlagRecord>*& queue = flag_index[key];
        if (queue == nullptr)
            queue = &flags[{b.type, b.core, tx.flag_src, tx.flag_dst, tx.event_id}];
        if (cached != nullptr) *cached = queue;
        return *queue;
    }
    // Cross-core flags, mirroring sync/cross_core_flags.h.
    std::map<std::tuple<std::uint32_t, CoreType, std::uint32_t, std::uint32_t>,
             std::deque<VectorClock>>
        cross_counters;
    std::map<std::tuple<std::uint32_t, std::uint64_t, std::uint32_t>,
             std::pair<std::uint32_t, VectorClock>>
        cross_rounds;
    Block* last_block = nullptr;
    std::array<std::vector<Block*>, 2> running;  // per core type and core: its latest block
    std::uint64_t uninit_sequence = 0;
    std::size_t uninit_count = 0;

    void report_uninitialized(std::uint32_t kernel_id) {
        if (uninit_count == 0) return;
        std::vector<std::pair<std::uint64_t, Uninit>> due;
        auto collect = [&](Shadow& sh) {
            for (auto it = sh.uninit.begin(); it != sh.uninit.end();) {
                if (it->second.site.kernel_id != kernel_id) {
                    ++it;
                    continue;
                }
                due.emplace_back(it->first.second, it->second);
                it = sh.uninit.erase(it);
                --uninit_count;
            }
        };
        collect(gm_shadow);
        for (auto& [key, sh] : shadows) collect(sh);
        std::sort(due.begin(), due.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        for (const auto& [sequence, u] : due) {
            report_single(
                FindingKind::UninitializedRead, Severity::Error, u.space, u.site, false, u.lo,
                u.hi - u.lo,
                "read of " + std::string(to_string(u.space)) + " bytes that were never written",
                "write them first (host write, DataCopy or a vector op) or read less");
        }
    }

    // The kernel is over: the host and every later kernel come after all it did.
    void end_kernel(KernelState& k) {
        k.ended = true;
        report_uninitialized(k.info.kernel_id);
        VectorClock done;
        for (const Block* b : k.blocks) done.join(drained(*b));
        agents[kHost].clock.join(done);
    }

    // A run that stopped on a deadlock or a KernelError never ends its kernels, yet the host
    // goes on after it: before the host's next write or launch, every kernel that ran (has
    // blocks) and did not end ends here, and its pending intra-core flags are dropped (the
    // abort reset the cores). Kernels launched but not yet run have no blocks and stay open.
    void end_aborted() {
        for (auto& [id, k] : kernels) {
            if (k.ended || k.blocks.empty()) continue;
            end_kernel(k);
            for (auto& [key, queue] : flags)
                std::erase_if(queue, [&](const FlagRecord& r) { return r.kernel_id == id; });
        }
    }

    // ---- agents and blocks --------------------------------------------------------------
    Block& block_of(const Transaction& tx) {
        if (last_block && last_block->kernel_id == tx.kernel_id && last_block->block == tx.block &&
            last_block->type == tx.core_type) {
            return *last_block;
        }
        // Blocks interleave: the one a core ran last is found by the core's index.
        auto& by_core = running[tx.core_type == CoreType::Cube ? 1 : 0];
        if (tx.core < by_core.size()) {
            Block* b = by_core[tx.core];
            if (b && b->kernel_id == tx.kernel_id && b->block == tx.block &&
                b->type == tx.core_type) {
                last_block = b;
                return *b;
            }
        }
        auto& slot = blocks[{tx.kernel_id, tx.core_type, tx.block}];
        if (!slot) {
            slot = std::make_unique<Block>();
            Block& b = *slot;
            b.kernel_id = tx.kernel_id;
            b.block = tx.block;
            b.type = tx.core_type;
            b.core = tx.core;
            VectorClock start = kernels[tx.kernel_id].start_clock;
            // The previous block on this core finished before this one started.
            Block*& previous = on_core[{tx.core_type, tx.core}];
            if (previous != nullptr) start.join(drained(*previous));
            previous = &b;
            reset_local_shadows(tx.core_type, tx.core);
            for (int s = 0; s < kSlots; ++s) {
                b.agents[s] = static_cast<AgentId>(agents.size());
                agents.emplace_back();
                agents.back().clock = start;
            }
            kernels[tx.kernel_id].blocks.push_back(&b);
        }
        last_block = slot.get();
        if (tx.core >= by_core.size()) by_core.resize(tx.core + 1, nullptr);
        by_core[tx.core] = slot.get();
        return *slot;
    }

    Agent& agent(const Block& b, Slot s) { return agents[b.agents[s]]; }

    // Everything the block did, complete: its agents' clocks with every frontier at its count.
    VectorClock drained(const Block& b) {
        VectorClock c;
        for (int s = 0; s < kSlots; ++s) {
            const Agent& a = agents[b.agents[s]];
            c.join(a.clock);
            c.raise(b.agents[s], a.counter);
        }
        return c;
    }

    // A new block on a core starts with fresh local memories (what the previous block left
    // there is not this block's data). Cleared, not erased: blocks cache the addresses.
    void reset_local_shadows(CoreType type, std::uint32_t core) {
        for (MemSpace space :
             {MemSpace::UB, MemSpace::L1, MemSpace::L0A, MemSpace::L0B, MemSpace::L0C}) {
            const auto it = shadows.find({space, type, core});
            if (it != shadows.end()) clear(it->second);
        }
    }

    // The scalar unit's knowledge flows into a pipe when it issues there.
    void issue_edge(Block& b, Slot pipe) {
        Agent& scalar = agent(b, kS);
        Agent& target = agent(b, pipe);
        if (target.scalar_version_seen == scalar.clock.version()) return;
        target.clock.join(scalar.clock);
        target.scalar_version_seen = scalar.clock.version();
    }

    // Everything `pipe` completed, for a SetFlag or cross-core set fired from it.
    std::vector<VectorClock> spare_clocks;  // consumed flags' clocks, reused (no allocation)
    VectorClock fired(Block& b, Slot pipe) {
        VectorClock c;
        if (!spare_clocks.empty()) {
            c = std::move(spare_clocks.back());
            spare_clocks.pop_back();
        }
        c = agent(b, pipe).clock;
        c.raise(b.agents[pipe], agent(b, pipe).counter);
        if (pipe == kS) c.raise(b.agents[kStores], agent(b, kStores).counter);
        return c;
    }

    void scalar_learns(Block& b, const VectorClock& c) { agent(b, kS).clock.join(c); }

    // ---- findings -----------------------------------------------------------------------
    struct FindingKey {
        std::uint64_t kind_space_scope_pipes;
        const char* file_a;
        const char* file_b;
        std::uint64_t line_column_a;
        std::uint64_t line_column_b;
        bool operator==(const FindingKey&) const = default;
    };
    struct FindingKeyHash {
        std::size_t operator()(const FindingKey& k) const {
            std::uint64_t h = k.kind_space_scope_pipes * 0x9E3779B97F4A7C15ULL;
            for (std::uint64_t v :
                 {reinterpret_cast<std::uint64_t>(k.file_a),
                  reinterpret_cast<std::uint64_t>(k.file_b), k.line_column_a, k.line_column_b}) {
                h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
            }
            return static_cast<std::size_t>(h);
        }
    };
    std::unordered_map<FindingKey, std::size_t, FindingKeyHash> dedupe;

    // Deduplicated by (kind, space, scope, source-location pair, pipes): an inter-core race is
    // never folded into an intra-core one of the same lines. Returns true when the instances
    // were folded into an existing finding (the caller need not build one).
    static FindingKey key_of(FindingKind kind, MemSpace space, RaceScope scope,
                             const std::source_location& a, const std::source_location& b, Pipe pa,
                             Pipe pb) {
        return {static_cast<std::uint64_t>(kind) | (static_cast<std::uint64_t>(space) << 8) |
                    (static_cast<std::uint64_t>(scope) << 16) |
                    (static_cast<std::uint64_t>(pa) << 24) | (static_cast<std::uint64_t>(pb) << 32),
                a.file_name(), b.file_name(), (std::uint64_t{a.line()} << 32) | a.column(),
                (std::uint64_t{b.line()} << 32) | b.column()};
    }
    bool fold(const FindingKey& key, std::uint64_t instances) {
        if (!options.deduplicate) return false;
        const auto it = dedupe.find(key);
        if (it == dedupe.end()) return false;
        self.m_findings[it->second].count += instances;
        return true;
    }
    void add(const FindingKey& key, Finding finding) {
        if (options.deduplicate) dedupe.emplace(key, self.m_findings.size());
        self.m_findings.push_back(std::move(finding));
    }

    AccessSite site_of(const Site& s, bool write, MemSpace space, std::uint64_t address,
                       std::uint64_t bytes) {
        AccessSite a;
        a.kernel_id = s.kernel_id;
        const auto k = kernels.find(s.kernel_id);
        a.kernel = k != kernels.end() ? k->second.info.name : "?";
        a.block = s.block;
        a.core_type = s.core_type;
        a.pipe = s.pipe;
        a.write = write;
        a.serial = s.serial;
        a.where = s.where;
        a.space = space;
        a.address = address;
        a.bytes = bytes;
        if (space == MemSpace::GM) {
            if (const GmBuffer* buffer = gm.find_buffer(address)) {
                a.buffer =
                    buffer->name.empty() ? "gm@" + std::to_string(buffer->address) : buffer->name;
                a.offset = address - buffer->address;
            } else {
                a.buffer = "GM";
                a.offset = address;
            }
        } else {
            a.buffer = std::string(to_string(space));
            a.offset = address;
        }
        return a;
    }

    static bool same_block(const Site& a, const Site& b) {
        return a.kernel_id == b.kernel_id && a.block == b.block && a.core_type == b.core_type;
    }

    // Which of two unordered accesses a report names first. Within a block: issue order
    // (serial numbers, as the vendor's sanitizer does). Across blocks, RaceOrder::Timing: the
    // order they took effect in this run; RaceOrder::Program: (kernel, core type, block,
    // serial), the same whatever the timing.
    bool comes_before(const Site& a, const Site& b) const {
        if (same_block(a, b)) return a.serial < b.serial;
        if (options.race_order == RaceOrder::Timing) return a.time < b.time;
        return std::tuple(a.kernel_id, static_cast<int>(a.core_type) ^ 1, a.block, a.serial) <
               std::tuple(b.kernel_id, static_cast<int>(b.core_type) ^ 1, b.block, b.serial);
    }

    void report_race(const Site& first_seen, bool first_seen_write, const Site& second_seen,
                     bool second_seen_write, MemSpace space, std::uint64_t lo, std::uint64_t hi,
                     std::uint64_t instances = 1) {
        // Unordered accesses have no "first" by synchronization: see comes_before.
        const bool swap = comes_before(second_seen, first_seen);
        const Site& prior = swap ? second_seen : first_seen;
        const Site& now = swap ? first_seen : second_seen;
        const bool prior_write = swap ? second_seen_write : first_seen_write;
        const bool now_write = swap ? first_seen_write : second_seen_write;
        const FindingKind kind = prior_write
                                     ? (now_write ? FindingKind::RaceWAW : FindingKind::RaceRAW)
                                     : FindingKind::RaceWAR;
        const bool block = same_block(prior, now);
        const bool same_unit = block && prior.pipe == now.pipe;
        const RaceScope scope = same_unit ? RaceScope::IntraPipe
                                          : (block ? RaceScope::InterPipe : RaceScope::InterCore);
        const FindingKey key =
            key_of(kind, space, scope, prior.where, now.where, prior.pipe, now.pipe);
        if (fold(key, instances)) return;
        Finding f;
        f.kind = kind;
        f.severity = Severity::Error;
        f.space = space;
        f.scope = scope;
        f.count = instances;
        f.sites.push_back(site_of(prior, prior_write, space, lo, hi - lo));
        f.sites.push_back(site_of(now, now_write, space, lo, hi - lo));
        const std::string la = std::to_string(prior.where.line());
        const std::string lb = std::to_string(now.where.line());
        f.message = "Potential " + std::string(to_string(kind)) + " hazard (" +
                    std::string(to_string(f.scope)) + ") at " + std::string(to_string(space));
        if (f.scope == RaceScope::IntraPipe) {
            f.fix = "PipeBarrier<" + std::string(to_string(now.pipe)) + ">() after line " + la +
                    " and before line " + lb;
        } else if (f.scope == RaceScope::InterPipe) {
            const std::string pair = short_pipe(prior.pipe) + "_" + short_pipe(now.pipe);
            f.fix = "SetFlag<" + pair + "> after line " + la + " and WaitFlag<" + pair +
                    "> before line " + lb;
        } else if (prior.kernel_id != now.kernel_id) {
            f.fix =
                "order the two kernels (an event recorded after the first and waited for "
                "before the second)";
        } else {
            f.fix = "SyncAll (or a cross-core flag set after line " + la + " in block " +
                    std::to_string(prior.block) + " and waited for before line " + lb +
                    " in block " + std::to_string(now.block) + ") between line " + la +
                    " and line " + lb;
        }
        add(key, std::move(f));
    }

    void report_single(FindingKind kind, Severity severity, MemSpace space, const Site& s,
                       bool write, std::uint64_t address, std::uint64_t bytes, std::string message,
                       std::string fix) {
        const FindingKey key =
            key_of(kind, space, RaceScope::None, s.where, s.where, s.pipe, s.pipe);
        if (fold(key, 1)) return;
        Finding f;
        f.kind = kind;
        f.severity = severity;
        f.space = space;
        f.sites.push_back(site_of(s, write, space, address, bytes));
        f.message = std::move(message);
        f.fix = std::move(fix);
        add(key, std::move(f));
    }

    // ---- shadow memory ------------------------------------------------------------------
    std::vector<Run> runs;
    std::vector<std::uint32_t> free_runs;

    std::uint32_t new_run(const Site& site, std::uint64_t lo, std::uint64_t bytes) {
        std::uint32_t id;
        if (!free_runs.empty()) {
            id = free_runs.back();
            free_runs.pop_back();
        } else {
            id = static_cast<std::uint32_t>(runs.size());
            runs.emplace_back();
        }
        Run& r = runs[id];
        r = Run{};
        r.first = site;
        r.origin = lo;
        r.size = bytes;
        r.last_time = site.time;
        return id;
    }
    void retain(std::uint32_t id) {
        if (id != kNoRun) ++runs[id].refs;
    }
    void release(std::uint32_t id) {
        if (id != kNoRun && --runs[id].refs == 0) free_runs.push_back(id);
    }
    void retain(const Interval& iv) {
        retain(iv.write);
        for (std::size_t i = 0; i < iv.reads.size(); ++i) retain(iv.reads[i]);
    }
    void release(const Interval& iv) {
        release(iv.write);
        for (std::size_t i = 0; i < iv.reads.size(); ++i) release(iv.reads[i]);
    }
    void clear(Shadow& shadow) {
        for (const auto& [lo, iv] : shadow.map) release(iv);
        shadow.map.clear();
    }

    // Splits the interval holding `at` there; returns the first interval starting at or
    // after `at`.
    std::map<std::uint64_t, Interval>::iterator split(Shadow& shadow, std::uint64_t at) {
        auto it = shadow.map.upper_bound(at);
        if (it == shadow.map.begin()) return it;
        const auto before = std::prev(it);
        if (before->first == at) return before;
        if (at < before->second.hi) {
            Interval right = before->second;
            retain(right);
            before->second.hi = at;
            return shadow.map.emplace_hint(it, at, std::move(right));
        }
        return it;
    }

    // The pieces of run `id` inside [lo, hi) that `view` does not cover: how many, and the
    // first of them.
    struct Uncovered {
        std::uint64_t count = 0;
        std::uint32_t first = 0;
    };
    Uncovered uncovered(std::uint32_t id, std::uint64_t lo, std::uint64_t hi,
                        const View& view) const {
        const Run& r = runs[id];
        const std::uint32_t k0 = r.piece_of(lo);
        const std::uint32_t k1 = r.piece_of(hi - 1);
        EpochCount known = view.clock.get(r.first.agent);
        if (r.first.agent == view.extra_agent) known = std::max(known, view.extra);
        // Pieces k with epoch(k) <= known are covered; epochs grow with k.
        std::uint64_t first_open = k0;
        if (known >= r.first.epoch) {
            if (r.epoch_step == 0) return {};
            first_open = std::max<std::uint64_t>(k0, (known - r.first.epoch) / r.epoch_step + 1);
        }
        if (first_open > k1) return {};
        Uncovered u{k1 - first_open + 1, static_cast<std::uint32_t>(first_open)};
        if (r.first.agent == view.self_agent) {  // the accessing instruction covers itself
            const EpochCount e = view.self_epoch;
            if (e >= r.first.epoch &&
                (r.epoch_step == 0 ? e == r.first.epoch
                                   : (e - r.first.epoch) % r.epoch_step == 0)) {
                const std::uint64_t ks = r.epoch_step == 0 ? 0 : (e - r.first.epoch) / r.epoch_step;
                if (ks >= first_open && ks <= k1) {
                    --u.count;
                    if (ks == first_open) ++u.first;
                }
            }
        }
        return u;
    }

    // Reports the race of the current access with run `id` over [lo, hi), if any; returns
    // the first uncovered piece's site through `seen`.
    bool race_with(std::uint32_t id, bool run_write, const Site& site, bool write, const View& view,
                   MemSpace space, std::uint64_t lo, std::uint64_t hi, Site* seen = nullptr) {
        const Uncovered u = uncovered(id, lo, hi, view);
        if (u.count == 0) return false;
        const Run& r = runs[id];
        const Site other = r.piece(u.first);
        const std::uint64_t piece_lo = std::max(lo, r.origin + u.first * r.size);
        const std::uint64_t piece_hi = std::min(hi, r.origin + (u.first + 1) * r.size);
        if (seen) *seen = other;
        if (options.racecheck)
            report_race(other, run_write, site, write, space, piece_lo, piece_hi, u.count);
        return true;
    }

    // Extends run `left` by run `right` (one piece, just after it) if they are one pattern.
    bool extend(std::uint32_t left, std::uint32_t right) {
        Run& a = runs[left];
        const Run& b = runs[right];
        if (b.pieces != 1 || a.first.agent != b.first.agent || a.size != b.size ||
            a.origin + a.pieces * a.size != b.origin || b.first.epoch <= a.first.epoch ||
            b.first.serial < a.first.serial || a.first.kernel_id != b.first.kernel_id ||
            !same_location(a.first.where, b.first.where))
            return false;
        if (a.pieces == 1) {
            a.epoch_step = b.first.epoch - a.first.epoch;
            a.serial_step = b.first.serial - a.first.serial;
        } else if (b.first.epoch != a.first.epoch + a.pieces * a.epoch_step ||
                   b.first.serial != a.first.serial + a.pieces * a.serial_step) {
            return false;
        }
        ++a.pieces;
        a.last_time = b.first.time;
        return true;
    }

    // The access just made [lo, hi) one interval `it` holding run `me` (as its write or its
    // last read): fold it into its left neighbour when that one holds the same state with
    // `me`'s predecessor in the same loop.
    void merge_left(Shadow& shadow, std::map<std::uint64_t, Interval>::iterator it,
                    std::uint32_t me, bool write) {
        if (it == shadow.map.begin()) return;
        const auto left = std::prev(it);
        Interval& l = left->second;
        Interval& r = it->second;
        if (l.hi != it->first) return;
        if (write) {
            // The merged bytes keep the earlier landing time (initcheck of a read that
            // overtakes a later piece's store is approximate inside a run).
            if (l.write == kNoRun || !l.reads.empty() || !r.reads.empty() || !extend(l.write, me))
                return;
            l.first_landed = std::min(l.first_landed, r.first_landed);
        } else {
            const std::size_t n = r.reads.size();
            if (l.first_landed != r.first_landed || l.write != r.write || l.reads.size() != n ||
                r.reads[n - 1] != me)
                return;
            for (std::size_t i = 0; i + 1 < n; ++i)
                if (l.reads[i] != r.reads[i]) return;
            if (!extend(l.reads[n - 1], me)) return;
        }
        l.hi = r.hi;
        release(r);
        shadow.map.erase(it);
    }

    void access(MemSpace space, Shadow& sh, const Site& site, const View& view, std::uint64_t lo,
                std::uint64_t hi, bool write) {
        if (lo >= hi) return;
        auto& shadow = sh.map;
        auto it = split(sh, lo);
        const std::uint32_t me = new_run(site, lo, hi - lo);
        bool uninitialized = false;
        std::uint64_t uninit_lo = 0;
        Cycle merged_first_landed = site.time;
        std::uint64_t cursor = lo;
        while (cursor < hi) {
            if (it == shadow.end() || it->first > cursor) {
                const std::uint64_t gap_hi = it == shadow.end() ? hi : std::min(hi, it->first);
                if (!write && !uninitialized) {
                    uninitialized = true;
                    uninit_lo = cursor;
                }
                Interval fresh;
                fresh.hi = gap_hi;
                if (write) {
                    fresh.write = me;
                    fresh.first_landed = site.time;
                } else {
                    fresh.reads.push_back(me);
                }
                retain(me);
                it = std::next(shadow.emplace_hint(it, cursor, std::move(fresh)));
                cursor = gap_hi;
                continue;
            }
            if (it->second.hi > hi) {  // the last interval reaches past the access: split
                Interval right = it->second;
                retain(right);
                it->second.hi = hi;
                shadow.emplace_hint(std::next(it), hi, std::move(right));
            }
            Interval& iv = it->second;
            const std::uint64_t ilo = it->first;
            bool explained = false;  // a RAW reported here already says why the data is stale
            bool write_covered = true;
            if (iv.write != kNoRun) {
                Site w;
                if (race_with(iv.write, true, site, write, view, space, ilo, iv.hi, &w)) {
                    write_covered = false;
                    explained = options.racecheck && (same_block(w, site) ? w.serial < site.serial
                                                                          : w.time <= site.time);
                }
            }
            if (write) {
                for (std::size_t i = 0; i < iv.reads.size(); ++i)
                    race_with(iv.reads[i], false, site, true, view, space, ilo, iv.hi);
                release(iv.write);
                for (std::size_t i = 0; i < iv.reads.size(); ++i) release(iv.reads[i]);
                iv.reads.clear();
                iv.write = me;
                retain(me);
                iv.first_landed = std::min(iv.first_landed, site.time);
                merged_first_landed = std::min(merged_first_landed, iv.first_landed);
            } else {
                // Never written, or written only by an unordered write that landed after this
                // read began: the read saw uninitialized bytes.
                const bool unset =
                    iv.write == kNoRun || (!write_covered && site.time < iv.first_landed);
                if (unset && !explained && !uninitialized) {
                    uninitialized = true;
                    uninit_lo = ilo;
                }
                // Reads this one covers are dropped (it stands for them). Past a few reads
                // that is done only when the list doubles, so that many unordered readers
                // (blocks) cost each read O(1) amortized.
                const std::size_t n = iv.reads.size();
                if (n > 0 && (n <= 8 || (n & (n - 1)) == 0)) {
                    iv.reads.filter([&](std::uint32_t id) {
                        if (uncovered(id, ilo, iv.hi, view).count != 0) return true;
                        release(id);
                        return false;
                    });
                }
                iv.reads.push_back(me);
                retain(me);
            }
            cursor = iv.hi;
            ++it;
        }
        auto first = shadow.find(lo);
        if (write) {  // one interval for the whole written range keeps the map small
            const auto end = shadow.lower_bound(hi);
            for (auto e = std::next(first); e != end; ++e) release(e->second);
            shadow.erase(std::next(first), end);
            first->second.hi = hi;  // already holds this write and no reads
            first->second.first_landed = merged_first_landed;
        }
        if (first->second.hi == hi) merge_left(sh, first, me, write);
        if (uninitialized && options.initcheck &&
            (space == MemSpace::GM || space == MemSpace::UB)) {
            // Decided at kernel end: an unordered write published later may have come earlier
            // in simulated time (that pair is a race, reported as such).
            sh.uninit.emplace(std::pair(uninit_lo, uninit_sequence++),
                              Uninit{space, site, uninit_lo, hi});
            sh.uninit_span = std::max(sh.uninit_span, hi - uninit_lo);
            ++uninit_count;
        } else if (write && !sh.uninit.empty()) {
            const std::uint64_t from = lo > sh.uninit_span ? lo - sh.uninit_span : 0;
            for (auto u = sh.uninit.lower_bound({from, 0});
                 u != sh.uninit.end() && u->first.first < hi;) {
                if (lo < u->second.hi && site.time <= u->second.site.time) {
                    u = sh.uninit.erase(u);
                    --uninit_count;
                } else {
                    ++u;
                }
            }
        }
    }

    const GmBuffer* last_buffer = nullptr;
    std::size_t gm_buffers_seen = 0;
    void check_bounds(const Block& b, const Site& site, const MemAccess& a) {
        if (!options.memcheck) return;
        if (a.space == MemSpace::GM) {
            // Most accesses fall in the buffer the previous one did.
            if (last_buffer != nullptr && !last_buffer->freed &&
                a.address >= last_buffer->address &&
                a.address + a.bytes <= last_buffer->address + last_buffer->bytes &&
                gm_buffers_seen == gm.buffers().size())
                return;
            const GmBuffer* buffer = gm.find_buffer(a.address);
            last_buffer = buffer;
            gm_buffers_seen = gm.buffers().size();
            if (buffer == nullptr || a.address + a.bytes > buffer->address + buffer->bytes) {
                std::string what =
                    buffer == nullptr
                        ? "outside every allocated GM buffer"
                        : std::to_string(a.address + a.bytes - buffer->address - buffer->bytes) +
                              " bytes past the end of buffer '" + buffer->name + "' (" +
                              std::to_string(buffer->bytes) + " bytes)";
                report_single(FindingKind::OutOfBounds, Severity::Error, a.space, site, a.write,
                              a.address, a.bytes,
                              std::string(a.write ? "write" : "read") + " of " +
                                  std::to_string(a.bytes) + " bytes " + what,
                              "shrink the access or allocate a larger buffer");
            } else if (buffer->freed) {
                report_single(FindingKind::UseAfterFree, Severity::Error, a.space, site, a.write,
                              a.address, a.bytes,
                              "access to GM buffer '" + buffer->name + "' after it was freed",
                              "free the buffer only after the last kernel that uses it");
            }
            return;
        }
        bool any = false;
        for (const auto& [space, range] : b.allocations) {
            if (space != a.space) continue;
            any = true;
            if (a.address >= range.first && a.address + a.bytes <= range.first + range.second)
                return;
        }
        if (!any) return;  // the block lays this space out by hand: only capacity applies
        report_single(
            FindingKind::OutOfBounds, Severity::Error, a.space, site, a.write, a.address, a.bytes,
            std::string(a.write ? "write" : "read") + " of " + std::to_string(a.bytes) +
                " bytes at " + std::string(to_string(a.space)) + "+" + std::to_string(a.address) +
                " is not inside one buffer this block allocated",
            "keep the access inside the tensor returned by alloc()");
    }

    Shadow& shadow_for(MemSpace space, Block& b) {
        if (space == MemSpace::GM) return gm_shadow;
        Shadow*& cached = b.local_shadows[static_cast<std::size_t>(space)];
        if (cached == nullptr) cached = &shadows[{space, b.type, b.core}];
        return *cached;
    }

    // ---- transactions -------------------------------------------------------------------
    void data_instruction(Block& b, const Transaction& tx) {
        const Slot slot = slot_of(tx.pipe);
        Site site{tx.kernel_id, tx.block, tx.core_type, tx.pipe, tx.serial, tx.where, 0, 0,
                  tx.start};
        if (tx.pipe == Pipe::S) {
            Agent& scalar = agent(b, kS);
            Agent& stores = agent(b, kStores);
            const bool store = tx.op == Op::ScalarStore;
            if (store) {
                site.agent = b.agents[kStores];
                site.epoch = ++stores.counter;
            } else {
                site.agent = b.agents[kS];
                site.epoch = ++scalar.counter;
                scalar.clock.set(b.agents[kS], scalar.counter);
            }
            const View view{scalar.clock, b.agents[kStores], stores.counter - (store ? 1 : 0),
                            site.agent, site.epoch};
            run_accesses(b, tx, site, view);
            return;
        }
        issue_edge(b, slot);
        Agent& pipe = agent(b, slot);
        site.agent = b.agents[slot];
        site.epoch = ++pipe.counter;
        const View view{pipe.clock, ~AgentId{0}, 0, site.agent, site.epoch};
        run_accesses(b, tx, site, view);
    }

    void run_accesses(Block& b, const Transaction& tx, Site site, const View& view) {
        // Reads first: an instruction reads its sources before it writes its destination.
        // A read takes effect at the instruction's start, a write when its data lands (end).
        for (int pass = 0; pass < 2; ++pass) {
            for (std::uint8_t i = 0; i < tx.access_count; ++i) {
                const MemAccess& a = tx.accesses[i];
                if (a.write != (pass == 1)) continue;
                site.time = a.write ? tx.end : tx.start;
                check_bounds(b, site, a);
                access(a.space, shadow_for(a.space, b), site, view, a.address, a.address + a.bytes,
                       a.write);
            }
        }
    }

    void sync_instruction(Block& b, const Transaction& tx) {
        switch (tx.op) {
            case Op::SetFlag: {
                const Slot src = slot_of(tx.flag_src);
                if (src != kS) issue_edge(b, src);
                auto& queue = flag_queue(b, tx);
                if (options.synccheck && !queue.empty()) {
                    const FlagRecord& open = queue.back();
                    Site s{
                        tx.kernel_id, tx.block, tx.core_type, tx.pipe, tx.serial, tx.where, 0, 0};
                    report_single(FindingKind::DuplicateSetFlag, Severity::Error, MemSpace::GM, s,
                                  false, 0, 0,
                                  "SetFlag<" + short_pipe(tx.flag_src) + "_" +
                                      short_pipe(tx.flag_dst) + ">(" + std::to_string(tx.event_id) +
                                      ") is set again before the WaitFlag of the one at line " +
                                      std::to_string(open.where.line()),
                                  "wait for the first SetFlag before setting it again, or use "
                                  "another event id");
                }
                queue.push_back(
                    {tx.serial, tx.kernel_id, tx.block, tx.where, fired(b, src), false});
                return;
            }
            case Op::WaitFlag: {
                const Slot dst = slot_of(tx.flag_dst);
                if (dst != kS) issue_edge(b, dst);
                auto& queue = flag_queue(b, tx);
                auto it = std::find_if(queue.begin(), queue.end(), [&](const FlagRecord& r) {
                    return r.serial == tx.partner_serial;
                });
                if (it == queue.end()) return;
                agent(b, dst).clock.join(it->clock);
                spare_clocks.push_back(std::move(it->clock));
                queue.erase(it);
                return;
            }
            case Op::PipeBarrier: {
                if (tx.pipe == Pipe::ALL) {
                    scalar_learns(b, drained(b));
                    return;
                }
                const Slot slot = slot_of(tx.pipe);
                issue_edge(b, slot);
                agent(b, slot).clock.raise(b.agents[slot], agent(b, slot).counter);
                return;
            }
            case Op::SyncAll:
            case Op::SoftSyncAll: {
                const auto key =
                    std::make_tuple(tx.kernel_id, tx.sync_id, static_cast<std::uint32_t>(tx.op));
                if (tx.arrival) {
                    barriers[key].join(drained(b));
                } else {
                    scalar_learns(b, barriers[key]);
                }
                return;
            }
            case Op::CrossCoreSetFlag: {
                const Slot src = slot_of(tx.pipe);
                if (src != kS) issue_edge(b, src);
                cross_set(tx, fired(b, src));
                return;
            }
            case Op::CrossCoreWaitFlag: {
                auto& queue = cross_counters[{tx.kernel_id, tx.core_type, tx.block, tx.event_id}];
                if (queue.empty()) return;
                scalar_learns(b, queue.front());
                queue.pop_front();
                return;
            }
            default:
                return;
        }
    }

    void cross_set(const Transaction& tx, const VectorClock& clock) {
        const KernelInfo& k = kernels[tx.kernel_id].info;
        const std::uint32_t vectors = vector_cores_per_block(k.type);
        auto post = [&](CoreType type, std::uint32_t block, const VectorClock& c) {
            auto& q = cross_counters[{tx.kernel_id, type, block, tx.event_id}];
            if (q.size() >= 16) {
                if (options.synccheck) {
                    Site s{
                        tx.kernel_id, tx.block, tx.core_type, tx.pipe, tx.serial, tx.where, 0, 0};
                    report_single(FindingKind::CrossCoreOverflow, Severity::Error, MemSpace::GM, s,
                                  false, 0, 0,
                                  "cross-core flag " + std::to_string(tx.event_id) + " of " +
                                      std::string(to_string(type)) + " block " +
                                      std::to_string(block) +
                                      " is set a 17th time without a CrossCoreWaitFlag",
                                  "wait for the flag before setting it again (at most 16 pending)");
                }
                return;
            }
            q.push_back(c);
        };
        const std::uint32_t group =
            tx.core_type == CoreType::Cube ? tx.block : (vectors == 2 ? tx.block / 2 : tx.block);
        if (tx.mode == 2) {
            if (tx.core_type == CoreType::Cube) {
                for (std::uint32_t s = 0; s < vectors; ++s)
                    post(CoreType::Vector, vectors * group + s, clock);
            } else {
                post(CoreType::Cube, group, clock);
            }
            return;
        }
        // Modes 0 and 1: a round; every member gets the join of all members' sets.
        std::vector<std::uint32_t> members;
        std::uint64_t round = 0;
        if (tx.mode == 0) {
            const std::uint32_t n = k.blocks * (tx.core_type == CoreType::Vector ? vectors : 1);
            for (std::uint32_t m = 0; m < n; ++m) members.push_back(m);
            round = static_cast<std::uint64_t>(tx.core_type);
        } else {
            members = {2 * group, 2 * group + 1};
            round = (std::uint64_t{1} << 40) | group;
        }
        auto& [count, joined] = cross_rounds[{tx.kernel_id, round, tx.event_id}];
        ++count;
        joined.join(clock);
        if (count < members.size()) return;
        const VectorClock done = joined;
        count = 0;
        joined = VectorClock{};
        for (std::uint32_t m : members) post(tx.core_type, m, done);
    }
};

Checker::Checker(const GlobalMemory& gm, CheckerOptions options)
    : m_impl(std::make_unique<Impl>(*this, gm, options)) {}

Checker::~Checker() = default;

void Checker::on_kernel_start(const KernelInfo& kernel, Cycle /*at*/) {
    m_impl->end_aborted();
    Impl::KernelState& k = m_impl->kernels[kernel.kernel_id];
    k.info = kernel;
    k.start_clock = m_impl->agents[Impl::kHost].clock;
}

void Checker::on_transaction(const Transaction& tx) {
    if (tx.internal) return;  // a sync primitive's own traffic: checked as the primitive
    Impl::Block& b = m_impl->block_of(tx);
    if (!tx.access_count) {
        m_impl->sync_instruction(b, tx);
        return;
    }
    m_impl->data_instruction(b, tx);
}

void Checker::on_kernel_end(const KernelInfo& kernel, Cycle /*at*/) {
    Impl& impl = *m_impl;
    Impl::KernelState& k = impl.kernels[kernel.kernel_id];
    impl.end_kernel(k);
    if (!impl.options.synccheck) return;
    for (auto& [key, queue] : impl.flags) {
        for (FlagRecord& r : queue) {
            if (r.kernel_id != kernel.kernel_id || r.reported) continue;
            r.reported = true;
            const Pipe src = std::get<2>(key), dst = std::get<3>(key);
            Site s{r.kernel_id, r.block, std::get<0>(key), src, r.serial, r.where, 0, 0};
            impl.report_single(
                FindingKind::UnpairedSetFlag, Severity::Error, MemSpace::GM, s, false, 0, 0,
                "SetFlag<" + short_pipe(src) + "_" + short_pipe(dst) + ">(" +
                    std::to_string(std::get<4>(key)) +
                    ") is never waited for by the end of the kernel; it stays set "
                    "for the next kernel on this core",
                "add the matching WaitFlag<" + short_pipe(src) + "_" + short_pipe(dst) + ">(" +
                    std::to_string(std::get<4>(key)) + ") before the block ends");
        }
    }
}

void Checker::on_host_write(std::uint64_t address, std::uint64_t bytes) {
    Impl& impl = *m_impl;
    impl.end_aborted();
    Impl::Agent& host = impl.agents[Impl::kHost];
    Site site;
    site.agent = Impl::kHost;
    site.epoch = ++host.counter;
    site.pipe = Pipe::S;
    host.clock.set(Impl::kHost, host.counter);
    const View view{host.clock};
    impl.access(MemSpace::GM, impl.gm_shadow, site, view, address, address + bytes, true);
}

void Checker::on_local_alloc(const LocalAllocation& a) {
    Transaction probe;
    probe.kernel_id = a.kernel_id;
    probe.block = a.block;
    probe.core_type = a.core_type;
    probe.core = a.core;
    m_impl->block_of(probe).allocations.push_back({a.space, {a.address, a.bytes}});
}

void Checker::on_block_stuck(const StuckNote& note) {
    if (!m_impl->options.synccheck) return;
    const bool flag_wait = note.reason.find("WaitFlag") != std::string::npos ||
                           note.reason.find("SetFlag that is never issued") != std::string::npos;
    if (!flag_wait) return;
    Finding f;
    f.kind = FindingKind::UnsatisfiableWait;
    f.severity = Severity::Error;
    AccessSite s;
    s.kernel_id = note.kernel_id;
    s.kernel = note.kernel;
    s.block = note.block;
    s.core_type = note.core_type;
    f.sites.push_back(s);
    f.message = "at " + note.where + ": " + note.reason;
    f.fix = "issue the matching SetFlag (or CrossCoreSetFlag) before the block waits";
    m_findings.push_back(std::move(f));
}

std::size_t Checker::error_count() const {
    return static_cast<std::size_t>(
        std::count_if(m_findings.begin(), m_findings.end(),
                      [](const Finding& f) { return f.severity == Severity::Error; }));
}

void Checker::check_leaks() {
    for (const auto& [address, buffer] : m_impl->gm.buffers()) {
        if (buffer.freed) continue;
        Finding f;
        f.kind = FindingKind::Leak;
        f.severity = Severity::Warning;
        f.space = MemSpace::GM;
        AccessSite s;
        s.space = MemSpace::GM;
        s.address = address;
        s.bytes = buffer.bytes;
        s.buffer = buffer.name;
        f.sites.push_back(s);
        f.message = "GM buffer '" + buffer.name + "' (" + std::to_string(buffer.bytes) +
                    " bytes) is never freed";
        f.fix = "free it (Simulator::free) after its last use";
        m_findings.push_back(std::move(f));
    }
}

}  // namespace npusim
