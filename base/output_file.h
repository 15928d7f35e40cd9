// The one rule for every file npusim writes (reports, traces, sweep and merge outputs, buffer
// dumps): a path that does not exist is created; a regular file is replaced whole; a symlink
// is followed and its target must obey the same rule; anything else (a folder, a device, a
// FIFO, a socket) is refused with a UsageError that names the path and what it is. Replaced
// files are written to a temporary file beside the target and renamed over it, so a reader
// never sees half a file and an interrupted write leaves the old one.
#pragma once

#include <filesystem>
#include <string_view>

namespace npusim {

/// Applies the rule to `path` (for `what`, e.g. "report"): returns the path to write (the
/// symlink's target for a symlink). Throws UsageError when the rule refuses it.
std::filesystem::path checked_output_path(const std::filesystem::path& path, std::string_view what);

/// Writes `bytes` to `path` under the rule, atomically (temporary file + rename). Throws
/// UsageError naming the path on any refusal or write error.
void write_output_file(const std::filesystem::path& path, std::string_view bytes,
                       std::string_view what);

}  // namespace npusim
