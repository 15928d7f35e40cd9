#include "sim/engine/sim_context.h"

#include <cstddef>
#include <cstdlib>
#include <pthread.h>

#include <systemc>

#include "base/errors.h"

#if defined(__SANITIZE_ADDRESS__)
extern "C" {
void __sanitizer_start_switch_fiber(void** fake_stack_save, const void* bottom, std::size_t size);
void __sanitizer_finish_switch_fiber(void* fake_stack_save, const void** bottom_old,
                                     std::size_t* size_old);
}
#endif

namespace npusim {

void after_simulation_on_main_stack() {
#if defined(__SANITIZE_ADDRESS__)
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
    void* bottom = nullptr;
    std::size_t size = 0;
    const int got = pthread_attr_getstack(&attr, &bottom, &size);
    pthread_attr_destroy(&attr);
    if (got != 0) return;
    // A "switch" from the main stack to itself, with its real bounds.
    __sanitizer_start_switch_fiber(nullptr, bottom, size);
    const void* old_bottom = nullptr;
    std::size_t old_size = 0;
    __sanitizer_finish_switch_fiber(nullptr, &old_bottom, &old_size);
#endif
}

namespace {
bool g_active = false;  // one Simulator at a time: SystemC's current context is global

void quiet_systemc_once() {
    // Keep the user's output clean; setenv before the first context prints the banner.
    static const bool done = [] {
        ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
        return true;
    }();
    (void)done;
}
}  // namespace

SimContextScope::SimContextScope() {
    if (g_active) {
        throw UsageError(
            "only one npusim::Simulator can exist at a time in a process "
            "(SystemC has a single current simulation context)");
    }
    quiet_systemc_once();
    // Make sure the default context exists, so it is never one of ours.
    m_previous = sc_core::sc_get_curr_simcontext();
    m_context = new sc_core::sc_simcontext;
    sc_core::sc_curr_simcontext = m_context;
    sc_core::sc_default_global_context = m_context;
    g_active = true;
}

SimContextScope::~SimContextScope() {
    delete m_context;
    sc_core::sc_curr_simcontext = m_previous;
    sc_core::sc_default_global_context = m_previous;
    g_active = false;
}

}  // namespace npusim

// The SystemC library's own main() refers to sc_main; programs that link npusim have their
// own main(), so this weak definition only satisfies the linker. A user program that
// defines sc_main itself overrides it.
extern "C" __attribute__((weak)) int sc_main(int /*argc*/, char* /*argv*/[]) {
    return 1;
}
