#include "kv_ops.h"

#include <algorithm>
#include <type_traits>

#include "attention_ops.h"
#include "cuda_check.h"
#include "kernel_launch.cuh"
#include "kv_entry.cuh"
#include "rope_math.cuh"

namespace pyramid::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxGridX = 65536;  // grid-stride loops cover the rest
constexpr int kShiftWarps = 4;

int grid_for(int64_t count) { return static_cast<int>(std::min<int64_t>((count + kThreads - 1) / kThreads, kMaxGridX)); }

// A block per row: its key and its value row in their stored types (store_row).
template <typename K, typename V>
__global__ void __launch_bounds__(kThreads) store_kv_kernel(const float* k, const float* v, int n, int first_entry,
                                                            KvBlockTable table)
{
    wait_for_prior_grids();
    const KvBlockFormat& f = table.format;
    for (int t = blockIdx.x; t < n; t += gridDim.x) {
        const int e = first_entry + t;
        void* block = table.blocks[e / f.block_entries];
        store_row(k + int64_t(t) * f.kv_dim, entry_row<K>(block, e % f.block_entries, f, false), f.kv_dim);
        store_row(v + int64_t(t) * f.kv_dim, entry_row<V>(block, e % f.block_entries, f, true), f.kv_dim);
    }
}

// Grid: one block per sequence.
template <typename K, typename V>
__global__ void __launch_bounds__(kThreads) store_kv_decode_kernel(const float* k, const float* v,
                                                                   const DecodeSequence* sequences, KvBlockFormat f)
{
    wait_for_prior_grids();
    const DecodeSequence s = sequences[blockIdx.x];
    const int entry = s.len - 1;
    void* block = s.new_block;
    if (!block)
        block = s.blocks[entry / f.block_entries];
    else if (threadIdx.x == 0)  // read by the kernels after this one
        const_cast<void**>(s.blocks)[entry / f.block_entries] = block;
    const int64_t row = int64_t(s.row) * f.kv_dim;
    store_row(k + row, entry_row<K>(block, entry % f.block_entries, f, false), f.kv_dim);
    store_row(v + row, entry_row<V>(block, entry % f.block_entries, f, true), f.kv_dim);
}

// Both compaction passes copy an entry's rows as units of 4 bytes, or of 2 where a row is not a
// whole number of words (q8 and q4 rows of an odd number of blocks). Scratch holds, per moved
// entry, its key row then its value row.
template <typename Unit>
__device__ __forceinline__ Unit* unit_in_entry(const KvBlockTable& table, int e, int key_units, int value_units,
                                               int64_t w)
{
    const KvBlockFormat& f = table.format;
    char* block = static_cast<char*>(table.blocks[e / f.block_entries]);
    const int slot = e % f.block_entries;
    if (w < key_units)
        return reinterpret_cast<Unit*>(block) + int64_t(slot) * key_units + w;
    return reinterpret_cast<Unit*>(block + f.value_offset) + int64_t(slot) * value_units + (w - key_units);
}

template <typename Unit>
__global__ void kv_to_scratch_kernel(KvBlockTable table, int key_units, int value_units, const int32_t* sources,
                                     int count, Unit* scratch)
{
    wait_for_prior_grids();
    const int entry_units = key_units + value_units;
    const int64_t total = int64_t(count) * entry_units;
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x)
        scratch[i] = *unit_in_entry<Unit>(table, sources[i / entry_units], key_units, value_units, i % entry_units);
}

template <typename Unit>
__global__ void scratch_to_kv_kernel(KvBlockTable table, int key_units, int value_units, int first, int count,
                                     const Unit* scratch)
{
    wait_for_prior_grids();
    const int entry_units = key_units + value_units;
    const int64_t total = int64_t(count) * entry_units;
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x)
        *unit_in_entry<Unit>(table, first + int(i / entry_units), key_units, value_units, i % entry_units) = scratch[i];
}

// float32 and fp16 keys: a thread per pair, rotated and rounded back to the element type.
template <typename T>
__global__ void shift_keys_kernel(KvBlockTable table, int count, int n_kv_heads, int head_dim, const int32_t* shifts,
                                  float theta, RopePairs pairs)
{
    wait_for_prior_grids();
    const int half = head_dim / 2;
    const int64_t total = int64_t(count) * n_kv_heads * half;
    for (int64_t item = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; item < total;
         item += int64_t(gridDim.x) * blockDim.x) {
        const int i = int(item % half);
        const int64_t head = item / half;  // entry * n_kv_heads + h
        const int e = int(head / n_kv_heads);
        T* key = const_cast<T*>(entry_row<T>(table, e, false)) + (head % n_kv_heads) * head_dim + i * pairs.pair_step;
        float a = to_float(key[0]), b = to_float(key[pairs.stride_in_pair]);
        rope_rotate(a, b, shifts[e], i, head_dim, theta);
        key[0] = from_float<T>(a);
        key[pairs.stride_in_pair] = from_float<T>(b);
    }
}

// q8 and q4 keys: a warp per (entry, KV head) decodes the head's row into shared memory,
// rotates its pairs there (a pair may span two blocks: the two halves in Hugging Face layout)
// and quantizes the row again, block by block, as store_kv does.
//
// What it costs: the rotated key is rounded a second time, each value to within half a step
// of its block's new scale (1/254 of the block's largest magnitude in q8, 1/14 in q4) of the
// exactly rotated stored key; rotation mixes the two values of a pair, so the first rounding's
// errors are carried along, and each later shift of the same entry rounds once more. The CPU
// backend does the same (decode, cpu::rope, store_values), so both hold keys a shift step of
// rounding apart at most.
template <typename Q>
__global__ void __launch_bounds__(kShiftWarps * 32) shift_quantized_keys_kernel(KvBlockTable table, int count,
                                                                                int n_kv_heads, int head_dim,
                                                                                const int32_t* shifts, float theta,
                                                                                RopePairs pairs)
{
    wait_for_prior_grids();
    __shared__ float rows[kShiftWarps][kMaxHeadDim];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float* row = rows[warp];
    const int64_t total = int64_t(count) * n_kv_heads;
    for (int64_t item = int64_t(blockIdx.x) * kShiftWarps + warp; item < total;
         item += int64_t(gridDim.x) * kShiftWarps) {  // warp-uniform
        const int e = int(item / n_kv_heads);
        Q* key = const_cast<Q*>(at_column(entry_row<Q>(table, e, false), int(item % n_kv_heads) * head_dim));
        __syncwarp();  // the previous item's row is stored
        for (int d = lane; d < head_dim; d += 32)
            row[d] = load_value(key, d);
        __syncwarp();
        for (int i = lane; i < head_dim / 2; i += 32)
            rope_rotate(row[i * pairs.pair_step], row[i * pairs.pair_step + pairs.stride_in_pair], shifts[e], i,
                        head_dim, theta);
        __syncwarp();
        for (int b = 0; b < head_dim / kKvBlockValues; ++b)
            store_block(row[b * kKvBlockValues + lane], key[b]);
    }
}

size_t row_bytes(KvPrecision type, int kv_dim)
{
    return type == KvPrecision::F32 || type == KvPrecision::F16 ? size_t(kv_dim) * kv_element_bytes(type)
                                                                : kv_row_bytes(type, kv_dim);
}

template <typename Unit>
void compact_in_units(const KvBlockTable& table, const int32_t* sources, int first, int count, void* scratch,
                      KernelStream stream)
{
    const KvBlockFormat& f = table.format;
    const int key_units = int(row_bytes(f.key_type, f.kv_dim) / sizeof(Unit));
    const int value_units = int(row_bytes(f.value_type, f.kv_dim) / sizeof(Unit));
    const int64_t total = int64_t(count) * (key_units + value_units);
    auto* units = static_cast<Unit*>(scratch);
    launch_kernel(kv_to_scratch_kernel<Unit>, grid_for(total), kThreads, 0, stream, table, key_units, value_units,
                  sources, count, units);
    check_launch("compact_kv (gather)");
    launch_kernel(scratch_to_kv_kernel<Unit>, grid_for(total), kThreads, 0, stream, table, key_units, value_units,
                  first, count, static_cast<const Unit*>(units));
    check_launch("compact_kv (scatter)");
}

} // namespace

void store_kv(const float* k, const float* v, int n, int first_entry, const KvBlockTable& table, KernelStream stream)
{
    if (n == 0)
        return;
    dispatch_stored(table.format.key_type, [&](auto* key_tag) {
        dispatch_stored(table.format.value_type, [&](auto* value_tag) {
            using K = std::remove_pointer_t<decltype(key_tag)>;
            using V = std::remove_pointer_t<decltype(value_tag)>;
            launch_kernel(store_kv_kernel<K, V>, std::min(n, kMaxGridX), kThreads, 0, stream, k, v, n, first_entry,
                          table);
        });
    });
    check_launch("store_kv");
}

void store_kv_decode(const float* k, const float* v, const DecodeSequence* sequences, int count,
                     const KvBlockFormat& format, KernelStream stream)
{
    if (count == 0)
        return;
    dispatch_stored(format.key_type, [&](auto* key_tag) {
        dispatch_stored(format.value_type, [&](auto* value_tag) {
            using K = std::remove_pointer_t<decltype(key_tag)>;
            using V = std::remove_pointer_t<decltype(value_tag)>;
            launch_kernel(store_kv_decode_kernel<K, V>, count, kThreads, 0, stream, k, v, sequences, format);
        });
    });
    check_launch("store_kv_decode");
}

void compact_kv(const KvBlockTable& table, const int32_t* sources, int first, int count, void* scratch,
                KernelStream stream)
{
    if (count == 0)
        return;
    const KvBlockFormat& f = table.format;
    const size_t key_bytes = row_bytes(f.key_type, f.kv_dim), value_bytes = row_bytes(f.value_type, f.kv_dim);
    if (key_bytes % 2 != 0 || value_bytes % 2 != 0)
        throw Error("compact_kv: rows of " + std::to_string(key_bytes) + " and " + std::to_string(value_bytes) +
                    " bytes are not whole 2-byte units");
    if (key_bytes % 4 == 0 && value_bytes % 4 == 0 && f.value_offset % 4 == 0)
        compact_in_units<uint32_t>(table, sources, first, count, scratch, stream);
    else
        compact_in_units<uint16_t>(table, sources, first, count, scratch, stream);
}

void shift_keys(const KvBlockTable& table, int count, int n_kv_heads, int head_dim, const int32_t* shifts,
                float theta, RopeLayout layout, KernelStream stream)
{
    const int64_t heads = int64_t(count) * n_kv_heads;
    if (heads == 0)
        return;
    if (head_dim > kMaxHeadDim)
        throw Error("shift_keys: head_dim " + std::to_string(head_dim) + " above " + std::to_string(kMaxHeadDim));
    const RopePairs pairs = rope_pairs(layout, head_dim);
    dispatch_stored(table.format.key_type, [&](auto* tag) {
        using K = std::remove_pointer_t<decltype(tag)>;
        if constexpr (kValuesPerElement<K> == 1) {
            launch_kernel(shift_keys_kernel<K>, grid_for(heads * (head_dim / 2)), kThreads, 0, stream, table, count,
                          n_kv_heads, head_dim, shifts, theta, pairs);
        } else {
            const int grid = int(std::min<int64_t>((heads + kShiftWarps - 1) / kShiftWarps, kMaxGridX));
            launch_kernel(shift_quantized_keys_kernel<K>, grid, kShiftWarps * 32, 0, stream, table, count, n_kv_heads,
                          head_dim, shifts, theta, pairs);
        }
    });
    check_launch("shift_keys");
}

} // namespace pyramid::cuda
