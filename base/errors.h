// Typed errors thrown by the library. The library never exits the process: callers (the CLI,
// a test) catch these and decide. Each message is complete and readable on one line.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace npusim {

/// Base of every error the library throws on purpose.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// A configuration or scenario file is invalid. Holds the problems found, each already
/// prefixed with "file:/json/pointer: " (at most the first 20, then one line counting the
/// rest: base/config_diagnostics.h).
class ConfigError final : public Error {
public:
    explicit ConfigError(std::vector<std::string> problems);
    const std::vector<std::string>& problems() const { return m_problems; }

private:
    std::vector<std::string> m_problems;
};

/// A kernel broke a hardware rule (alignment, bounds, event id, ...). The message names the
/// kernel, block, pipe, serial number and kernel source line.
class KernelError final : public Error {
public:
    using Error::Error;
};

/// The library was used wrongly from the host side (launch with zero blocks, reading a
/// buffer that was never allocated, ...).
class UsageError final : public Error {
public:
    using Error::Error;
};

/// npusim broke one of its own invariants (base/invariant.h): a bug in npusim, reported with
/// the component, the simulated cycle and the condition so that it can be fixed.
class InternalError final : public Error {
public:
    using Error::Error;
};

}  // namespace npusim
