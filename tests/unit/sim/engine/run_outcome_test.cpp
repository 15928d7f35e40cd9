// The run outcomes' one name table (sim/engine/run_result.h): every outcome named once, and
// every name read back to its outcome.
#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "sim/engine/run_result.h"

using namespace npusim;

TEST_CASE("every run outcome has one name that reads back to it") {
    std::set<std::string_view> names;
    for (const RunOutcomeName& row : kRunOutcomeNames) {
        CHECK(names.insert(row.name).second);
        CHECK(to_string(row.outcome) == row.name);
        CHECK(run_outcome_named(row.name) == row.outcome);
        CHECK(!headline(row.outcome).empty());
    }
    CHECK(names.size() == 3);
    CHECK(to_string(RunOutcome::Deadlock) == "deadlock");
    CHECK(headline(RunOutcome::Deadlock) == "DEADLOCK");
    CHECK_FALSE(run_outcome_named("stuck"));
    CHECK_FALSE(run_outcome_named("Completed"));
}
