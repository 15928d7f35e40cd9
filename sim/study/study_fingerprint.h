// What identifies a study, so rows of one are never mixed with rows of another: written in
// every sweep output's header (CSV "# study {...}", JSON "study"), compared by `sweep
// --resume` and `npusim merge`, which refuse a mismatch naming the difference. Pure.
//
//   {"scenario_hash": "fnv1a64:...", "axes": [{"axis": "/blocks", "values": [8, 16]}],
//    "schedules": 4, "seed": 1, "npusim_version": "0.1.0", "tasks": 8, "shard": "1/2"}
//
// "scenario_hash" covers the scenario document without its "sweep" section; "shard" says
// which part of the tasks the file holds and is not part of the study's identity.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/study/sweep_plan.h"

namespace npusim {

nlohmann::json study_fingerprint(const SweepPlan& plan, const Shard& shard);

/// "" when `found` belongs to the same study as `expected` (the shard aside), else what
/// differs, in words with both values, each side named by its label ("seed 1 in this sweep,
/// 7 in out.csv").
std::string study_difference(const nlohmann::json& expected, const nlohmann::json& found,
                             const std::string& expected_label, const std::string& found_label);

/// "" when `tasks` holds every task 0..fingerprint's "tasks"-1; otherwise what is missing,
/// with the shards (of the "K/N" seen in `shards`) that would have held it:
/// "3 of 12 tasks missing (2, 6, 10): shard 3/4 (no input holds it)".
std::string describe_missing_tasks(const nlohmann::json& fingerprint,
                                   const std::vector<std::size_t>& tasks,
                                   const std::vector<std::string>& shards);

}  // namespace npusim
