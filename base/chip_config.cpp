#include "base/chip_config.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <initializer_list>
#include <map>
#include <mutex>
#include <system_error>
#include <utility>

#include "base/builtin_chip_texts.h"
#include "base/config_diagnostics.h"
#include "base/config_file.h"
#include "base/errors.h"
#include "base/json_reader.h"
#include "base/memory_spaces.h"

namespace npusim {

namespace {

using nlohmann::json;

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = 1024 * kKiB;
constexpr std::uint64_t kPiB = kMiB * kMiB * 1024;

// Upper bounds catch typos (an extra digit, bytes written as bits) and chips no part could
// be, while leaving room for parts larger than today's: cycle arithmetic on them cannot
// overflow, and what the simulator allocates per core stays within a workstation's memory.
constexpr std::uint64_t kMaxCycles = 1'000'000;
constexpr std::uint64_t kMaxBytesPerCycle = kMiB;
// Today's largest parts have 48 vector and 24 cube cores; every core is a simulated thread
// with its own stack, pipes and memories, so thousands would cost gigabytes before a cycle.
constexpr std::uint64_t kMaxCores = 1024;
// Real UB and L1 buffers are 192 KiB to 1 MiB per core: 16 MiB leaves 16x room.
constexpr std::uint64_t kMaxBufferBytes = 16 * kMiB;
// Real L0 buffers are 64 to 256 KiB per core: 4 MiB leaves 16x room.
constexpr std::uint64_t kMaxL0Bytes = 4 * kMiB;
// Real instruction queues hold tens of entries; each core keeps a ring of this many slots
// per pipe.
constexpr std::uint64_t kMaxQueueDepth = 256;
// The local memories of all cores together (UB on vector cores; L1 and L0 on cube cores).
// Real parts hold tens of MiB; each byte a kernel touches is backed by host memory, so a
// chip past this fails mid-run with no memory instead of at validation.
constexpr std::uint64_t kMaxTotalLocalBytes = 4 * 1024 * kMiB;

using Field = ChipField;

constexpr ChipField plain(std::uint64_t ChipConfig::*member) {
    return {member, nullptr, 0};
}

// The one table of numeric parameters: the JSON layout (objects are the pointers' prefixes),
// ranges, units and meanings all come from here.
constexpr std::array kParameters{
    ChipParameter{"/clock_mhz", plain(&ChipConfig::clock_mhz), "MHz", 1, 100'000,
                  "core clock; converts cycles to time"},
    ChipParameter{"/cores/vector", plain(&ChipConfig::vector_cores), "cores", 0, kMaxCores,
                  "vector cores (AIV); real parts have up to 48"},
    ChipParameter{"/cores/cube", plain(&ChipConfig::cube_cores), "cores", 0, kMaxCores,
                  "cube cores (AIC); real parts have up to 24"},
    ChipParameter{"/memory/gm_bytes", plain(&ChipConfig::gm_bytes), "bytes", kMiB, kPiB,
                  "global memory (HBM) capacity; multiple of 4096"},
    ChipParameter{"/memory/ub_bytes", plain(&ChipConfig::ub_bytes), "bytes", kKiB, kMaxBufferBytes,
                  "unified buffer per vector core; multiple of 32"},
    ChipParameter{"/memory/l1_bytes", plain(&ChipConfig::l1_bytes), "bytes", kKiB, kMaxBufferBytes,
                  "L1 buffer per cube core; multiple of 32"},
    ChipParameter{"/memory/l0a_bytes", plain(&ChipConfig::l0a_bytes), "bytes", kKiB, kMaxL0Bytes,
                  "L0A (cube left operand) per cube core; multiple of 512"},
    ChipParameter{"/memory/l0b_bytes", plain(&ChipConfig::l0b_bytes), "bytes", kKiB, kMaxL0Bytes,
                  "L0B (cube right operand) per cube core; multiple of 512"},
    ChipParameter{"/memory/l0c_bytes", plain(&ChipConfig::l0c_bytes), "bytes", kKiB, kMaxL0Bytes,
                  "L0C (cube accumulator) per cube core; multiple of 512"},
    ChipParameter{"/memory/bt_bytes", plain(&ChipConfig::bt_bytes), "bytes", 64, kMaxL0Bytes,
                  "bias table (BT, Ascend C TPosition C2) per cube core: the bias row Mmad "
                  "adds; multiple of 64"},
    ChipParameter{"/gm/bytes_per_cycle", plain(&ChipConfig::gm_bytes_per_cycle), "bytes/cycle", 1,
                  kMaxBytesPerCycle, "GM bandwidth of the whole chip, shared by all transfers"},
    ChipParameter{"/gm/window_cycles", plain(&ChipConfig::gm_window_cycles), "cycles", 1, 65'536,
                  "length of one GM bandwidth accounting slot"},
    ChipParameter{"/gm/access_bytes", plain(&ChipConfig::gm_access_bytes), "bytes", 1, 65'536,
                  "GM access granule: a burst that straddles one granule more than its length "
                  "needs moves that granule too"},
    ChipParameter{"/gm/fair_share", plain(&ChipConfig::gm_fair_share), "flag", 0, 1,
                  "1: round-robin arbitration, a transfer moves at most the HBM (L2) chip rate / "
                  "the cores holding blocks; 0: first come, first served in issue order"},
    ChipParameter{"/l2/bytes", plain(&ChipConfig::l2_bytes), "bytes", 0, kPiB,
                  "L2 cache between the cores and HBM (0: none)"},
    ChipParameter{"/l2/line_bytes", plain(&ChipConfig::l2_line_bytes), "bytes", 32, 4096,
                  "L2 line: the unit of hits, misses and write-backs"},
    ChipParameter{"/l2/ways", plain(&ChipConfig::l2_ways), "ways", 1, 64,
                  "L2 associativity: lines per set, replaced least recently used"},
    ChipParameter{"/l2/bytes_per_cycle", plain(&ChipConfig::l2_bytes_per_cycle), "bytes/cycle", 1,
                  kMaxBytesPerCycle, "L2 bandwidth of the whole chip, shared by all transfers"},
    ChipParameter{"/l2/read_bytes_per_cycle", plain(&ChipConfig::l2_read_bytes_per_cycle),
                  "bytes/cycle", 1, kMaxBytesPerCycle, "rate of one core's reads served by L2"},
    ChipParameter{"/l2/write_bytes_per_cycle", plain(&ChipConfig::l2_write_bytes_per_cycle),
                  "bytes/cycle", 1, kMaxBytesPerCycle, "rate of one core's writes into L2"},
    ChipParameter{"/pipes/queue_depth", plain(&ChipConfig::queue_depth), "instructions", 1,
                  kMaxQueueDepth,
                  "instructions a pipe queue holds before the scalar unit stalls on it"},
    ChipParameter{"/pipes/event_ids", plain(&ChipConfig::event_ids), "ids", 1, 64,
                  "SetFlag/WaitFlag event ids per pipe pair"},
    ChipParameter{"/scalar/cycles_per_call", plain(&ChipConfig::scalar_cycles_per_call), "cycles",
                  1, kMaxCycles, "scalar unit cost of issuing one kernel API call"},
    ChipParameter{"/scalar/ub_latency", plain(&ChipConfig::scalar_ub_latency), "cycles", 0,
                  kMaxCycles, "scalar read or write of one UB element"},
    ChipParameter{"/scalar/gm_latency", plain(&ChipConfig::scalar_gm_latency), "cycles", 0,
                  kMaxCycles, "scalar read or write of one GM element"},
    ChipParameter{"/vector/startup_cycles", plain(&ChipConfig::vector_startup_cycles), "cycles", 0,
                  kMaxCycles, "fixed cost of one vector instruction"},
    ChipParameter{"/vector/repeat_bytes", plain(&ChipConfig::vector_repeat_bytes), "bytes", 32,
                  4096, "bytes one vector repeat processes in one cycle; multiple of 32"},
    ChipParameter{"/vector/issue_cycles", plain(&ChipConfig::vector_issue_cycles), "cycles", 0,
                  kMaxCycles, "pipe cycles one vector instruction costs beyond its repeats"},
    ChipParameter{"/vector/read_read_conflict_cycles",
                  plain(&ChipConfig::ub_read_read_conflict_cycles), "cycles", 0, kMaxCycles,
                  "extra cycles per repeat when two sources of a vector instruction read the "
                  "same UB bank groups"},
    ChipParameter{"/vector/read_write_conflict_cycles",
                  plain(&ChipConfig::ub_read_write_conflict_cycles), "cycles", 0, kMaxCycles,
                  "extra cycles per repeat when a vector instruction writes the banks of a "
                  "source it reads, shifted by some bank groups"},
    ChipParameter{"/cube/startup_cycles", plain(&ChipConfig::cube_startup_cycles), "cycles", 0,
                  kMaxCycles, "fixed cost of one cube (Mmad) instruction"},
    ChipParameter{"/sync/syncall_latency", plain(&ChipConfig::syncall_latency), "cycles", 0,
                  kMaxCycles, "hard SyncAll: release after the last block arrived"},
    ChipParameter{"/sync/cross_core_flag_latency", plain(&ChipConfig::cross_core_flag_latency),
                  "cycles", 0, kMaxCycles, "CrossCoreSetFlag -> visible to the waiting core"},
    ChipParameter{"/runtime/launch_cycles", plain(&ChipConfig::runtime_launch_cycles), "cycles", 0,
                  kMaxCycles, "host runtime: host time one kernel launch call takes"},
    ChipParameter{"/runtime/kernel_start_cycles", plain(&ChipConfig::kernel_start_cycles), "cycles",
                  0, kMaxCycles,
                  "device side: from a kernel's launch to its first blocks starting (the "
                  "device's task dispatch; part of a kernel's duration)"},
    ChipParameter{"/runtime/call_cycles", plain(&ChipConfig::runtime_call_cycles), "cycles", 0,
                  kMaxCycles,
                  "host runtime: host time of any other call (create, record, enqueue a copy)"},
    ChipParameter{"/runtime/sync_cycles", plain(&ChipConfig::runtime_sync_cycles), "cycles", 0,
                  kMaxCycles, "host runtime: from the awaited work's end to the host resuming"},
    ChipParameter{"/runtime/host_link_bytes_per_cycle",
                  plain(&ChipConfig::host_link_bytes_per_cycle), "bytes/cycle", 1,
                  kMaxBytesPerCycle, "host <-> device link (PCIe-class) copy rate"},
    ChipParameter{"/runtime/host_link_latency", plain(&ChipConfig::host_link_latency), "cycles", 0,
                  kMaxCycles, "host <-> device copy: cycles before the first byte lands"},
};

/// Alignment rules: hardware addresses buffers in 32-byte blocks (L0 in 512-byte fractals),
/// and GM is handed out in pages; an unaligned size is a typo, not a smaller part.
struct MultipleRule {
    Field field;
    std::uint64_t multiple;
};
constexpr std::array kMultiples{
    MultipleRule{plain(&ChipConfig::gm_bytes), 4096},
    MultipleRule{plain(&ChipConfig::ub_bytes), 32},
    MultipleRule{plain(&ChipConfig::l1_bytes), 32},
    MultipleRule{plain(&ChipConfig::l0a_bytes), 512},
    MultipleRule{plain(&ChipConfig::l0b_bytes), 512},
    MultipleRule{plain(&ChipConfig::l0c_bytes), 512},
    MultipleRule{plain(&ChipConfig::bt_bytes), 64},
    MultipleRule{plain(&ChipConfig::vector_repeat_bytes), 32},
};

/// Whether `description` says "multiple of <multiple>", so the documentation generated from
/// the table cannot drift from the rule.
constexpr bool describes_multiple(std::string_view description, std::uint64_t multiple) {
    constexpr std::string_view kPrefix = "multiple of ";
    std::array<char, 40> text{};
    std::size_t length = 0;
    for (const char c : kPrefix) text[length++] = c;
    std::array<char, 20> digits{};
    std::size_t count = 0;
    do {
        digits[count++] = static_cast<char>('0' + multiple % 10);
        multiple /= 10;
    } while (multiple != 0);
    while (count > 0) text[length++] = digits[--count];
    const std::string_view needle(text.data(), length);
    const std::size_t at = description.find(needle);
    // "multiple of 32" must not match inside "multiple of 320".
    return at != std::string_view::npos &&
           (at + length == description.size() || description[at + length] < '0' ||
            description[at + length] > '9');
}

constexpr bool multiples_documented() {
    for (const MultipleRule& rule : kMultiples) {
        bool documented = false;
        for (const ChipParameter& parameter : kParameters) {
            if (parameter.field == rule.field)
                documented = describes_multiple(parameter.description, rule.multiple) &&
                             parameter.min % rule.multiple == 0;
        }
        if (!documented) return false;
    }
    return true;
}
static_assert(multiples_documented(),
              "every alignment rule must be stated in its parameter's description");

/// Text keys at the top level besides the numeric parameters.
constexpr std::array<std::string_view, 2> kRootTextKeys{"name", "description"};

const ChipParameter& parameter_of(Field field) {
    const std::vector<ChipParameter>& all = chip_parameters();
    return *std::find_if(all.begin(), all.end(),
                         [field](const ChipParameter& p) { return p.field == field; });
}

const ChipParameter* parameter_at(std::string_view pointer) {
    const std::vector<ChipParameter>& all = chip_parameters();
    const auto found = std::find_if(
        all.begin(), all.end(), [pointer](const ChipParameter& p) { return p.pointer == pointer; });
    return found == all.end() ? nullptr : &*found;
}

/// Direct children of the object at `group`, in table order.
std::vector<std::string_view> children_of(std::string_view group) {
    std::vector<std::string_view> children;
    for (const ChipParameter& parameter : chip_parameters()) {
        const std::string_view pointer = parameter.pointer;
        if (pointer.size() <= group.size() + 1 || !pointer.starts_with(group) ||
            pointer[group.size()] != '/')
            continue;
        std::string_view child = pointer.substr(group.size() + 1);
        child = child.substr(0, child.find('/'));
        if (std::find(children.begin(), children.end(), child) == children.end())
            children.push_back(child);
    }
    return children;
}

std::string describe_range(const ChipParameter& parameter) {
    return std::to_string(parameter.min) + ".." + std::to_string(parameter.max) + " " +
           std::string(parameter.unit);
}

/// Fills a ChipConfig from a parsed document, reporting every problem into a Diagnostics.
class ChipReader final {
public:
    ChipReader(ChipConfig& config, Diagnostics& diag) : m_config(config), m_diag(diag) {}

    void read_document(const json& root) {
        if (!require_object(root, "", m_diag)) return;
        read_group(root, "");
        read_text_keys(root);
        check_cross_fields();
    }

private:
    void read_group(const json& object, const std::string& pointer) {
        const std::vector<std::string_view> children = children_of(pointer);
        std::vector<std::string_view> allowed = children;
        if (pointer.empty())
            allowed.insert(allowed.end(), kRootTextKeys.begin(), kRootTextKeys.end());
        check_keys(object, pointer, allowed, m_diag);

        for (const std::string_view child : children) {
            const std::string child_at = child_pointer(pointer, child);
            const auto value = object.find(std::string(child));
            if (const ChipParameter* parameter = parameter_at(child_at)) {
                if (value == object.end()) {
                    m_diag.add(child_at, "missing required parameter: " +
                                             std::string(parameter->description) + " (" +
                                             describe_range(*parameter) + ")");
                } else {
                    read_parameter(*parameter, *value);
                }
            } else if (value == object.end()) {
                std::string keys;
                for (const std::string_view key : children_of(child_at))
                    keys += (keys.empty() ? "" : ", ") + single_quoted(key);
                m_diag.add(child_at, "missing required object with keys " + keys);
            } else if (require_object(*value, child_at, m_diag)) {
                read_group(*value, child_at);
            }
        }
    }

    void read_parameter(const ChipParameter& parameter, const json& value) {
        const std::optional<NotedUnsigned> read = read_unsigned(value, parameter.pointer, m_diag);
        if (!read) return;
        bool valid = check_range(read->value, parameter.min, parameter.max, parameter.unit,
                                 parameter.pointer, m_diag);
        for (const MultipleRule& rule : kMultiples) {
            if (rule.field != parameter.field || read->value % rule.multiple == 0) continue;
            m_diag.add(parameter.pointer,
                       "expected a multiple of " + std::to_string(rule.multiple) + " " +
                           std::string(parameter.unit) + ", got " + std::to_string(read->value));
            valid = false;
        }
        parameter.field.of(m_config) = read->value;
        if (read->note) m_config.notes[std::string(parameter.pointer)] = *read->note;
        if (valid) m_valid.push_back(parameter.field);
    }

    void read_text_keys(const json& root) {
        if (const auto name = root.find("name"); name == root.end()) {
            m_diag.add("/name", "missing required string: the chip's name");
        } else if (auto text = read_string(*name, "/name", m_diag)) {
            if (text->empty()) m_diag.add("/name", "expected a non-empty string");
            m_config.name = std::move(*text);
        }
        if (const auto description = root.find("description"); description != root.end())
            read_string(*description, "/description", m_diag);
    }

    // Only between values that passed their own checks, so one typo yields one message.
    void check_cross_fields() {
        if (is_valid(plain(&ChipConfig::vector_cores)) &&
            is_valid(plain(&ChipConfig::cube_cores)) &&
            m_config.vector_cores + m_config.cube_cores == 0)
            m_diag.add("/cores", "expected at least one core, got vector 0 and cube 0");

        // These paths draw on the chip's GM bandwidth: one core cannot outrun the whole chip.
        const ChipParameter& gm = parameter_of(plain(&ChipConfig::gm_bytes_per_cycle));
        for (std::size_t group = 0; group < kCopyGroupCount; ++group) {
            if (!copy_group_uses_gm(group)) continue;
            const ChipField field{nullptr, &CopyPathParams::bytes_per_cycle, group};
            const std::uint64_t rate = field.of(m_config);
            const std::uint64_t chip_rate = gm.field.of(m_config);
            if (!is_valid(field) || !is_valid(gm.field) || rate <= chip_rate) continue;
            m_diag.add(parameter_of(field).pointer,
                       std::to_string(rate) + " bytes/cycle exceeds " + std::string(gm.pointer) +
                           " (" + std::to_string(chip_rate) +
                           "): one core cannot copy faster than the whole chip's GM");
        }

        // Every core's local memories together must fit the host.
        const auto valid_all = [this](std::initializer_list<Field> fields) {
            return std::all_of(fields.begin(), fields.end(),
                               [this](Field field) { return is_valid(field); });
        };
        if (valid_all({plain(&ChipConfig::vector_cores), plain(&ChipConfig::cube_cores),
                       plain(&ChipConfig::ub_bytes), plain(&ChipConfig::l1_bytes),
                       plain(&ChipConfig::l0a_bytes), plain(&ChipConfig::l0b_bytes),
                       plain(&ChipConfig::l0c_bytes), plain(&ChipConfig::bt_bytes)})) {
            // In range, the total stays below 2^36: no overflow.
            const std::uint64_t total =
                m_config.vector_cores * m_config.ub_bytes +
                m_config.cube_cores * (m_config.l1_bytes + m_config.l0a_bytes + m_config.l0b_bytes +
                                       m_config.l0c_bytes + m_config.bt_bytes);
            if (total > kMaxTotalLocalBytes)
                m_diag.add(
                    "/memory",
                    "the local memories of all cores add up to " + std::to_string(total) +
                        " bytes (vector cores x ub_bytes + cube "
                        "cores x (l1_bytes + l0a_bytes + l0b_bytes + l0c_bytes + bt_bytes)), more "
                        "than the " +
                        std::to_string(kMaxTotalLocalBytes) + " bytes (4 GiB) npusim supports");
        }

        // One vector repeat works inside UB, so it cannot cover more than UB holds.
        const ChipParameter& ub = parameter_of(plain(&ChipConfig::ub_bytes));
        const ChipParameter& repeat = parameter_of(plain(&ChipConfig::vector_repeat_bytes));
        if (is_valid(ub.field) && is_valid(repeat.field) &&
            repeat.field.of(m_config) > ub.field.of(m_config))
            m_diag.add(repeat.pointer, std::to_string(repeat.field.of(m_config)) +
                                           " bytes exceeds " + std::string(ub.pointer) + " (" +
                                           std::to_string(ub.field.of(m_config)) + ")");
    }

    bool is_valid(Field field) const {
        return std::find(m_valid.begin(), m_valid.end(), field) != m_valid.end();
    }

    ChipConfig& m_config;
    Diagnostics& m_diag;
    std::vector<Field> m_valid;  // parameters that passed their own range checks
};

std::string preset_origin(const std::string& preset) {
    return "configs/chips/" + preset + ".json";
}

}  // namespace

const CopyPathParams& ChipConfig::copy_group(std::string_view key) const {
    for (std::size_t group = 0; group < kCopyGroupCount; ++group) {
        if (kCopyGroups[group].key == key) return copy_paths[group];
    }
    throw UsageError("no copy group " + single_quoted(key) + " (see kCopyGroups)");
}

std::uint64_t ChipConfig::capacity_of(MemSpace space) const {
    return this->*mem_space_info(space).capacity;
}

std::array<std::uint64_t, kMemSpaces> local_capacities(const ChipConfig& chip, CoreType type) {
    std::array<std::uint64_t, kMemSpaces> capacities{};
    for (const MemSpaceInfo& info : kMemSpaceTable) {
        if (type == CoreType::Vector ? info.on_vector : info.on_cube)
            capacities[static_cast<std::size_t>(info.space)] = chip.*info.capacity;
    }
    return capacities;
}

namespace {

/// The copy groups' rows, generated from kCopyGroups (base/copy_routes.h) so that a new group
/// needs no edit here. Pointers and descriptions need storage that lives as long as the table.
std::vector<ChipParameter> copy_group_parameters() {
    static std::array<std::array<std::string, 8>, kCopyGroupCount> texts;
    std::vector<ChipParameter> rows;
    for (std::size_t group = 0; group < kCopyGroupCount; ++group) {
        const CopyGroupInfo& info = kCopyGroups[group];
        const bool gm = copy_group_uses_gm(group);
        std::array<std::string, 8>& text = texts[group];
        text[0] = "/copy/" + std::string(info.key) + "/latency";
        text[1] = "fixed cost of " + std::string(info.description);
        text[2] = "/copy/" + std::string(info.key) + "/bytes_per_cycle";
        text[3] = "rate of " + std::string(info.description) + (gm ? " on one core" : "");
        text[4] = "/copy/" + std::string(info.key) + "/issue_cycles";
        text[5] = "pipe cycles to issue " + std::string(info.description) + " instruction";
        text[6] = "/copy/" + std::string(info.key) + "/burst_cycles";
        text[7] = "pipe cycles per further burst (row) of " + std::string(info.description);
        rows.push_back({text[0],
                        {nullptr, &CopyPathParams::latency, group},
                        "cycles",
                        0,
                        kMaxCycles,
                        text[1]});
        rows.push_back({text[2],
                        {nullptr, &CopyPathParams::bytes_per_cycle, group},
                        "bytes/cycle",
                        1,
                        kMaxBytesPerCycle,
                        text[3]});
        rows.push_back({text[4],
                        {nullptr, &CopyPathParams::issue_cycles, group},
                        "cycles",
                        0,
                        kMaxCycles,
                        text[5]});
        rows.push_back({text[6],
                        {nullptr, &CopyPathParams::burst_cycles, group},
                        "cycles",
                        0,
                        kMaxCycles,
                        text[7]});
    }
    return rows;
}

}  // namespace

const std::vector<ChipParameter>& chip_parameters() {
    // Table order is documentation order: the copy groups go after the scalar unit.
    static const std::vector<ChipParameter> parameters = [] {
        std::vector<ChipParameter> all;
        for (const ChipParameter& parameter : kParameters) {
            if (parameter.pointer.starts_with("/vector/") &&
                all.back().pointer.starts_with("/scalar/")) {
                const std::vector<ChipParameter> copies = copy_group_parameters();
                all.insert(all.end(), copies.begin(), copies.end());
            }
            all.push_back(parameter);
        }
        return all;
    }();
    return parameters;
}

ChipConfig parse_chip_config(std::string_view json_text, const std::string& origin) {
    Diagnostics diag(origin);
    ChipConfig config;
    config.source = "<json>";
    try {
        if (const std::optional<json> document = parse_json(json_text, diag)) {
            ChipReader(config, diag).read_document(*document);
        }
    } catch (const json::exception& error) {
        // The reader checks types before every access; this is a safety net, so that a
        // missed case still ends as a readable ConfigError instead of a crash.
        diag.add("", std::string("unexpected JSON error: ") + error.what());
    }
    diag.throw_if_any();
    return config;
}

ChipConfig load_chip_config(const std::filesystem::path& file) {
    const std::string origin = file.string();
    const std::string text = read_config_file(file);
    ChipConfig config = parse_chip_config(text, origin);
    config.source = origin;
    return config;
}

ChipConfig builtin_chip_config(std::string_view preset) {
    const std::map<std::string, std::string>& texts = builtin_chip_texts();
    const auto found = texts.find(std::string(preset));
    if (found == texts.end()) {
        std::vector<std::string_view> names;
        for (const auto& entry : texts) names.push_back(entry.first);
        std::string message = "unknown chip preset " + single_quoted(preset);
        if (const auto suggestion = nearest_name(preset, names))
            message += " (did you mean " + single_quoted(*suggestion) + "?)";
        message += "; known presets:";
        const char* separator = " ";
        for (const std::string_view name : names) {
            message += separator + std::string(name);
            separator = ", ";
        }
        throw ConfigError({message});
    }
    // Presets are fixed texts: each is parsed once per process (scenarios, sweeps and the
    // fuzzers ask for them again and again) and handed out as copies.
    static std::mutex mutex;
    static std::map<std::string, ChipConfig, std::less<>> parsed;
    const std::lock_guard<std::mutex> lock(mutex);
    auto cached = parsed.find(found->first);
    if (cached == parsed.end()) {
        const std::string origin = preset_origin(found->first);
        ChipConfig config = parse_chip_config(found->second, origin);
        config.source = origin;
        cached = parsed.emplace(found->first, std::move(config)).first;
    }
    return cached->second;
}

std::vector<std::string> builtin_chip_presets() {
    std::vector<std::string> names;
    for (const auto& entry : builtin_chip_texts()) names.push_back(entry.first);
    return names;
}

}  // namespace npusim
