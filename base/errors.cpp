#include "base/errors.h"

#include "base/invariant.h"
#include "base/transaction.h"

namespace npusim {

namespace {
std::string join_problems(const std::vector<std::string>& problems) {
    if (problems.empty()) return "invalid configuration";
    std::string text = problems.front();
    if (problems.size() > 1) text += " (and " + std::to_string(problems.size() - 1) + " more)";
    return text;
}
}  // namespace

ConfigError::ConfigError(std::vector<std::string> problems)
    : Error(join_problems(problems)), m_problems(std::move(problems)) {}

void invariant_failed(std::string_view component, std::uint64_t cycle, std::string_view condition,
                      std::string_view what, const std::source_location& where) {
    throw InternalError("internal error in " + std::string(component) + " at cycle " +
                        std::to_string(cycle) + ": " + std::string(condition) +
                        " failed: " + std::string(what) + " (" + format_location(where) + ")");
}

}  // namespace npusim
