#pragma once
// How much memory a model needs to run: its weights as each backend holds them, plus the KV
// cache after a prompt of N tokens, uncompressed or as a PyramidInfer preset leaves it.
//
// CPU backend: weights used in place from the memory-mapped file (quantized stays quantized;
// only norm vectors become float32), KV cache in the types asked for (kv_precision.h). CUDA
// backend (its default precision, fp16), as it stores them on the device: quantized matrices
// (Q4_0 ... Q6_K) as their blocks (backend/device_weight_layout.h: Q6_K's regrouped, in as many
// bytes), float matrices (F32, F16, BF16) in fp16, norms in float32; KV cache in the types asked
// for as a GPU keeps them (q8 and q4 as they are, f32 and f16 as fp16: cuda_stored_kv_types), in
// the pool's 16-entry blocks; besides, the activations and scratch of a step over the whole
// prompt (backend/step_memory.h). Not counted: the CUDA runtime's own context, which depends on
// the driver.
#include <cstddef>
#include <vector>

#include "backend/kv_precision.h"
#include "backend/step_memory.h"
#include "kv/compression_config.h"
#include "model/model_weights.h"

namespace pyramid::inspect {

struct WeightMemory {
    size_t cpu_bytes = 0;        // as stored in the file: what llama.cpp reports as the model's size
    size_t cuda_fp16_bytes = 0;  // the CUDA backend in fp16 precision, as described above
    size_t parameters = 0;       // elements of the tensors counted
};

// A tied output matrix counts once. Without the embedding table: what one decode step reads
// (every matrix, but only the batch's rows of the table; a tied table is read whole as the
// output projection).
WeightMemory weight_memory(const ModelWeights& weights, bool with_embedding_table = true);

struct KvEstimate {
    int prompt_tokens = 0;
    std::vector<int> full_lengths;     // entries per layer without compression
    std::vector<int> pyramid_lengths;  // entries per layer after a PyramidInfer prefill
    KvTypes cpu_types;                 // how the CPU backend stores keys and values
    KvTypes cuda_types;                // how the CUDA backend (fp16) stores them
    size_t bytes_per_entry_cpu = 0;    // one layer's key and value of one token, stored so
    size_t bytes_per_entry_cuda = 0;   // the same as the CUDA backend stores it

    static size_t total(const std::vector<int>& lengths, size_t bytes_per_entry);
};

// Throws pyramid::Error when prompt_tokens is not in [1, config.context_length], or when the
// model's heads cannot be stored in `types` (kv_values_fit). `types`: what the cache is asked
// to hold; the CUDA columns what a GPU in fp16 stores for it (cuda_stored_kv_types).
KvEstimate estimate_kv(const ModelConfig& config, const PyramidSettings& pyramid, int prompt_tokens,
                       const KvTypes& types);

// What the CUDA backend (fp16) takes beside weights and KV cache to run one sequence whose
// prompt of prompt_tokens runs in one step, under any policy: the dequantization tiles of
// quantized matrices and the cuBLAS workspace (allocated at load, at the most: Hopper's), and
// the step's activations, chunk_rows rows at once (cuda_chunk_rows), and attention scratch (KV
// entries stored as `kv_types`, as the backend stores them: cuda_stored_kv_types).
struct CudaScratch {
    int chunk_rows = 0;
    size_t dequant = 0;
    size_t cublas = 0;
    size_t steps = 0;

    size_t total() const { return dequant + cublas + steps; }
};
CudaScratch estimate_cuda_scratch(const ModelWeights& weights, int prompt_tokens, const KvTypes& kv_types,
                                  int chunk_rows);

// The rows the CUDA backend runs at once with `memory` left for the model: chunk_rows_for_memory
// (backend/step_memory.h) of what its weights, dequantization tiles and cuBLAS workspace leave.
int cuda_chunk_rows(const ModelWeights& weights, size_t memory);

// Device memory the CUDA backend (fp16) needs for one sequence whose prompt of prompt_tokens
// runs in one step under `config`, chunk_rows rows at once: weights, activations and scratch,
// and the KV cache the prompt leaves in the pool's 16-entry blocks of entries stored as
// `kv_types` (on a full device the pool grows by just the blocks missing, so its chunks add
// nothing). `kv_types` as the backend stores them (cuda_stored_kv_types); pyramid::Error where
// they do not fit the heads.
size_t cuda_prompt_bytes(const ModelWeights& weights, const CompressionConfig& config, int prompt_tokens,
                         const KvTypes& kv_types, int chunk_rows);

// The longest prompt, up to the model's context length, for which cuda_prompt_bytes with the
// rows the backend would run at once there (cuda_chunk_rows) fits in `memory`; 0 when not even
// one token does.
int longest_prompt(const ModelWeights& weights, const CompressionConfig& config, size_t memory,
                   const KvTypes& kv_types);

// The cache types a GPU fit table compares for this model: fp16, q8 and q4 where the heads take
// their 32-value blocks, and `chosen` (as the backend stores it) after them when it is none of
// those (keys and values apart).
std::vector<KvTypes> gpu_fit_kv_types(const ModelConfig& config, const KvTypes& chosen);

} // namespace pyramid::inspect
