#include "kv_memory.h"

#include <algorithm>

#include "backend/step_memory.h"
#include "cuda_check.h"
#include "kv_ops.h"

namespace pyramid::cuda {

KvMemory::KvMemory(const KvGeometry& geometry, size_t chunk_blocks, int table_capacity, int compaction_entries,
                   WorkStream& stream, HostUploads& uploads, size_t capacity_blocks)
    : geometry_(geometry), pool_(geometry.block_bytes(), chunk_blocks, capacity_blocks), stream_(stream), uploads_(uploads),
      table_capacity_(table_capacity), compaction_entries_(std::max(compaction_entries, 1))
{
}

void KvMemory::reserve_entry_ints(size_t entries)
{
    if (entry_ints_.bytes() >= entries * sizeof(int32_t))
        return;
    // Kernels queued earlier may still read the old buffer.
    stream_.synchronize("KV index growth");
    const size_t capacity = std::max(entries, 2 * entry_ints_.bytes() / sizeof(int32_t));
    entry_ints_ = DeviceBuffer();
    entry_ints_ = DeviceBuffer(capacity * sizeof(int32_t), "KV entry indices");
}

void KvMemory::reserve_scratch(size_t entries)
{
    const size_t held = scratch_.bytes() / geometry_.entry_bytes();
    if (held >= entries)
        return;
    stream_.synchronize("KV scratch growth");
    const int capacity = grown_row_capacity(static_cast<int>(held), static_cast<int>(entries), compaction_entries_);
    scratch_ = DeviceBuffer();
    scratch_ = DeviceBuffer(static_cast<size_t>(capacity) * geometry_.entry_bytes(), "KV compaction scratch");
}

size_t KvMemory::release_cached()
{
    stream_.settle();
    const size_t released = scratch_bytes();
    scratch_ = DeviceBuffer();
    entry_ints_ = DeviceBuffer();
    return released + pool_.release_unused();
}

const int32_t* KvMemory::upload_entry_ints(std::span<const int32_t> values)
{
    reserve_entry_ints(values.size());
    uploads_.upload(entry_ints_.data(), values.data(), values.size_bytes(), "KV entry indices (upload)");
    return entry_ints_.as<int32_t>();
}

void KvMemory::compact(const KvBlockTable& table, std::span<const int> sources, int first)
{
    if (sources.empty())
        return;
    static_assert(sizeof(int) == sizeof(int32_t));
    const int32_t* device_sources = upload_entry_ints(sources);
    const int count = static_cast<int>(sources.size());
    const int pass = std::min(count, compaction_entries_);
    reserve_scratch(static_cast<size_t>(pass));
    // Passes in order are safe: a pass writes entries below first + its end, and every later
    // pass reads entries at or above that (sources[t] >= first + t, ascending).
    for (int t = 0; t < count; t += pass)
        compact_kv(table, device_sources + t, first + t, std::min(pass, count - t), scratch_.data(), stream_.kernels());
}

} // namespace pyramid::cuda
