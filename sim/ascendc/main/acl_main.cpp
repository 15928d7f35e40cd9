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

// The program defines one of the two forms; the other forwards to it.
__attribute__((weak)) int npusim_acl_user_main(int argc, char** argv) {
    (void)argc;
    (void)argv;
    return npusim_acl_user_main();
}
__attribute__((weak)) int npusim_acl_user_main() {
    return npusim_acl_user_main(0, nullptr);
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
