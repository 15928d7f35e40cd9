// The process's main() for ACL host programs built against acl/acl.h: the program's own main
// (renamed npusim_acl_user_main by the header) runs as the simulated host program on the
// process's simulator, then the report is printed and the exit status says whether the
// program, the runs and the checker were clean.
#define NPUSIM_ACL_NO_MAIN
#include <cstdio>
#include <exception>

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

int main(int argc, char** argv) {
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
