#error "a public npusim header includes <catch2/catch.hpp>"
