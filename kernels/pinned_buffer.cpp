#include "pinned_buffer.h"

#include <cuda_runtime.h>

#include <utility>

#include "cuda_check.h"
#include "device_buffer.h"

namespace pyramid::cuda {

PinnedBuffer::PinnedBuffer(size_t bytes, const std::string& what) : bytes_(bytes)
{
    if (bytes == 0)
        return;
    const cudaError_t status = cudaHostAlloc(&data_, bytes, cudaHostAllocDefault);
    if (status != cudaSuccess) {
        cudaGetLastError();
        data_ = nullptr;
        throw Error("could not lock " + format_bytes(bytes) + " of host memory for " + what + ": " +
                    cudaGetErrorString(status));
    }
}

PinnedBuffer::~PinnedBuffer()
{
    if (data_)
        cudaFreeHost(data_);
}

PinnedBuffer::PinnedBuffer(PinnedBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0))
{
}

PinnedBuffer& PinnedBuffer::operator=(PinnedBuffer&& other) noexcept
{
    if (this != &other) {
        if (data_)
            cudaFreeHost(data_);
        data_ = std::exchange(other.data_, nullptr);
        bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
}

} // namespace pyramid::cuda
