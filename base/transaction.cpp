#include "base/transaction.h"

#include <bit>
#include <deque>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include "base/errors.h"

namespace npusim {

std::string_view location_file(std::string_view file) {
    const std::size_t hash = file.find('#');
    const std::string_view path = file.substr(0, hash);
    if (const auto slash = path.find_last_of('/'); slash != std::string_view::npos) {
        file.remove_prefix(slash + 1);
    }
    return file;
}

std::string location_line(const std::source_location& where) {
    if (where.line() == 0) return std::string(location_file(where.file_name()));
    return "line " + std::to_string(where.line());
}

std::string format_location(const std::source_location& where) {
    std::string text(location_file(where.file_name()));
    if (where.line() == 0) return text;  // a synthetic location: the name says it all
    text += ':';
    text += std::to_string(where.line());
    text += ':';
    text += std::to_string(where.column());
    return text;
}

namespace {

// libstdc++ keeps a std::source_location as one pointer to this record (the compiler's
// __builtin_source_location() data); synthetic_location builds such records itself.
struct LocationRecord {
    const char* file_name;
    const char* function_name;
    unsigned line;
    unsigned column;
};

#if defined(__GLIBCXX__)
constexpr bool kLayoutKnown = sizeof(std::source_location) == sizeof(const LocationRecord*);
#else
constexpr bool kLayoutKnown = false;
#endif

// The layout assumption, checked once against a location the compiler made.
bool layout_matches() {
    if constexpr (!kLayoutKnown) {
        return false;
    } else {
        const std::source_location here = std::source_location::current();
        const auto* record = std::bit_cast<const LocationRecord*>(here);
        return record != nullptr && record->file_name == here.file_name() &&
               record->line == here.line() && record->column == here.column();
    }
}

struct LocationPool {
    std::mutex mutex;
    std::deque<std::string> texts;
    std::deque<LocationRecord> records;
    std::unordered_map<std::string_view, const LocationRecord*> by_text;
};

}  // namespace

std::source_location synthetic_location(std::string_view file_name) {
    static const bool supported = layout_matches();
    if (!supported) {
        throw UsageError(
            "locations in data files (JSON kernels) need libstdc++'s std::source_location; "
            "this standard library is not supported yet");
    }
    static LocationPool pool;
    const std::lock_guard lock(pool.mutex);
    const auto found = pool.by_text.find(file_name);
    const LocationRecord* record = nullptr;
    if (found != pool.by_text.end()) {
        record = found->second;
    } else {
        const std::string& text = pool.texts.emplace_back(file_name);
        record = &pool.records.emplace_back(LocationRecord{text.c_str(), "", 0, 0});
        pool.by_text.emplace(text, record);
    }
    if constexpr (kLayoutKnown) {
        return std::bit_cast<std::source_location>(record);
    } else {
        return {};
    }
}

}  // namespace npusim
