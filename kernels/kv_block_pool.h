#pragma once
// Device memory for key/value entries, handed out in fixed-size blocks so caches of any length
// grow and shrink without a cudaMalloc per step. The pool takes memory from the device in big
// chunks when it runs out and keeps freed blocks for reuse until release_unused() frees the
// chunks no block of which is in use, or the pool is destroyed.
#include <cstddef>
#include <vector>

#include "device_buffer.h"

namespace pyramid::cuda {

class KvBlockPool {
public:
    // block_bytes: one block's size; chunk_blocks: how many blocks each growth allocates at least;
    // capacity_blocks: the most blocks it ever holds (0: as many as the device has room for).
    KvBlockPool(size_t block_bytes, size_t chunk_blocks, size_t capacity_blocks = 0);

    // Appends `count` blocks to `out`: all of them or, when the device is out of memory, none
    // (throws DeviceOutOfMemory with the bytes needed and free, or KvMemoryExhausted past the
    // capacity).
    void acquire(size_t count, std::vector<void*>& out);
    void release(void* block);
    // Makes sure `count` blocks are free without allocating later; throws like acquire().
    // Grows by a whole chunk, or by just the blocks missing where a chunk no longer fits, so
    // the last of the device's memory still serves.
    void reserve(size_t count);
    // Frees every chunk none of whose blocks is in use; returns the bytes given back. The
    // caller makes sure no queued work still reads them.
    size_t release_unused();

    size_t block_bytes() const { return block_bytes_; }
    size_t capacity_blocks() const { return capacity_blocks_; }
    size_t blocks_total() const { return total_; }
    size_t blocks_in_use() const { return total_ - free_.size(); }
    size_t bytes_reserved() const { return total_ * block_bytes_; }

    // What compaction gave back, as KvBlockUse reports it: the stores count each keep() here.
    void count_compaction(size_t entries_dropped, size_t blocks_freed)
    {
        compaction_entries_dropped_ += entries_dropped;
        compaction_blocks_freed_ += blocks_freed;
    }
    size_t compaction_entries_dropped() const { return compaction_entries_dropped_; }
    size_t compaction_blocks_freed() const { return compaction_blocks_freed_; }

private:
    DeviceBuffer allocate(size_t blocks) const;

    size_t block_bytes_;
    size_t chunk_blocks_;
    size_t capacity_blocks_;
    size_t total_ = 0;
    size_t compaction_entries_dropped_ = 0;
    size_t compaction_blocks_freed_ = 0;
    std::vector<DeviceBuffer> chunks_;
    std::vector<void*> free_;
};

} // namespace pyramid::cuda
