#include "base/output_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <system_error>

#include "base/errors.h"
#include "base/printable_text.h"

namespace npusim {

namespace {

const char* kind_of(const std::filesystem::file_status& status) {
    switch (status.type()) {
        case std::filesystem::file_type::directory:
            return "a directory";
        case std::filesystem::file_type::block:
            return "a block device";
        case std::filesystem::file_type::character:
            return "a character device";
        case std::filesystem::file_type::fifo:
            return "a FIFO";
        case std::filesystem::file_type::socket:
            return "a socket";
        default:
            return "not a regular file";
    }
}

std::string shown(const std::filesystem::path& path) {
    return printable(path.string(), false);
}

}  // namespace

std::filesystem::path checked_output_path(const std::filesystem::path& path,
                                          std::string_view what) {
    if (path.empty()) throw UsageError(std::string(what) + ": empty output path");
    std::error_code error;
    std::filesystem::path target = path;
    if (std::filesystem::is_symlink(std::filesystem::symlink_status(path, error))) {
        target = std::filesystem::weakly_canonical(path, error);
        if (error) {
            throw UsageError(shown(path) + ": cannot resolve the symlink for the " +
                             std::string(what) + ": " + error.message());
        }
    }
    const std::filesystem::file_status status = std::filesystem::status(target, error);
    if (!std::filesystem::exists(status)) {
        const std::filesystem::path parent =
            target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
        if (!std::filesystem::is_directory(parent, error)) {
            throw UsageError(shown(path) + ": cannot write the " + std::string(what) +
                             ": no folder " + shown(parent));
        }
    } else if (!std::filesystem::is_regular_file(status)) {
        throw UsageError(shown(path) + ": refusing to write the " + std::string(what) +
                         " there: it is " + kind_of(status) +
                         " (outputs go to a new or regular file)");
    }
    return target;
}

void write_output_file(const std::filesystem::path& path, std::string_view bytes,
                       std::string_view what) {
    const std::filesystem::path target = checked_output_path(path, what);
    std::filesystem::path temporary = target;
    temporary += ".partial";
    errno = 0;
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        if (out) out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        if (out) out.close();
        if (!out) {
            const std::string reason = errno != 0 ? std::string(": ") + std::strerror(errno) : "";
            std::error_code ignored;
            std::filesystem::remove(temporary, ignored);
            throw UsageError(shown(path) + ": cannot write the " + std::string(what) + reason);
        }
    }
    std::error_code error;
    std::filesystem::rename(temporary, target, error);
    if (error) {
        std::error_code ignored;
        std::filesystem::remove(temporary, ignored);
        throw UsageError(shown(path) + ": cannot write the " + std::string(what) + ": " +
                         error.message());
    }
}

}  // namespace npusim
