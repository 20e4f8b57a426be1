#include "cuda_kv_layer_store.h"

#include <algorithm>

#include "cuda_check.h"

namespace pyramid::cuda {

CudaKvLayerStore::CudaKvLayerStore(KvMemory& memory) : memory_(memory) {}

CudaKvLayerStore::~CudaKvLayerStore() { release_blocks_beyond(0); }

void CudaKvLayerStore::release_blocks_beyond(size_t keep_blocks)
{
    while (blocks_.size() > keep_blocks) {
        memory_.pool().release(blocks_.back());
        blocks_.pop_back();
        table_dirty_ = true;
    }
}

void CudaKvLayerStore::reserve_append(int n)
{
    const size_t per_block = static_cast<size_t>(memory_.geometry().block_entries);
    const size_t needed = (static_cast<size_t>(size_) + static_cast<size_t>(n) + per_block - 1) / per_block;
    if (needed > blocks_.size()) {
        memory_.pool().acquire(needed - blocks_.size(), blocks_);
        table_dirty_ = true;
    }
}

KvBlockTable CudaKvLayerStore::table()
{
    if (table_dirty_) {
        if (blocks_.size() > device_capacity_) {
            // Kernels queued earlier may still read the old table.
            check(cudaStreamSynchronize(memory_.stream()), "KV block table (growing)");
            device_capacity_ = std::max({blocks_.size(), 2 * device_capacity_,
                                         static_cast<size_t>(memory_.table_capacity())});
            device_table_ = DeviceBuffer(device_capacity_ * sizeof(void*), "a KV block table");
        }
        if (!blocks_.empty())
            check(cudaMemcpyAsync(device_table_.data(), blocks_.data(), blocks_.size() * sizeof(void*),
                                  cudaMemcpyHostToDevice, memory_.stream()),
                  "KV block table (upload)");
        table_dirty_ = false;
    }
    const KvGeometry& g = memory_.geometry();
    return {device_table_.as<void* const>(), g.block_entries, g.kv_dim};
}

void CudaKvLayerStore::keep(std::span<const int> indices)
{
    for (size_t t = 0; t < indices.size(); ++t)
        if (indices[t] < 0 || indices[t] >= size_ || (t > 0 && indices[t] <= indices[t - 1]))
            throw Error("KV keep: index " + std::to_string(indices[t]) + " at " + std::to_string(t) +
                        " is out of order or outside the layer's " + std::to_string(size_) + " entries");
    // Entries before the first moved one stay where they are.
    size_t first = 0;
    while (first < indices.size() && indices[first] == static_cast<int>(first))
        ++first;
    if (first < indices.size())
        memory_.compact(table(), indices.subspan(first), static_cast<int>(first));
    size_ = static_cast<int>(indices.size());
    const size_t per_block = static_cast<size_t>(memory_.geometry().block_entries);
    release_blocks_beyond((static_cast<size_t>(size_) + per_block - 1) / per_block);
}

} // namespace pyramid::cuda
