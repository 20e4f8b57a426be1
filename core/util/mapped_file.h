#pragma once
// A whole file mapped read-only into memory. Model weights are used in place from the map, so
// a model costs page cache, not heap, and opening it is instant.
#include <cstddef>
#include <filesystem>
#include <memory>

namespace pyramid {

class MappedFile {
public:
    // Throws pyramid::Error naming the file when it cannot be opened or mapped.
    static std::shared_ptr<const MappedFile> open(const std::filesystem::path& path);

    ~MappedFile();
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const std::byte* data() const { return data_; }
    size_t size() const { return size_; }
    const std::filesystem::path& path() const { return path_; }

private:
    MappedFile(std::filesystem::path path, const std::byte* data, size_t size);

    std::filesystem::path path_;
    const std::byte* data_ = nullptr;  // nullptr for an empty file
    size_t size_ = 0;
};

} // namespace pyramid
