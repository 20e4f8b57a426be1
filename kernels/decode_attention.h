#pragma once
// Attention for a decode step of many sequences in one go (flash-decoding over ragged caches):
// every sequence of the batch brings one query row and attends to all of its own cache.
//
// Three launches however many sequences there are: a warp per (sequence, KV head, split)
// keeps an online softmax over its split's entries for the KV head's query heads; a warp per
// (sequence, head) merges the splits into the output and the row's softmax statistics; and,
// for probed sequences, a pass turns the raw scores kept by the first launch into the
// attention probe. Results match attention() and attention_probe() for a single row (n = 1)
// up to float summation order.
#include <cuda_runtime.h>

#include "kernel_stream.h"
#include "attention_ops.h"
#include "decode_batch.h"
#include "int8_rows.h"
#include "backend/cuda_backend_options.h"

namespace pyramid::cuda {

struct DecodeBatch {
    const DecodeSequence* sequences = nullptr;  // device array, laid out by lay_out_decode_batch
    DecodeLayout layout;
    KvBlockFormat format;  // every sequence's blocks (kv_dim is dims.n_kv_heads * dims.head_dim)
};

// Device scratch for one call, sized from the layout.
struct DecodeScratch {
    float* partial_stats = nullptr;  // [layout.splits * n_heads * 2]
    float* partial_out = nullptr;    // [layout.splits * n_heads * head_dim]
    float* scores = nullptr;         // [layout.scores]; may be null when nothing is probed
};

// q: float32 rows [*, n_heads * head_dim], RoPE applied; sequence s reads row
// sequences[s].row. Keys and values are read as stored (batch.format: `type`'s own element
// type, or q8 or q4 decoded in registers, head_dim then a multiple of 32; sums in float32).
// out: the same rows in `type`. stats (may be null when nothing is probed): per row and head,
// the largest scaled score and the sum of exp(score - largest), as attention() writes them. probe_out (may be null when nothing is probed): for each probed
// sequence, at probe_base + j for j < len, probe_weight * mean over heads of softmax(j).
// With also_int8 (head_dim a multiple of 32, n_heads * head_dim values a row), each row written
// is also rounded to int8 as round_rows_int8 would round it, for the fp16 matvec of the output
// projection: no launch of its own (rows of out that no sequence writes are left alone there too).
// Of the layout, the launches depend on count, grid_len and whether scores > 0 only (lengths
// and offsets are read from the sequences on the device), so a recording of them stays right for
// any batch with those three equal (decode_layer_launch.h).
void decode_attention(const float* q, const DecodeBatch& batch, const AttentionDims& dims, Precision type,
                      void* out, float* stats, const DecodeScratch& scratch, float* probe_out, KernelStream stream,
                      const Int8Rows& also_int8 = {});

} // namespace pyramid::cuda
