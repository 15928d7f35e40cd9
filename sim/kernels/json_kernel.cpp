#include "sim/kernels/json_kernel.h"

#include <algorithm>
#include <limits>
#include <memory>

#include "base/config_diagnostics.h"
#include "base/json_choices.h"
#include "sim/kernels/json_kernel_interpreter.h"
#include "sim/kernels/json_kernel_reader.h"

namespace npusim {

namespace {

using json = nlohmann::json;
using namespace json_kernel_detail;
using json_choices::read_choice;

constexpr std::pair<std::string_view, KernelType> kTypes[] = {
    {"AIV_ONLY", KernelType::AIV_ONLY},       {"AIC_ONLY", KernelType::AIC_ONLY},
    {"MIX_AIV_1_0", KernelType::MIX_AIV_1_0}, {"MIX_AIC_1_0", KernelType::MIX_AIC_1_0},
    {"MIX_AIC_1_1", KernelType::MIX_AIC_1_1}, {"MIX_AIC_1_2", KernelType::MIX_AIC_1_2}};

}  // namespace

std::optional<KernelDefinition> read_json_kernel(const json& value, const std::string& name,
                                                 const std::string& pointer,
                                                 const std::string& origin, Diagnostics& diag) {
    if (!require_object(value, pointer, diag)) return std::nullopt;
    const std::uint64_t problems_before = diag.size();
    check_keys(value, pointer, {"description", "type", "args", "params", "body"}, diag);
    auto program = std::make_shared<Program>();
    program->kernel = name;
    program->location_prefix = origin + "#";
    KernelDefinition kernel;
    kernel.name = name;
    kernel.description = "JSON kernel (" + origin + "#" + pointer + ")";
    if (value.contains("description")) {
        if (auto d = read_string(value.at("description"), pointer + "/description", diag))
            kernel.description = *d;
    }
    if (!value.contains("type")) {
        diag.add(pointer + "/type",
                 "missing: the kernel type (AIV_ONLY, AIC_ONLY, MIX_AIC_1_2, ...)");
    } else if (auto t = read_choice(value.at("type"), pointer + "/type", kTypes, diag)) {
        program->type = *t;
    }
    if (value.contains("args")) {
        const json& args = value.at("args");
        if (require_object(args, pointer + "/args", diag)) {
            for (const auto& [arg, type] : args.items()) {
                if (arg == kCommentKey) continue;
                const std::string at = child_pointer(pointer + "/args", arg);
                const auto dtype = read_choice(type, at, kDTypes, diag);
                if (!dtype) continue;
                program->buffers.push_back({arg, true, MemSpace::GM, *dtype});
                KernelArgument a;
                a.name = arg;
                a.dtype = *dtype;
                a.description = std::string(to_string(*dtype)) + " GM buffer";
                a.bytes = [](std::uint32_t, const KernelParams&) { return std::uint64_t{1}; };
                kernel.arguments.push_back(std::move(a));
            }
        }
    }
    if (value.contains("params")) {
        const json& params = value.at("params");
        if (require_object(params, pointer + "/params", diag)) {
            for (const auto& [param, default_value] : params.items()) {
                if (param == kCommentKey) continue;
                const std::string at = child_pointer(pointer + "/params", param);
                if (param == "block_idx" || param == "block_num" || param == "sub_block_idx" ||
                    param == "is_cube" || param == "min" || param == "max") {
                    diag.add(at, "the name " + single_quoted(param) + " is reserved");
                    continue;
                }
                const auto v = read_unsigned(default_value, at, diag);
                if (!v) continue;
                if (!check_range(v->value, 0, std::numeric_limits<std::int64_t>::max(), "", at,
                                 diag))
                    continue;
                program->params.push_back(param);
                ++program->slot_count;
                kernel.parameters.push_back(
                    {param, v->value, 0,
                     static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()),
                     "JSON kernel parameter"});
            }
        }
    }
    if (!value.contains("body")) {
        diag.add(pointer + "/body", "missing: the kernel's ops");
    } else {
        read_json_kernel_body(value.at("body"), pointer + "/body", *program, diag);
    }
    if (diag.size() != problems_before) return std::nullopt;

    kernel.check = [program](std::uint32_t blocks, const KernelParams& params) {
        // block_num is known before the run where one core type runs the kernel.
        const std::uint32_t vector = vector_cores_per_block(program->type);
        const std::uint32_t cube = cube_cores_per_block(program->type);
        std::vector<std::int64_t> slots(kFixedSlots, 0);
        slots[kBlockNum] = static_cast<std::int64_t>(blocks) * std::max(vector, cube);
        for (const std::string& p : program->params)
            slots.push_back(static_cast<std::int64_t>(params.at(p)));
        std::vector<std::pair<std::string, std::string>> out;
        check_static(program->body, slots, vector == 0 || cube == 0, out);
        return out;
    };
    kernel.make_instance = [program](std::uint32_t, const KernelParams& params,
                                     const KernelBindings& bindings) {
        std::vector<RuntimeBuffer> arguments;
        for (const BufferDecl& d : program->buffers) {
            if (!d.global) continue;
            const auto it = bindings.find(d.name);
            if (it == bindings.end()) {
                arguments.push_back({});
            } else {
                arguments.push_back(
                    {it->second.address, it->second.bytes / size_of(d.dtype), true});
            }
        }
        std::vector<std::int64_t> values;
        for (const std::string& p : program->params)
            values.push_back(static_cast<std::int64_t>(params.at(p)));
        return KernelInstance{program->kernel, program->type,
                              [program, arguments, values](Block& b) {
                                  run_json_kernel_body(*program, b, arguments, values);
                              }};
    };
    return kernel;
}

}  // namespace npusim
