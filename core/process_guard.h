// The one rule for errors inside SystemC processes: nothing escapes. An exception leaving a
// process makes SystemC report it and abort the whole program (exit 134), so every process
// body of npusim (AI core scalar threads, stream workers, the dispatcher's wake-ups, the
// host thread) hands what it caught to the run's error instead.
#pragma once

#include <string_view>

namespace npusim {

struct ChipResources;

/// Records the exception being handled (call only inside a catch block) as the run's error:
/// ChipResources::fail with "<context>: <message>", InternalError marked as npusim's own bug,
/// any other exception as the run's error. The run then ends with that error (every process
/// unwinds as on an abort). Never throws. Callers rethrow sc_core::sc_unwind_exception
/// before calling it: that is SystemC's own process kill, which must propagate.
void fail_with_current_exception(ChipResources& chip, std::string_view context) noexcept;

}  // namespace npusim
