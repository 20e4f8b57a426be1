#include "backend/kv_block_allocator.h"

#include <string>

#include "util/byte_size.h"

namespace pyramid {

KvBlockAllocator::KvBlockAllocator(int block_entries, size_t block_bytes, size_t capacity_blocks)
    : block_entries_(block_entries), block_bytes_(block_bytes), capacity_blocks_(capacity_blocks)
{
    if (block_entries < 1)
        throw Error("a KV block holds at least one entry (block_entries " + std::to_string(block_entries) + ")");
}

size_t KvBlockAllocator::blocks_for(int entries) const
{
    return kv_blocks_for(static_cast<size_t>(entries), static_cast<size_t>(block_entries_));
}

void KvBlockAllocator::acquire(size_t count)
{
    size_t used = in_use_.load();
    for (;;) {
        if (capacity_blocks_ != 0 && used + count > capacity_blocks_)
            throw KvMemoryExhausted("out of KV-cache memory: " + std::to_string(count) + " more blocks of " +
                                    std::to_string(block_entries_) + " entries (" +
                                    byte_size_text(count * block_bytes_) + ") are needed and " +
                                    byte_size_text((capacity_blocks_ - used) * block_bytes_) + " of " +
                                    byte_size_text(capacity_blocks_ * block_bytes_) + " are free");
        if (in_use_.compare_exchange_weak(used, used + count))
            return;
    }
}

void KvBlockAllocator::release(size_t count)
{
    in_use_.fetch_sub(count);
}

void KvBlockAllocator::release_compacted(size_t entries_dropped, size_t blocks)
{
    compaction_entries_dropped_.fetch_add(entries_dropped);
    compaction_blocks_freed_.fetch_add(blocks);
    release(blocks);
}

KvBlockUse KvBlockAllocator::use() const
{
    return {block_entries_,      block_bytes_, capacity_blocks_, in_use_.load(), compaction_entries_dropped_.load(),
            compaction_blocks_freed_.load()};
}

} // namespace pyramid
