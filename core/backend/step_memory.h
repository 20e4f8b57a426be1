#pragma once
// The device memory a GPU backend needs to run steps, beyond its weights and KV cache: the
// activations of a step's rows, their logits, attention scratch, room to compact a layer's
// cache, and the tiles quantized matrices are expanded into. The CUDA backend sizes its
// buffers with these functions, so a planner (pyramid-bench's KV budget, pyramid-inspect's
// estimate) counts what the backend will allocate, on a machine without a GPU too.
#include <cstddef>
#include <vector>

#include "model/model_config.h"

namespace pyramid {

// Rows a layer runs at once come in steps of this many (the least a backend runs), up to
// kMaxChunkRows (chunk_rows_for_memory).
inline constexpr int kChunkRowsStep = 512;
inline constexpr int kMaxChunkRows = 4096;

// How a GPU backend lays out its step buffers (the CUDA backend's defaults).
struct StepBufferLayout {
    size_t element_bytes = 2;         // precision of norm and attention outputs (fp16 2, fp32 4)
    int chunk_rows = kChunkRowsStep;  // the most rows a layer's projections, attention and feed-forward run at once
    int kv_block_entries = 16;        // cache entries per KV pool block
    size_t kv_compaction_bytes = size_t(16) << 20;  // the most bytes one pass of KV compaction moves through scratch
    int max_top_logits = 1024;        // the most highest logits per row selected on the device
};

// The most bytes the CUDA backend's descriptor of one decoding sequence takes.
inline constexpr size_t kMaxDecodeDescriptorBytes = 64;

// The buffers of the rows a layer runs at once (one chunk of a step), in bytes.
struct ChunkBuffers {
    size_t hidden = 0;          // [rows, dim], float: hidden rows gathered side by side
    size_t normed = 0;          // [rows, dim], element_bytes
    size_t q = 0;               // [rows, n_heads * head_dim], float
    size_t k = 0, v = 0;        // [rows, kv_dim], float
    size_t attended = 0;        // [rows, n_heads * head_dim], element_bytes
    size_t stats = 0;           // [rows, n_heads, 2], float: softmax statistics
    size_t positions = 0;       // [rows], 32-bit
    size_t gate = 0, up = 0;    // [rows, ffn_dim], float
    size_t activated = 0;       // [rows, ffn_dim], element_bytes

    size_t total() const;
};
ChunkBuffers chunk_buffers(const ModelConfig& config, const StepBufferLayout& layout, int rows);

// The rows a layer of `config` runs at once (layout.chunk_rows) on a device with `free_bytes`
// left beside the weights: the most, in steps of kChunkRowsStep up to kMaxChunkRows, whose
// chunk buffers (layout's element size) take at most a 32nd of it; never fewer than
// kChunkRowsStep. Each chunk of a prompt decodes every quantized matrix into tiles again and
// gives cuBLAS products of its height, so a device with room runs a 3840-token prompt in one
// chunk instead of eight; a small card keeps its memory for the cache (LLaMA-2-7B: 188 KiB of
// buffers a row in fp16; in Q4_K_M 512 rows on 6 and 8 GB cards, 3072 on a 24 GB one, 4096 on
// an 80 GB one).
int chunk_rows_for_memory(const ModelConfig& config, const StepBufferLayout& layout, size_t free_bytes);

// The buffers of all rows of a step, in bytes.
struct StepRowBuffers {
    size_t row_indices = 0;    // [rows], 32-bit: token ids, or the rows a gather keeps
    size_t probe_weights = 0;  // [rows], float: the weights of a prompt's probed rows

    size_t total() const { return row_indices + probe_weights; }
};
StepRowBuffers step_row_buffers(int rows);

// The rows a buffer holding `held` rows is resized to for `rows` (> held): at least double,
// so a prompt that grows step by step does not reallocate every time, but never past `limit`
// unless one step alone needs more.
int grown_row_capacity(int held, int rows, int limit);

// The largest step a planner expects.
struct StepExtent {
    int rows = 1;             // rows of one step: every prompt admitted in it together
    int sequences = 1;        // sequences running together (decode steps, logits)
    int sequence_length = 0;  // the most tokens one sequence holds (0: the model's context length)
};

// An upper bound, per part, of what steps up to `extent` make the backend allocate, growth
// rounding included.
struct StepMemory {
    size_t row_buffers = 0;    // chunk and step rows, at the capacity their growth reaches
    size_t hidden_states = 0;  // float [rows, dim]: the step's (the one buffer its pool keeps)
    size_t logits = 0;         // float [sequences, n_vocab] and the highest of them, doubled by growth
    size_t attention = 0;      // probe scores, batched decode partials and descriptors of sequences at
                               // their longest, doubled by growth
    size_t kv_compaction = 0;  // one pass of compaction's scratch, and an index per entry of a layer
    size_t block_tables = 0;   // each sequence's per-layer table of pool blocks, sized for the model's context
    size_t kv_block_slack = 0; // the unfilled rest of each sequence's last KV block in every layer: KV stores
                               // count entries (what a KV budget holds), the pool hands out whole blocks

    size_t total() const;
};

// `kv_entry_bytes`: one layer's key and value of one token as the backend stores them.
StepMemory step_memory(const ModelConfig& config, const StepBufferLayout& layout, const StepExtent& extent,
                       size_t kv_entry_bytes);

// The most entries one pass of KV compaction moves (layout.kv_compaction_bytes, at least one).
int kv_compaction_entries(const StepBufferLayout& layout, size_t kv_entry_bytes);

// A quantized matrix's shape, for the dequantization scratch.
struct MatrixExtent {
    int rows = 0;  // output features
    int cols = 0;  // input features
};

// The most bytes a tile of a quantized matrix is expanded into before a GEMM: all of the
// largest one in element_bytes, capped so a big output matrix goes tile by tile, never below
// one row of the widest. Allocated once, at load. No quantized matrix: 0.
inline constexpr size_t kMaxDequantTileBytes = size_t(64) << 20;
size_t dequant_scratch_bytes(const std::vector<MatrixExtent>& quantized, size_t element_bytes);

// The cuBLAS workspace its documentation recommends (cublasSetWorkspace) for a GPU of this
// compute capability: 32 MiB on Hopper and later, 4 MiB before. Allocated once, at load.
size_t cublas_workspace_bytes(int compute_major);

} // namespace pyramid
