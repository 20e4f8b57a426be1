#pragma once
// A block of CUDA-allocated memory released with its owner by `Free` (cudaFree, cudaFreeHost):
// what DeviceBuffer and PinnedBuffer share. Move-only; the derived class allocates.
#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

namespace pyramid::cuda {

template <cudaError_t (*Free)(void*)>
class OwnedMemory {
public:
    OwnedMemory() = default;
    ~OwnedMemory() { release(); }
    OwnedMemory(OwnedMemory&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0))
    {
    }
    OwnedMemory& operator=(OwnedMemory&& other) noexcept
    {
        if (this != &other) {
            release();
            data_ = std::exchange(other.data_, nullptr);
            bytes_ = std::exchange(other.bytes_, 0);
        }
        return *this;
    }
    OwnedMemory(const OwnedMemory&) = delete;
    OwnedMemory& operator=(const OwnedMemory&) = delete;

    void* data() const { return data_; }
    template <typename T>
    T* as() const { return static_cast<T*>(data_); }
    size_t bytes() const { return bytes_; }

protected:
    // Takes ownership of what the derived constructor allocated.
    void adopt(void* data, size_t bytes)
    {
        release();
        data_ = data;
        bytes_ = bytes;
    }

private:
    void release()
    {
        if (data_)
            Free(data_);
        data_ = nullptr;
        bytes_ = 0;
    }

    void* data_ = nullptr;
    size_t bytes_ = 0;
};

} // namespace pyramid::cuda
