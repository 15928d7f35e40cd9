#include "sim/scenario/scenario_buffers.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/config_diagnostics.h"
#include "base/errors.h"
#include "base/json_choices.h"
#include "base/types.h"
#include "memory/global_memory.h"

namespace npusim {

namespace {

using json = nlohmann::json;
using json_choices::read_choice;
using json_choices::read_number;

constexpr std::uint64_t kMaxHostBufferBytes = std::uint64_t{1} << 30;  // real host memory

constexpr std::pair<std::string_view, BufferMemory> kMemories[] = {
    {"device", BufferMemory::Device},
    {"pageable", BufferMemory::Pageable},
    {"pinned", BufferMemory::Pinned},
    {"managed", BufferMemory::Managed},
};

bool representable(double v, BufferType type) {
    switch (type) {
        case BufferType::Float32:
            return std::fabs(v) <= std::numeric_limits<float>::max();
        case BufferType::Float16:
            return std::fabs(v) <= 65504.0;
        case BufferType::Int32:
            return v == std::floor(v) && v >= -2147483648.0 && v <= 2147483647.0;
        case BufferType::Int8:
            return v == std::floor(v) && v >= -128.0 && v <= 127.0;
        case BufferType::Uint8:
            return v == std::floor(v) && v >= 0.0 && v <= 255.0;
    }
    return false;
}

bool check_representable(double v, BufferType type, const std::string& pointer, Diagnostics& diag) {
    if (representable(v, type)) return true;
    diag.add(pointer, "value " + std::to_string(v) + " does not fit " + to_string(type));
    return false;
}

void read_init(const json& value, const std::string& pointer, ScenarioBuffer& b,
               Diagnostics& diag) {
    if (value.is_string() && value.get<std::string>() == "zeros") {
        b.init.kind = BufferInit::Kind::Zeros;
        return;
    }
    if (!value.is_object() || value.size() != 1) {
        diag.add(pointer,
                 "expected \"zeros\" or an object with one of fill, range, random, file; got " +
                     describe_json(value));
        return;
    }
    check_keys(value, pointer, {"fill", "range", "random", "file"}, diag);
    if (value.contains("file")) {
        const std::string at = pointer + "/file";
        if (auto file = read_string(value.at("file"), at, diag)) {
            if (!buffer_file_format(*file)) {
                diag.add(at, "expected a .bin (raw little-endian elements) or .npy file, got " +
                                 single_quoted(*file));
            } else {
                b.init.kind = BufferInit::Kind::File;
                b.init.file = *file;
            }
        }
    } else if (value.contains("fill")) {
        if (auto v = read_number(value.at("fill"), pointer + "/fill", diag)) {
            if (check_representable(*v, b.type, pointer + "/fill", diag)) {
                b.init.kind = BufferInit::Kind::Fill;
                b.init.value = *v;
            }
        }
    } else if (value.contains("range")) {
        const json& range = value.at("range");
        const std::string at = pointer + "/range";
        if (!require_object(range, at, diag)) return;
        check_keys(range, at, {"start", "step"}, diag);
        b.init.kind = BufferInit::Kind::Range;
        if (range.contains("start")) {
            if (auto v = read_number(range.at("start"), at + "/start", diag)) b.init.start = *v;
        }
        if (range.contains("step")) {
            if (auto v = read_number(range.at("step"), at + "/step", diag)) b.init.step = *v;
        }
        const double last =
            b.init.start + b.init.step * static_cast<double>(b.elements == 0 ? 0 : b.elements - 1);
        check_representable(b.init.start, b.type, at + "/start", diag);
        if (representable(b.init.start, b.type) && !representable(b.init.step, b.type)) {
            check_representable(b.init.step, b.type, at + "/step", diag);
        } else if (!representable(last, b.type)) {
            diag.add(at, "the last element " + std::to_string(last) + " does not fit " +
                             to_string(b.type));
        }
    } else if (value.contains("random")) {
        const json& random = value.at("random");
        const std::string at = pointer + "/random";
        if (!require_object(random, at, diag)) return;
        check_keys(random, at, {"dist", "low", "high", "seed"}, diag);
        b.init.kind = BufferInit::Kind::Random;
        if (random.contains("dist")) {
            if (auto d = read_string(random.at("dist"), at + "/dist", diag); d && *d != "uniform") {
                diag.add(at + "/dist", "distribution " + single_quoted(*d) +
                                           " is not supported yet; only \"uniform\" is");
            }
        }
        if (random.contains("low")) {
            if (auto v = read_number(random.at("low"), at + "/low", diag)) b.init.low = *v;
        }
        if (random.contains("high")) {
            if (auto v = read_number(random.at("high"), at + "/high", diag)) b.init.high = *v;
        }
        if (random.contains("seed")) {
            if (auto v = read_unsigned(random.at("seed"), at + "/seed", diag))
                b.init.seed = v->value;
        }
        if (!(b.init.low < b.init.high)) {
            diag.add(at, "low (" + std::to_string(b.init.low) + ") must be below high (" +
                             std::to_string(b.init.high) + ")");
        } else {
            check_representable(b.init.low, b.type, at + "/low", diag);
            check_representable(b.init.high, b.type, at + "/high", diag);
        }
    }
}

void read_buffer(const json& value, const std::string& name, ScenarioBuffer& b, Diagnostics& diag) {
    b.name = name;
    b.pointer = child_pointer("/buffers", name);
    const std::string& p = b.pointer;
    if (!require_object(value, p, diag)) return;
    check_keys(value, p, {"dtype", "shape", "bytes", "memory", "init"}, diag);
    if (value.contains("dtype")) {
        if (auto t = read_choice(value.at("dtype"), p + "/dtype", kBufferTypes, diag)) b.type = *t;
    }
    if (value.contains("memory")) {
        if (auto m = read_choice(value.at("memory"), p + "/memory", kMemories, diag)) b.memory = *m;
    }
    const std::uint64_t max_bytes =
        b.memory == BufferMemory::Device ? std::uint64_t{1} << 40 : kMaxHostBufferBytes;
    if (value.contains("shape") == value.contains("bytes")) {
        diag.add(p, "give exactly one of \"shape\" (element counts) and \"bytes\"");
        return;
    }
    if (value.contains("shape")) {
        const json& shape = value.at("shape");
        if (!shape.is_array() || shape.empty()) {
            diag.add(p + "/shape",
                     "expected a non-empty array of dimensions, got " + describe_json(shape));
            return;
        }
        std::uint64_t elements = 1;
        bool ok = true;
        b.shape.clear();
        for (std::size_t i = 0; i < shape.size(); ++i) {
            const std::string at = child_pointer(p + "/shape", i);
            const auto d = read_unsigned(shape[i], at, diag);
            if (!d || !check_range(d->value, 1, max_bytes, "elements", at, diag)) {
                ok = false;
                continue;
            }
            // Saturate: the product of two in-range dimensions can pass 64 bits.
            elements = elements > (max_bytes + 1) / d->value
                           ? max_bytes + 1
                           : std::min(elements * d->value, max_bytes + 1);
            b.shape.push_back(d->value);
        }
        if (!ok) return;
        b.elements = elements;
        b.bytes = elements * size_of(b.type);
        if (b.bytes > max_bytes) {
            const std::uint64_t over = b.bytes;
            b.elements = 0;  // unusable: no GM total or copy size is computed from it
            b.bytes = 0;
            diag.add(p + "/shape",
                     (elements > max_bytes
                          ? "the buffer would take more than " + std::to_string(max_bytes)
                          : "the buffer would take " + std::to_string(over)) +
                         " bytes; at most " + std::to_string(max_bytes) + " for " +
                         to_string(b.memory) + " memory");
            return;
        }
    } else {
        const auto bytes = read_unsigned(value.at("bytes"), p + "/bytes", diag);
        if (!bytes || !check_range(bytes->value, 1, max_bytes, "bytes", p + "/bytes", diag)) return;
        if (bytes->value % size_of(b.type) != 0) {
            diag.add(p + "/bytes", "must be a multiple of the " + std::string(to_string(b.type)) +
                                       " element size (" + std::to_string(size_of(b.type)) +
                                       "), got " + std::to_string(bytes->value));
            return;
        }
        b.bytes = bytes->value;
        b.elements = b.bytes / size_of(b.type);
    }
    if (value.contains("init")) read_init(value.at("init"), p + "/init", b, diag);
}

}  // namespace

const char* to_string(BufferMemory memory) {
    for (const auto& [name, m] : kMemories) {
        if (m == memory) return name.data();
    }
    return "?";
}

std::vector<double> initial_values(const ScenarioBuffer& buffer) {
    const BufferInit& init = buffer.init;
    if (init.kind == BufferInit::Kind::File) return read_buffer_file(buffer);
    std::vector<double> values(buffer.elements, 0.0);
    const bool integral = buffer.type != BufferType::Float32 && buffer.type != BufferType::Float16;
    std::uint64_t state = init.seed;
    for (std::uint64_t i = 0; i < buffer.elements; ++i) {
        switch (init.kind) {
            case BufferInit::Kind::None:
            case BufferInit::Kind::Zeros:
            case BufferInit::Kind::File:
                break;
            case BufferInit::Kind::Fill:
                values[i] = init.value;
                break;
            case BufferInit::Kind::Range:
                values[i] = init.start + static_cast<double>(i) * init.step;
                break;
            case BufferInit::Kind::Random: {
                // splitmix64: the same sequence on every platform, unlike <random>'s
                // distributions.
                std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
                z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
                z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
                z ^= z >> 31;
                const double unit = static_cast<double>(z >> 11) * 0x1.0p-53;
                const double v = init.low + unit * (init.high - init.low);
                values[i] = integral ? std::floor(v) : v;
                break;
            }
        }
    }
    return values;
}

std::vector<ScenarioBuffer> read_buffers(const nlohmann::json& buffers, const ChipConfig& chip,
                                         Diagnostics& diag) {
    std::vector<ScenarioBuffer> out;
    if (!require_object(buffers, "/buffers", diag)) return out;
    std::uint64_t device_bytes = GlobalMemory::kAlignment;
    for (const auto& [name, value] : buffers.items()) {
        if (name == kCommentKey) continue;
        ScenarioBuffer b;
        read_buffer(value, name, b, diag);
        if (b.memory == BufferMemory::Device) {
            device_bytes += (b.bytes + GlobalMemory::kAlignment - 1) / GlobalMemory::kAlignment *
                            GlobalMemory::kAlignment;
        }
        out.push_back(std::move(b));
    }
    if (device_bytes > chip.gm_bytes) {
        diag.add("/buffers", "the device buffers take " + std::to_string(device_bytes) +
                                 " bytes of GM (512-byte aligned); the chip " +
                                 single_quoted(chip.name) + " has " +
                                 std::to_string(chip.gm_bytes));
    }
    return out;
}

}  // namespace npusim
