// Catch2 (v2) matchers over checker findings. Header-only: include it from a test after
// <catch2/catch.hpp>; the library itself does not depend on Catch2.
//
//   REQUIRE_THAT(checker.findings(), npusim::NoFindings());
//   REQUIRE_THAT(checker.findings(),
//                npusim::ExactlyFindings({{.kind = npusim::FindingKind::RaceRAW,
//                                          .space = npusim::MemSpace::UB,
//                                          .first_line = 17, .second_line = 22}}));
#pragma once

#include <string>
#include <vector>

#include "sync/check/check_report.h"
#include "sync/check/finding_match.h"

namespace npusim {

class FindingsMatcher final : public Catch::MatcherBase<std::vector<Finding>> {
public:
    explicit FindingsMatcher(std::vector<Expected> expected) : m_expected(std::move(expected)) {}
    bool match(const std::vector<Finding>& findings) const override {
        m_last = compare_findings(findings, m_expected);
        return m_last.empty();
    }
    std::string describe() const override {
        if (m_expected.empty()) return "has no findings\n" + m_last;
        std::string text = "has exactly the findings:";
        for (const Expected& e : m_expected) text += "\n  " + npusim::describe(e);
        return text + "\n" + m_last;
    }

private:
    std::vector<Expected> m_expected;
    mutable std::string m_last;
};

inline FindingsMatcher NoFindings() {
    return FindingsMatcher({});
}
inline FindingsMatcher ExactlyFindings(std::vector<Expected> expected) {
    return FindingsMatcher(std::move(expected));
}

}  // namespace npusim

namespace Catch {
// Findings print in assertion messages as the checker reports them: each with its accesses'
// file:line, block, pipe and the fix (sync/check/check_report.h).
template <>
struct StringMaker<std::vector<npusim::Finding>> {
    static std::string convert(const std::vector<npusim::Finding>& findings) {
        if (findings.empty()) return "no findings";
        return "\n" + npusim::format_findings(findings);
    }
};
}  // namespace Catch
