#pragma once
// attention() of attention_ops.h on the tensor cores, and the probe's scoring: the fp16
// backend's prompts (and chunks of prompts), where the CUDA cores' work grows with the square
// of the prompt and a 3840-token prompt spent most of its prefill in it (and PyramidInfer's
// probe, over the last fifth of the rows, a good part of the rest).
//
// Flash attention, one block per 64 (query row, head) pairs of one KV head, 16 pairs a warp:
// a tile of 64 keys and their values goes to shared memory once for the block, the warp's
// scores come from mma.sync (warp_mma.cuh) and stay in registers, the online softmax runs on
// them there, and the probabilities go straight back in as the A operand of P V.
//
// Precision, against the scalar kernel (float32 throughout):
//   - scores keep float32's precision: the scaled query is split into two fp16 parts,
//     hi = fp16(q) and lo = fp16(q - hi), and both are multiplied by the fp16 keys (products
//     of fp16 values are exact in float32). So the stats (row maximum and sum) are the
//     scalar kernel's up to the order of the additions, and the probe, which recomputes the
//     scores in float32, reads consistent statistics;
//   - the probabilities are rounded to fp16 for P V (relative error at most 2^-11 each), as
//     flash attention does; the sum that divides the output is taken before that rounding.
//     The output itself is fp16.
//   - q8 and q4 keys go in as their codes (exact in fp16) and each block of 32 dimensions'
//     product is multiplied by its key's scale in float32: the same exact key values as fp16
//     keys. q8 and q4 values are rounded to fp16 (scale * code, 2^-11 relative), far below
//     their own quantization step.
#include <cuda_runtime.h>

#include "kernel_stream.h"
#include "attention_ops.h"

namespace pyramid::cuda {

// Whether tensor_core_attention takes these: fp16 output, keys and values stored as fp16, q8
// or q4, and head_dim 64 or 128 (the LLaMA family's and SmolLM2's). Other cases stay with the
// CUDA cores' kernel: float32 for the golden path's exactness, and other head sizes.
bool tensor_core_attention_fits(Precision type, const KvBlockFormat& format, int head_dim);

// attention() with the same arguments and contract for the cases it fits (pyramid::Error
// otherwise): out [n, n_heads * head_dim] in fp16, stats (may be null) as attention() writes them.
void tensor_core_attention(const float* q, int n, const KvBlockTable& cache, int len, const AttentionDims& dims,
                           void* out, float* stats, KernelStream stream);

// The per-KV-head sums attention_probe_add adds up (its `partials`: [n_kv_heads, len], each
// entry's weighted probabilities over the probed rows of the head's query heads, every entry
// written), on the tensor cores for the cases tensor_core_attention fits: the scores as it
// computes them, against the stats it wrote. A block owns 64 entries of one KV head for all the
// probed rows and adds in a fixed order, so the sums have the same bits in every run.
void tensor_core_probe_partials(const float* q, int n, const KvBlockTable& cache, int len, const AttentionDims& dims,
                                const float* stats, int first_row, const float* row_weights, float* partials,
                                KernelStream stream);

} // namespace pyramid::cuda
