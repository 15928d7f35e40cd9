// Internal invariants: conditions the model itself guarantees. A failure is a bug in npusim,
// never in the user's kernel or input, so it is an InternalError that names the component,
// the simulated cycle and the broken condition:
//   internal error in PipeUnit at cycle 1200: start >= tx.issue failed: an instruction started
//   before it was issued (pipes/pipe_unit.cpp:31)
// Checked in every build: each check is one predictable branch off the hot path's data.
#pragma once

#include <cstdint>
#include <source_location>
#include <string_view>

namespace npusim {

[[noreturn]] void invariant_failed(std::string_view component, std::uint64_t cycle,
                                   std::string_view condition, std::string_view what,
                                   const std::source_location& where);

}  // namespace npusim

/// NPUSIM_INVARIANT(condition, "Component", simulated_cycle, "what it means if broken")
#define NPUSIM_INVARIANT(condition, component, cycle, what)                \
    do {                                                                   \
        if (!(condition)) [[unlikely]]                                     \
            ::npusim::invariant_failed(component, cycle, #condition, what, \
                                       std::source_location::current());   \
    } while (false)
