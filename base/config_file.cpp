#include "base/config_file.h"

#include <array>
#include <cerrno>
#include <fcntl.h>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

#include "base/errors.h"
#include "base/printable_text.h"

namespace npusim {

namespace {

/// Closes a file descriptor on every way out.
class FileDescriptor final {
public:
    explicit FileDescriptor(int fd) : m_fd(fd) {}
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    ~FileDescriptor() {
        if (m_fd >= 0) ::close(m_fd);
    }
    int get() const { return m_fd; }

private:
    int m_fd;
};

/// Why a file that is not a regular file cannot be a configuration file.
const char* special_file_kind(mode_t mode) {
    if (S_ISDIR(mode)) return "it is a directory";
    if (S_ISCHR(mode)) return "it is a character device, not a regular file";
    if (S_ISBLK(mode)) return "it is a block device, not a regular file";
    if (S_ISFIFO(mode)) return "it is a FIFO, not a regular file";
    if (S_ISSOCK(mode)) return "it is a socket, not a regular file";
    if (!S_ISREG(mode)) return "it is not a regular file";
    return nullptr;
}

std::string too_large(std::string_view origin, std::uint64_t size, bool at_least) {
    return std::string(origin) + ": cannot read file (" + (at_least ? "more than " : "") +
           group_thousands(size) + " bytes; configuration files are limited to " +
           group_thousands(kMaxConfigFileBytes) + " bytes (16 MiB))";
}

}  // namespace

std::string read_config_file(const std::filesystem::path& file) {
    const std::string origin = printable(file.string(), false);
    const auto fail = [&origin](std::string_view why) {
        throw ConfigError({origin + ": cannot read file (" + std::string(why) + ")"});
    };
    // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
    const FileDescriptor fd(::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (fd.get() < 0) {
        const int error = errno;
        if (error == ENOENT) fail("no such file");
        if (error == EISDIR) fail("it is a directory");
        fail(std::generic_category().message(error));
    }
    struct stat status {};
    if (::fstat(fd.get(), &status) != 0) fail(std::generic_category().message(errno));
    if (const char* kind = special_file_kind(status.st_mode)) fail(kind);
    if (static_cast<std::uint64_t>(status.st_size) > kMaxConfigFileBytes)
        throw ConfigError({too_large(origin, static_cast<std::uint64_t>(status.st_size), false)});

    // Read to the limit and one byte more: files in /proc report size 0, others may grow.
    std::string text;
    std::array<char, 64 * 1024> buffer{};
    for (;;) {
        const ssize_t got = ::read(fd.get(), buffer.data(), buffer.size());
        if (got < 0) {
            if (errno == EINTR) continue;
            fail(std::generic_category().message(errno));
        }
        if (got == 0) break;
        text.append(buffer.data(), static_cast<std::size_t>(got));
        if (text.size() > kMaxConfigFileBytes)
            throw ConfigError({too_large(origin, kMaxConfigFileBytes, true)});
    }
    return text;
}

}  // namespace npusim
