#include "cuda_kv_layer_store.h"

#include <algorithm>
#include <cstring>

#include "cuda_check.h"
#include "backend/kv_entry_types.h"
#include "util/float16.h"

namespace pyramid::cuda {
namespace {

// The blocks a store of `entries` entries holds.
size_t blocks_holding(int entries, const KvMemory& memory)
{
    return kv_blocks_for(static_cast<size_t>(entries), static_cast<size_t>(memory.geometry().block_entries));
}

} // namespace

CudaKvLayerStore::CudaKvLayerStore(KvMemory& memory) : memory_(memory) {}

CudaKvLayerStore::~CudaKvLayerStore()
{
    // Kernels queued earlier may still read the block table freed with this store (its blocks
    // go back to the pool, where later users come after them in stream order).
    if (device_table_.data())
        memory_.stream().settle();
    release_blocks_beyond(0);
}

void CudaKvLayerStore::release_blocks_beyond(size_t keep_blocks)
{
    while (blocks_.size() > keep_blocks) {
        memory_.pool().release(blocks_.back());
        blocks_.pop_back();
    }
    device_current_ = std::min(device_current_, blocks_.size());
}

void CudaKvLayerStore::reserve_append(int n)
{
    const size_t needed = blocks_holding(size_ + n, memory_);
    if (needed > blocks_.size())
        memory_.pool().acquire(needed - blocks_.size(), blocks_);
}

void CudaKvLayerStore::release_unused()
{
    release_blocks_beyond(blocks_holding(size_, memory_));
}

void CudaKvLayerStore::reserve(int more)
{
    try {
        reserve_append(more);
    } catch (const DeviceOutOfMemory& e) {
        throw KvMemoryExhausted(e.what());
    }
}

void* CudaKvLayerStore::reserve_decode_append()
{
    reserve_append(1);
    if (device_current_ + 1 != blocks_.size() || blocks_.size() > device_capacity_)
        return nullptr;
    device_current_ = blocks_.size();  // written by store_kv_decode, in stream order
    return blocks_.back();
}

KvBlockTable CudaKvLayerStore::table()
{
    if (device_current_ < blocks_.size()) {
        if (blocks_.size() > device_capacity_) {
            // Kernels queued earlier may still read the old table.
            memory_.stream().synchronize("KV block table (growing)");
            device_capacity_ = std::max({blocks_.size(), 2 * device_capacity_,
                                         static_cast<size_t>(memory_.table_capacity())});
            device_table_ = DeviceBuffer(device_capacity_ * sizeof(void*), "a KV block table");
            device_current_ = 0;
        }
        memory_.uploads().upload(device_table_.as<void*>() + device_current_, blocks_.data() + device_current_,
                                 (blocks_.size() - device_current_) * sizeof(void*), "KV block table (upload)");
        device_current_ = blocks_.size();
    }
    return {device_table_.as<void* const>(), memory_.geometry().format()};
}

namespace {

// `values` values stored as `type` at `src` as float32 (value_at's floats).
void decode_row(KvPrecision type, const std::byte* src, float* dst, int64_t values)
{
    switch (type) {
    case KvPrecision::F32: std::memcpy(dst, src, static_cast<size_t>(values) * sizeof(float)); break;
    case KvPrecision::F16: fp16_to_fp32_row(src, dst, values); break;
    case KvPrecision::Q8: load_values(reinterpret_cast<const KvQ8Block*>(src), values, dst); break;
    case KvPrecision::Q4: load_values(reinterpret_cast<const KvQ4Block*>(src), values, dst); break;
    }
}

} // namespace

CudaKvLayerStore::Contents CudaKvLayerStore::download() const
{
    const KvGeometry& g = memory_.geometry();
    const size_t row = static_cast<size_t>(g.kv_dim);
    Contents out;
    out.keys.resize(static_cast<size_t>(size_) * row);
    out.values.resize(out.keys.size());
    memory_.stream().synchronize("KV download");
    std::vector<std::byte> block(g.block_bytes());
    for (int e0 = 0; e0 < size_; e0 += g.block_entries) {
        check(cudaMemcpy(block.data(), blocks_[static_cast<size_t>(e0 / g.block_entries)], block.size(),
                         cudaMemcpyDeviceToHost),
              "KV download");
        for (int e = e0; e < std::min(size_, e0 + g.block_entries); ++e) {
            const size_t slot = static_cast<size_t>(e - e0);
            decode_row(g.types.k, block.data() + slot * g.key_row_bytes(), out.keys.data() + static_cast<size_t>(e) * row,
                       g.kv_dim);
            decode_row(g.types.v, block.data() + g.value_offset() + slot * g.value_row_bytes(),
                       out.values.data() + static_cast<size_t>(e) * row, g.kv_dim);
        }
    }
    return out;
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
    const size_t entries_before = static_cast<size_t>(size_), blocks_before = blocks_.size();
    size_ = static_cast<int>(indices.size());
    release_blocks_beyond(blocks_holding(size_, memory_));
    memory_.pool().count_compaction(entries_before - indices.size(), blocks_before - blocks_.size());
}

} // namespace pyramid::cuda
