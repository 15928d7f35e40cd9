#error "a public npusim header includes <tlm.h>"
