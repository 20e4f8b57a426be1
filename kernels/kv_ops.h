#pragma once
// Kernels that write and compact one layer's block-organised key/value entries.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "decode_batch.h"
#include "kv_block_table.h"
#include "model/model_config.h"
#include "backend/cuda_backend_options.h"

namespace pyramid::cuda {

// Stores n new entries at [first_entry, first_entry + n): keys k and values v, both float32
// [n, kv_dim], rounded to the table's element type. Their blocks must already be in the table.
void store_kv(const float* k, const float* v, int n, int first_entry, const KvBlockTable& table, Precision type,
              cudaStream_t stream);

// Stores row sequences[s].row of k and v (float32 [*, kv_dim]) as entry len - 1 of sequence
// s's table, for each of the `count` sequences (a device array; the entries' blocks must
// already be in the tables). One launch for a whole decode batch.
void store_kv_decode(const float* k, const float* v, const DecodeSequence* sequences, int count, int block_entries,
                     int kv_dim, Precision type, cudaStream_t stream);

// Moves entry sources[t] to entry first + t for t < count (sources ascending, sources[t] >=
// first + t), in place. Goes through `scratch`, which must hold count entries (keys and
// values), because a parallel in-place move would overwrite entries before they are read.
void compact_kv(const KvBlockTable& table, Precision type, const int32_t* sources, int first, int count,
                void* scratch, cudaStream_t stream);

// Rotates the key of every entry e < count further by shifts[e] positions (RoPE rotations
// compose, so a key encoded at p then holds position p + shifts[e]). Values are untouched.
void shift_keys(const KvBlockTable& table, Precision type, int count, int n_kv_heads, int head_dim,
                const int32_t* shifts, float theta, RopeLayout layout, cudaStream_t stream);

} // namespace pyramid::cuda
