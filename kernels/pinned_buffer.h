#pragma once
// Page-locked host memory, freed with its owner: the only kind a device-to-host copy can fill
// while the host goes on (a copy into pageable memory blocks until it is done).
#include <cstddef>
#include <string>

#include "owned_memory.h"

namespace pyramid::cuda {

class PinnedBuffer : public OwnedMemory<cudaFreeHost> {
public:
    PinnedBuffer() = default;
    // Throws pyramid::Error naming `what` and the bytes wanted.
    PinnedBuffer(size_t bytes, const std::string& what);
};

} // namespace pyramid::cuda
