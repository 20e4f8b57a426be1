#pragma once
// Takes the device's free memory but `leave` bytes in one allocation, for tests of what runs
// out: free memory is approximate, so each refused try asks `step` bytes less, `tries` times
// at most. Empty where nothing could be taken.
#include <algorithm>
#include <cstddef>

#include "device_buffer.h"

namespace pyramid::gpu_test {

inline cuda::DeviceBuffer fill_device(size_t leave, size_t step, int tries)
{
    const size_t free = cuda::device_memory().free;
    size_t bytes = free > leave ? free - leave : 0;
    cuda::DeviceBuffer filler;
    for (int t = 0; t < tries && !filler.data() && bytes > 0; ++t) {
        try {
            filler = cuda::DeviceBuffer(bytes, "the filler");
        } catch (const cuda::DeviceOutOfMemory&) {
            bytes -= std::min(bytes, step);
        }
    }
    return filler;
}

} // namespace pyramid::gpu_test
