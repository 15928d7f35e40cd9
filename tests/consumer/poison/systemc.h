#error "a public npusim header includes <systemc.h>"
