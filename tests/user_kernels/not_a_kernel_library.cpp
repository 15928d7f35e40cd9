// A shared library that is no npusim kernel library (no registry symbols): loading it as one
// must be refused with a clear message.
extern "C" int npusim_test_unrelated_function() {
    return 1;
}
