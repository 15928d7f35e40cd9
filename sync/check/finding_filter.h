// Which findings a report shows: the selection (`--kernel`, `--block`) and the suppressions
// file users of sanitizers expect. Pure: it filters a list of findings after the run, so the
// checker itself keeps every finding and its cost does not change.
//
// A suppressions file (docs/checker.md, "Suppressions"):
//   {"suppressions": [
//     {"kind": "RAW", "kernel": "add_custom", "at": "add_custom.cpp:41",
//      "reason": "the tail tile is written twice on purpose"}]}
// A rule matches a finding when every key it gives matches: "kind" the finding's kind as
// reports name it, "kernel" the kernel of one of its accesses, "at" one access's source file
// (its name, or a path suffix) and, after a ':', line. A rule needs at least one of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sync/check/findings.h"

namespace npusim {

struct Suppression {
    std::optional<FindingKind> kind;
    std::string kernel;      // "" : any
    std::string file;        // "" : any; else a file name or a path suffix
    std::uint32_t line = 0;  // 0: any line of `file`
    std::string reason;
    std::string origin;  // where the rule was written: "supp.json:/suppressions/2"
};

struct FindingFilter {
    std::vector<std::string> kernels;   // keep findings with an access in one of these; empty: all
    std::vector<std::uint32_t> blocks;  // keep findings with an access in one of these; empty: all
    std::vector<Suppression> suppressions;
    bool active() const { return !kernels.empty() || !blocks.empty() || !suppressions.empty(); }
};

struct FilteredFindings {
    std::vector<Finding> kept;
    std::size_t not_selected = 0;            // findings outside --kernel / --block
    std::vector<std::uint64_t> suppressed;   // per rule: instances it suppressed
    std::uint64_t suppressed_total() const;  // instances suppressed by any rule
};

/// Selection first, then the first matching rule suppresses the finding (its instances
/// count for that rule). Order of the kept findings is preserved.
FilteredFindings filter_findings(const std::vector<Finding>& findings, const FindingFilter& filter);

/// Reads a suppressions file. Throws ConfigError naming the file and the JSON pointer of
/// every problem (unknown keys, an unknown kind with a suggestion, a rule that gives nothing).
std::vector<Suppression> load_suppressions(const std::filesystem::path& file);

/// The summary's line: "suppressed: 3 (supp.json:/suppressions/0: 2, ...: 1)", "" when none.
std::string format_suppressed(const FilteredFindings& filtered, const FindingFilter& filter);

}  // namespace npusim
