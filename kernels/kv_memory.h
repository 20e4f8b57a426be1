#pragma once
// What all of one backend's KV layer stores share: the block pool, the stream their kernels
// run on and the backend's staging of uploads to it, the entry geometry, and the scratch space
// compaction moves entries through.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <span>

#include "device_buffer.h"
#include "host_uploads.h"
#include "kv_block_pool.h"
#include "kv_block_table.h"
#include "backend/cuda_backend_options.h"
#include "work_stream.h"

namespace pyramid::cuda {

// The shape of every entry and block of one backend's stores. Entry bytes are the stored
// types' real bytes (q8/q4 rows: their blocks, scales included), as the CPU counts them.
struct KvGeometry {
    int kv_dim = 0;          // key (and value) values per entry
    int block_entries = 16;  // entries per pool block
    KvTypes types{KvPrecision::F16};

    size_t key_row_bytes() const { return kv_row_bytes(types.k, kv_dim); }
    size_t value_row_bytes() const { return kv_row_bytes(types.v, kv_dim); }
    size_t entry_bytes() const { return key_row_bytes() + value_row_bytes(); }  // key + value
    // The key rows, rounded up to 16 bytes so value rows start aligned for vector loads. With
    // 16 entries a block nothing is added: 16 rows of any type are a multiple of 16 bytes.
    size_t value_offset() const { return round_up_16(key_row_bytes() * static_cast<size_t>(block_entries)); }
    // Key and value rows, rounded up to 16 bytes so every block of a pool chunk starts aligned.
    size_t block_bytes() const
    {
        return round_up_16(value_offset() + value_row_bytes() * static_cast<size_t>(block_entries));
    }
    KvBlockFormat format() const
    {
        return {block_entries, kv_dim, static_cast<int>(value_offset()), types.k, types.v};
    }

private:
    static size_t round_up_16(size_t bytes) { return (bytes + 15) / 16 * 16; }
};

class KvMemory {
public:
    // chunk_blocks: the pool's growth step; table_capacity: block-table slots a new store
    // allocates up front (enough for a full context, so tables never grow in practice);
    // compaction_entries: the most entries one compaction pass moves through scratch
    // (kv_compaction_entries in backend/step_memory.h), which bounds the scratch.
    // capacity_blocks: the pool's (kv_block_pool.h; 0: the device's memory).
    KvMemory(const KvGeometry& geometry, size_t chunk_blocks, int table_capacity, int compaction_entries,
             WorkStream& stream, HostUploads& uploads, size_t capacity_blocks = 0);

    const KvGeometry& geometry() const { return geometry_; }
    KvBlockPool& pool() { return pool_; }
    const KvBlockPool& pool() const { return pool_; }
    WorkStream& stream() const { return stream_; }
    HostUploads& uploads() const { return uploads_; }
    int table_capacity() const { return table_capacity_; }

    // Moves entry sources[t] to entry first + t of `table`, in place (see compact_kv), in
    // passes of at most compaction_entries.
    void compact(const KvBlockTable& table, std::span<const int> sources, int first);
    // Bytes of the compaction scratch and the entry indices, as grown so far.
    size_t scratch_bytes() const { return scratch_.bytes() + entry_ints_.bytes(); }
    // Copies one int per entry to the device; valid until the next upload or compaction.
    const int32_t* upload_entry_ints(std::span<const int32_t> values);
    // Frees the compaction scratch, the entry indices and the pool's unused chunks once the
    // stream is done with them; they grow again when needed. Returns the bytes given back.
    size_t release_cached();

private:
    void reserve_entry_ints(size_t entries);
    void reserve_scratch(size_t entries);

    KvGeometry geometry_;
    KvBlockPool pool_;
    WorkStream& stream_;
    HostUploads& uploads_;
    int table_capacity_;
    int compaction_entries_;
    DeviceBuffer scratch_;  // grows to the largest compaction pass seen
    DeviceBuffer entry_ints_;
};

} // namespace pyramid::cuda
