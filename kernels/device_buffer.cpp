#include "device_buffer.h"

#include "cuda_check.h"
#include "util/byte_size.h"

namespace pyramid::cuda {

std::string format_bytes(size_t bytes)
{
    if (bytes < 1024)
        return byte_size_text(bytes);
    return std::to_string(bytes) + " bytes (" + byte_size_text(bytes) + ")";
}

DeviceMemory device_memory()
{
    DeviceMemory m;
    check(cudaMemGetInfo(&m.free, &m.total), "cudaMemGetInfo");
    return m;
}

DeviceBuffer::DeviceBuffer(size_t bytes, const std::string& what)
{
    if (bytes == 0)
        return;
    void* data = nullptr;
    const cudaError_t status = cudaMalloc(&data, bytes);
    if (status == cudaErrorMemoryAllocation) {
        cudaGetLastError();  // consume the error so the next launch check does not report it again
        const DeviceMemory m = device_memory();
        throw DeviceOutOfMemory("CUDA out of memory allocating " + what + ": " + format_bytes(bytes) + " needed, " +
                    format_bytes(m.free) + " free of " + format_bytes(m.total));
    }
    check(status, ("cudaMalloc for " + what).c_str());
    adopt(data, bytes);
}

} // namespace pyramid::cuda
