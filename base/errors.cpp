#include "base/errors.h"

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

}  // namespace npusim
