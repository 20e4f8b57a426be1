#include "util/mapped_file.h"

#include <cerrno>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"

namespace pyramid {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const char* what, int err)
{
    throw Error("cannot " + std::string(what) + " " + path.string() + ": " + std::strerror(err));
}

// Closes the descriptor on every path out of open(); the map outlives it.
struct Descriptor {
    int fd;
    ~Descriptor() { ::close(fd); }
};

} // namespace

std::shared_ptr<const MappedFile> MappedFile::open(const std::filesystem::path& path)
{
    // O_NONBLOCK: opening a FIFO must not wait for a writer; the check below refuses it.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        fail(path, "open", errno);
    Descriptor guard{fd};

    struct stat st {};
    if (::fstat(fd, &st) != 0)
        fail(path, "stat", errno);
    if (!S_ISREG(st.st_mode))
        throw Error("cannot open " + path.string() + ": not a regular file");

    const auto size = static_cast<size_t>(st.st_size);
    if (size == 0)  // mmap rejects a zero length; an empty file is simply no bytes
        return std::shared_ptr<const MappedFile>(new MappedFile(path, nullptr, 0));

    void* addr = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (addr == MAP_FAILED)
        fail(path, "map", errno);
    // Weights are read front to back on the first pass: let the kernel read ahead.
    ::madvise(addr, size, MADV_WILLNEED);
    return std::shared_ptr<const MappedFile>(new MappedFile(path, static_cast<const std::byte*>(addr), size));
}

MappedFile::MappedFile(std::filesystem::path path, const std::byte* data, size_t size)
    : path_(std::move(path)), data_(data), size_(size)
{
}

MappedFile::~MappedFile()
{
    if (data_)
        ::munmap(const_cast<std::byte*>(data_), size_);
}

} // namespace pyramid
