#include "sim/host/host_session.h"

#include "sim/host/runtime_engine.h"

namespace npusim {

HostSession::HostSession(Chip& chip, const RuntimeOptions& options)
    : m_runtime(new Runtime(std::make_unique<Runtime::Impl>(chip, options))) {}

HostSession::~HostSession() = default;

void HostSession::start(HostProgram program) {
    Runtime::Impl& impl = *m_runtime->m_impl;
    sc_core::sc_spawn_options spawn;
    spawn.set_stack_size(impl.options.host_stack_bytes);
    sc_core::sc_spawn(
        [&impl, program = std::move(program)] {
            try {
                program(*impl.self);
                impl.host_returned = true;
                impl.release_idle_workers();
            } catch (const HostAborted&) {
                // the run was aborted or stopped: the host thread unwinds
            } catch (const sc_core::sc_unwind_exception&) {
                throw;
            } catch (...) {
                impl.host_error = std::current_exception();
                impl.host_returned = true;
                impl.release_idle_workers();
            }
            impl.host_wait.clear();
        },
        nullptr, &spawn);
}

std::exception_ptr HostSession::host_error() const {
    return m_runtime->m_impl->host_error;
}

const std::vector<HostWarning>& HostSession::warnings() const {
    return m_runtime->warnings();
}

bool HostSession::pending() const {
    const Runtime::Impl& impl = *m_runtime->m_impl;
    return !impl.host_returned || impl.active_ops != 0;
}

std::string HostSession::host_wait() const {
    return m_runtime->m_impl->host_wait;
}

RuntimeWaitState HostSession::wait_state() const {
    return m_runtime->wait_state();
}

}  // namespace npusim
