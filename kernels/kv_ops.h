#pragma once
// Kernels that write, compact and re-rotate one layer's block-organised key/value entries, in
// the stored types of its table (kv_block_table.h): float32, fp16, q8 or q4, keys and values
// each their own.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernel_stream.h"
#include "backend/cuda_backend_options.h"
#include "decode_batch.h"
#include "kv_block_table.h"
#include "model/model_config.h"

namespace pyramid::cuda {

// Stores n new entries at [first_entry, first_entry + n): keys k and values v, both float32
// [n, kv_dim], rounded to the table's stored types (quantized rows: as the CPU's store_values
// quantizes them, byte for byte). Their blocks must already be in the table.
void store_kv(const float* k, const float* v, int n, int first_entry, const KvBlockTable& table, KernelStream stream);

// Stores row sequences[s].row of k and v (float32 [*, kv_dim]) as entry len - 1 of sequence
// s's table, for each of the `count` sequences (a device array; the entries' blocks must
// already be in the tables; all tables of `format`). One launch for a whole decode batch.
void store_kv_decode(const float* k, const float* v, const DecodeSequence* sequences, int count,
                     const KvBlockFormat& format, KernelStream stream);

// Moves entry sources[t] to entry first + t for t < count (sources ascending, sources[t] >=
// first + t), in place: each entry's stored bytes, quantized rows with their scales. Goes
// through `scratch`, which must hold count entries (keys and values), because a parallel
// in-place move would overwrite entries before they are read.
void compact_kv(const KvBlockTable& table, const int32_t* sources, int first, int count, void* scratch,
                KernelStream stream);

// Rotates the key of every entry e < count further by shifts[e] positions (RoPE rotations
// compose, so a key encoded at p then holds position p + shifts[e]). Values are untouched.
// Quantized keys are decoded, rotated in float32 and quantized again (see kv_ops.cu for what
// that costs).
void shift_keys(const KvBlockTable& table, int count, int n_kv_heads, int head_dim, const int32_t* shifts,
                float theta, RopeLayout layout, KernelStream stream);

} // namespace pyramid::cuda
