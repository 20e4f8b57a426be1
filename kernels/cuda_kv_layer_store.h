#pragma once
// One layer's keys and values on the GPU: a list of pool blocks (the block table, mirrored on
// the device for the kernels) holding `size` entries in order. keep() compacts in place on the
// GPU and hands emptied blocks back to the pool. A store must not outlive its backend.
#include <span>
#include <vector>

#include "backend/backend.h"
#include "device_buffer.h"
#include "kv_memory.h"

namespace pyramid::cuda {

class CudaKvLayerStore final : public KvLayerStore {
public:
    explicit CudaKvLayerStore(KvMemory& memory);
    ~CudaKvLayerStore() override;
    CudaKvLayerStore(const CudaKvLayerStore&) = delete;
    CudaKvLayerStore& operator=(const CudaKvLayerStore&) = delete;

    int size() const override { return size_; }
    void keep(std::span<const int> indices) override;
    size_t bytes() const override { return static_cast<size_t>(size_) * memory_.geometry().entry_bytes(); }
    // reserve_append(), with the device's being out of memory said as KvMemoryExhausted.
    void reserve(int more) override;
    void release_unused() override;

    // Takes blocks for n more entries (all or none: throws pyramid::Error when out of memory).
    void reserve_append(int n);
    // reserve_append(1) for a decode step. Returns the block the entry starts when the device
    // table lacks only that one, for store_kv_decode to write into it (DecodeSequence::new_block):
    // then table() uploads nothing, and decode steps stay the same kernels and copies, step after
    // step, as one recorded graph needs (work_stream.h). Otherwise null.
    void* reserve_decode_append();
    // Counts n entries written at [size(), size() + n) as stored.
    void commit_append(int n) { size_ += n; }
    // The device view of the blocks; those it lacks are uploaded first.
    KvBlockTable table();
    int blocks_held() const { return static_cast<int>(blocks_.size()); }

    // The entries as float32 on the host, [size, kv_dim] each, decoded from their stored types
    // (tests and diagnostics; waits for the stream).
    struct Contents {
        std::vector<float> keys;
        std::vector<float> values;
    };
    Contents download() const;

private:
    void release_blocks_beyond(size_t keep_blocks);

    KvMemory& memory_;
    std::vector<void*> blocks_;
    DeviceBuffer device_table_;
    size_t device_capacity_ = 0;  // block pointers device_table_ holds
    size_t device_current_ = 0;   // leading entries of the device table that are blocks_'s
    int size_ = 0;
};

} // namespace pyramid::cuda
