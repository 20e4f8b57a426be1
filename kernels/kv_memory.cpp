#include "kv_memory.h"

#include <algorithm>

#include "cuda_check.h"
#include "kv_ops.h"

namespace pyramid::cuda {

KvMemory::KvMemory(const KvGeometry& geometry, size_t chunk_blocks, int table_capacity, cudaStream_t stream)
    : geometry_(geometry), pool_(geometry.block_bytes(), chunk_blocks), stream_(stream), table_capacity_(table_capacity)
{
}

void KvMemory::reserve(size_t entries)
{
    if (scratch_.bytes() >= entries * geometry_.entry_bytes() && entry_ints_.bytes() >= entries * sizeof(int32_t))
        return;
    // Kernels queued earlier may still read the old buffers.
    check(cudaStreamSynchronize(stream_), "KV scratch growth");
    const size_t capacity = std::max(entries, 2 * entry_ints_.bytes() / sizeof(int32_t));
    scratch_ = DeviceBuffer();
    entry_ints_ = DeviceBuffer();
    scratch_ = DeviceBuffer(capacity * geometry_.entry_bytes(), "KV compaction scratch");
    entry_ints_ = DeviceBuffer(capacity * sizeof(int32_t), "KV entry indices");
}

const int32_t* KvMemory::upload_entry_ints(std::span<const int32_t> values)
{
    reserve(values.size());
    if (!values.empty())
        check(cudaMemcpyAsync(entry_ints_.data(), values.data(), values.size_bytes(), cudaMemcpyHostToDevice, stream_),
              "KV entry indices (upload)");
    return entry_ints_.as<int32_t>();
}

void KvMemory::compact(const KvBlockTable& table, std::span<const int> sources, int first)
{
    if (sources.empty())
        return;
    static_assert(sizeof(int) == sizeof(int32_t));
    const int32_t* device_sources = upload_entry_ints(sources);
    compact_kv(table, geometry_.type, device_sources, first, static_cast<int>(sources.size()), scratch_.data(), stream_);
}

} // namespace pyramid::cuda
