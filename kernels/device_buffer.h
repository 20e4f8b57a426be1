#pragma once
// One device allocation, freed with its owner. Allocation failures say how many bytes were
// wanted and how many the device had free, so an out-of-memory report is actionable.
#include <cstddef>
#include <string>

#include "owned_memory.h"
#include "util/error.h"

namespace pyramid::cuda {

// The device had too little memory for an allocation (other CUDA failures are plain Errors).
class DeviceOutOfMemory : public Error {
public:
    using Error::Error;
};

class DeviceBuffer : public OwnedMemory<cudaFree> {
public:
    DeviceBuffer() = default;
    // Throws DeviceOutOfMemory naming `what`, the bytes wanted and the bytes free, or
    // pyramid::Error when the allocation fails otherwise.
    DeviceBuffer(size_t bytes, const std::string& what);
};

// "N bytes (x.y MiB)", exact and readable: how sizes appear in messages.
std::string format_bytes(size_t bytes);

// Free and total memory of the current device.
struct DeviceMemory {
    size_t free = 0;
    size_t total = 0;
};
DeviceMemory device_memory();

} // namespace pyramid::cuda
