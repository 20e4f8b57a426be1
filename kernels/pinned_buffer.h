#pragma once
// Page-locked host memory, freed with its owner: the only kind a device-to-host copy can fill
// while the host goes on (a copy into pageable memory blocks until it is done).
#include <cstddef>
#include <string>

namespace pyramid::cuda {

class PinnedBuffer {
public:
    PinnedBuffer() = default;
    // Throws pyramid::Error naming `what` and the bytes wanted.
    PinnedBuffer(size_t bytes, const std::string& what);
    ~PinnedBuffer();
    PinnedBuffer(PinnedBuffer&& other) noexcept;
    PinnedBuffer& operator=(PinnedBuffer&& other) noexcept;
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;

    void* data() const { return data_; }
    template <typename T>
    T* as() const { return static_cast<T*>(data_); }
    size_t bytes() const { return bytes_; }

private:
    void* data_ = nullptr;
    size_t bytes_ = 0;
};

} // namespace pyramid::cuda
