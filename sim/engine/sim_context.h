// One fresh SystemC simulation context per Simulator, so that a process can run many
// simulations one after another (a test binary runs dozens).
//
// Facts this relies on (Debian SystemC 2.3.4): a fresh sc_simcontext can be installed
// after another one ran and simulates correctly; deleting such later contexts is clean under
// ASan; deleting the very first (default) context crashes at process exit, because static
// events of the library still point at it. So: the default context is created once and
// never used for simulation nor deleted; every Simulator installs its own context and deletes
// it when done, restoring the default. Only one Simulator may be alive per thread at a time
// (SystemC has one current context per process); a second concurrent one is a UsageError.
#pragma once

namespace sc_core {
class sc_simcontext;
}

namespace npusim {

/// Call on the main thread after sc_start() returns. SystemC's coroutine switches leave
/// AddressSanitizer believing the main stack is empty (its top at address 0), so exceptions
/// thrown on the main stack afterwards produce false stack errors. This re-declares the real
/// main-thread stack to ASan. A no-op in builds without ASan.
void after_simulation_on_main_stack();

class SimContextScope final {
public:
    SimContextScope();
    ~SimContextScope();
    SimContextScope(const SimContextScope&) = delete;
    SimContextScope& operator=(const SimContextScope&) = delete;

private:
    sc_core::sc_simcontext* m_previous = nullptr;
    sc_core::sc_simcontext* m_context = nullptr;
};

}  // namespace npusim
