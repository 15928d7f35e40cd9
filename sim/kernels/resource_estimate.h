// What a built-in kernel needs from the chip and from the host, worked out before a run.
//
// Each built-in kernel declares its needs for given parameters (KernelNeeds): local memory
// per core, event ids, GM bytes, core types, host-side copies and the instructions it issues.
// check_kernel_needs() compares them with the chip, so a parameter the chip cannot hold is
// reported at the scenario value at fault instead of failing inside the kernel;
// estimate_host_memory() adds up the host memory a run will take, so a run that cannot fit is
// refused before anything is allocated. Both are pure functions of their arguments.
//
//   KernelNeeds needs = kernel.needs(blocks, params);
//   for (auto& [pointer, message] : check_kernel_needs(chip, blocks, needs)) diag.add(...);
//   HostMemoryEstimate e = estimate_host_memory(chip, blocks, needs, /*check=*/true);
//   if (e.total_bytes > limit) refuse(e.largest());
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/chip_config.h"
#include "base/kernel_type.h"

namespace npusim {

/// One amount a kernel needs and the scenario value that drives it.
struct Need {
    std::uint64_t amount = 0;  // bytes, or a count for event ids and instructions
    std::string pointer;       // JSON pointer in the scenario file ("/params/tile")
    std::string formula;       // how the amount comes about ("tile 2048 x 4 bytes x 3 buffers")
};

struct KernelNeeds {
    std::string kernel;  // its name, for messages
    KernelType type = KernelType::AIV_ONLY;
    Need ub;   // per vector core
    Need l1;   // per cube core
    Need l0a;  // per cube core
    Need l0b;
    Need l0c;
    Need event_ids;     // ids per pipe pair (SetFlag/WaitFlag)
    Need gm;            // all GM buffers, each rounded to GlobalMemory's alignment
    Need host_copies;   // host-side vectors: inputs, expected and read-back outputs
    Need instructions;  // issued by all blocks together (what the checker keeps state for)
};

/// Problems as (scenario JSON pointer, message): a core type the chip lacks, a local memory,
/// event ids or GM the kernel needs more of than the chip has. Messages name the chip's file
/// and pointer with both numbers. Empty when the chip can run the kernel.
std::vector<std::pair<std::string, std::string>> check_kernel_needs(const ChipConfig& chip,
                                                                    const KernelNeeds& needs);

/// The problem with launching `blocks` blocks of `type` in `mode` on `chip`, if any: a batch
/// launch of more blocks than the chip holds at once (blocks_at_once) could never start.
std::optional<std::string> check_batch_launch(const ChipConfig& chip, KernelType type,
                                              std::uint32_t blocks, ScheduleMode mode);

/// Host memory cost model, in bytes.
struct HostCostModel {
    // Measured on x86-64 Linux, Release build, with `/usr/bin/time -v npusim run`:
    // a scenario that fails after parsing peaks at 9 MiB; the a2 chip's 72 idle cores add
    // about 3 MiB; the checker adds 3.5-7 bytes per instruction (295k and 12.6M instructions).
    std::uint64_t base = 10ull << 20;           // the process with SystemC, before any core
    std::uint64_t per_core = 64ull << 10;       // core objects, threads' touched stacks
    std::uint64_t gm_page = 64ull << 10;        // GlobalMemory::kPageBytes
    std::uint64_t checker_per_instruction = 8;  // access intervals, flag records, clocks
    std::uint64_t checker_per_block = 4096;     // a block's vector clocks and shadow maps
    std::uint64_t queue_entry = 256;            // one pipe queue slot
    std::uint64_t pipes_per_core = 8;           // pipe queues per core (upper bound)
};

struct HostMemoryPart {
    std::string what;  // "GM pages", "host copies", "local memories", "checker", ...
    Need need;         // bytes, with the pointer of the input value that drives them
};

struct HostMemoryEstimate {
    std::vector<HostMemoryPart> parts;
    std::uint64_t total_bytes = 0;
    /// The part that costs the most (what a user would shrink first).
    const HostMemoryPart& largest() const;
    /// "GM pages 36.0 MiB (elements 3145728 x 4 bytes x 3 buffers) + ..." on one line.
    std::string describe() const;
};

/// Host memory a run of `needs` on `chip` with `blocks` blocks takes at its peak: GM pages
/// the kernel can touch, host copies, local memories of the cores it can occupy (allocated
/// whole on first touch), pipe queues, and the checker's per-instruction state if `check`.
HostMemoryEstimate estimate_host_memory(const ChipConfig& chip, std::uint32_t blocks,
                                        const KernelNeeds& needs, bool check,
                                        const HostCostModel& model = {});

/// "4096", "64K", "512M", "2G" (also "KiB"/"MiB"/"GiB", "KB"/"MB"/"GB", binary units) as
/// bytes; nullopt for anything else, zero, or a value above 2^60.
std::optional<std::uint64_t> parse_byte_size(std::string_view text);

/// "1.5 GiB", "36.0 MiB", "512 bytes".
std::string format_bytes(std::uint64_t bytes);

/// Host memory a run may use: the cgroup limit (/sys/fs/cgroup/memory.max) when set, else
/// MemAvailable from /proc/meminfo; nullopt when neither can be read. `source` says which.
struct HostMemoryLimit {
    std::uint64_t bytes = 0;
    std::string source;
};
std::optional<HostMemoryLimit> available_host_memory();

}  // namespace npusim
