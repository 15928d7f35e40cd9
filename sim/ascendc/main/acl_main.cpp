// The process's main() for ACL host programs built against acl/acl.h: the program's own main
// (renamed npusim_acl_user_main by the header) runs as the simulated host program on the
// process's simulator, then the report is printed and the exit status says whether the
// program, the runs and the checker were clean.
#define NPUSIM_ACL_NO_MAIN
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <unistd.h>

#include "acl/acl.h"
#include "npusim_ascendc/process.h"

int npusim_acl_user_main();
int npusim_acl_user_main(int argc, char** argv);
int npusim_acl_user_main(int argc, const char** argv);

// The program defines one of the three forms (main(), main(int, char**) or
// main(int, const char**)); the process calls the second, which forwards down the chain.
__attribute__((weak)) int npusim_acl_user_main(int argc, char** argv) {
    return npusim_acl_user_main(argc, const_cast<const char**>(argv));
}
__attribute__((weak)) int npusim_acl_user_main(int argc, const char** argv) {
    (void)argc;
    (void)argv;
    return npusim_acl_user_main();
}
__attribute__((weak)) int npusim_acl_user_main() {
    std::fprintf(stderr, "npusim: the program defines no main\n");
    return 1;
}

namespace {

// A segmentation fault, said plainly before the process dies of it: in a kernel it is most
// often a local tensor's GetPhyAddr() (an offset in UB or L1, not a host address) used as a
// pointer, which npusim does not support. Only async-signal-safe calls here.
void report_segmentation_fault(int signal, siginfo_t* info, void*) {
    char address[2 + 16 + 1] = "0x";
    const auto value = reinterpret_cast<std::uintptr_t>(info->si_addr);
    for (int digit = 0; digit < 16; ++digit)
        address[2 + digit] = "0123456789abcdef"[(value >> (4 * (15 - digit))) & 0xF];
    const char* parts[] = {
        "npusim: segmentation fault at address ", address,
        ": the program read or wrote memory the process does not have. In a kernel this is most "
        "often a LocalTensor's GetPhyAddr() (an offset in UB or L1, not a host address) used as "
        "a pointer, which npusim does not support (docs/ascendc.md, \"GM pointers in "
        "kernels\").\n"};
    for (const char* part : parts) {
        if (::write(STDERR_FILENO, part, std::strlen(part)) < 0) break;
    }
    std::signal(signal, SIG_DFL);
    std::raise(signal);
}

[[maybe_unused]] void install_fault_report() {
    static char alternate_stack[64 * 1024];  // the fault may be a full coroutine stack
    stack_t stack{};
    stack.ss_sp = alternate_stack;
    stack.ss_size = sizeof(alternate_stack);
    ::sigaltstack(&stack, nullptr);
    struct sigaction action {};
    action.sa_sigaction = &report_segmentation_fault;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    ::sigaction(SIGSEGV, &action, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
#if !defined(__SANITIZE_ADDRESS__)  // AddressSanitizer reports faults itself, with a stack
    install_fault_report();
#endif
    npusim::ascendc::Process& process = npusim::ascendc::Process::get();
    int status = 0;
    try {
        process.note(npusim::acl::run_host(
            process.sim(), [&] { return npusim_acl_user_main(argc, argv); }, &status));
    } catch (const std::exception& error) {
        process.note_error(error.what());
    }
    return process.finish(status);
}
