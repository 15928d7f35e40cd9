// What a kernel library built against another npusim release exports: the version entry
// points with other values. npusim must refuse it before reading its registry.
#include <cstdint>

extern "C" std::uint32_t npusim_kernel_abi_version() {
    return 0;
}
extern "C" const char* npusim_kernel_library_version() {
    return "0.0.1";
}
extern "C" const void* npusim_kernel_registry() {
    return nullptr;
}
