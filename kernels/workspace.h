#pragma once
// The activation buffers one layer step needs, sized for the largest number of rows seen so
// far (decode steps reuse them without allocating; a longer prompt grows them once). A layer
// runs a step's rows in chunks, so most buffers hold one chunk; sizes and growth follow
// backend/step_memory.h, which planners use to count this memory in advance.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "backend/step_memory.h"
#include "decode_attention.h"
#include "device_buffer.h"
#include "model/model_config.h"
#include "work_stream.h"

namespace pyramid::cuda {

class Workspace {
public:
    // layout.chunk_rows: the most rows a layer runs at once (a long prompt would otherwise need
    // its activations for every row at the same time).
    Workspace(const ModelConfig& config, const StepBufferLayout& layout, WorkStream& stream);

    // Each synchronizes the stream before replacing buffers in use.
    // Room for a chunk of `rows` rows (at most chunk_rows()).
    void reserve_chunk(int rows);
    // Room for all `rows` rows of a step: their token ids or row indices, their probe weights.
    void reserve_rows(int rows);
    // Room for probe scores over `entries` cache entries (all sequences of a step together).
    void reserve_entries(int entries);
    // Room for a prompt's probe partial sums: `floats` = attention_probe's probe_partial_floats.
    void reserve_probe_partials(size_t floats);
    // Room for the logits of `rows` rows.
    void reserve_logit_rows(int rows);
    // Room for the k highest logits of `entries` = rows * k (top_logits_ops.h).
    void reserve_top_logits(size_t entries);
    // Room for a decode batch of this layout: its sequence array, partial softmaxes and raw
    // probe scores.
    void reserve_decode(const DecodeLayout& layout);

    int chunk_rows() const { return layout_.chunk_rows; }
    // A chunk's rows:
    float* gathered() const { return gathered_.as<float>(); }  // [rows, dim]: hidden rows side by side
    void* normed() const { return normed_.data(); }      // [rows, dim] in the precision: the next projection's input
    float* q() const { return q_.as<float>(); }          // [rows, n_heads * head_dim]
    float* k() const { return k_.as<float>(); }          // [rows, kv_dim]
    float* v() const { return v_.as<float>(); }          // [rows, kv_dim]
    void* attended() const { return attended_.data(); }  // [rows, n_heads * head_dim] in the precision
    float* stats() const { return stats_.as<float>(); }  // [rows, n_heads, 2]
    int32_t* positions() const { return positions_.as<int32_t>(); }  // [rows]
    float* gate() const { return gate_.as<float>(); }    // [rows, ffn_dim]
    float* up() const { return up_.as<float>(); }        // [rows, ffn_dim]
    void* activated() const { return activated_.data(); }  // [rows, ffn_dim] in the precision
    // A step's rows:
    int32_t* row_indices() const { return row_indices_.as<int32_t>(); }    // [rows]
    float* probe_weights() const { return probe_weights_.as<float>(); }  // [rows]
    float* probe() const { return probe_.as<float>(); }    // [entries]
    float* probe_partials() const { return probe_partials_.as<float>(); }  // [n_kv_heads, entries of one sequence]
    float* logits() const { return logits_.as<float>(); }  // [logit rows, n_vocab]
    // [entries] ids, then [entries] values as float32: both come down in one copy.
    int32_t* top_logits() const { return top_logits_.as<int32_t>(); }
    DecodeSequence* decode_sequences() const { return decode_sequences_.as<DecodeSequence>(); }
    DecodeScratch decode_scratch() const;

    size_t bytes() const;
    // Changes whenever a buffer is replaced, so equal generations mean the same buffers (within
    // this workspace's life).
    std::uint64_t generation() const { return generation_; }

private:
    // Replaces `buffer` with one of at least `bytes` (twice the old size when that is more) once
    // the stream no longer uses it.
    void grow(DeviceBuffer& buffer, size_t bytes, const std::string& what);
    // Waits until the stream no longer uses the buffers, before one is replaced.
    void replacing();

    const ModelConfig& config_;
    StepBufferLayout layout_;
    WorkStream& stream_;
    int chunk_rows_ = 0;
    int rows_ = 0;
    int logit_rows_ = 0;
    std::uint64_t generation_ = 0;
    DeviceBuffer gathered_, normed_, q_, k_, v_, attended_, stats_, positions_, gate_, up_, activated_;
    DeviceBuffer row_indices_, probe_weights_;
    DeviceBuffer probe_, probe_partials_, logits_, top_logits_;
    DeviceBuffer decode_sequences_, partial_stats_, partial_out_, decode_scores_;
};

} // namespace pyramid::cuda
