#include "base/transaction.h"

#include <string_view>

namespace npusim {

std::string format_location(const std::source_location& where) {
    std::string_view file = where.file_name();
    if (const auto slash = file.find_last_of('/'); slash != std::string_view::npos) {
        file.remove_prefix(slash + 1);
    }
    std::string text(file);
    text += ':';
    text += std::to_string(where.line());
    text += ':';
    text += std::to_string(where.column());
    return text;
}

}  // namespace npusim
