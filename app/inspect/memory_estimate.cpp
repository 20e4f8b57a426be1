#include "memory_estimate.h"

#include <algorithm>
#include <string>

#include "backend/cuda_backend_options.h"
#include "backend/device_weight_layout.h"
#include "backend/kv_block_allocator.h"
#include "kv/kv_footprint.h"
#include "kv/pyramid_schedule.h"
#include "util/error.h"

namespace pyramid::inspect {
namespace {

// The CUDA backend places every tensor at a 256-byte boundary of one arena.
size_t cuda_aligned(size_t bytes) { return (bytes + 255) / 256 * 256; }

void add(WeightMemory& m, const WeightView& v, bool is_norm)
{
    m.cpu_bytes += v.bytes();
    const size_t elements = static_cast<size_t>(v.elements());
    m.parameters += elements;
    m.cuda_fp16_bytes += cuda_aligned(is_norm ? elements * 4 : device_matrix_bytes(v.type, v.elements(), 2));
}

} // namespace

WeightMemory weight_memory(const ModelWeights& w, bool with_embedding_table)
{
    WeightMemory m;
    if (with_embedding_table || w.config.tied_output)
        add(m, w.token_embedding, false);
    if (!w.config.tied_output)
        add(m, w.output, false);
    add(m, w.output_norm, true);
    for (const LayerWeights& l : w.layers) {
        for (const WeightView* norm : {&l.attn_norm, &l.ffn_norm})
            add(m, *norm, true);
        for (const WeightView* matrix : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down})
            add(m, *matrix, false);
    }
    return m;
}

size_t KvEstimate::total(const std::vector<int>& lengths, size_t bytes_per_entry)
{
    size_t entries = 0;
    for (int n : lengths)
        entries += static_cast<size_t>(n);
    return entries * bytes_per_entry;
}

KvEstimate estimate_kv(const ModelConfig& config, const PyramidSettings& pyramid, int prompt_tokens,
                       const KvTypes& types)
{
    if (prompt_tokens < 1 || prompt_tokens > config.context_length)
        throw Error("--context: a context of " + std::to_string(prompt_tokens) + " tokens is outside what the model takes (1 to " +
                    std::to_string(config.context_length) + ")");
    KvEstimate e;
    e.prompt_tokens = prompt_tokens;
    e.full_lengths.assign(static_cast<size_t>(config.n_layers), prompt_tokens);
    e.pyramid_lengths = plan_pyramid_lengths(pyramid, config.n_layers, prompt_tokens, 0).after_prefill;
    e.cpu_types = types;
    e.cuda_types = cuda::cuda_stored_kv_types(types, cuda::Precision::Fp16);
    try {
        e.bytes_per_entry_cpu = kv_entry_bytes(e.cpu_types, config.n_kv_heads, config.head_dim);
        e.bytes_per_entry_cuda = kv_entry_bytes(e.cuda_types, config.n_kv_heads, config.head_dim);
    } catch (const Error& error) {
        throw Error("--kv-type: " + std::string(error.what()));
    }
    return e;
}

namespace {

// The step-memory bound of one prompt of prompt_tokens in one step, in fp16, chunk_rows at once,
// with KV entries of entry_bytes (compaction moves them through scratch).
size_t cuda_step_bytes(const ModelWeights& w, int prompt_tokens, size_t entry_bytes, int chunk_rows)
{
    StepBufferLayout layout;
    layout.chunk_rows = chunk_rows;
    return step_memory(w.config, layout, StepExtent{prompt_tokens, 1, prompt_tokens}, entry_bytes).total();
}

// What cuda_prompt_bytes counts that depends on the prompt: the step's activations and the KV
// cache in the pool's blocks.
size_t cuda_prompt_dependent_bytes(const ModelWeights& w, const CompressionConfig& config, int prompt_tokens,
                                   size_t entry_bytes, int chunk_rows)
{
    const size_t block = static_cast<size_t>(StepBufferLayout{}.kv_block_entries);
    size_t blocks = 0;
    for (int entries : plan_kv_footprint(config, w.config.n_layers, prompt_tokens, 0).after_prefill)
        blocks += kv_blocks_for(static_cast<size_t>(entries), block);
    return cuda_step_bytes(w, prompt_tokens, entry_bytes, chunk_rows) + blocks * block * entry_bytes;
}

size_t cuda_entry_bytes(const ModelConfig& config, const KvTypes& kv_types)
{
    return kv_entry_bytes(kv_types, config.n_kv_heads, config.head_dim);
}

} // namespace

CudaScratch estimate_cuda_scratch(const ModelWeights& w, int prompt_tokens, const KvTypes& kv_types, int chunk_rows)
{
    const StepBufferLayout fp16;
    // The matrices the projections read: the output one (the token table when tied) and the layers'.
    std::vector<MatrixExtent> quantized;
    const auto add_if_quantized = [&](const WeightView& v) {
        if (is_block_quantized(v.type))
            quantized.push_back({static_cast<int>(v.rows), static_cast<int>(v.cols)});
    };
    add_if_quantized(w.output);
    for (const LayerWeights& l : w.layers)
        for (const WeightView* matrix : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down})
            add_if_quantized(*matrix);

    CudaScratch s;
    s.chunk_rows = chunk_rows;
    s.dequant = dequant_scratch_bytes(quantized, fp16.element_bytes);
    s.cublas = cublas_workspace_bytes(9);
    s.steps = cuda_step_bytes(w, prompt_tokens, cuda_entry_bytes(w.config, kv_types), chunk_rows);
    return s;
}

namespace {

// What cuda_prompt_bytes counts that depends neither on the prompt nor on the KV types: weights,
// dequantization tiles and the cuBLAS workspace.
size_t cuda_fixed_bytes(const ModelWeights& w)
{
    const CudaScratch scratch = estimate_cuda_scratch(w, 1, KvTypes{KvPrecision::F16}, kChunkRowsStep);
    return weight_memory(w).cuda_fp16_bytes + scratch.dequant + scratch.cublas;
}

// The rows the backend runs at once in `memory` with `fixed` bytes of it taken (cuda_chunk_rows).
int chunk_rows_beside(const ModelConfig& config, size_t memory, size_t fixed)
{
    return chunk_rows_for_memory(config, StepBufferLayout{}, memory > fixed ? memory - fixed : 0);
}

} // namespace

int cuda_chunk_rows(const ModelWeights& w, size_t memory)
{
    return chunk_rows_beside(w.config, memory, cuda_fixed_bytes(w));
}

size_t cuda_prompt_bytes(const ModelWeights& w, const CompressionConfig& config, int prompt_tokens,
                         const KvTypes& kv_types, int chunk_rows)
{
    return cuda_fixed_bytes(w) +
           cuda_prompt_dependent_bytes(w, config, prompt_tokens, cuda_entry_bytes(w.config, kv_types), chunk_rows);
}

int longest_prompt(const ModelWeights& w, const CompressionConfig& config, size_t memory, const KvTypes& kv_types)
{
    const size_t fixed = cuda_fixed_bytes(w);
    const size_t entry_bytes = cuda_entry_bytes(w.config, kv_types);
    const int chunk_rows = chunk_rows_beside(w.config, memory, fixed);
    // Longer prompts need more of every other part, so the lengths that fit are 1..n.
    int fits = 0, too_long = w.config.context_length + 1;
    while (too_long - fits > 1) {
        const int mid = fits + (too_long - fits) / 2;
        (fixed + cuda_prompt_dependent_bytes(w, config, mid, entry_bytes, chunk_rows) <= memory ? fits : too_long) = mid;
    }
    return fits;
}

std::vector<KvTypes> gpu_fit_kv_types(const ModelConfig& config, const KvTypes& chosen)
{
    std::vector<KvTypes> types{KvTypes{KvPrecision::F16}};
    for (KvPrecision quantized : {KvPrecision::Q8, KvPrecision::Q4})
        if (kv_values_fit(quantized, config.head_dim))
            types.push_back(KvTypes{quantized});
    const KvTypes stored = cuda::cuda_stored_kv_types(chosen, cuda::Precision::Fp16);
    if (std::find(types.begin(), types.end(), stored) == types.end())
        types.push_back(stored);
    return types;
}

} // namespace pyramid::inspect
