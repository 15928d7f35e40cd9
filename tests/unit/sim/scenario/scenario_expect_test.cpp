// Expectation messages name the values exactly: integers in full, other numbers with enough
// digits that two different values never print alike.
#include "sim/scenario/scenario_expect.h"

#include <catch2/catch.hpp>

#include "sim/scenario/host_program_runner.h"

using namespace npusim;

namespace {

/// The detail of a failed `all <want>` expectation on a buffer holding `got`.
std::string all_detail(double got, double want) {
    ScenarioExpect expect;
    expect.present = true;
    BufferExpectation e;
    e.buffer = "z";
    e.pointer = "/expect/buffers/z";
    e.kind = BufferExpectation::Kind::All;
    e.value = want;
    expect.buffers.push_back(e);
    HostProgramOutcome host;
    host.buffers["z"].read = true;
    host.buffers["z"].values = {got};
    const ExpectationReport report = evaluate_expectations(expect, RunResult{}, {}, true, &host);
    for (const ExpectationResult& r : report.results) {
        if (r.pointer != e.pointer) continue;
        CHECK_FALSE(r.held);
        return r.detail;
    }
    FAIL("no result for " << e.pointer);
    return "";
}

}  // namespace

TEST_CASE("expectation messages print integers exactly", "[unit][expect]") {
    CHECK_THAT(all_detail(16843009, 16843008), Catch::Contains("got 16843009, want 16843008"));
    CHECK_THAT(all_detail(-2147483648.0, 0), Catch::Contains("got -2147483648, want 0"));
}

TEST_CASE("expectation messages print other numbers so that they differ", "[unit][expect]") {
    CHECK_THAT(all_detail(0.1, 0.10000001), Catch::Contains("got 0.1, want 0.10000001"));
    CHECK_THAT(all_detail(1.0000001, 1.0), Catch::Contains("got 1.0000001, want 1"));
}
