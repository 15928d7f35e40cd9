#include "sim/scenario/runtime_section.h"

#include <string_view>
#include <utility>

#include "base/config_diagnostics.h"
#include "base/json_choices.h"

namespace npusim {

using json = nlohmann::json;
using json_choices::read_choice;

RuntimeSection read_runtime_section(const nlohmann::json& value, Diagnostics& diag) {
    RuntimeSection r;
    if (!require_object(value, "/runtime", diag)) return r;
    check_keys(value, "/runtime",
               {"flavor", "unified_memory", "quirks", "placement", "seed", "host_stack_bytes",
                "launch_rows"},
               diag);
    if (value.contains("flavor")) {
        static constexpr std::pair<std::string_view, RuntimeFlavor> kFlavors[] = {
            {"acl", RuntimeFlavor::Acl}, {"hip", RuntimeFlavor::Hip}};
        if (auto f = read_choice(value.at("flavor"), "/runtime/flavor", kFlavors, diag))
            r.options.flavor = *f;
    }
    if (value.contains("unified_memory")) {
        const json& u = value.at("unified_memory");
        if (u.is_boolean()) {
            r.options.unified_memory = u.get<bool>();
        } else {
            diag.add("/runtime/unified_memory", "expected true or false, got " + describe_json(u));
        }
    }
    if (value.contains("quirks")) {
        const json& quirks = value.at("quirks");
        if (!quirks.is_array()) {
            diag.add("/runtime/quirks",
                     "expected an array of quirk names, got " + describe_json(quirks));
        } else {
            static constexpr std::pair<std::string_view, int> kQuirks[] = {
                {"interprocess_query_always_succeeds", 0}};
            for (std::size_t i = 0; i < quirks.size(); ++i) {
                if (read_choice(quirks[i], child_pointer("/runtime/quirks", i), kQuirks, diag))
                    r.options.quirk_interprocess_query_always_succeeds = true;
            }
        }
    }
    if (value.contains("placement")) {
        static constexpr std::pair<std::string_view, PlacementPolicy> kPolicies[] = {
            {"launch_order", PlacementPolicy::LaunchOrder},
            {"round_robin", PlacementPolicy::RoundRobin},
            {"random", PlacementPolicy::Random},
            {"hold_last", PlacementPolicy::HoldLast}};
        if (auto p = read_choice(value.at("placement"), "/runtime/placement", kPolicies, diag))
            r.placement = *p;
    }
    if (value.contains("seed")) {
        if (auto v = read_unsigned(value.at("seed"), "/runtime/seed", diag)) r.seed = v->value;
    }
    if (value.contains("launch_rows")) {  // a count, or "all"
        const json& rows = value.at("launch_rows");
        if (rows == "all") {
            r.launch_rows = kAllLaunchRows;
        } else if (rows.is_string()) {
            diag.add("/runtime/launch_rows",
                     "expected a launch count or \"all\", got " + describe_json(rows));
        } else if (auto v = read_unsigned(rows, "/runtime/launch_rows", diag)) {
            r.launch_rows = v->value;
        }
    }
    if (value.contains("host_stack_bytes")) {
        if (auto v =
                read_unsigned(value.at("host_stack_bytes"), "/runtime/host_stack_bytes", diag)) {
            if (check_range(v->value, 64 * 1024, 64 * 1024 * 1024, "bytes",
                            "/runtime/host_stack_bytes", diag))
                r.options.host_stack_bytes = v->value;
        }
    }
    return r;
}

}  // namespace npusim
