// What the checker reports. Plain data: formatting lives in sim/check_report.h.
#pragma once

#include <cstdint>
#include <source_location>
#include <string>
#include <vector>

#include "base/types.h"

namespace npusim {

enum class FindingKind : std::uint8_t {
    // racecheck
    RaceRAW,
    RaceWAR,
    RaceWAW,
    // synccheck
    UnpairedSetFlag,    // SetFlag never waited for by the end of the kernel
    DuplicateSetFlag,   // second SetFlag on the same (pipe pair, id) before its WaitFlag
    UnsatisfiableWait,  // WaitFlag / CrossCoreWaitFlag that can never be satisfied
    CrossCoreOverflow,  // cross-core flag counter over kCrossCoreMaxPending (16)
    // memcheck
    OutOfBounds,   // outside the buffer it was allocated as
    UseAfterFree,  // GM buffer already freed
    Leak,          // GM buffer never freed
    // initcheck
    UninitializedRead,
};

enum class Severity : std::uint8_t { Warning, Error };

enum class RaceScope : std::uint8_t { IntraPipe, InterPipe, InterCore, None };

/// One side of a finding: an instruction's access.
struct AccessSite {
    std::uint32_t kernel_id = 0;
    std::string kernel;
    std::uint32_t block = 0;
    CoreType core_type = CoreType::Vector;
    Pipe pipe = Pipe::S;
    bool write = false;
    std::uint64_t serial = 0;
    std::source_location where;
    MemSpace space = MemSpace::GM;
    std::uint64_t address = 0;  // start of the overlap
    std::uint64_t bytes = 0;
    std::string buffer;        // GM buffer name, or the local space name
    std::uint64_t offset = 0;  // offset of `address` inside `buffer`
};

struct Finding {
    FindingKind kind = FindingKind::RaceRAW;
    Severity severity = Severity::Error;
    RaceScope scope = RaceScope::None;
    MemSpace space = MemSpace::GM;
    std::vector<AccessSite> sites;  // races: the earlier access first; others: one site
    std::string message;            // one line: what is wrong
    std::string fix;                // one line: what would fix it
    std::uint64_t count = 1;        // instances folded into this finding (same source pair)
};

std::string_view to_string(FindingKind kind);  // "RAW", "WAR", "WAW", "unpaired SetFlag", ...
std::string_view to_string(RaceScope scope);   // "intra-pipe", "inter-pipe", "inter-core"
bool is_race(FindingKind kind);

}  // namespace npusim
