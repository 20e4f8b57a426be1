#include "pinned_buffer.h"

#include <cuda_runtime.h>

#include "cuda_check.h"
#include "device_buffer.h"

namespace pyramid::cuda {

PinnedBuffer::PinnedBuffer(size_t bytes, const std::string& what)
{
    if (bytes == 0)
        return;
    void* data = nullptr;
    const cudaError_t status = cudaHostAlloc(&data, bytes, cudaHostAllocDefault);
    if (status != cudaSuccess) {
        cudaGetLastError();
        throw Error("could not lock " + format_bytes(bytes) + " of host memory for " + what + ": " +
                    cudaGetErrorString(status));
    }
    adopt(data, bytes);
}

} // namespace pyramid::cuda
