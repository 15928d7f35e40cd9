// The SystemC library's own main() refers to sc_main. Programs that link the whole library get
// the weak one in sim/engine/sim_context.cpp; the unit-test binaries of the SystemC layers below
// the engine (core, sync) link SystemC without it, so they carry this weak one themselves.
extern "C" __attribute__((weak)) int sc_main(int /*argc*/, char* /*argv*/[]) {
    return 1;
}
