// Test helper: validates JSON files without building a document in memory (traces of
// hundreds of megabytes). Exit 0 when every file parses, 1 when one does not, 2 when one
// cannot be opened.
//   npusim_json_check FILE...
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        std::ifstream in(argv[i], std::ios::binary);
        if (!in) {
            std::cerr << argv[i] << ": cannot open\n";
            return 2;
        }
        if (!nlohmann::json::accept(in)) {
            std::cerr << argv[i] << ": not valid JSON\n";
            return 1;
        }
    }
    return 0;
}
