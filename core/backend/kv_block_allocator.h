#pragma once
// The KV cache's memory counted as the GPU's block pool hands it out: per layer and per
// sequence, whole blocks of `block_entries` entries. A cache of n entries holds ceil(n / B)
// blocks; compaction (PyramidInfer's shrinking layers) gives the emptied blocks back at once.
// The CPU backend counts its stores' memory here, so that a capacity set for it runs out at
// the very entry a pool of that size would, and "out of memory" reaches one sequence as a
// value it can be preempted or ended for, not as the end of a batch.
//
// Thread-safe: stores of sequences on different threads take and give back blocks at once.
#include <atomic>
#include <cstddef>

#include "util/error.h"

namespace pyramid {

// Blocks of `block_entries` entries that `entries` entries fill, ceil(entries / block_entries):
// the one rounding every count of KV blocks uses (stores, plans, estimates).
constexpr size_t kv_blocks_for(size_t entries, size_t block_entries)
{
    return (entries + block_entries - 1) / block_entries;
}

// A cache could not grow: the memory for its next entries is taken. The cache is as it was
// before the call that threw (all or none), so its sequence can be preempted and resumed.
class KvMemoryExhausted : public Error {
public:
    using Error::Error;
};

// What a backend's KV caches hold, counted in blocks (Backend::kv_blocks()).
struct KvBlockUse {
    int block_entries = 0;       // entries of one layer a block holds; 0: not counted in blocks
    size_t block_bytes = 0;      // one block of one layer, keys and values
    size_t capacity_blocks = 0;  // what the caches may hold together; 0: no set capacity
    size_t in_use = 0;
    // Entries compaction (KvLayerStore::keep) dropped, and the whole blocks it gave back at
    // once: blocks_freed * block_entries / entries_dropped is the share of the dropped memory
    // another sequence could use right away (the rest stays in partly filled blocks).
    size_t compaction_entries_dropped = 0;
    size_t compaction_blocks_freed = 0;
};

class KvBlockAllocator {
public:
    // block_bytes: one block of one layer (keys and values); capacity_blocks 0: no limit (host
    // memory, until an allocation fails).
    KvBlockAllocator(int block_entries, size_t block_bytes, size_t capacity_blocks);

    int block_entries() const { return block_entries_; }
    size_t block_bytes() const { return block_bytes_; }
    size_t capacity_blocks() const { return capacity_blocks_; }
    size_t blocks_in_use() const { return in_use_.load(); }
    // Blocks a layer of `entries` entries holds.
    size_t blocks_for(int entries) const;

    // Takes `count` more blocks, all or none: throws KvMemoryExhausted naming the bytes needed
    // and free when the capacity cannot hold them.
    void acquire(size_t count);
    void release(size_t count);
    // release(), for `blocks` a compaction emptied when it dropped `entries_dropped` entries.
    void release_compacted(size_t entries_dropped, size_t blocks);

    KvBlockUse use() const;

private:
    int block_entries_;
    size_t block_bytes_;
    size_t capacity_blocks_;
    std::atomic<size_t> in_use_{0};
    std::atomic<size_t> compaction_entries_dropped_{0};
    std::atomic<size_t> compaction_blocks_freed_{0};
};

} // namespace pyramid
