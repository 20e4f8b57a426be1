#include "kv_block_pool.h"

#include <algorithm>
#include <functional>
#include <limits>

#include "backend/kv_block_allocator.h"
#include "util/error.h"

namespace pyramid::cuda {

KvBlockPool::KvBlockPool(size_t block_bytes, size_t chunk_blocks, size_t capacity_blocks)
    : block_bytes_(block_bytes), chunk_blocks_(std::max<size_t>(chunk_blocks, 1)), capacity_blocks_(capacity_blocks)
{
    if (block_bytes == 0)
        throw Error("KV block pool: blocks of 0 bytes");
}

DeviceBuffer KvBlockPool::allocate(size_t blocks) const
{
    if (blocks > std::numeric_limits<size_t>::max() / block_bytes_)
        throw Error("KV block pool: " + std::to_string(blocks) + " blocks of " + std::to_string(block_bytes_) +
                    " bytes exceed the address space");
    return DeviceBuffer(blocks * block_bytes_, "the KV cache pool (" + std::to_string(blocks) +
                                                   (blocks == 1 ? " block of " : " blocks of ") +
                                                   std::to_string(block_bytes_) + " bytes)");
}

void KvBlockPool::reserve(size_t count)
{
    if (free_.size() >= count)
        return;
    const size_t missing = count - free_.size();
    if (capacity_blocks_ != 0 && total_ + missing > capacity_blocks_)
        throw KvMemoryExhausted("out of KV-cache memory: " + std::to_string(missing) + " more blocks of " +
                                std::to_string(block_bytes_) + " bytes are needed, and the pool holds its capacity of " +
                                std::to_string(capacity_blocks_) + " with " + std::to_string(free_.size()) + " free");
    size_t blocks = std::max(chunk_blocks_, missing);
    if (capacity_blocks_ != 0)
        blocks = std::min(blocks, capacity_blocks_ - total_);
    DeviceBuffer chunk;
    try {
        chunk = allocate(blocks);
    } catch (const DeviceOutOfMemory&) {
        if (blocks == missing)
            throw;
        blocks = missing;
        chunk = allocate(blocks);
    }
    auto* base = chunk.as<std::byte>();
    // Lowest addresses handed out first: free_ is used as a stack.
    for (size_t b = blocks; b-- > 0;)
        free_.push_back(base + b * block_bytes_);
    chunks_.push_back(std::move(chunk));
    total_ += blocks;
}

void KvBlockPool::acquire(size_t count, std::vector<void*>& out)
{
    reserve(count);
    for (size_t i = 0; i < count; ++i) {
        out.push_back(free_.back());
        free_.pop_back();
    }
}

void KvBlockPool::release(void* block) { free_.push_back(block); }

size_t KvBlockPool::release_unused()
{
    std::vector<void*> free_sorted = free_;
    std::sort(free_sorted.begin(), free_sorted.end(), std::less<>());
    const auto free_in = [&](const DeviceBuffer& chunk) {
        const auto* begin = chunk.as<std::byte>();
        const auto first = std::lower_bound(free_sorted.begin(), free_sorted.end(), begin, std::less<>());
        const auto last = std::lower_bound(first, free_sorted.end(), begin + chunk.bytes(), std::less<>());
        return static_cast<size_t>(last - first);
    };
    size_t released = 0;
    std::vector<DeviceBuffer> kept;
    for (DeviceBuffer& chunk : chunks_) {
        if (free_in(chunk) * block_bytes_ == chunk.bytes()) {
            const auto* begin = chunk.as<std::byte>();
            const auto* end = begin + chunk.bytes();
            std::erase_if(free_, [&](void* b) { return std::less<>()(b, end) && !std::less<>()(b, begin); });
            total_ -= chunk.bytes() / block_bytes_;
            released += chunk.bytes();
        } else {
            kept.push_back(std::move(chunk));
        }
    }
    chunks_ = std::move(kept);  // the released chunks' memory goes back here
    return released;
}

} // namespace pyramid::cuda
