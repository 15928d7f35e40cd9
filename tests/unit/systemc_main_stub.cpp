// The SystemC library's own main() refers to sc_main. Programs that link the whole library get
// the weak one in sim/engine/sim_context.cpp; a unit-test binary links SystemC (its layer does,
// or a layer below it) without always linking that file, so every one carries this weak one.
extern "C" __attribute__((weak)) int sc_main(int /*argc*/, char* /*argv*/[]) {
    return 1;
}
