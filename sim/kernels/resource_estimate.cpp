#include "sim/kernels/resource_estimate.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <limits>

namespace npusim {

namespace {

std::string chip_value(const ChipConfig& chip, std::string_view pointer) {
    return "the chip '" + chip.name + "' (" + chip.source + ":" + std::string(pointer) + ")";
}

std::string core_word(CoreType type) {
    return type == CoreType::Vector ? "vector" : "cube";
}

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
    return a > std::numeric_limits<std::uint64_t>::max() - b
               ? std::numeric_limits<std::uint64_t>::max()
               : a + b;
}

std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
    if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a)
        return std::numeric_limits<std::uint64_t>::max();
    return a * b;
}

}  // namespace

std::optional<std::string> check_batch_launch(const ChipConfig& chip, KernelType type,
                                              std::uint32_t blocks, ScheduleMode mode) {
    const std::uint32_t most = blocks_at_once(type, static_cast<std::uint32_t>(chip.vector_cores),
                                              static_cast<std::uint32_t>(chip.cube_cores));
    if (mode != ScheduleMode::Batch || blocks <= most) return std::nullopt;
    return std::to_string(blocks) + " blocks in batch schedule mode: chip '" + chip.name +
           "' holds at most " + std::to_string(most) + " " + std::string(to_string(type)) +
           " blocks at once, and a batch kernel starts all its blocks together, so it could "
           "never start (use \"schedule_mode\": \"normal\" or at most " +
           std::to_string(most) + " blocks)";
}

std::vector<std::pair<std::string, std::string>> check_kernel_needs(const ChipConfig& chip,
                                                                    const KernelNeeds& needs) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const CoreType type : {CoreType::Vector, CoreType::Cube}) {
        const std::uint32_t per_block = type == CoreType::Vector
                                            ? vector_cores_per_block(needs.type)
                                            : cube_cores_per_block(needs.type);
        if (per_block == 0) continue;
        const std::string_view pointer = type == CoreType::Vector ? "/cores/vector" : "/cores/cube";
        if (chip.cores_of(type) < per_block) {
            out.emplace_back("/kernel", needs.kernel + " (" + std::string(to_string(needs.type)) +
                                            ") needs " + std::to_string(per_block) + " " +
                                            core_word(type) + " core" + (per_block > 1 ? "s" : "") +
                                            " per block, " + chip_value(chip, pointer) + " has " +
                                            std::to_string(chip.cores_of(type)));
        }
    }
    const auto check = [&](const Need& need, std::uint64_t have, std::string_view pointer,
                           const std::string& what) {
        if (need.amount <= have) return;
        out.emplace_back(need.pointer, need.formula + " = " + std::to_string(need.amount) + " " +
                                           what + " needed, " + chip_value(chip, pointer) +
                                           " has " + std::to_string(have));
    };
    if (vector_cores_per_block(needs.type) > 0)
        check(needs.ub, chip.ub_bytes, "/memory/ub_bytes", "bytes of UB");
    if (cube_cores_per_block(needs.type) > 0) {
        check(needs.l1, chip.l1_bytes, "/memory/l1_bytes", "bytes of L1");
        check(needs.l0a, chip.l0a_bytes, "/memory/l0a_bytes", "bytes of L0A");
        check(needs.l0b, chip.l0b_bytes, "/memory/l0b_bytes", "bytes of L0B");
        check(needs.l0c, chip.l0c_bytes, "/memory/l0c_bytes", "bytes of L0C");
    }
    check(needs.event_ids, chip.event_ids, "/pipes/event_ids", "event ids per pipe pair");
    check(needs.gm, chip.gm_bytes, "/memory/gm_bytes", "bytes of GM");
    return out;
}

const HostMemoryPart& HostMemoryEstimate::largest() const {
    return *std::max_element(parts.begin(), parts.end(),
                             [](const HostMemoryPart& a, const HostMemoryPart& b) {
                                 return a.need.amount < b.need.amount;
                             });
}

std::string HostMemoryEstimate::describe() const {
    std::vector<const HostMemoryPart*> sorted;
    for (const HostMemoryPart& p : parts) sorted.push_back(&p);
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const HostMemoryPart* a, const HostMemoryPart* b) {
                         return a->need.amount > b->need.amount;
                     });
    std::string text;
    for (const HostMemoryPart* p : sorted) {
        if (p->need.amount == 0) continue;
        text += (text.empty() ? "" : " + ") + p->what + " " + format_bytes(p->need.amount);
        if (!p->need.formula.empty()) text += " (" + p->need.formula + ")";
    }
    return text;
}

HostMemoryEstimate estimate_host_memory(const ChipConfig& chip, std::uint32_t blocks,
                                        const KernelNeeds& needs, bool check,
                                        const HostCostModel& model) {
    HostMemoryEstimate e;
    // GM: every page of every buffer can be written; a buffer may straddle one extra page.
    const std::uint64_t gm_pages = needs.gm.amount / model.gm_page + 1;
    e.parts.push_back(
        {"GM pages",
         {saturating_mul(gm_pages, model.gm_page), needs.gm.pointer, needs.gm.formula}});
    e.parts.push_back({"host copies", needs.host_copies});
    // Cores the kernel can occupy at once: each allocates a used local memory whole.
    const std::uint64_t groups_vector =
        vector_cores_per_block(needs.type) == 0
            ? 0
            : chip.vector_cores / vector_cores_per_block(needs.type);
    const std::uint64_t groups_cube = cube_cores_per_block(needs.type) == 0
                                          ? 0
                                          : chip.cube_cores / cube_cores_per_block(needs.type);
    std::uint64_t groups = blocks;
    if (vector_cores_per_block(needs.type) > 0) groups = std::min(groups, groups_vector);
    if (cube_cores_per_block(needs.type) > 0) groups = std::min(groups, groups_cube);
    const std::uint64_t vector_cores = groups * vector_cores_per_block(needs.type);
    const std::uint64_t cube_cores = groups * cube_cores_per_block(needs.type);
    std::uint64_t local = 0;
    if (vector_cores > 0 && needs.ub.amount > 0) local += vector_cores * chip.ub_bytes;
    if (cube_cores > 0) {
        if (needs.l1.amount > 0) local += cube_cores * chip.l1_bytes;
        if (needs.l0a.amount > 0) local += cube_cores * chip.l0a_bytes;
        if (needs.l0b.amount > 0) local += cube_cores * chip.l0b_bytes;
        if (needs.l0c.amount > 0) local += cube_cores * chip.l0c_bytes;
    }
    const std::string cores_text = std::to_string(vector_cores + cube_cores) +
                                   " cores in use (blocks " + std::to_string(blocks) +
                                   ", chip has " + std::to_string(chip.vector_cores) + " vector, " +
                                   std::to_string(chip.cube_cores) + " cube)";
    e.parts.push_back({"local memories", {local, "/blocks", cores_text}});
    const std::uint64_t all_cores = chip.vector_cores + chip.cube_cores;
    e.parts.push_back({"cores and pipe queues",
                       {all_cores * (model.per_core +
                                     model.pipes_per_core * chip.queue_depth * model.queue_entry),
                        "/chip",
                        std::to_string(all_cores) + " cores x " + std::to_string(chip.queue_depth) +
                            "-deep queues"}});
    if (check) {
        e.parts.push_back(
            {"checker",
             {saturating_add(
                  saturating_mul(needs.instructions.amount, model.checker_per_instruction),
                  std::uint64_t{blocks} * model.checker_per_block),
              needs.instructions.pointer,
              needs.instructions.formula + " = " + std::to_string(needs.instructions.amount) +
                  " instructions x " + std::to_string(model.checker_per_instruction) + " bytes"}});
    }
    e.parts.push_back({"process", {model.base, "", ""}});
    for (const HostMemoryPart& p : e.parts)
        e.total_bytes = saturating_add(e.total_bytes, p.need.amount);
    return e;
}

std::optional<std::uint64_t> parse_byte_size(std::string_view text) {
    std::size_t digits = 0;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
    if (digits == 0 || digits > 19) return std::nullopt;
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < digits; ++i) value = value * 10 + (text[i] - '0');
    std::string suffix;
    for (const char c : text.substr(digits))
        suffix += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    unsigned shift = 0;
    if (suffix.empty() || suffix == "B") {
        shift = 0;
    } else if (suffix == "K" || suffix == "KB" || suffix == "KIB") {
        shift = 10;
    } else if (suffix == "M" || suffix == "MB" || suffix == "MIB") {
        shift = 20;
    } else if (suffix == "G" || suffix == "GB" || suffix == "GIB") {
        shift = 30;
    } else {
        return std::nullopt;
    }
    constexpr std::uint64_t kMax = std::uint64_t{1} << 60;
    if (value == 0 || value > (kMax >> shift)) return std::nullopt;
    return value << shift;
}

std::string format_bytes(std::uint64_t bytes) {
    if (bytes < 1024) return std::to_string(bytes) + " bytes";
    const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double value = static_cast<double>(bytes) / 1024.0;
    std::size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < std::size(units)) {
        value /= 1024.0;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
    return text;
}

std::optional<HostMemoryLimit> available_host_memory() {
    std::optional<HostMemoryLimit> limit;
    if (std::ifstream cgroup("/sys/fs/cgroup/memory.max"); cgroup) {
        std::string word;
        if (cgroup >> word && word != "max") {
            if (auto bytes = parse_byte_size(word))
                limit = HostMemoryLimit{*bytes, "the cgroup limit (/sys/fs/cgroup/memory.max)"};
        }
    }
    if (std::ifstream meminfo("/proc/meminfo"); meminfo) {
        std::string key;
        std::uint64_t kib = 0;
        std::string unit;
        while (meminfo >> key >> kib) {
            std::getline(meminfo, unit);
            if (key != "MemAvailable:") continue;
            const std::uint64_t bytes = kib * 1024;
            if (!limit || bytes < limit->bytes)
                limit =
                    HostMemoryLimit{bytes, "available host memory (MemAvailable in /proc/meminfo)"};
            break;
        }
    }
    return limit;
}

}  // namespace npusim
