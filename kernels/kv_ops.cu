#include "kv_ops.h"

#include <algorithm>
#include <type_traits>

#include "cuda_check.h"
#include "element_type.cuh"
#include "kernel_launch.cuh"
#include "rope_math.cuh"

namespace pyramid::cuda {
namespace {

constexpr int kThreads = 256;

int grid_for(int64_t count) { return static_cast<int>(std::min<int64_t>((count + kThreads - 1) / kThreads, 65536)); }

// Address of element `column` of entry e's key (values: + block_entries * row_elements).
template <typename T>
__device__ __forceinline__ T* key_slot_in(void* block, int slot, int64_t row_elements, int64_t column)
{
    return static_cast<T*>(block) + int64_t(slot) * row_elements + column;
}

template <typename T>
__device__ __forceinline__ T* key_slot(const KvBlockTable& table, int e, int64_t row_elements, int64_t column)
{
    return key_slot_in<T>(table.blocks[e / table.block_entries], e % table.block_entries, row_elements, column);
}

template <typename T>
__global__ void store_kv_kernel(const float* k, const float* v, int n, int first_entry, KvBlockTable table)
{
    const int64_t count = int64_t(n) * table.kv_dim;
    const int64_t value_offset = int64_t(table.block_entries) * table.kv_dim;
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x) {
        const int t = int(i / table.kv_dim);
        T* slot = key_slot<T>(table, first_entry + t, table.kv_dim, i % table.kv_dim);
        slot[0] = from_float<T>(k[i]);
        slot[value_offset] = from_float<T>(v[i]);
    }
}

// Grid: one block per sequence, threads over the row's kv_dim elements.
template <typename T>
__global__ void store_kv_decode_kernel(const float* k, const float* v, const DecodeSequence* sequences,
                                       int block_entries, int kv_dim)
{
    const DecodeSequence s = sequences[blockIdx.x];
    const int entry = s.len - 1;
    void* block = s.new_block;
    if (!block)
        block = s.blocks[entry / block_entries];
    else if (threadIdx.x == 0)  // read by the kernels after this one
        const_cast<void**>(s.blocks)[entry / block_entries] = block;
    const int64_t value_offset = int64_t(block_entries) * kv_dim;
    const int64_t row = int64_t(s.row) * kv_dim;
    for (int i = threadIdx.x; i < kv_dim; i += blockDim.x) {
        T* slot = key_slot_in<T>(block, entry % block_entries, kv_dim, i);
        slot[0] = from_float<T>(k[row + i]);
        slot[value_offset] = from_float<T>(v[row + i]);
    }
}

// Both compaction passes copy 32-bit words: an entry row (kv_dim elements) is a whole number
// of words because head_dim is even. Scratch holds, per moved entry, its key row then its value row.
__global__ void kv_to_scratch_kernel(KvBlockTable table, int row_words, const int32_t* sources, int count,
                                     uint32_t* scratch)
{
    const int64_t total = int64_t(count) * 2 * row_words;
    const int64_t value_offset = int64_t(table.block_entries) * row_words;
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
        const int64_t t = i / (2 * row_words);
        const int64_t w = i % (2 * row_words);
        const bool is_value = w >= row_words;
        const uint32_t* src = key_slot<uint32_t>(table, sources[t], row_words, w - (is_value ? row_words : 0));
        scratch[i] = src[is_value ? value_offset : 0];
    }
}

__global__ void scratch_to_kv_kernel(KvBlockTable table, int row_words, int first, int count, const uint32_t* scratch)
{
    const int64_t total = int64_t(count) * 2 * row_words;
    const int64_t value_offset = int64_t(table.block_entries) * row_words;
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
        const int64_t t = i / (2 * row_words);
        const int64_t w = i % (2 * row_words);
        const bool is_value = w >= row_words;
        uint32_t* dst = key_slot<uint32_t>(table, first + int(t), row_words, w - (is_value ? row_words : 0));
        dst[is_value ? value_offset : 0] = scratch[i];
    }
}

template <typename T>
__global__ void shift_keys_kernel(KvBlockTable table, int count, int n_kv_heads, int head_dim, const int32_t* shifts,
                                  float theta, RopePairs pairs)
{
    const int half = head_dim / 2;
    const int64_t total = int64_t(count) * n_kv_heads * half;
    for (int64_t item = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; item < total;
         item += int64_t(gridDim.x) * blockDim.x) {
        const int i = int(item % half);
        const int64_t head = item / half;  // entry * n_kv_heads + h
        const int e = int(head / n_kv_heads);
        T* key = key_slot<T>(table, e, table.kv_dim, (head % n_kv_heads) * head_dim + i * pairs.pair_step);
        float a = to_float(key[0]), b = to_float(key[pairs.stride_in_pair]);
        rope_rotate(a, b, shifts[e], i, head_dim, theta);
        key[0] = from_float<T>(a);
        key[pairs.stride_in_pair] = from_float<T>(b);
    }
}

} // namespace

void store_kv(const float* k, const float* v, int n, int first_entry, const KvBlockTable& table, Precision type,
              cudaStream_t stream)
{
    const int64_t count = int64_t(n) * table.kv_dim;
    if (count == 0)
        return;
    dispatch(type, [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        launch_kernel(store_kv_kernel<T>, grid_for(count), kThreads, 0, stream, k, v, n, first_entry, table);
    });
    check_launch("store_kv");
}

void store_kv_decode(const float* k, const float* v, const DecodeSequence* sequences, int count, int block_entries,
                     int kv_dim, Precision type, cudaStream_t stream)
{
    if (count == 0)
        return;
    dispatch(type, [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        launch_kernel(store_kv_decode_kernel<T>, count, kThreads, 0, stream, k, v, sequences, block_entries, kv_dim);
    });
    check_launch("store_kv_decode");
}

void compact_kv(const KvBlockTable& table, Precision type, const int32_t* sources, int first, int count,
                void* scratch, cudaStream_t stream)
{
    if (count == 0)
        return;
    const size_t row_bytes = static_cast<size_t>(table.kv_dim) * element_bytes(type);
    if (row_bytes % 4 != 0)
        throw Error("compact_kv: a key row of " + std::to_string(row_bytes) + " bytes is not a whole number of words");
    const int row_words = static_cast<int>(row_bytes / 4);
    const int64_t total = int64_t(count) * 2 * row_words;
    auto* words = static_cast<uint32_t*>(scratch);
    launch_kernel(kv_to_scratch_kernel, grid_for(total), kThreads, 0, stream, table, row_words, sources, count, words);
    check_launch("compact_kv (gather)");
    launch_kernel(scratch_to_kv_kernel, grid_for(total), kThreads, 0, stream, table, row_words, first, count, words);
    check_launch("compact_kv (scatter)");
}

void shift_keys(const KvBlockTable& table, Precision type, int count, int n_kv_heads, int head_dim,
                const int32_t* shifts, float theta, RopeLayout layout, cudaStream_t stream)
{
    const int64_t total = int64_t(count) * n_kv_heads * (head_dim / 2);
    if (total == 0)
        return;
    dispatch(type, [&](auto* tag) {
        using T = std::remove_pointer_t<decltype(tag)>;
        launch_kernel(shift_keys_kernel<T>, grid_for(total), kThreads, 0, stream,
                      table, count, n_kv_heads, head_dim, shifts, theta, rope_pairs(layout, head_dim));
    });
    check_launch("shift_keys");
}

} // namespace pyramid::cuda
