// Matching findings against expectations, for tests and tools: "exactly this hazard" or
// "nothing". Catch2 adapters live in sync/check/catch_matchers.h.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sync/check/findings.h"

namespace npusim {

/// What a test expects. Unset fields match anything. Lines are the kernel source lines of the
/// earlier (`first`) and later (`second`) access of a race, or of the single site otherwise.
struct Expected {
    FindingKind kind = FindingKind::RaceRAW;
    std::optional<MemSpace> space;
    std::optional<RaceScope> scope;
    std::optional<Pipe> first_pipe;
    std::optional<Pipe> second_pipe;
    std::optional<unsigned> first_line;
    std::optional<unsigned> second_line;
};

bool matches(const Finding& finding, const Expected& expected);
std::string describe(const Expected& expected);
std::string describe(const Finding& finding);  // one line

/// Empty if `findings` are exactly `expected` (each expectation matched by one finding and
/// no finding left over); otherwise a readable explanation of the difference.
std::string compare_findings(const std::vector<Finding>& findings,
                             const std::vector<Expected>& expected);

}  // namespace npusim
