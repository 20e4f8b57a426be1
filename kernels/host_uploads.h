#pragma once
// Host-to-device copies of a step's small inputs (token ids, positions, decode descriptors,
// block tables, probe weights, entry indices) through page-locked memory. From pageable memory
// the driver may synchronize the stream before the copy (CUDA's API synchronization
// behavior), so the GPU would drain at every layer while the host queues the next; from
// page-locked memory a copy only joins the queue. The staging memory is a ring of blocks, each
// reused only after the copies out of it have run (an event recorded when the ring left it).
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "pinned_buffer.h"
#include "work_stream.h"

namespace pyramid::cuda {

class HostUploads {
public:
    // block_bytes: one block of the ring (an upload larger than that is copied from where it
    // is, as a pageable copy); blocks: how many, the first allocated now, the others as they are
    // first needed (after the ring left the one before, so never inside a recording).
    explicit HostUploads(WorkStream& stream, size_t block_bytes = size_t(1) << 20, int blocks = 4);
    ~HostUploads();
    HostUploads(const HostUploads&) = delete;
    HostUploads& operator=(const HostUploads&) = delete;

    // Queues the copy of `bytes` from `host` to `device` on the stream; `host` may change or go
    // as soon as this returns. Throws pyramid::Error naming `what`.
    void upload(void* device, const void* host, size_t bytes, const char* what);
    // Page-locked bytes held.
    size_t bytes() const;

private:
    struct Block {
        PinnedBuffer memory;
        cudaEvent_t left = nullptr;  // recorded when the ring moved on; null: never left
    };
    // The next block, once the copies out of it have run.
    void advance();

    WorkStream& stream_;
    size_t block_bytes_;
    std::vector<Block> blocks_;
    size_t current_ = 0;
    size_t used_ = 0;  // bytes of the current block handed out
};

} // namespace pyramid::cuda
