#pragma once
// Causal grouped-query attention over one layer's block-organised cache, and the attention
// probe the compression policies read (see AttentionProbe in core/backend/backend.h). Keys and
// values are read as the cache stores them (cache.format: `type`'s own element type, q8 or q4;
// kv_block_table.h), quantized entries decoded on their way into shared memory as float32, so
// the probe scores come from the very keys attention used.
// Neither ever forms an n x len matrix: attention keeps a running (online) softmax per
// query row and head, and the probe recomputes each score from the softmax statistics the
// attention pass left behind.
#include <cuda_runtime.h>

#include <cstddef>

#include "kernel_stream.h"
#include "kv_block_table.h"
#include "backend/cuda_backend_options.h"

namespace pyramid::cuda {

struct AttentionDims {
    int n_heads = 0;
    int n_kv_heads = 0;  // divides n_heads
    int head_dim = 0;    // even, at most kMaxHeadDim
};
inline constexpr int kMaxHeadDim = 256;

// What the prompt attention kernels (both below) and the probe read: n query rows q over the
// first len entries of `cache`, the last n of which are these rows'. One definition, so the
// kernels' launch parameters cannot disagree on it.
struct AttentionRows {
    const float* q = nullptr;
    int n = 0;
    KvBlockTable cache;
    int len = 0;
    int n_heads = 0;
    int group = 0;  // query heads per KV head
    int head_dim = 0;
    float scale = 0.0f;  // 1 / sqrt(head_dim)
};
AttentionRows attention_rows(const float* q, int n, const KvBlockTable& cache, int len, const AttentionDims& dims);

// q: float32 [n, n_heads * head_dim], RoPE applied. head_dim must be a multiple of 32 for q8
// or q4 entries (pyramid::Error otherwise). The cache holds `len` entries whose last n
// are these rows, so row i sees entries [0, len - n + i]. out: [n, n_heads * head_dim] in
// `type`. stats (may be null): per row and head, the row's largest scaled score and the sum of
// exp(score - largest), two floats at (i * n_heads + h) * 2.
void attention(const float* q, int n, const KvBlockTable& cache, int len, const AttentionDims& dims, Precision type,
               void* out, float* stats, KernelStream stream);

// The two kernels attention() chooses between: tensor_core_attention (tensor_core_attention.h)
// where it fits (fp16, head_dim 64 or 128, any entry type), and otherwise this one, on the CUDA
// cores in float32 for every case attention() takes: one lane scores one key of a tile of 32 and
// a block shares each tile among 16 (row, head) pairs. Benchmarks time the two side by side.
void cuda_core_attention(const float* q, int n, const KvBlockTable& cache, int len, const AttentionDims& dims,
                         Precision type, void* out, float* stats, KernelStream stream);

// out[j] (len floats, overwritten) = sum over rows i >= first_row of
//   row_weights[i - first_row] * mean over heads of softmax(i, j),
// from the same q and cache as attention() and the stats it wrote. partials: scratch of
// n_kv_heads * len floats (probe_partial_floats), through which the sum over heads is added in a
// fixed order: the result has the same bits in every run.
void attention_probe(const float* q, int n, const KvBlockTable& cache, int len, const AttentionDims& dims,
                     Precision type, const float* stats, int first_row, const float* row_weights, float* partials,
                     float* out, KernelStream stream);

// The same sum added to out[j] for j < len (out is not cleared). A prompt run in chunks adds
// each chunk's rows once their entries are stored: row i's softmax covers only entries up to
// its own, so the chunks' sums together are the probe of all rows.
void attention_probe_add(const float* q, int n, const KvBlockTable& cache, int len, const AttentionDims& dims,
                         Precision type, const float* stats, int first_row, const float* row_weights, float* partials,
                         float* out, KernelStream stream);

// The scratch attention_probe needs for a cache of `len` entries.
inline size_t probe_partial_floats(const AttentionDims& dims, int len)
{
    return static_cast<size_t>(dims.n_kv_heads) * static_cast<size_t>(len);
}

} // namespace pyramid::cuda
