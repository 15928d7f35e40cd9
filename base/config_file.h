// Reading a configuration file (chip config, scenario) whole, refusing what cannot be one.
//
// Contract: read_config_file returns the file's bytes unchanged or throws ConfigError
// (base/errors.h) with one line "<path>: cannot read file (<why>)", the path made printable.
// It never blocks on a FIFO or a device and never reads more than kMaxConfigFileBytes + 1
// bytes, whatever the file claims or does while read.
//
// Example:
//   std::string text = read_config_file("configs/chips/a2.json");
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace npusim {

/// Configuration files larger than this are refused unread: real ones are a few KiB, and a
/// limit keeps `npusim run /dev/zero`-like mistakes from eating memory.
inline constexpr std::uint64_t kMaxConfigFileBytes = 16 * 1024 * 1024;

/// The whole file as text. Throws ConfigError "<path>: cannot read file (no such file)",
/// "(it is a directory)", "(it is a FIFO, not a regular file)" (likewise character and block
/// devices and sockets: they may never end), "(20,971,520 bytes; configuration files are
/// limited to 16,777,216 bytes (16 MiB))" past kMaxConfigFileBytes, or "cannot read file
/// (<system reason>)". A file that grows past the limit while read is refused too.
std::string read_config_file(const std::filesystem::path& file);

}  // namespace npusim
